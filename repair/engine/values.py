"""Values as they travel: a JSON description plus raw tensor bytes, never a pickle.

Constructor arguments, inputs and outputs cross between the engine and its sandbox processes so: unpickling
a candidate's output would let it run code in the engine.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

from repair.engine.wire_errors import WireError, is_oom

_ALIGN = 64


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
