"""Turn a failing comparison into evidence a repairer can act on: where, how, and a symptom label."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

# Plain dataclasses, not pydantic models: this module runs in the sandboxed reference process, whose fork
# server then needs no pydantic (~55 ms of every server's start). repair.engine.result uses them as field types,
# and pydantic validates them there, in the engine.


@dataclass
class TensorStats:
    mean: float | None = None
    std: float | None = None
    min: float | None = None
    max: float | None = None
    frac_zero: float | None = None


@dataclass
class Diagnostics:
    """Where and how the output differs from the reference, in terms a repairer can act on."""

    symptom: str = "none"  # tail-localized, nan-introduced, uniform-drift, zero-output, sparse-outliers, all-wrong, ...
    location: str = "none"  # tail-columns, tail-rows, last-block, single-row, everywhere, sparse, none
    output_stats: TensorStats = field(default_factory=TensorStats)
    reference_stats: TensorStats = field(default_factory=TensorStats)
    notes: list[str] = field(default_factory=list)

TAIL_LOCATIONS = ("tail-columns", "tail-rows", "last-block")
_SAMPLE = 1 << 16  # medians are estimated on an evenly strided sample of at most this many values
_MAX_ROWS = 256  # rows examined for a per-row relation
# Elements handled at a time, per thread: float64 working copies stay a few chunks in size (512 KB a thread,
# in cache), whatever the output's; an output of 6 GiB (KernelBench's ReLU) in one piece needed several
# float64 copies of it (the reference process of a 1 GB case peaked at 17 GB) and ran every pass from memory.
_CHUNK = 1 << 16


def spans(n: int) -> list[tuple[int, int]]:
    """[lo, hi) ranges of at most _CHUNK elements per thread covering 0..n."""
    import torch

    step = _CHUNK * max(1, torch.get_num_threads())
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


def _f(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def true_index(mask, last: bool = False) -> int:
    """The flat index of a mask's first True (its last with last=True), chunk by chunk; -1 where none is."""
    import torch

    flat = mask.reshape(-1)
    chunks = spans(flat.numel())
    for lo, hi in reversed(chunks) if last else chunks:
        piece = flat[lo:hi]
        if int(torch.count_nonzero(piece)):
            if last:
                return hi - 1 - int(torch.argmax(piece.flip(0).to(torch.uint8)))
            return lo + int(torch.argmax(piece.to(torch.uint8)))
    return -1


