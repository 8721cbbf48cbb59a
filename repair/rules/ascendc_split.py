"""AscendC starter rules over the work split as the host computes it and the kernel walks it, by what values are.

Beside repair.rules.ascendc: a tile count copied from a floor division of the data (the tail tile never counted), a
data length aligned down to whole blocks, a tile loop whose bound is one off what the code after it processes, a
launch of every core of the chip where the work was split over fewer, a kernel that adds no core offset to any
global buffer while it computes one, a float attribute carried by an integer tiling field. The facts
(ingest.rules.facts_cpp_flow) follow a value through the host's assignments to the input's shape or the chip's core
count, and across the candidate's files (a tiling field the host sets from a float).
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint, Rule
from repair.rules.ascendc import rule

_IDENT = MetaConstraint(kind="identifier")
_NAME = MetaConstraint(regex=r"^(this\s*->\s*)?[A-Za-z_]\w*$")


def tile_count_floored() -> tuple:
    """The count of tiles (or blocks) the kernel is told is a copy of `n / tile` rounded down: the tail is lost."""
    c = "tile-count-floored"
    quotient = {"A": Fact(fact="cpp-quotient", of="Q", args={"part": "dividend"}),
                "B": Fact(fact="cpp-quotient", of="Q", args={"part": "divisor"}),
                "_D": Fact(fact="cpp-data-derived", of="A")}
    ceil = "($A % $B) == 0 ? $Q : $Q + 1"
    return (
        rule("copy-decl", c, "$TY $F = $Q;", f"$TY $F = {ceil};", where={"Q": _IDENT}, derive=quotient,
             context="host", title="a tile count copies a floor division of the data, so the tail tile is not counted"),
        rule("copy-assign", c, "$F = $Q;", f"$F = {ceil};", where={"Q": _IDENT, "F": _IDENT}, derive=quotient,
             context="host", title="a tile count copies a floor division of the data, so the tail tile is not counted"),
        rule("align-down", c, "($N / $B) * $B", "(($N + $B - 1) / $B) * $B",
             derive={"_D": Fact(fact="cpp-data-derived", of="N"),
                     "_R": Fact(fact="cpp-rounds-down", of="N", args={"by": "B"})}, context="host",
             title="a data length is aligned down to whole blocks, so its last partial block is lost"),
    )


def loop_bound_off_by_one() -> tuple:
    """A tile loop stops one tile short (or runs one too many): its bound is not the one the code around it needs."""
    c = "loop-off-by-one"
    out = []
    for tag, init in (("decl", "$D $I = $S"), ("assign", "$I = $S")):
        for op in ("<", "<="):
            out.append(rule(f"{tag}-{'le' if op == '<=' else 'lt'}", c, f"for ({init}; $I {op} $N; $U) $BODY",
                            f"for ({init}; $I < $NB; $U) $BODY",
                            derive={"NB": Fact(fact="cpp-loop-bound", of="N", args={"op": op})}, context="kernel",
                            # `i <= n` from 1 counts n tiles: only a loop from 0 runs one too many
                            where={"S": MetaConstraint(regex=r"^0[uU]?$")} if op == "<=" else {},
                            title="the tile loop's bound is one off the tiles its body and the code after it cover"))
    # a tile loop from 1 skips the first tile of every core's share (its body takes the tile's index)
    for tag, init in (("decl", "$D $I = 1"), ("assign", "$I = 1")):
        out.append(rule(f"{tag}-from-one", c, f"for ({init}; $I < $N; $U) $BODY",
                        f"for ({init.replace('= 1', '= 0')}; $I < $N; $U) $BODY", context="kernel",
                        where={"BODY": MetaConstraint(regex=r"\w\s*\(\s*\w+\s*[,)]")},
                        title="the tile loop starts at the second tile, so each core's first tile is never written"))
    return tuple(out)


def block_count() -> tuple:
    """SetBlockDim launches the chip's core count where the host split the work over a narrowed count."""
    c = "block-count"
    out = []
    for arrow in ("->", "."):
        for m in ("GetCoreNumAiv", "GetCoreNum", "GetCoreNumAic"):
            for call in (f"$P.{m}()", f"$P->{m}()"):
                out.append(rule(f"launch-chip-{'ptr' if arrow == '->' else 'ref'}-{m.lower()}-"
                                f"{'ptr' if '->' in call else 'ref'}", c,
                                f"$X{arrow}SetBlockDim({call})", f"$X{arrow}SetBlockDim($C)",
                                derive={"C": Fact(fact="cpp-core-count")}, context="host",
                                title="SetBlockDim launches every core of the chip, not the cores the work was split "
                                      "over"))
    return tuple(out)


