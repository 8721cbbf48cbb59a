"""Frames and values that cross between the engine and its reference/candidate processes.

A frame is a JSON header plus an opaque payload. Values (constructor arguments, inputs, outputs)
travel as a JSON description plus raw tensor bytes, never as pickles: unpickling a candidate's
output would let it run code in the engine.
"""
from __future__ import annotations

import json
import math
import os
import select
import struct
import time
from typing import Any

_HEAD = struct.Struct(">IQ")  # header length, payload length
_ALIGN = 64
_MAX_HEADER = 1 << 26


class WireTimeout(Exception):
    """No complete frame within the deadline."""


class WireClosed(Exception):
    """The other end closed its pipe (it exited or died)."""


class WireError(ValueError):
    """A value that cannot travel (not a tensor, scalar, string, dtype, None or list of those)."""


def _wait(fd: int, write: bool, deadline: float | None) -> None:
    remaining = None if deadline is None else deadline - time.monotonic()
    if remaining is not None and remaining <= 0:
        raise WireTimeout()
    r, w, _ = select.select([] if write else [fd], [fd] if write else [], [], remaining)
    if not r and not w:
        raise WireTimeout()


def send_frame(fd: int, header: dict, payload: bytes | bytearray | memoryview | list = b"",
               deadline: float | None = None) -> None:
    """payload: bytes, or a list of buffers sent one after the other (encode_parts: no joined copy)."""
    parts = [memoryview(p).cast("B") for p in (payload if isinstance(payload, list) else [payload])]
    head = json.dumps(header, allow_nan=True).encode()
    data = memoryview(b"".join([_HEAD.pack(len(head), sum(p.nbytes for p in parts)), head]))
    for chunk in (data, *parts):
        while len(chunk):
            _wait(fd, True, deadline)
            try:
                n = os.write(fd, chunk[: 1 << 20])
            except BrokenPipeError as e:
                raise WireClosed() from e
            chunk = chunk[n:]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytearray:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        _wait(fd, False, deadline)
        k = os.readv(fd, [view[got: got + (1 << 20)]])
        if k == 0:
            raise WireClosed()
        got += k
    return buf


def recv_frame(fd: int, deadline: float | None = None, max_payload: int = 1 << 36) -> tuple[dict, bytearray]:
    """One frame; WireError when the other side sends something that is not a frame we accept."""
    hlen, plen = _HEAD.unpack(bytes(_read_exact(fd, _HEAD.size, deadline)))
    if hlen > _MAX_HEADER or plen > max_payload:
        raise WireError(f"frame too large (header {hlen} bytes, payload {plen} bytes)")
    try:
        header = json.loads(bytes(_read_exact(fd, hlen, deadline)))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise WireError(f"malformed frame header ({e})") from None
    if not isinstance(header, dict):
        raise WireError("malformed frame header (not an object)")
    return header, _read_exact(fd, plen, deadline)


# -- values -------------------------------------------------------------------------------------

def _raw(flat) -> memoryview:
    """The bytes of a contiguous 1-D tensor, without copying them (the frame is joined once)."""
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
    payload, which they keep alive; for a reader that owns the payload and only reads the values)."""
    import torch

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
        flat = torch.frombuffer(payload, dtype=dtype, count=count, offset=offset)
        if copy:
            flat = flat.clone()
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
