"""Shared payloads: sealed memfds that travel with a frame instead of its bytes.

A payload its sender shares (a reference's case inputs, from SHARE_MIN bytes) travels as a sealed memfd
passed with the frame (SCM_RIGHTS) instead of through the socket: the engine relays the descriptor without
reading it, the candidate maps it. Through the socket, a case's inputs were copied four times on their way
(into the kernel and out, in the engine and again); a memfd is written once. Sealed (no write, shrink or
grow), nobody can change it once sent.

The other way, a candidate makes no memfd (its seccomp filter refuses one): with a run whose inputs were
shared the engine passes it an empty one, a sink, to write big outputs into; the engine seals it once the
candidate has answered (which fails if the candidate still maps it writable) and hands it to the reference.
"""
from __future__ import annotations

import fcntl
import mmap
import os
from contextlib import contextmanager

from repair.engine.wire_errors import WireError

SHARE_MIN = 1 << 16  # a shared payload from this size travels as a memfd
_SEALS = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE


class Shared:
    """A payload in a sealed memfd, as a frame delivered it: relayed by passing the descriptor on, read by
    mapping it (`mapped`). Closed when dropped."""

    def __init__(self, fd: int, nbytes: int):
        self.fd, self.nbytes = fd, nbytes

    def __len__(self) -> int:
        return self.nbytes

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        self.close()

    def _check(self) -> None:
        """WireError unless it is a sealed memfd of the declared size (nobody can then change it or cut it short
        under a reader: no SIGBUS)."""
        try:
            size = os.fstat(self.fd).st_size
            seals = fcntl.fcntl(self.fd, fcntl.F_GET_SEALS)
        except OSError as e:
            raise WireError(f"shared payload unreadable ({e})") from None
        if size != self.nbytes or seals & _SEALS != _SEALS:
            raise WireError(f"shared payload not sealed at its size ({size} bytes, {self.nbytes} declared)")

    @contextmanager
    def mapped(self):
        """A read-only memoryview of the payload while the block runs (read-only: RLIMIT_DATA, cuda's memory limit,
        does not count such a mapping, where it counts a private writable one)."""
        self._check()
        if not self.nbytes:
            yield memoryview(b"")
            return
        m = mmap.mmap(self.fd, self.nbytes, prot=mmap.PROT_READ)
        view = memoryview(m)
        try:
            yield view
        finally:
            view.release()
            m.close()

    def private(self) -> memoryview:
        """A writable private mapping of the payload (what its reader writes stays its own), alive as long as
        something holds it: tensors viewing it need no copy."""
        self._check()
        if not self.nbytes:
            return memoryview(bytearray())
        return memoryview(mmap.mmap(self.fd, self.nbytes, flags=mmap.MAP_PRIVATE,
                                    prot=mmap.PROT_READ | mmap.PROT_WRITE))


def new_sink() -> int:
    """An empty memfd that can be sealed: where a candidate writes big outputs (see `seal`)."""
    return os.memfd_create("repair-payload", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)


def payload_size(parts: list) -> int:
    """Bytes in a payload given as a list of buffers (encode_parts)."""
    return sum(memoryview(p).nbytes for p in parts)


def write_parts(fd: int, parts: list) -> int:
    """Write the parts into a file descriptor, one after another; their total size."""
    nbytes = 0
    for part in parts:
        chunk = memoryview(part).cast("B")
        nbytes += chunk.nbytes
        while len(chunk):
            chunk = chunk[os.write(fd, chunk[: 1 << 30]):]
    return nbytes


def seal(fd: int, nbytes: int) -> Shared:
    """The memfd, sealed for good, as a Shared payload of nbytes (WireError where it cannot be sealed: someone
    maps it writable, or it is no memfd made for sealing; or where it does not hold nbytes)."""
    try:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS | fcntl.F_SEAL_SEAL)
        size = os.fstat(fd).st_size
    except OSError as e:
        os.close(fd)
        raise WireError(f"shared payload could not be sealed ({e})") from None
    if size != nbytes:
        os.close(fd)
        raise WireError(f"shared payload holds {size} bytes, {nbytes} declared")
    return Shared(fd, nbytes)


def share(parts: list) -> Shared:
    """The parts, written once into a new memfd and sealed."""
    fd = new_sink()
    try:
        nbytes = write_parts(fd, parts)
    except BaseException:
        os.close(fd)
        raise
    return seal(fd, nbytes)
