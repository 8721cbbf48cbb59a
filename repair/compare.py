"""Compare a candidate's outputs with the reference's: the numbers behind a case's status.

An element fails only when its absolute error exceeds atol AND its relative error exceeds rtol;
NaN/Inf where the reference is finite always fails, and a non-finite reference value must be
matched exactly. Shape, dtype and output-count mismatches fail the case outright.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Callable

from repair.diagnose import Diagnostics, diagnose, tensor_stats


def _f(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _dtype(t) -> str:
    return str(t.dtype).removeprefix("torch.")


@dataclass
class Comparison:
    """The comparison fields of a CaseResult."""

    status: str = "pass"  # pass | mismatch
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    mismatch_frac: float | None = None
    nan_count: int = 0
    inf_count: int = 0
    first_mismatch: list[int] | None = None
    shape: list[int] | None = None
    expected_shape: list[int] | None = None
    dtype: str | None = None
    expected_dtype: str | None = None
    message: str = ""
    diagnostics: Diagnostics | None = None

    def as_dict(self) -> dict:
        """JSON-ready (the comparison is made in the reference process and travels to the engine)."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "diagnostics"}
        d["diagnostics"] = asdict(self.diagnostics) if self.diagnostics is not None else None
        return d


def element_failures(e, a, atol: float, rtol: float):
    """(fail mask, abs err with non-finite pairs zeroed) for float64 tensors e (expected) and a (actual).

    |a-e| > rtol*|e| is "relative error > rtol" without dividing (and true for e == 0 whenever a != e).
    """
    import torch

    diff = (a - e).abs_()  # NaN wherever either side is non-finite: every comparison below is then False
    fail = (diff > atol) & (diff > rtol * e.abs())
    e_fin, a_fin = torch.isfinite(e), torch.isfinite(a)
    all_e, all_a = bool(e_fin.all()), bool(a_fin.all())
    if not all_a:
        fail |= e_fin & ~a_fin  # NaN/Inf introduced where the reference is finite
    if not all_e:  # a non-finite reference value must be matched exactly
        same = (torch.isnan(e) & torch.isnan(a)) | (e == a)
        fail |= ~e_fin & ~same
    if not (all_e and all_a):
        diff.masked_fill_(~(e_fin & a_fin), 0.0)
    return fail, diff


def _max_rel(e, diff) -> float | None:
    import torch

    nz = e != 0
    if not bool(nz.any()):
        return None
    return _f(torch.where(nz, diff / e.abs(), torch.zeros_like(e)).max())


def _unravel(flat: int, shape) -> list[int]:
    """The index of the flat position in a tensor of this shape (torch.unravel_index imports sympy: ~0.7 s)."""
    idx = []
    for n in reversed(shape):
        flat, r = divmod(flat, n)
        idx.append(r)
    return idx[::-1]


def compare_one(exp, act, tolerance: dict[str, float]) -> Comparison:
    import torch

    c = Comparison(shape=list(act.shape), expected_shape=list(exp.shape), dtype=_dtype(act),
                   expected_dtype=_dtype(exp))
    if act.is_floating_point() or act.is_complex():
        c.nan_count, c.inf_count = int(torch.isnan(act).sum()), int(torch.isinf(act).sum())
    if act.shape != exp.shape or act.dtype != exp.dtype:
        what = "shape" if act.shape != exp.shape else "dtype"
        got, want = (list(act.shape), list(exp.shape)) if what == "shape" else (_dtype(act), _dtype(exp))
        c.status, c.message = "mismatch", f"{what} {got} != expected {want}"
        c.diagnostics = Diagnostics(symptom=f"{what}-mismatch", location="everywhere",
                                    output_stats=tensor_stats(act), reference_stats=tensor_stats(exp))
        return c
    if exp.numel() == 0:
        return c
    e, a = exp.detach().double(), act.detach().double()
    fail, diff = element_failures(e, a, tolerance["atol"], tolerance["rtol"])
    c.max_abs_err = _f(diff.max())
    c.max_rel_err = _max_rel(e, diff)
    nbad = int(fail.sum())
    c.mismatch_frac = nbad / fail.numel()
    if nbad:
        c.status = "mismatch"
        flat = int(torch.argmax(fail.reshape(-1).to(torch.uint8)))  # the first True
        c.first_mismatch = _unravel(flat, fail.shape)
        c.diagnostics = diagnose(e, a, fail)
        c.message = (f"{nbad} of {fail.numel()} elements beyond atol={tolerance['atol']:g} "
                     f"and rtol={tolerance['rtol']:g}")
    return c


@contextmanager
def _one_thread():
    """Small elementwise ops: a thread pool only adds barrier waits (seconds per case on a busy machine)."""
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n)


def compare_outputs(expected: list, actual: list, tolerance_for: Callable[[str], dict]) -> Comparison:
    """Compare every output; the case's figures are those of the first failing output (or the worst errors)."""
    with _one_thread():
        return _compare_outputs(expected, actual, tolerance_for)


def _compare_outputs(expected: list, actual: list, tolerance_for: Callable[[str], dict]) -> Comparison:
    if len(actual) != len(expected):
        return Comparison(status="mismatch", message=f"returned {len(actual)} outputs, expected {len(expected)}",
                          diagnostics=Diagnostics(symptom="output-count", location="everywhere"))
    parts = [compare_one(e, a, tolerance_for(_dtype(e))) for e, a in zip(expected, actual)]
    failing = [i for i, p in enumerate(parts) if p.status != "pass"]
    if failing:
        first = parts[failing[0]]
        if len(parts) > 1:
            where = f"output {failing[0]} of {len(parts)}"
            first.message = f"{where}: {first.message}"
            if first.diagnostics is not None:
                first.diagnostics.notes.insert(0, f"{where}; failing outputs: {failing}")
        return first
    best = parts[0]
    for p in parts[1:]:
        for name in ("max_abs_err", "max_rel_err", "mismatch_frac"):
            vals = [v for v in (getattr(best, name), getattr(p, name)) if v is not None]
            setattr(best, name, max(vals) if vals else None)
        best.nan_count += p.nan_count
        best.inf_count += p.inf_count
    return best
