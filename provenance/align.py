"""Local alignment of op streams: how much of a cohort kernel's computation an entry performs, in order.

The overlap score (provenance.overlap_rules.score) needs evidence that survives what disguises do to tokens
(renaming, restructuring, a port to another language) yet is not fooled by what boilerplate shares (launch
grids, autotune lists, wrappers: none of them computes, so none emits an op). A kernel's op stream
(provenance.opstream) is such evidence; this module aligns the op stream of one cohort kernel with an entry's
(Smith-Waterman: the best-scoring local alignment, matches rewarded by weight, mismatches and gaps
penalised), so an embedded copy aligns inside a larger file and a reordered pair of statements costs a gap.

Before aligning, both streams are put in one spelling of what a rewrite changes but a computation does not:
exp(x) written exp2(x * log2 e) (``K:1.4427 MUL EXP2``, or ``MUL EXP2`` with the constant named) is EXP, and
log2(x) * ln 2 (``LOG2 K:0.693147 MUL``) is LOG; spans are reported in the original streams' indexes.

Weights: ops every kernel performs (LOAD STORE ADD SUB MUL) count COMMON_WEIGHT, the others (math calls,
reductions, selects, constants) 1. The score's confidence in an alignment grows with the cohort kernel's
total weight (a LOAD REDUCE_SUM STORE kernel tells nothing by its ops). Choices measured on the tune half of
heldout/overlap (bench/bench_overlap_heldout.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

COMMON = frozenset({"LOAD", "STORE", "ADD", "SUB", "MUL"})
COMMON_WEIGHT = 0.5
MISMATCH = 1.0
GAP = 1.0


# (pattern, replacement): a type-3 rewrite's spelling of an op, in the stream's evaluation order
REWRITES = ((("K:1.4427", "MUL", "EXP2"), "EXP"), (("MUL", "EXP2"), "EXP"), (("LOG2", "K:0.693147", "MUL"), "LOG"))


def weight(op: str) -> float:
    return COMMON_WEIGHT if op in COMMON else 1.0


def total_weight(ops: Sequence[str]) -> float:
    return sum(weight(op) for op in canonical(ops)[0])


def canonical(ops: Sequence[str]) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """(the stream with REWRITES applied, the original indexes of each op's first and last source op)."""
    out: list[str] = []
    where: list[tuple[int, int]] = []
    i = 0
    while i < len(ops):
        for pattern, op in REWRITES:
            n = len(pattern)
            if tuple(ops[i:i + n]) == pattern:
                out.append(op)
                where.append((i, i + n - 1))
                i += n
                break
        else:
            out.append(ops[i])
            where.append((i, i))
            i += 1
    return tuple(out), tuple(where)


@dataclass(frozen=True)
class Alignment:
    """The best local alignment of a cohort op stream (b) inside an entry's (a)."""

    fraction: float  # matched weight / the cohort stream's total weight
    weight: float  # the cohort stream's total weight (the alignment's confidence grows with it)
    matched: int  # ops matched
    entry_span: tuple[int, int] | None  # op indexes (inclusive) of the alignment in each stream
    cohort_span: tuple[int, int] | None


def align(entry: Sequence[str], cohort: Sequence[str]) -> Alignment:
    """Smith-Waterman of cohort inside entry (module docstring), both in canonical spelling; deterministic: on equal
    scores the diagonal, then the cell above, then the one to the left; the first best cell in row-major order wins."""
    (entry, e_at), (cohort, c_at) = canonical(entry), canonical(cohort)
    total = total_weight(cohort)
    if not entry or not cohort or total == 0:
        return Alignment(0.0, total, 0, None, None)
    m = len(cohort)
    w = [weight(op) for op in cohort]
    # per column: score, matched weight, matched ops, entry start, cohort start (the previous row, then this one)
    ps, pw, pn, pa, pb = [0.0] * (m + 1), [0.0] * (m + 1), [0] * (m + 1), [-1] * (m + 1), [-1] * (m + 1)
    best, bw, bn, ba, bb, bi, bj = 0.0, 0.0, 0, -1, -1, -1, -1
    for i, x in enumerate(entry):
        cs, cw, cn, ca, cb = [0.0] * (m + 1), [0.0] * (m + 1), [0] * (m + 1), [-1] * (m + 1), [-1] * (m + 1)
        for j in range(m):
            if x == cohort[j]:
                d = ps[j] + w[j]
                dw, dn = pw[j] + w[j], pn[j] + 1
                da, db = (pa[j], pb[j]) if ps[j] > 0 else (i, j)
            else:
                d = ps[j] - MISMATCH
                dw, dn, da, db = pw[j], pn[j], pa[j], pb[j]
            up, left = ps[j + 1] - GAP, cs[j] - GAP
            if d >= up and d >= left:
                s, sw, sn, sa, sb = d, dw, dn, da, db
            elif up >= left:
                s, sw, sn, sa, sb = up, pw[j + 1], pn[j + 1], pa[j + 1], pb[j + 1]
            else:
                s, sw, sn, sa, sb = left, cw[j], cn[j], ca[j], cb[j]
            if s <= 0:
                continue  # the row was initialised to an empty cell
            k = j + 1
            cs[k], cw[k], cn[k], ca[k], cb[k] = s, sw, sn, sa, sb
            if s > best:
                best, bw, bn, ba, bb, bi, bj = s, sw, sn, sa, sb, i, j
        ps, pw, pn, pa, pb = cs, cw, cn, ca, cb
    if bn == 0:
        return Alignment(0.0, total, 0, None, None)
    return Alignment(round(bw / total, 4), total, bn, (e_at[ba][0], e_at[bi][1]), (c_at[bb][0], c_at[bj][1]))
