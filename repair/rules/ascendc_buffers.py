"""AscendC starter rules over buffers and the queue protocol as the kernel sizes and hands them on, and over the host's
counts and conditions.

Beside repair.rules.ascendc and ascendc_split: a buffer sized for another element type than the tensors taken from
it (a float scratch sized by the half input's sizeof), a tensor filled by CopyIn and never enqueued (Compute's DeQue
waits on an empty queue), the UB split over the queues but not over each queue's buffers, a launched block count
that is a floor division of the data, and a clamp whose two bounds are swapped.
The facts these rules use are in ingest.rules.facts_cpp_buffers.
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint
from repair.rules.ascendc import rule

_IDENT = MetaConstraint(kind="identifier")


def buffer_dtype() -> tuple:
    """InitBuffer sized as n * sizeof(T) for a buffer whose tensors are another type (Get<float>() of a half tile)."""
    c = "buffer-dtype"
    out = []
    for tag, size, fixed in (("n-sizeof", "$N * sizeof($T)", "$N * sizeof($U)"),
                             ("sizeof-n", "sizeof($T) * $N", "sizeof($U) * $N")):
        out.append(rule(f"tbuf-{tag}", c, f"$P.InitBuffer($B, {size})", f"$P.InitBuffer($B, {fixed})",
                        derive={"U": Fact(fact="cpp-queue-type", of="B")}, context="kernel",
                        title="a buffer is sized for another element type than the tensors taken from it"))
        out.append(rule(f"queue-{tag}", c, f"$P.InitBuffer($B, $NB, {size})", f"$P.InitBuffer($B, $NB, {fixed})",
                        derive={"U": Fact(fact="cpp-queue-type", of="B")}, context="kernel",
                        title="a queue's buffers are sized for another element type than its tensors"))
    return tuple(out)


def missing_enque() -> tuple:
    """A tensor allocated from a queue is written but never enqueued (nor freed) in its function: the next stage's
    DeQue finds the queue empty."""
    c = "missing-enque"
    out = []
    for tag, decl in (("typed", "$LT<$T> $X = $Q.AllocTensor<$T>();"), ("auto", "auto $X = $Q.AllocTensor<$T>();")):
        out.append(rule(f"after-last-write-{tag}", c, decl, decl,
                        forbids=["$Q.EnQue($X)", "$Q.EnQue<$T>($X)", "$Q.FreeTensor($X)", "return $X;"],
                        derive={"_E": Fact(fact="cpp-enque-after-last-use", of="X", args={"queue": "Q"})},
                        where={"LT": MetaConstraint(regex=r"(^|::)LocalTensor$")} if tag == "typed" else {},
                        context="kernel", title="a tensor filled for the next stage is never enqueued"))
    return tuple(out)


def ub_overallocated() -> tuple:
    """The host splits the UB over the queues but not over each queue's buffers (BUFFER_NUM): the queues ask for
    more than the UB holds."""
    c = "ub-overallocated"
    return (
        rule("per-queue", c, "$UB / $QN", "$UB / ($QN * $BN)", where={"QN": _IDENT, "UB": _IDENT},
             derive={"_U": Fact(fact="cpp-ub-size", of="UB"), "BN": Fact(fact="cpp-buffer-num", of="QN")},
             context="host", title="the UB is split over the queues, not over every buffer of every queue"),
    )


def block_dim_floored() -> tuple:
    """SetBlockDim launches a floor division of the data by each block's share: the last, partial block is never
    launched."""
    c = "tile-count-floored"
    out = []
    for arrow in ("->", "."):
        for tag, stmt, fixed in (("decl", "$TY $F = $A / $B;", "$TY $F = ($A + $B - 1) / $B;"),
                                 ("assign", "$F = $A / $B;", "$F = ($A + $B - 1) / $B;")):
            out.append(rule(f"launched-floor-{tag}-{'ptr' if arrow == '->' else 'ref'}", c, stmt, fixed,
                            requires=[f"$X{arrow}SetBlockDim($F)"], forbids=["$A % $B"],
                            where={"F": _IDENT, "B": MetaConstraint(not_regex=r"^\d+$")},
                            derive={"_D": Fact(fact="cpp-data-derived", of="A"),
                                    "_R": Fact(fact="cpp-rounds-down", of="A", args={"by": "B"})}, context="host",
                            title="the launched block count rounds down, so the last partial block is never "
                                  "launched"))
    return tuple(out)


def clamp_bounds_swapped() -> tuple:
    """A clamp written as Maxs(y, x, bound) then Mins(y, y, bound) takes each bound where the other belongs (the
    upper bound in the Maxs): every element comes out as one bound."""
    c = "clamp-bounds-swapped"
    return tuple(rule(f"{op.lower()}-{peer.lower()}", c, f"{op}($Y, $X, $A, $N)", f"{op}($Y, $X, $A, $N)",
                      derive={"_S": Fact(fact="cpp-clamp-swap", args={"peer": peer})}, context="kernel",
                      where={"A": MetaConstraint(not_regex=r"^[\d.\-+fF]+$")},
                      title="a clamp's lower and upper bounds are swapped")
                 for op, peer in (("Maxs", "Mins"), ("Mins", "Maxs")))


def core_offset_stride() -> tuple:
    """The core's offset multiplies the core index by another length than the share each core is clamped to (the
    tile length where the share is blockLength): cores overlap and the end of the data is never reached."""
    c = "missing-block-offset"
    core = {"_C": Fact(fact="cpp-core-index", of="C")}
    out = []
    for tag, expr in (("index-first", "$C * $L"), ("index-last", "$L * $C")):
        out.append(rule(f"stride-not-share-{tag}", c, f"$TY $O = {expr};", f"$TY $O = {expr};",
                        where={"L": MetaConstraint(regex=r"^(this\s*->\s*)?[A-Za-z_]\w*$"), "O": _IDENT},
                        derive={**core, "_N": Fact(fact="cpp-share-length", of="L", args={"offset": "O"})},
                        context="kernel",
                        title="the core's offset strides by another length than each core's share"))
    return tuple(out)


def accumulator_filled_elsewhere() -> tuple:
    """A TBuf accumulator that a helper sums tiles into (Accumulate(acc, n): Add(acc, acc, t, n)) is never filled
    with 0 before the first call: the partial sums start from whatever the UB held."""
    c = "reduction-init"
    decl = "$LT<$T> $ACC = $B.Get<$T>();"
    return (
        rule("missing-duplicate-sum-call", c, decl, f"{decl}\nDuplicate($ACC, ($T)(0), $N);",
             forbids=["Duplicate($ACC, $$$)"], where={"LT": MetaConstraint(regex=r"(^|::)LocalTensor$")},
             derive={"_A": Fact(fact="cpp-accumulated-by-call", of="ACC"),
                     "N": Fact(fact="cpp-buffer-elements", of="B")}, context="kernel",
             title="a vector running sum kept across calls is never filled with 0"),
    )


def mean_divisor() -> tuple:
    """A mean's scale 1 / L divides by a split or aligned length (one core's share, the row padded to 32 bytes)
    where the data's own length, which L was computed from, is the count being averaged."""
    c = "mean-divisor"
    one = MetaConstraint(regex=r"^1(\.0*)?[fF]?$")
    name = MetaConstraint(regex=r"^(this\s*->\s*)?[A-Za-z_]\w*$")
    out = []
    for tag, expr in (("static-cast", "$K / static_cast<$F>($L)"), ("c-cast", "$K / ($F)$L"), ("plain", "$K / $L")):
        out.append(rule(f"reciprocal-{tag}", c, expr, expr, where={"K": one, "L": name},
                        derive={"_W": Fact(fact="cpp-whole-length", of="L")},
                        title="a mean divides by a split or padded length, not the count it averages"))
    return tuple(out)
