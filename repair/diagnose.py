"""Turn a failing comparison into evidence a repairer can act on: where, how, and a symptom label."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

# Plain dataclasses, not pydantic models: this module runs in the sandboxed reference process, whose fork
# server then needs no pydantic (~55 ms of every server's start). repair.result uses them as field types,
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


def _sample(x):
    step = max(1, x.numel() // _SAMPLE)
    return x.reshape(-1)[::step]


def _f(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def tensor_stats(t) -> TensorStats:
    """Mean/std/min/max over finite values; frac_zero over all values."""
    import torch

    x = t.detach().double().reshape(-1)
    if x.numel() == 0:
        return TensorStats()
    finite = torch.isfinite(x)
    fin = x if bool(finite.all()) else x[finite]
    zero = float((x == 0).sum()) / x.numel()
    if fin.numel() == 0:
        return TensorStats(frac_zero=zero)
    return TensorStats(mean=_f(fin.mean()), std=_f(fin.std(unbiased=False)), min=_f(fin.min()),
                       max=_f(fin.max()), frac_zero=zero)


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
    nbad = int(fail.sum())
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
    flat = torch.nonzero(fail.reshape(-1)).reshape(-1)
    f0 = int(flat[0])
    tail = f0 > 0 and int(flat[-1]) == n - 1 and n - f0 <= n // 2 and nbad >= (n - f0) // 2
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


def _constant_ratio(e, a) -> float | None:
    """The common ratio a/e when it is (nearly) the same for every element with e != 0."""
    nz = e.abs() > 1e-6
    if int(nz.sum()) < 2:
        return None
    ratio = a[nz] / e[nz]
    med = float(_sample(ratio).median())
    spread = float((ratio - med).abs().max())
    if math.isfinite(med) and abs(med) > 1e-3 and abs(med - 1) > 1e-3 and spread <= 1e-3 * abs(med):
        return med
    return None


def _row_ratios(exp, act, fail) -> tuple[float, float] | None:
    """(min, max) of the per-row ratios when every failing row is a constant multiple of its reference row."""
    import torch

    cols = exp.shape[-1]
    e, a, f = exp.reshape(-1, cols), act.reshape(-1, cols), fail.reshape(-1, cols)
    valid = f & (e.abs() > 1e-6)
    rows = torch.nonzero(valid.sum(dim=1) >= 2).reshape(-1)[:_MAX_ROWS]
    if rows.numel() < 2:
        return None
    e, a, valid = e[rows], a[rows], valid[rows]
    ratio = torch.where(valid, a / torch.where(valid, e, torch.ones_like(e)), torch.full_like(e, math.nan))
    med = ratio.nanmedian(dim=1).values
    spread = torch.where(valid, (ratio - med[:, None]).abs(), torch.zeros_like(e)).amax(dim=1)
    ok = torch.isfinite(med) & (med.abs() > 1e-3) & ((med - 1).abs() > 1e-3) & (spread <= 1e-3 * med.abs())
    return (float(med.min()), float(med.max())) if bool(ok.all()) else None


def _relation(exp, act, fail) -> tuple[str | None, str | None]:
    """Is the output a constant multiple of (per tensor or per row), or offset from, the reference where it fails?"""
    e, a = exp[fail], act[fail]
    if e.numel() < 4:
        return None, None
    med = _constant_ratio(e, a)
    if med is not None:
        return "scaled-output", f"output is about {med:.4g} x the reference where it mismatches"
    d = a - e
    mean = float(d.mean())
    if math.isfinite(mean) and abs(mean) > 0 and float(d.std(unbiased=False)) <= 1e-3 * abs(mean):
        return "offset-output", f"output is about reference {mean:+.4g} where it mismatches"
    if exp.dim() >= 2:
        row = _row_ratios(exp, act, fail)
        if row is not None:
            return "row-scaled-output", (f"each failing row is a constant multiple of the reference's "
                                         f"({row[0]:.4g}..{row[1]:.4g}): a wrong per-row normaliser?")
    return None, None


def diagnose(exp, act, fail) -> Diagnostics:
    """Diagnostics of one output against its reference (same shape), given the element failure mask."""
    import torch

    e, a = exp.detach().double(), act.detach().double()
    diag = Diagnostics(output_stats=tensor_stats(a), reference_stats=tensor_stats(e))
    location, notes = locate(fail)
    diag.location = location
    diag.notes = notes
    if location == "none":
        return diag
    new_nonfinite = int((torch.isfinite(e) & ~torch.isfinite(a)).sum())
    ref_zero, out_zero = diag.reference_stats.frac_zero or 0.0, diag.output_stats.frac_zero or 0.0
    both = fail & torch.isfinite(e) & torch.isfinite(a)
    if new_nonfinite:
        diag.symptom = "nan-introduced"
        diag.notes.append(f"{new_nonfinite} NaN/Inf where the reference is finite")
        nan_out = int(torch.isnan(a).sum())
        if nan_out == a.numel():
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
        label, note = _relation(e, a, both)
        rel = ((a[both] - e[both]).abs() / e[both].abs().clamp_min(1e-12)) if int(both.sum()) else None
        med_rel = float(_sample(rel).median()) if rel is not None and rel.numel() else math.inf
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
