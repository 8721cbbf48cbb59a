"""Starter rules for addressing: strides swapped or replaced by shapes, row and block offsets left out.

Which stride belongs where is read from the launch (the argument a parameter receives: `x.stride(0)`,
`x.shape[1]`, a constructor attribute), not from the parameter's name.
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint, Reference
from repair.rules.vocab import POINTER as _POINTER, flow, rule


# the problem can feed a non-contiguous input: only then can a kernel that assumes a layout fail
_STRIDED_INPUTS = [r"\.t\(\)", r"\.T\b", r"transpose", r"permute", r"as_strided", r"::", r"layout", r"\.mT\b",
                   r"stride", r"expand\("]


def wrong_stride() -> tuple:
    c = "wrong-stride"
    out = []
    letters = "mnk"
    for x in letters:
        for y in letters:
            if x == y:
                continue
            where = {"A": MetaConstraint(kind="identifier", regex=f"{x}s?$"),
                     "B": MetaConstraint(kind="identifier", regex=f"{y}s?$"),
                     "S1": MetaConstraint(kind="identifier", regex=f"stride\\w*{y}$"),
                     "S2": MetaConstraint(kind="identifier", regex=f"stride\\w*{x}$")}
            for form, lhs in (("ptr", "$P + "), ("offs", "")):
                out.append(rule(
                    f"swap-{x}{y}-{form}", c,
                    f"{lhs}$A[:, None] * $S1 + $B[None, :] * $S2",
                    f"{lhs}$A[:, None] * $S2 + $B[None, :] * $S1",
                    where=where, context="kernel",
                    title=f"the {x} index is scaled by the {y} stride and vice versa"))
    to_pointer = [flow(sink=_POINTER)]
    out += [
        rule("shape-for-stride", c, "$I * $S", "$I * $T", context="kernel", flows=to_pointer,
             where={"S": MetaConstraint(kind="identifier")}, derive={"T": Fact(fact="stride-for", of="S")},
             title="a pointer offset is scaled by a size where the tensor's stride belongs"),
        rule("shape-for-stride-left", c, "$S * $I", "$T * $I", context="kernel", flows=to_pointer,
             where={"S": MetaConstraint(kind="identifier")}, derive={"T": Fact(fact="stride-for", of="S")},
             title="a pointer offset is scaled by a size where the tensor's stride belongs"),
        rule("assumes-contiguous", c, "$K[$G]($$$ARGS)", "$K[$G]($$$ARGS)", context="host",
             derive={"_C": Fact(fact="contiguous-inputs")}, reference=Reference(requires_any=_STRIDED_INPUTS),
             title="the kernel indexes an input as if it were contiguous, and the forward does not make it so"),
    ]
    return tuple(out)


def missing_offset() -> tuple:
    c = "missing-offset"
    return (
        rule("row", c, "$P + $OFF", "$P + $ROW + $OFF", context="kernel", flows=[flow(sink=_POINTER)],
             where={"P": MetaConstraint(kind="identifier")}, derive={"ROW": Fact(fact="row-offset", of="P",
                                                                                   args={"offset": "OFF"})},
             title="a row's pointer leaves out the row offset (program id times the row stride)"),
        rule("block", c, "$O = tl.arange(0, $B)", "$O = $PID * $B + tl.arange(0, $B)", context="kernel",
             derive={"PID": Fact(fact="unused-program-id", of="O")},
             title="offsets leave out the program's block offset: every program handles the first block"),
        rule("block-unscaled", c, "$PID + tl.arange(0, $B)", "$PID * $B + tl.arange(0, $B)", context="kernel",
             where={"PID": MetaConstraint(kind="identifier")}, derive={"_P": Fact(fact="program-id", of="PID")},
             title="the program id is added to the offsets without scaling by the block size"),
    )
