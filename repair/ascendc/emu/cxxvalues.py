"""The values a binding's C++ evaluates to (ascendc-cpu's mapping): a tensor's address, tensor options, a value
the emulation does not model, C++ conversions and literals, and the errors a binding raises in Python.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass
class Ptr:
    """`t.data_ptr()`: the GM address of tensor t, resolved when the operator runs."""

    tensor: Any


@dataclass
class Options:
    dtype: Any = None  # a torch dtype, or None (the tensor's own / float32)


@dataclass
class Opaque:
    """A value ascendc-cpu does not model (a stream, a device): fine to pass to a void* parameter, nothing else."""

    text: str


_DTYPES = {
    "kFloat": "float32", "kFloat32": "float32", "Float": "float32", "kHalf": "float16", "kFloat16": "float16",
    "Half": "float16", "kBFloat16": "bfloat16", "BFloat16": "bfloat16", "kInt": "int32", "kInt32": "int32",
    "Int": "int32", "kLong": "int64", "kInt64": "int64", "Long": "int64", "kShort": "int16", "kInt16": "int16",
    "Short": "int16", "kChar": "int8", "kInt8": "int8", "Char": "int8", "kByte": "uint8", "kUInt8": "uint8",
    "Byte": "uint8", "kBool": "bool", "Bool": "bool", "kDouble": "float64", "kFloat64": "float64", "Double": "float64",
}
_INT_BITS = {"int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True), "uint16_t": (16, False),
             "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True), "uint64_t": (64, False),
             "int": (32, True), "unsigned": (32, False), "unsigned int": (32, False), "long": (64, True),
             "long long": (64, True), "unsigned long": (64, False), "size_t": (64, False), "char": (8, True),
             "short": (16, True)}
def convert(type_text: str, value: Any) -> Any:
    """A value converted as a C++ cast or declaration of `type_text` would."""
    t = re.sub(r"\b(const|volatile|static|std::|__gm__)\b|[&]", " ", type_text).strip()
    t = " ".join(t.split())
    if re.search(r"\b(unordered_)?map\s*<", t) and isinstance(value, list) and \
            all(isinstance(p, list) and len(p) == 2 for p in value):
        return {k: v for k, v in value}  # std::map<K, V> m = {{k, v}, ...}
    if "*" in t or t in ("GM_ADDR", "void *", "void*"):
        return value
    if isinstance(value, (Ptr, Opaque)) or not isinstance(value, (int, float, bool)):
        return value
    if t in ("float",):
        import numpy as np

        return float(np.float32(value))
    if t in ("double", "long double"):
        return float(value)
    if t == "bool":
        return bool(value)
    if t in _INT_BITS:
        bits, signed = _INT_BITS[t]
        v = int(value)  # float -> integer truncates toward zero, as C++ does
        v &= (1 << bits) - 1
        return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v
    return value


class BindingCheckFailed(RuntimeError):
    """A TORCH_CHECK of the binding failed: the extension raises before the kernel runs, as c10::Error reaches
    Python as a RuntimeError (forward may catch it, as on the NPU; uncaught, the case errors)."""

    case_status = "error"


class BindingOutOfRange(IndexError):
    """`.at(k)` of a table or vector that does not hold k: std::out_of_range, which pybind11 raises in Python as an
    IndexError (forward may catch it; uncaught, the case errors)."""

    case_status = "error"


def _number(text: str) -> int | float:
    s = text.replace("'", "").rstrip("uUlLfF") if not text.lower().startswith("0x") else text.rstrip("uUlL")
    if s.lower().startswith("0x"):
        return int(s, 16)
    if re.fullmatch(r"[+-]?\d+", s):
        return int(s)
    return float(s)


def _is_tensor(v) -> bool:
    return type(v).__name__ in ("Tensor", "Parameter") and hasattr(v, "shape")


@dataclass
class _Iter:
    """`v.begin()` / `v.end()` of a local vector or shape: a position in it."""

    seq: list
    at: int


def _is_dtype(v) -> bool:
    return type(v).__name__ == "dtype"


def _dtype(name: str):
    import torch

    return getattr(torch, name)
