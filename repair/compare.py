"""Compare a candidate's outputs with the reference's: the numbers behind a case's status.

An element fails only when its absolute error exceeds atol AND its relative error exceeds rtol;
NaN/Inf where the reference is finite always fails, and a non-finite reference value must be
matched exactly. Shape, dtype and output-count mismatches fail the case outright.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from repair.diagnose import diagnose, tensor_stats
from repair.result import Diagnostics


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
    notes: list[str] = field(default_factory=list)


def element_failures(exp, act, atol: float, rtol: float):
    """(fail mask, abs err, rel err) in float64; errors are 0 where either side is non-finite."""
    import torch

    e, a = exp.detach().double(), act.detach().double()
    e_fin, a_fin = torch.isfinite(e), torch.isfinite(a)
    both = e_fin & a_fin
    diff = torch.where(both, (a - e).abs(), torch.zeros_like(e))
    rel = torch.where(both & (e != 0), diff / e.abs(), torch.zeros_like(e))
    rel = torch.where(both & (e == 0) & (diff > 0), torch.full_like(e, math.inf), rel)
    numeric = both & (diff > atol) & (rel > rtol)
    introduced = e_fin & ~a_fin
    same_nonfinite = (torch.isnan(e) & torch.isnan(a)) | (e == a)
    unmatched = ~e_fin & ~same_nonfinite
    return numeric | introduced | unmatched, diff, rel


def compare_one(exp, act, tolerance: dict[str, float]) -> Comparison:
    import torch

    c = Comparison(shape=list(act.shape), expected_shape=list(exp.shape), dtype=_dtype(act),
                   expected_dtype=_dtype(exp))
    if act.is_floating_point() or act.is_complex():
        c.nan_count, c.inf_count = int(torch.isnan(act).sum()), int(torch.isinf(act).sum())
    if act.shape != exp.shape:
        c.status, c.message = "mismatch", f"shape {list(act.shape)} != expected {list(exp.shape)}"
        c.diagnostics = Diagnostics(symptom="shape-mismatch", location="everywhere",
                                    output_stats=tensor_stats(act), reference_stats=tensor_stats(exp))
        return c
    if act.dtype != exp.dtype:
        c.status, c.message = "mismatch", f"dtype {_dtype(act)} != expected {_dtype(exp)}"
        c.diagnostics = Diagnostics(symptom="dtype-mismatch", location="everywhere",
                                    output_stats=tensor_stats(act), reference_stats=tensor_stats(exp))
        return c
    if exp.numel() == 0:
        return c
    fail, diff, rel = element_failures(exp, act, tolerance["atol"], tolerance["rtol"])
    c.max_abs_err = _f(diff.max())
    finite_rel = rel[torch.isfinite(rel)]
    c.max_rel_err = _f(finite_rel.max()) if finite_rel.numel() else None
    nbad = int(fail.sum())
    c.mismatch_frac = nbad / fail.numel()
    if nbad:
        c.status = "mismatch"
        flat = int(torch.nonzero(fail.reshape(-1))[0])
        c.first_mismatch = [int(i) for i in torch.unravel_index(torch.tensor(flat), fail.shape)] if fail.dim() else []
        c.diagnostics = diagnose(exp, act, fail)
        c.message = (f"{nbad} of {fail.numel()} elements beyond atol={tolerance['atol']:g} "
                     f"and rtol={tolerance['rtol']:g}")
    return c


def compare_outputs(expected: list, actual: list, tolerance_for: Callable[[str], dict]) -> Comparison:
    """Compare every output; the case's figures are those of the first failing output (or the worst errors)."""
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