class _Masked:
    """Two same-shaped tensors and a mask over them, chunk by chunk in float64: never gathered whole."""

    def __init__(self, exp, act, mask):
        import torch

        self.e, self.a, self.m = exp.reshape(-1), act.reshape(-1), mask.reshape(-1)
        self.count = int(torch.count_nonzero(self.m))

    def __iter__(self):
        """(e, a, m): a chunk of each and its mask, for every chunk where some of the mask is set."""
        import torch

        for lo, hi in spans(self.e.numel()):
            m = self.m[lo:hi]
            if int(torch.count_nonzero(m)):
                yield self.e[lo:hi].double(), self.a[lo:hi].double(), m

    def sample(self, values):
        """values(e, a, m) -> the values where m is set, taken at every step-th position (step = size //
        _SAMPLE; every masked value of an output up to _SAMPLE elements): the sample a median is estimated on."""
        import torch

        step, out = max(1, self.e.numel() // _SAMPLE), []
        for lo, hi in spans(self.e.numel()):
            first = (-lo) % step
            m = self.m[lo + first:hi:step]
            if int(torch.count_nonzero(m)):
                out.append(values(self.e[lo + first:hi:step].double(), self.a[lo + first:hi:step].double(), m))
        return torch.cat(out) if out else torch.empty(0, dtype=torch.float64)


def _finite(t):
    """torch.isfinite(t), or None where every value is finite (one sum tells: a NaN or Inf makes it non-finite)."""
    import torch

    return None if math.isfinite(float(t.sum(dtype=torch.float64))) else torch.isfinite(t)


def tensor_stats(t) -> TensorStats:
    """Mean/std/min/max over finite values; frac_zero over all values."""
    import torch

    x = t.detach().reshape(-1)
    n = x.numel()
    if n == 0:
        return TensorStats()
    zero = count = 0
    total, lo, hi = 0.0, math.inf, -math.inf
    for a, b in spans(n):
        c = x[a:b].double()
        zero += b - a - int(torch.count_nonzero(c))
        total_c = float(c.sum())  # finite only where every value is
        fin = c if math.isfinite(total_c) else c[torch.isfinite(c)]
        if fin.numel():
            count += fin.numel()
            total += total_c if fin is c else float(fin.sum())
            small, large = torch.aminmax(fin)
            lo, hi = min(lo, float(small)), max(hi, float(large))
    if count == 0:
        return TensorStats(frac_zero=zero / n)
    mean = total / count
    squares = 0.0  # a second pass: squared deviations from the mean (one pass of sums of squares loses digits)
    for a, b in spans(n):
        c = x[a:b].double()
        finite = _finite(c)
        fin = c if finite is None else c[finite]
        squares += float(((fin - mean) ** 2).sum())
    return TensorStats(mean=_f(mean), std=_f(math.sqrt(squares / count)), min=_f(lo), max=_f(hi),
                       frac_zero=zero / n)


def _block_hint(start: int, extent: int, what: str) -> str | None:
    """'starts at a multiple of 2^k' points at a block boundary; 'extent not a multiple' at a missing tail mask."""
    for k in (1024, 512, 256, 128, 64, 32, 16):
        if start % k == 0 and start >= k:
            tail = "" if extent % k == 0 else f"; {extent} is not a multiple of {k}, so the last block is partial"
            return f"first bad {what} {start} is a multiple of {k} (block boundary?){tail}"
    return None


def locate(fail) -> tuple[str, list[str]]:
    """Where the failing elements are, on a rows x last-dim view of the output."""
    import torch

    n = fail.numel()
    nbad = int(torch.count_nonzero(fail))
    if nbad == 0:
        return "none", []
    frac = nbad / n
    if frac > 0.9:
        return "everywhere", [f"{nbad} of {n} elements mismatch ({frac:.1%})"]
    cols = fail.shape[-1] if fail.dim() else 1
    grid = fail.reshape(-1, cols)
    rows = grid.shape[0]
    bad_rows = torch.nonzero(grid.any(dim=1)).reshape(-1)
    bad_cols = torch.nonzero(grid.any(dim=0)).reshape(-1)
    c0, r0 = int(bad_cols[0]), int(bad_rows[0])
    if bad_rows.numel() > 1 and cols > 1 and c0 > 0 and cols - c0 <= cols // 2:
        hint = _block_hint(c0, cols, "column")
        return "tail-columns", [f"mismatches only in columns {c0}..{cols - 1} (the last {cols - c0} of {cols}), "
                                f"in {bad_rows.numel()} of {rows} rows"] + ([hint] if hint else [])
    f0, last = true_index(fail), true_index(fail, last=True)
    tail = f0 > 0 and last == n - 1 and n - f0 <= n // 2 and nbad >= (n - f0) // 2
    if tail and not (rows > 1 and f0 % cols == 0):  # a row-aligned tail is reported as tail rows below
        hint = _block_hint(f0, n, "element")
        return "last-block", [f"mismatches only in flat elements {f0}..{n - 1} (the last {n - f0} of {n})"] + (
            [hint] if hint else [])
    if rows > 1 and bad_rows.numel() == 1:
        return "single-row", [f"all {nbad} mismatches are in row {r0} of {rows}"]
    if rows > 1 and r0 > 0 and rows - r0 <= rows // 2:
        hint = _block_hint(r0, rows, "row")
        return "tail-rows", [f"mismatches only in rows {r0}..{rows - 1} (the last {rows - r0} of {rows})"] + (
            [hint] if hint else [])
    if frac < 0.01 or nbad <= 3:
        return "sparse", [f"{nbad} of {n} elements mismatch ({frac:.2%})"]
    return "scattered", [f"{nbad} of {n} elements mismatch ({frac:.1%}) across {bad_rows.numel()} of {rows} rows "
                         f"and {bad_cols.numel()} of {cols} columns"]


def _constant_ratio(pairs: _Masked) -> float | None:
    """The common ratio a/e when it is (nearly) the same for every masked element with e != 0."""
    import torch

    if sum(int(torch.count_nonzero(m & (e.abs() > 1e-6))) for e, a, m in pairs) < 2:
        return None
    med = float(pairs.sample(lambda e, a, m: (a / e)[m & (e.abs() > 1e-6)]).median())
    if not (math.isfinite(med) and abs(med) > 1e-3 and abs(med - 1) > 1e-3):
        return None
    spread = max(float(torch.where(m & (e.abs() > 1e-6), (a / e - med).abs(), 0.0).max()) for e, a, m in pairs)
    return med if spread <= 1e-3 * abs(med) else None


def _offset(pairs: _Masked) -> float | None:
    """The common difference a - e when it is (nearly) the same for every masked element."""
    import torch

    mean = sum(float(torch.where(m, a - e, 0.0).sum()) for e, a, m in pairs) / pairs.count
    if not (math.isfinite(mean) and abs(mean) > 0):
        return None
    std = math.sqrt(sum(float(torch.where(m, (a - e - mean) ** 2, 0.0).sum()) for e, a, m in pairs) / pairs.count)
    return mean if std <= 1e-3 * abs(mean) else None


def _row_ratios(exp, act, fail) -> tuple[float, float] | None:
    """(min, max) of the per-row ratios when every failing row is a constant multiple of its reference row."""
    import torch

    cols = exp.shape[-1]
    valid = torch.empty(exp.numel(), dtype=torch.bool)
    ef, ff = exp.reshape(-1), fail.reshape(-1)
    for lo, hi in spans(exp.numel()):
        valid[lo:hi] = ff[lo:hi] & (ef[lo:hi].double().abs() > 1e-6)
    valid = valid.reshape(-1, cols)
    max_rows = min(_MAX_ROWS, max(2, _CHUNK // cols))  # the rows taken in float64: a chunk's worth at most
    rows = torch.nonzero(valid.sum(dim=1) >= 2).reshape(-1)[:max_rows]
    if rows.numel() < 2:
        return None
    e, a, valid = exp.reshape(-1, cols)[rows].double(), act.reshape(-1, cols)[rows].double(), valid[rows]
    ratio = torch.where(valid, a / torch.where(valid, e, torch.ones_like(e)), torch.full_like(e, math.nan))
    med = ratio.nanmedian(dim=1).values
    spread = torch.where(valid, (ratio - med[:, None]).abs(), torch.zeros_like(e)).amax(dim=1)
    ok = torch.isfinite(med) & (med.abs() > 1e-3) & ((med - 1).abs() > 1e-3) & (spread <= 1e-3 * med.abs())
    return (float(med.min()), float(med.max())) if bool(ok.all()) else None


def _relation(exp, act, fail) -> tuple[str | None, str | None]:
    """Is the output a constant multiple of (per tensor or per row), or offset from, the reference where it fails?"""
    pairs = _Masked(exp, act, fail)
    if pairs.count < 4:
        return None, None
    med = _constant_ratio(pairs)
    if med is not None:
        return "scaled-output", f"output is about {med:.4g} x the reference where it mismatches"
    mean = _offset(pairs)
    if mean is not None:
        return "offset-output", f"output is about reference {mean:+.4g} where it mismatches"
    if exp.dim() >= 2:
        row = _row_ratios(exp, act, fail)
        if row is not None:
            return "row-scaled-output", (f"each failing row is a constant multiple of the reference's "
                                         f"({row[0]:.4g}..{row[1]:.4g}): a wrong per-row normaliser?")
    return None, None


def diagnose(exp, act, fail) -> Diagnostics:
    """Diagnostics of one output against its reference (same shape, any dtype), given the element failure mask.
    Works chunk by chunk: its float64 working copies stay small whatever the output's size."""
    import torch

    exp, act = exp.detach(), act.detach()
    diag = Diagnostics(output_stats=tensor_stats(act), reference_stats=tensor_stats(exp))
    location, notes = locate(fail)
    diag.location = location
    diag.notes = notes
    if location == "none":
        return diag
    e_fin, a_fin = _finite(exp), _finite(act)  # None: all finite
    new_nonfinite = 0 if a_fin is None else int(torch.count_nonzero(~a_fin if e_fin is None else e_fin & ~a_fin))
    ref_zero, out_zero = diag.reference_stats.frac_zero or 0.0, diag.output_stats.frac_zero or 0.0
    both = fail
    for fin in (e_fin, a_fin):
        both = both if fin is None else both & fin
    if new_nonfinite:
        diag.symptom = "nan-introduced"
        diag.notes.append(f"{new_nonfinite} NaN/Inf where the reference is finite")
        nan_out = int(torch.count_nonzero(torch.isnan(act)))
        if nan_out == act.numel():
            diag.notes.append("every output element is NaN: nothing written? (torch.empty is NaN-filled here)")
        elif nan_out and location in TAIL_LOCATIONS:
            diag.notes.append("NaN in a tail region: elements never written? (torch.empty is NaN-filled here)")
    elif out_zero >= 0.99 and ref_zero < 0.5:
        diag.symptom = "zero-output"
    elif location in TAIL_LOCATIONS:
        diag.symptom = "tail-localized"
    elif location == "single-row":
        diag.symptom = "row-localized"
    else:
        label, note = _relation(exp, act, both)
        pairs = _Masked(exp, act, both)
        rel = pairs.sample(lambda e, a, m: ((a - e).abs() / e.abs().clamp_min(1e-12))[m])
        med_rel = float(rel.median()) if rel.numel() else math.inf
        if label:
            diag.symptom = label
            diag.notes.append(note)
        elif med_rel < 0.05:
            diag.symptom = "uniform-drift"
            diag.notes.append(f"small relative errors (median {med_rel:.2e} where mismatching): "
                              "accumulation precision or an early low-precision cast?")
        elif location == "sparse":
            diag.symptom = "sparse-outliers"
        elif location == "everywhere":
            diag.symptom = "all-wrong"
        else:
            diag.symptom = "partially-wrong"
    return diag
