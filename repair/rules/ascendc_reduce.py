"""AscendC starter rules over reductions across tiles and cores.

Beside repair.rules.ascendc, ascendc_split and ascendc_buffers: an accumulator reset inside the tile loop (or in the
helper the loop calls) that only the code after the loop reads, so only the last tile is summed; a sum's partial
result copied by every core into one GM range without SetAtomicAdd, so the cores overwrite each other. The facts
are in ingest.rules.facts_cpp_reduce.
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint
from repair.rules.ascendc import rule

_ZERO = MetaConstraint(regex=r"^[\s(]*(\([\w: ]+\))?[\s(]*0(\.0*)?[fFuUlL]*[\s)]*$")  # 0, 0.0f, (float)0, (T)(0)
_NAME = MetaConstraint(regex=r"^(this\s*->\s*)?[A-Za-z_]\w*$")


def accumulator_reset_per_tile() -> tuple:
    """A running sum (a TBuf tensor filled with 0 by Duplicate, or a scalar set to 0) reset inside the tile loop,
    or in the helper the loop calls, while only the code after the loop reads it: each core keeps its last tile."""
    c = "accumulator-reset-per-tile"
    hoist = {"_H": Fact(fact="cpp-reset-hoisted", of="ACC")}
    title = "an accumulator is reset inside the tile loop, so only the last tile is accumulated"
    return (
        rule("duplicate-in-loop", c, "Duplicate($ACC, $E, $N);", "Duplicate($ACC, $E, $N);",
             where={"E": _ZERO, "ACC": _NAME}, derive=hoist, context="kernel", title=title),
        rule("scalar-in-loop", c, "$ACC = $E;", "$ACC = $E;", where={"E": _ZERO, "ACC": _NAME}, derive=hoist,
             context="kernel", title=title),
    )


def missing_atomic_accumulate() -> tuple:
    """Every core copies its partial sum into the one GM range of a reduced output with a plain copy: without
    SetAtomicAdd the last core's write wins."""
    c = "missing-atomic-accumulate"
    out = []
    # the whole output or a fixed element of it: a copy indexed by the tile writes each tile its own range
    for op, tail in (("datacopypad", "DataCopyPad($G, $L, $P);"), ("datacopy", "DataCopy($G, $L, $P);"),
                     ("datacopypad-at", "DataCopyPad($G[$O], $L, $P);"), ("datacopy-at", "DataCopy($G[$O], $L, $P);")):
        where = {"G": _NAME, **({"O": MetaConstraint(kind="number")} if "$O" in tail else {})}
        out.append(rule(f"partial-{op}", c, tail, tail, where=where,
                        derive={"_A": Fact(fact="cpp-partial-to-shared", of="G", args={"local": "L"})},
                        context="kernel",
                        title="the cores' partial sums are copied into one output without an atomic add"))
    return tuple(out)

