"""Frames and values that cross between the engine and its reference/candidate processes.

A frame is a JSON header plus an opaque payload. Values (constructor arguments, inputs, outputs)
travel as a JSON description plus raw tensor bytes, never as pickles: unpickling a candidate's
output would let it run code in the engine.

The channels are Unix stream sockets. A payload its sender shares (a reference's case inputs, from
SHARE_MIN bytes) travels as a sealed memfd passed with the frame (SCM_RIGHTS) instead of through the
socket: the engine relays the descriptor without reading it, the candidate maps it. Through the socket,
a case's inputs were copied four times on their way (into the kernel and out, in the engine and again);
a memfd is written once. Sealed (no write, shrink or grow), nobody can change it once sent.

The other way, a candidate makes no memfd (its seccomp filter refuses one): with a run whose inputs were
shared the engine passes it an empty one, a sink, to write big outputs into; the engine seals it once the
candidate has answered (which fails if the candidate still maps it writable) and hands it to the reference.
"""
from __future__ import annotations

import array
import errno
import fcntl
import json
import math
import mmap
import os
import select
import socket
import stat
import struct
import time
import warnings
from contextlib import contextmanager
from typing import Any

_HEAD = struct.Struct(">IQ")  # header length, payload length
_ALIGN = 64
_MAX_HEADER = 1 << 26


class WireTimeout(Exception):
    """No complete frame within the deadline."""


class WireClosed(Exception):
    """The other end closed its socket (it exited or died)."""


class WireError(ValueError):
    """A value that cannot travel (not a tensor, scalar, string, dtype, None or list of those)."""


_OOM_TEXT = ("can't allocate memory", "out of memory", "DefaultCPUAllocator", "Cannot allocate memory")


def is_oom(e: BaseException) -> bool:
    """An allocation that failed: MemoryError, mmap's ENOMEM, or torch's allocators' RuntimeError."""
    return (isinstance(e, MemoryError) or (isinstance(e, OSError) and e.errno == errno.ENOMEM)
            or (isinstance(e, RuntimeError) and any(s in str(e) for s in _OOM_TEXT)))


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


def _wait(fd: int, write: bool, deadline: float | None) -> None:
    remaining = None if deadline is None else deadline - time.monotonic()
    if remaining is not None and remaining <= 0:
        raise WireTimeout()
    r, w, _ = select.select([] if write else [fd], [fd] if write else [], [], remaining)
    if not r and not w:
        raise WireTimeout()


def send_frame(fd: int, header: dict, payload: bytes | bytearray | memoryview | list | Shared = b"",
               deadline: float | None = None, share_from: int | None = None, sink: int | None = None) -> None:
    """payload: bytes, a list of buffers sent one after the other (encode_parts: no joined copy), or a Shared
    one (its descriptor goes with the frame). share_from: a payload of at least that many bytes is shared.
    sink: a memfd passed along for the receiver to write its reply's payload into (it gets header["_sink"])."""
    shared = payload if isinstance(payload, Shared) else None
    parts = [] if shared else [memoryview(p).cast("B") for p in (payload if isinstance(payload, list) else [payload])]
    if shared is None and share_from is not None and payload_size(parts) >= share_from:
        shared, parts = share(parts), []
    try:
        passed = []
        if shared is not None:
            header = {**header, "_shared": shared.nbytes}
            passed.append(shared.fd)
        if sink is not None:
            header = {**header, "_sink": True}
            passed.append(sink)
        head = json.dumps(header, allow_nan=True).encode()
        data = memoryview(b"".join([_HEAD.pack(len(head), payload_size(parts)), head]))
        if passed:  # the descriptors travel with the frame's first bytes
            _wait(fd, True, deadline)
            data = data[_sendmsg(fd, data[: 1 << 20], passed):]
        for chunk in (data, *parts):
            while len(chunk):
                _wait(fd, True, deadline)
                try:
                    n = os.write(fd, chunk[: 1 << 20])
                except (BrokenPipeError, ConnectionResetError) as e:
                    raise WireClosed() from e
                chunk = chunk[n:]
    finally:
        if shared is not None and shared is not payload:
            shared.close()


