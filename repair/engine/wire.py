"""Frames between the engine and its sandbox processes: a JSON header and a payload over a Unix stream socket.

The payload is bytes, or a shared one (repair/engine/memfd.py) whose descriptor goes with the frame.
"""
from __future__ import annotations

import array
import json
import os
import select
import socket
import stat
import struct
import time

from repair.engine.memfd import Shared, payload_size, share
from repair.engine.wire_errors import WireClosed, WireError, WireTimeout

_HEAD = struct.Struct(">IQ")  # header length, payload length
_MAX_HEADER = 1 << 26


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
