"""Tolerances: what a problem's TOLERANCE means for one output dtype.

An element fails only when its absolute error exceeds atol AND its relative error exceeds rtol; with `frac`, an
output may hold up to that fraction of such elements (see KEYS).
Defaults by the expected output's dtype; integers and bool compare exactly. Used by the reference
process, which compares (the engine only checks TOLERANCE's shape, in repair/engine/problem.py).
"""
from __future__ import annotations

DEFAULT_TOLERANCE = {  # by expected output dtype; integers and bool compare exactly
    "float64": {"atol": 1e-4, "rtol": 1e-4},
    "float32": {"atol": 1e-4, "rtol": 1e-4},
    "float16": {"atol": 1e-2, "rtol": 1e-2},
    "bfloat16": {"atol": 1e-2, "rtol": 1e-2},
}
EXACT = {"atol": 0.0, "rtol": 0.0}
# atol, rtol; and frac: an output passes when no more than this fraction of its elements is beyond atol, or no more
# than it beyond rtol, relative error there being |a-e| / (max(|e|, |a|) + 1e-7) (NPUKernelBench's quantising tasks'
# check, repair/engine/compare.py); a NaN or Inf where the reference is finite still fails (that check passes it)
KEYS = ("atol", "rtol", "frac")


def resolve_tolerance(tolerance: dict | None, dtype: str) -> dict[str, float]:
    """{"atol", "rtol"} for an output of this dtype under the problem's TOLERANCE (flat or per dtype)."""
    base = dict(DEFAULT_TOLERANCE.get(dtype, EXACT))
    if not tolerance:
        return base
    if dtype in tolerance:
        return {**base, **tolerance[dtype]}
    flat = {k: v for k, v in tolerance.items() if k in KEYS}
    # a flat tolerance speaks for floating outputs only, unless it allows a fraction: a benchmark's check of that
    # kind compares every output (int8 ones too) by the same rule
    if flat and (dtype in DEFAULT_TOLERANCE or "frac" in flat):
        return {**base, **flat}
    return base