def core_offset_unused() -> tuple:
    """No global buffer adds the core's offset, while the kernel computes one (or the share's length says it)."""
    c = "missing-block-offset"
    out = []
    for form, ptr in (("cast", "($PT)$P"), ("reinterpret", "reinterpret_cast<$PT>($P)")):
        out.append(rule(f"{form}-no-peer", c, f"$G.SetGlobalBuffer({ptr}, $LEN)",
                        f"$G.SetGlobalBuffer({ptr} + $OFF, $LEN)",
                        derive={"OFF": Fact(fact="cpp-core-offset", args={"len": "LEN"})}, context="kernel",
                        where={"P": _IDENT},
                        title="no global buffer adds the core's offset, so every core works on the first share"))
    # the offset every buffer adds is the share's length alone: the core's index never scales it
    for form, decl in (("decl", "$TY $OFF = $E;"), ("assign", "$OFF = $E;")):
        out.append(rule(f"offset-without-index-{form}", c, decl, decl.replace("$E;", "($E) * GetBlockIdx();"),
                        requires=["$G.SetGlobalBuffer($X + $OFF, $LEN)"], context="kernel",
                        where={"OFF": _IDENT, "E": MetaConstraint(not_regex=r"^[\s(]*\d+[uUlL]*[\s)]*$")},
                        derive={"_K": Fact(fact="cpp-core-index", of="E", args={"negate": True})},
                        title="the per-core offset every global buffer adds is not scaled by the core's index"))
    return tuple(out)


def attribute_misread() -> tuple:
    """A float attribute carried by an integer tiling field is truncated on its way to the kernel."""
    c = "attribute-misread"
    return (
        # a tiling header reads as function declarators to tree-sitter: the pattern is one, selected
        rule("integer-field", c, "void TILING_DATA_FIELD_DEF($T, $F);", "TILING_DATA_FIELD_DEF(float, $F)",
             selector="function_declarator",
             where={"T": MetaConstraint(regex=r"^(u?int(8|16|32|64)_t|int|unsigned|uint)$")},
             derive={"_S": Fact(fact="cpp-set-from-float", of="F")},
             title="a float attribute is carried by an integer tiling field, so its fraction is lost"),
    )


def small_core_offset() -> tuple:
    """Past the first N (big) blocks, a block's offset takes off (big - small) for each small block before it: scaled by
    the bare core index instead of idx - N, every small block's share moves back over its neighbours'."""
    c = "missing-block-offset"
    from_n = {"N": Fact(fact="cpp-cores-from", of="K")}
    out = []
    for tag, pattern, fixed in (("sub", "$O -= $E * $K;", "$O -= $E * ($K - $N);"),
                                ("sub-index-first", "$O -= $K * $E;", "$O -= ($K - $N) * $E;"),
                                ("minus", "$O = $O - $E * $K;", "$O = $O - $E * ($K - $N);"),
                                ("minus-index-first", "$O = $O - $K * $E;", "$O = $O - ($K - $N) * $E;")):
        out.append(rule(f"small-core-{tag}", c, pattern, fixed, derive=from_n, context="kernel",
                        title="a block past the first N corrects its offset by its index, not by its index less N"))
    # the offset written whole: big * N + small * idx, where the small share counts only the blocks past N
    base = {"N": Fact(fact="cpp-cores-from", of="K", args={"base": True})}
    for tag, pattern, fixed in (("share", "$S * $K", "$S * ($K - $N)"), ("share-index-first", "$K * $S", "($K - $N) * $S")):
        out.append(rule(f"small-core-{tag}", c, pattern, fixed, derive=base, context="kernel",
                        # a share (`small`, `small * 2`), not a difference: `(big - small) * idx` is the other form
                        where={"S": MetaConstraint(not_regex=r"\+|-[^>]|-$|[?:=]")},
                        title="past the first N blocks' shares, a block's own share is scaled by its index, not by "
                              "its index less N"))
    return tuple(out)


def tail_length_dropped() -> tuple:
    """The branch for the last tile sets the length to the full tile's (what it already holds), while the tail's
    length the kernel computed is never read: the last tile copies a whole tile, past the share's end."""
    c = "tail-tile-dropped"
    return (
        rule("last-tile-full-length", c, "$P = $FULL;", "$P = $T;", where={"P": _NAME, "FULL": _NAME},
             derive={"T": Fact(fact="cpp-unread-tail", of="FULL", args={"target": "P"})}, context="kernel",
             title="the last tile's branch keeps the full tile's length; the tail's length is computed and unused"),
    )


def last_core_remainder() -> tuple:
    """Each block's length is the share its offset strides by, and the remainder the host hands the kernel for the
    last block (`total - cores * share`) is never read: the last elements are never processed."""
    c = "tail-tile-dropped"
    ext = "$S + (GetBlockIdx() == GetBlockNum() - 1 ? $R : 0)"
    derive = {"R": Fact(fact="cpp-unread-remainder", of="S")}
    return tuple(rule(f"last-core-remainder-{tag}", c, pattern, fixed, where={"S": _NAME, "L": _NAME}, derive=derive,
                      context="kernel",
                      title="the last block's length drops the remainder the host computed for it")
                 for tag, pattern, fixed in (("assign", "$L = $S;", f"$L = {ext};"),
                                             ("decl", "$TY $L = $S;", f"$TY $L = {ext};")))
