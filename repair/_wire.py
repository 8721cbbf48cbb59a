"""Frames and values that cross between the engine and its reference/candidate processes.

A frame is a JSON header plus an opaque payload. Values (constructor arguments, inputs, outputs)
travel as a JSON description plus raw tensor bytes, never as pickles: unpickling a candidate's
output would let it run code in the engine.
"""
from __future__ import annotations

import json
import os
import select
import struct
import time
from typing import Any

_HEAD = struct.Struct(">IQ")  # header length, payload length
_ALIGN = 64


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


def send_frame(fd: int, header: dict, payload: bytes | bytearray | memoryview = b"",
               deadline: float | None = None) -> None:
    head = json.dumps(header, allow_nan=True).encode()
    data = memoryview(b"".join([_HEAD.pack(len(head), len(payload)), head]))
    for chunk in (data, memoryview(payload)):
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


def recv_frame(fd: int, deadline: float | None = None) -> tuple[dict, bytearray]:
    hlen, plen = _HEAD.unpack(bytes(_read_exact(fd, _HEAD.size, deadline)))
    header = json.loads(bytes(_read_exact(fd, hlen, deadline)))
    return header, _read_exact(fd, plen, deadline)


# -- values -------------------------------------------------------------------------------------

def _tensor_bytes(t) -> tuple[bytes, dict]:
    """The bytes to send and how to lay them out again: contiguous data, or the storage span of a view."""
    import torch

    if t.is_contiguous() or t.numel() == 0:
        flat = t.contiguous().reshape(-1)
        return (flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""), {}
    # a transposed, sliced or expanded view: send the storage span it covers and its strides, so the
    # candidate meets the same layout the problem built (stride bugs must be able to show)
    extent = 1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()))
    span = torch.as_strided(t, (extent,), (1,), t.storage_offset()).contiguous()
    return span.view(torch.uint8).numpy().tobytes(), {"stride": list(t.stride()), "span": extent}


def encode_values(values: Any, keep_layout: bool = True) -> tuple[Any, bytes]:
    """Describe a nested value as JSON plus one byte payload holding every tensor's data.

    keep_layout: non-contiguous tensors keep their strides (inputs); otherwise they travel contiguous (outputs).
    """
    chunks: list[bytes] = []
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
                    "shape": list(t.shape), "offset": offset, "nbytes": len(raw), **layout}
            chunks.append(raw)
            offset += len(raw)
            return desc
        if v is None or isinstance(v, (bool, int, float, str)):
            return {"kind": "json", "value": v}
        if isinstance(v, torch.dtype):
            return {"kind": "dtype", "value": str(v).removeprefix("torch.")}
        if isinstance(v, (list, tuple)):
            return {"kind": type(v).__name__, "items": [enc(x) for x in v]}
        raise WireError(f"unsupported value of type {type(v).__name__}")

    desc = enc(values)
    return desc, b"".join(chunks)


def decode_values(desc: Any, payload: bytearray) -> Any:
    """Rebuild what encode_values described; tensors are fresh, writable CPU tensors."""
    import torch

    def dec(d: Any) -> Any:
        kind = d["kind"]
        if kind == "tensor":
            dtype = getattr(torch, d["dtype"])
            numel = 1
            for s in d["shape"]:
                numel *= s
            if numel == 0:
                return torch.empty(d["shape"], dtype=dtype)
            if "stride" in d:
                span = torch.frombuffer(payload, dtype=dtype, count=d["span"], offset=d["offset"]).clone()
                return torch.as_strided(span, d["shape"], d["stride"])
            t = torch.frombuffer(payload, dtype=dtype, count=numel, offset=d["offset"])
            return t.reshape(d["shape"]).clone()
        if kind == "json":
            return d["value"]
        if kind == "dtype":
            return getattr(torch, d["value"])
        if kind in ("list", "tuple"):
            items = [dec(x) for x in d["items"]]
            return items if kind == "list" else tuple(items)
        raise WireError(f"unknown value kind {kind!r}")

    return dec(desc)