def _sendmsg(fd: int, data: memoryview, passed: list[int]) -> int:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fd)
    try:
        return socket.send_fds(sock, [data], passed)
    except (BrokenPipeError, ConnectionResetError) as e:
        raise WireClosed() from e
    finally:
        sock.detach()


def _read_exact(fd: int, n: int, deadline: float | None, passed: list | None = None) -> bytearray:
    """n bytes; with `passed`, descriptors that came with them are appended there (else the kernel drops them)."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fd) if passed is not None else None
    try:
        while got < n:
            _wait(fd, False, deadline)
            try:
                if sock is not None:
                    k, fds, _flags, _addr = sock.recvmsg_into([view[got:]], socket.CMSG_SPACE(4 * 4))
                    passed.extend(_fds(fds))
                else:
                    k = os.readv(fd, [view[got: got + (1 << 20)]])
            except ConnectionResetError:  # a socket's peer closed with data of ours unread
                k = 0
            if k == 0:
                raise WireClosed()
            got += k
    finally:
        if sock is not None:
            sock.detach()
    return buf


def _fds(ancillary: list) -> list[int]:
    """The descriptors an SCM_RIGHTS message carried."""
    out = array.array("i")
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            out.frombytes(data[: len(data) - len(data) % out.itemsize])
    return list(out)


def recv_frame(fd: int, deadline: float | None = None, max_payload: int = 1 << 36,
               accept_shared: bool = False) -> tuple[dict, bytearray | Shared]:
    """One frame; WireError when the other side sends something that is not a frame we accept.
    accept_shared: the payload may be a Shared one (a socket whose sender shares), and a sink may come with it
    (its descriptor in header["_sink"], the receiver's to close); otherwise a descriptor that came along is
    closed unread."""
    passed: list[int] | None = [] if accept_shared else None
    try:
        hlen, plen = _HEAD.unpack(bytes(_read_exact(fd, _HEAD.size, deadline, passed)))
        if hlen > _MAX_HEADER or plen > max_payload:
            raise WireError(f"frame too large (header {hlen} bytes, payload {plen} bytes)")
        try:
            header = json.loads(bytes(_read_exact(fd, hlen, deadline)))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise WireError(f"malformed frame header ({e})") from None
        if not isinstance(header, dict):
            raise WireError("malformed frame header (not an object)")
        expected = ("_shared" in header) + ("_sink" in header)
        if expected and (passed is None or len(passed) != expected):
            raise WireError(f"malformed shared payload ({expected} descriptors declared, {len(passed or [])} came)")
        if "_shared" not in header:
            payload = _read_exact(fd, plen, deadline)
        else:
            nbytes = header.pop("_shared")
            if plen or not isinstance(nbytes, int) or not 0 <= nbytes <= max_payload:
                raise WireError(f"malformed shared payload ({nbytes!r} bytes)")
            if not stat.S_ISREG(os.fstat(passed[0]).st_mode):
                raise WireError("shared payload is not a memory file")
            payload = Shared(passed.pop(0), nbytes)
        if "_sink" in header:
            header["_sink"] = passed.pop()
        return header, payload
    finally:
        for extra in passed or []:
            os.close(extra)


# -- values -------------------------------------------------------------------------------------

def _raw(flat) -> memoryview:
    """The bytes of a contiguous 1-D tensor, without copying them (send_frame writes them as they are)."""
    import torch

    return memoryview(flat.view(torch.uint8).numpy()) if flat.numel() else memoryview(b"")


def _tensor_bytes(t) -> tuple[memoryview, dict]:
    """The bytes to send and how to lay them out again: contiguous data, or the storage span of a view."""
    import torch

    if t.is_contiguous() or t.numel() == 0:
        return _raw(t.contiguous().reshape(-1)), {}
    # a transposed, sliced or expanded view: send the storage span it covers and its strides, so the
    # candidate meets the same layout the problem built (stride bugs must be able to show)
    extent = 1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()))
    span = torch.as_strided(t, (extent,), (1,), t.storage_offset()).contiguous()
    return _raw(span), {"stride": list(t.stride()), "span": extent}


def encode_values(values: Any, keep_layout: bool = True) -> tuple[Any, bytes]:
    """Describe a nested value as JSON plus one byte payload holding every tensor's data.

    keep_layout: non-contiguous tensors keep their strides (inputs); otherwise they travel contiguous (outputs).
    """
    desc, parts = encode_parts(values, keep_layout)
    return desc, b"".join(parts)


def encode_parts(values: Any, keep_layout: bool = True) -> tuple[Any, list]:
    """encode_values with the payload as the list of its pieces (views of the tensors' own memory where they are
    contiguous): send_frame writes them one after another, so a case's tensors are not copied once more."""
    chunks: list = []
    offset = 0

    def enc(v: Any) -> Any:
        nonlocal offset
        import torch

        if isinstance(v, torch.Tensor):
            # a subclass could carry its own behaviour across: keep only the data
            t = torch.Tensor.as_subclass(v, torch.Tensor).detach()
            if t.device.type != "cpu":
                t = t.cpu()
            raw, layout = _tensor_bytes(t if keep_layout else t.contiguous())
            pad = (-offset) % _ALIGN
            if pad:
                chunks.append(b"\0" * pad)
                offset += pad
            desc = {"kind": "tensor", "dtype": str(t.dtype).removeprefix("torch."),
                    "shape": list(t.shape), "offset": offset, "nbytes": raw.nbytes, **layout}
            chunks.append(raw)
            offset += raw.nbytes
            return desc
        if v is None or isinstance(v, (bool, int, float, str)):
            return {"kind": "json", "value": v}
        if isinstance(v, torch.dtype):
            return {"kind": "dtype", "value": str(v).removeprefix("torch.")}
        if isinstance(v, (list, tuple)):
            return {"kind": type(v).__name__, "items": [enc(x) for x in v]}
        raise WireError(f"unsupported value of type {type(v).__name__}")

    desc = enc(values)
    return desc, chunks


def decode_values(desc: Any, payload: bytearray, copy: bool = True) -> Any:
    """Rebuild what encode_values described; tensors are fresh, writable CPU tensors (copy=False: views of the
    payload, which they keep alive; for a reader that owns the payload and only reads the values; a read-only
    payload is always copied)."""
    import torch

    readonly = memoryview(payload).readonly

    def tensor(d: dict):
        dtype = getattr(torch, str(d["dtype"]), None)
        if not isinstance(dtype, torch.dtype):
            raise WireError(f"unknown dtype {d['dtype']!r}")
        shape = [int(n) for n in d["shape"]]
        if any(n < 0 for n in shape):
            raise WireError(f"negative size in shape {shape}")
        numel = math.prod(shape)
        if numel == 0:
            return torch.empty(shape, dtype=dtype)
        count = int(d["span"]) if "stride" in d else numel
        offset = int(d["offset"])
        if offset < 0 or offset + count * dtype.itemsize > len(payload):
            raise WireError("tensor data lies outside the payload")
        if readonly:  # a shared payload's mapping: copied at once (torch warns of a buffer it may not write)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                flat = torch.frombuffer(payload, dtype=dtype, count=count, offset=offset).clone()
        else:
            flat = torch.frombuffer(payload, dtype=dtype, count=count, offset=offset)
            flat = flat.clone() if copy else flat
        if "stride" in d:
            return torch.as_strided(flat, shape, [int(x) for x in d["stride"]])  # checks bounds itself
        return flat.reshape(shape)

    def dec(d: Any) -> Any:
        if not isinstance(d, dict):
            raise WireError("malformed value description")
        kind = d.get("kind")
        if kind == "tensor":
            try:
                return tensor(d)
            except (KeyError, TypeError, ValueError, RuntimeError) as e:
                if is_oom(e):  # the copy did not fit: out of memory, not a bad description
                    raise
                raise WireError(f"malformed tensor description ({e})") from None
        if kind == "json":
            return d["value"]
        if kind == "dtype":
            return getattr(torch, d["value"])
        if kind in ("list", "tuple"):
            items = [dec(x) for x in d["items"]]
            return items if kind == "list" else tuple(items)
        raise WireError(f"unknown value kind {kind!r}")

    return dec(desc)
