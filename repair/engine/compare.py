"""Compare a candidate's outputs with the reference's: the numbers behind a case's status.

An element fails only when its absolute error exceeds atol AND its relative error exceeds rtol (with TOLERANCE's
`frac`, an output passes while at most that fraction of its elements is beyond atol, or beyond rtol, relative error
there being NPUKernelBench's: against max(|expected|, |actual|) + 1e-7);
NaN/Inf where the reference is finite always fails, and a non-finite reference value must be
matched exactly. Shape, dtype and output-count mismatches fail the case outright, unless the problem says
COMPARE = {"promote": True} (a benchmark whose check computes `out - out_new`: see `promoted`).
"""
from __future__ import annotations

import math
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass
from typing import Callable

from repair.engine.diagnose import Diagnostics, diagnose, spans, tensor_stats, true_index


def _f(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _dtype(t) -> str:
    return str(t.dtype).removeprefix("torch.")


@dataclass
class Comparison:
    """A comparison's figures: these fields, but `status`, are CaseResult's too (repair/engine/result.py takes them
    from here, their one definition; a plain dataclass, since the reference process imports no pydantic)."""

    status: str = "pass"  # pass | mismatch (a CaseResult's status says more)
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
    message: str = ""  # what failed (a CaseResult's also holds error text, traceback tail, timeout/crash reason)
    diagnostics: Diagnostics | None = None

    def as_dict(self) -> dict:
        """JSON-ready (the comparison is made in the reference process and travels to the engine)."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "diagnostics"}
        d["diagnostics"] = asdict(self.diagnostics) if self.diagnostics is not None else None
        return d


def element_failures(e, a, atol: float, rtol: float):
    """(fail mask, abs err with non-finite pairs zeroed, |e|, whether every value of both is finite) for float64
    tensors e (expected) and a (actual).

    |a-e| > rtol*|e| is "relative error > rtol" without dividing (and true for e == 0 whenever a != e).
    """
    import torch

    diff = torch.sub(a, e).abs_()  # NaN wherever either side is non-finite: every comparison below is then False
    ae = e.abs()
    fail = diff > atol
    fail &= diff > ae * rtol
    if math.isfinite(float(diff.sum())):  # a NaN or Inf on either side leaves a non-finite diff: none here
        return fail, diff, ae, True
    e_fin, a_fin = torch.isfinite(e), torch.isfinite(a)
    all_e, all_a = bool(e_fin.all()), bool(a_fin.all())
    if not all_a:
        fail |= e_fin & ~a_fin  # NaN/Inf introduced where the reference is finite
    if not all_e:  # a non-finite reference value must be matched exactly
        same = (torch.isnan(e) & torch.isnan(a)) | (e == a)
        fail |= ~e_fin & ~same
    if not (all_e and all_a):
        diff.masked_fill_(~(e_fin & a_fin), 0.0)
    return fail, diff, ae, all_e and all_a


def _max_rel(ae, diff) -> float | None:
    """The largest diff/|e| where e != 0 (None where every e is 0), given |e|."""
    rel = diff / ae  # 0/0 or x/0 where e == 0: set aside below
    zero = ae == 0
    rel.masked_fill_(zero, 0.0)
    top = float(rel.max())
    return None if top == 0.0 and bool(zero.all()) else top


def _larger(x: float | None, y: float | None) -> float | None:
    return y if x is None else x if y is None else max(x, y)


def _unravel(flat: int, shape) -> list[int]:
    """The index of the flat position in a tensor of this shape (torch.unravel_index imports sympy: ~0.7 s)."""
    idx = []
    for n in reversed(shape):
        flat, r = divmod(flat, n)
        idx.append(r)
    return idx[::-1]


def promoted(exp, act):
    """(exp, act) as a benchmark's `out - out_new` check sees them: in torch's promoted dtype, and an output holding
    the expected number of elements in another shape (`[1]` for a scalar) reshaped to the expected one; unchanged
    when the counts differ (no broadcasting of a few values over a whole output)."""
    import torch

    if act.numel() == exp.numel() and act.shape != exp.shape:
        act = act.reshape(exp.shape)
    if act.dtype != exp.dtype and act.shape == exp.shape and act.dtype != torch.bool and exp.dtype != torch.bool:
        common = torch.promote_types(act.dtype, exp.dtype)
        exp, act = exp.to(common), act.to(common)
    return exp, act


def compare_one(exp, act, tolerance: dict[str, float], promote: bool = False) -> Comparison:
    import torch

    c = Comparison(shape=list(act.shape), expected_shape=list(exp.shape), dtype=_dtype(act),
                   expected_dtype=_dtype(exp))
    if promote:
        exp, act = promoted(exp, act)
    counts = act.is_floating_point() or act.is_complex()
    if act.shape != exp.shape or act.dtype != exp.dtype:
        if counts:
            c.nan_count, c.inf_count = int(torch.isnan(act).sum()), int(torch.isinf(act).sum())
        what = "shape" if act.shape != exp.shape else "dtype"
        got, want = (list(act.shape), list(exp.shape)) if what == "shape" else (_dtype(act), _dtype(exp))
        c.status, c.message = "mismatch", f"{what} {got} != expected {want}"
        c.diagnostics = Diagnostics(symptom=f"{what}-mismatch", location="everywhere",
                                    output_stats=tensor_stats(act), reference_stats=tensor_stats(exp))
        return c
    if exp.numel() == 0:
        return c
    # chunk by chunk in float64: the working copies stay a few chunks in size, whatever the output's
    ef, af = exp.detach().reshape(-1), act.detach().reshape(-1)
    fail = torch.empty(ef.numel(), dtype=torch.bool)
    max_abs = max_rel = None
    nbad = 0
    frac = tolerance.get("frac")
    beyond = [0, 0, 0]  # with frac: elements beyond atol, beyond rtol, and non-finite failures
    for lo, hi in spans(ef.numel()):
        e, a = ef[lo:hi].double(), af[lo:hi].double()
        f, diff, ae, finite = element_failures(e, a, tolerance["atol"], tolerance["rtol"])
        fail[lo:hi] = f
        nbad += int(torch.count_nonzero(f))
        if frac is not None:
            beyond[0] += int(torch.count_nonzero(diff > tolerance["atol"]))
            beyond[1] += int(torch.count_nonzero(torch.div(diff, _frac_denominator(ae, a)) > tolerance["rtol"]))
            if not finite:
                beyond[2] += int(torch.count_nonzero(f & ~(torch.isfinite(e) & torch.isfinite(a))))
        max_abs = _larger(max_abs, float(diff.max()))
        max_rel = _larger(max_rel, _max_rel(ae, diff))
        if counts and not finite:
            c.nan_count += int(torch.count_nonzero(torch.isnan(a)))
            c.inf_count += int(torch.count_nonzero(torch.isinf(a)))
    c.max_abs_err = _f(max_abs)
    c.max_rel_err = _f(max_rel) if max_rel is not None else None
    c.mismatch_frac = nbad / fail.numel()
    if nbad and frac is not None and not beyond[2] and min(beyond[:2]) <= frac * fail.numel():
        c.message = (f"{nbad} of {fail.numel()} elements beyond atol={tolerance['atol']:g} and "
                     f"rtol={tolerance['rtol']:g}, within the fraction {frac:g} the problem allows")
    elif nbad:
        c.status = "mismatch"
        c.first_mismatch = _unravel(true_index(fail), exp.shape)
        c.diagnostics = diagnose(exp, act, fail.reshape(exp.shape))
        c.message = (f"{nbad} of {fail.numel()} elements beyond atol={tolerance['atol']:g} "
                     f"and rtol={tolerance['rtol']:g}")
    return c


def _frac_denominator(ae, a):
    """Under `frac`, relative error as NPUKernelBench's quantising checks take it: |a-e| / (max(|e|, |a|) + 1e-7), not
    against |e| alone (so an element whose actual value is the larger may be within rtol here and not elementwise)."""
    import torch

    return torch.maximum(ae, a.abs()).add_(1e-7)


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


_THREADED_FROM = 1 << 20  # elements: outputs from this size are compared with the process's threads


def compare_outputs(expected: list, actual: list, tolerance_for: Callable[[str], dict], *,
                    promote: bool = False) -> Comparison:
    """Compare every output; the case's figures are those of the first failing output (or the worst errors).
    Small outputs on one thread; big ones with the process's threads (one on triton-cpu; a GPU machine's
    reference has its cores: a 64M-element output took 1.15 s on one thread here, 0.66 s on two)."""
    big = sum(e.numel() for e in expected) >= _THREADED_FROM
    with nullcontext() if big else _one_thread():
        return _compare_outputs(expected, actual, tolerance_for, promote)


def _compare_outputs(expected: list, actual: list, tolerance_for: Callable[[str], dict], promote: bool) -> Comparison:
    # a benchmark's check (`promote`) zips the two lists, as NPUKernelBench's check_precision does: the outputs the
    # shorter one holds are compared, none is no comparison at all
    if len(actual) != len(expected) and (not promote or not actual or not expected):
        return Comparison(status="mismatch", message=f"returned {len(actual)} outputs, expected {len(expected)}",
                          diagnostics=Diagnostics(symptom="output-count", location="everywhere"))
    parts = [compare_one(e, a, tolerance_for(_dtype(e)), promote) for e, a in zip(expected, actual)]
    if len(actual) != len(expected):
        note = (f"returned {len(actual)} outputs, the reference {len(expected)}: the first {len(parts)} compared, as "
                "the benchmark's check zips them")
        for p in parts:
            if p.diagnostics is not None:
                p.diagnostics.notes.append(note)
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
