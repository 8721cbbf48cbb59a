"""Starter rules for what masked lanes hold and which lanes a mask admits: missing masks, other=, fill values,
re-masking, bounds.

Each rule says what the code does, not how it is spelt: a masked load matches whether or not it is
upcast or scaled, and the value it must pad with follows from the reductions its value reaches
(through assignments, casts, arithmetic and loop-carried accumulators). A missing mask is built from what the
pointer's indices walk and the extents the launch binds (ingest.rules.facts_mask), whatever they are called.
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint, Reference
from repair.rules.vocab import EXP, MASK, MAX, MIN, NEG_INF, POS_INF, PROD, SUM, flow, rule

_ZERO = r"^0(\.0*)?$"
# a value made non-negative on its way (an absolute value, a square) is padded rightly by 0 for a max
_NON_NEGATIVE = ["tl.abs($SINK)", "tl.math.abs($SINK)", "libdevice.abs($SINK)", "$SINK * $SINK", "$SINK ** 2"]
_IDENTITIES = (  # (name, value, the flow the value must take: sinks, sinks it must not reach, then)
    ("max", NEG_INF, (MAX, MIN + _NON_NEGATIVE, ())),
    ("exp", NEG_INF, (EXP, MIN, SUM)),  # exponentiated, then summed: exp(-inf) = 0 drops the lane
    ("min", POS_INF, (MIN, MAX + EXP, ())),
    ("sum", "0.0", (SUM, MAX + MIN + EXP, ())),
    ("prod", "1.0", (PROD, SUM + MAX + MIN + EXP, ())),
)


def _reach(sinks, not_sinks, then):
    return [flow(sink=sinks, not_sink=not_sinks, then=then)]


def missing_other() -> tuple:
    c = "missing-other"
    out = []
    masked = {"_M": Fact(fact="masked-no-other")}
    for name, value, spec in _IDENTITIES:
        out.append(rule(name, c, "tl.load($$$ARGS)", f"tl.load($$$ARGS, other={value})", context="kernel",
                        flows=_reach(*spec), derive=masked,
                        title=f"masked load reaching a {name} has no other={value}"))
    return tuple(out)


_REDUCED = MAX + MIN + EXP + SUM + PROD
_STORED = ["tl.store($_, $SINK)", "tl.store($_, $SINK, $$$)", "tl.atomic_add($_, $SINK)", "tl.atomic_add($_, $SINK, $$$)"]


def missing_mask() -> tuple:
    c = "missing-mask"
    mask = {"MASK": Fact(fact="access-mask")}
    out = [rule(f"load-{name}", c, "tl.load($P)", f"tl.load($P, mask=$MASK, other={value})", context="kernel",
                flows=_reach(*spec), derive=mask,
                title=f"unmasked load reaching a {name}: mask its indices and pad with {value}")
           for name, value, spec in _IDENTITIES]
    out += [
        rule("load", c, "tl.load($P)", "tl.load($P, mask=$MASK)", context="kernel", derive=mask,
             flows=[flow(sink=_STORED, not_sink=_REDUCED)], title="unmasked load: mask its indices"),
        rule("load-with-other", c, "tl.load($P, other=$O)", "tl.load($P, mask=$MASK, other=$O)", context="kernel",
             derive=mask, title="load gives other= but no mask: other= pads nothing without one"),
        rule("store", c, "tl.store($P, $V)", "tl.store($P, $V, mask=$MASK)", context="kernel", derive=mask,
             title="unmasked store: the block's padding lanes write past the end of its row or tensor"),
    ]
    return tuple(out)


def mask_wrong_dim() -> tuple:
    c = "mask-wrong-dim"
    to_mask = [flow(sink=[*MASK, "tl.where($SINK, $$$)"])]
    return (
        rule("lt", c, "$I < $B", "$I < $BOUND", context="kernel", flows=to_mask,
             derive={"BOUND": Fact(fact="wrong-bound", of="I", args={"bound": "B"})},
             title="mask compares an index with the extent of another dimension"),
        rule("gt", c, "$B > $I", "$BOUND > $I", context="kernel", flows=to_mask,
             derive={"BOUND": Fact(fact="wrong-bound", of="I", args={"bound": "B"})},
             title="mask compares an index with the extent of another dimension"),
    )


def wrong_fill() -> tuple:
    c = "wrong-fill-value"
    zero = {"O": MetaConstraint(regex=_ZERO)}
    nonzero = {"O": MetaConstraint(regex=r"inf|^-?\d", not_regex=_ZERO)}  # any other constant fill
    position_only = {"_C": Fact(fact="position-only", of="C")}
    out = []
    for name, value, spec in _IDENTITIES[:4]:
        where = nonzero if name == "sum" else zero
        reach = _reach(*spec)
        out += [
            rule(f"other-{name}", c, "tl.load($P, mask=$M, other=$O)", f"tl.load($P, mask=$M, other={value})",
                 context="kernel", where=where, flows=reach,
                 title=f"masked load reaching a {name} pads with the wrong value (not {value})"),
            rule(f"where-{name}", c, "tl.where($C, $X, $O)", f"tl.where($C, $X, {value})", context="kernel",
                 where=where, flows=reach, derive=position_only,
                 title=f"masked select reaching a {name} fills with the wrong value (not {value})"),
        ]
    return tuple(out)


def unmasked_padding() -> tuple:
    c = "unmasked-padding"
    return (
        rule("centered", c, "$X - $Y", "tl.where($MASK, $X - $Y, 0.0)", context="kernel",
             flows=[flow(sink=SUM, not_sink=MAX + MIN), flow(source=["tl.sum($$$)"], sink="$Y")],
             derive={"MASK": Fact(fact="load-mask", of="X")}, not_inside=["tl.where($$$)"],
             where={"X": MetaConstraint(kind="identifier")},
             title="padded lanes of a centred value (x - mean) are not re-masked before they are summed"),
        rule("exp", c, "tl.exp($X)", "tl.where($MASK, tl.exp($X), 0.0)", context="kernel",
             flows=[flow(sink=SUM, not_sink=MAX + MIN)], derive={"MASK": Fact(fact="load-mask", of="X"),
                                                                "_Z": Fact(fact="pads-with", of="X",
                                                                           args={"value": "0"})},
             not_inside=["tl.where($$$)"], title="exp of padded lanes (exp(0) = 1) is summed"),
    )


_FILLS = (NEG_INF, 'float("-inf")', "-float('inf')", "float('-inf')", "0.0", "0", "-1e30", "-1e9", "-10000.0")
_TRI = r"\btril\b|\btriu\b"


def _keeps_diagonal(keeps: bool, new_op: str):
    """Where the reference masks with torch.tril/triu (which keep the diagonal), offer only rewrites whose kept lanes
    include it: a kept-lanes comparison made inclusive (<=, >=), a filled-lanes one made strict (<, >)."""
    inclusive = new_op in ("<=", ">=")
    return None if inclusive == keeps else Reference(forbids=[_TRI])


def mask_off_by_one() -> tuple:
    c = "mask-off-by-one"
    # a bound: a mask, a masked select or a scalar guard, compared against a size (not a broadcast index, not
    # the program id: those are causal masks, below)
    to_mask = [flow(sink=[*MASK, "tl.where($SINK, $$$)", "if $SINK: $$$"])]
    size = {"_B": Fact(fact="not-reached-by", of="B", args={"pattern": "tl.program_id($$$)"})}
    not_lit = MetaConstraint(not_regex=r"^-?[0-9.]+$")
    # the comparison selects the lanes kept (a load/store mask, tl.where(c, x, fill)) or the lanes filled
    kept = [flow(sink=[*MASK, *[f"tl.where($SINK, $_, {f})" for f in _FILLS]])]
    filled = [flow(sink=[f"tl.where($SINK, {f}, $_)" for f in _FILLS])]
    positions = {"_PA": Fact(fact="position-only", of="A"), "_PB": Fact(fact="position-only", of="B")}
    rows, cols = MetaConstraint(regex=r"\[\s*:\s*,\s*None\s*\]"), MetaConstraint(regex=r"\[\s*None\s*,\s*:\s*\]")
    by_pid = {"_P": Fact(fact="reached-by", of="B", args={"pattern": "tl.program_id($$$)"}),
              "_A": Fact(fact="reached-by", of="A", args={"pattern": "tl.arange($$$)"})}
    return (
        rule("le", c, "$A <= $B", "$A < $B", context="kernel", flows=to_mask, derive=size,
             where={"A": not_lit, "B": MetaConstraint(not_regex=r"-\s*1\s*\)?$|None")},
             title="mask compares with <=: the lane at the bound is live"),
        rule("plus-one", c, "$A < $B + 1", "$A < $B", context="kernel", flows=to_mask, where={"A": not_lit},
             derive=size,
             title="mask bound is n + 1: one lane past the end is live"),
        rule("minus-one", c, "$A < $B - 1", "$A < $B", context="kernel", flows=to_mask, where={"A": not_lit},
             derive=size,
             title="mask bound is n - 1: the last element is dropped"),
        rule("index-plus-one", c, "$A + 1 < $B", "$A < $B", context="kernel", flows=to_mask,
             title="mask tests offset + 1: the last element is dropped"),
        rule("bound-minus-one", c, "$B - 1 > $A", "$B > $A", context="kernel", flows=to_mask,
             where={"A": not_lit}, title="mask tests n - 1 > offset: the last element is dropped"),
        rule("bound-plus-one", c, "$B + 1 > $A", "$B > $A", context="kernel", flows=to_mask,
             where={"A": not_lit}, title="mask tests n + 1 > offset: one lane past the end is live"),
        rule("ge", c, "$B >= $A", "$B > $A", context="kernel", flows=to_mask, derive=size,
             where={"A": not_lit, "B": MetaConstraint(not_regex=r"^-?[0-9.]+$|\+\s*1\s*\)?$|None")},
             title="mask compares n >= offset: the lane at the bound is live"),
        # a causal (diagonal) mask: the diagonal is in or out by one comparison; where the reference keeps it
        # (torch.tril/triu keep their diagonal), a rewrite that would drop it from the kept lanes is not offered
        *[rule(f"diagonal-{name}-{order}{role}", c, f"$A {a} $B", f"$A {b} $B", context="kernel", flows=sinks,
               where={"A": ra, "B": rb}, derive=positions, reference=_keeps_diagonal(keeps, b),
               title="causal mask includes or excludes the diagonal by one comparison")
          for name, a, b in (("lt", "<", "<="), ("le", "<=", "<"), ("gt", ">", ">="), ("ge", ">=", ">"))
          for order, ra, rb in (("rc", rows, cols), ("cr", cols, rows))
          for role, keeps, sinks in (("", True, kept), ("-fill", False, filled))],
        # a row-wise causal mask: a column index against the program's row
        *[rule(f"diagonal-row-{name}{role}", c, f"$A {a} $B", f"$A {b} $B", context="kernel", flows=sinks,
               derive={**by_pid, **positions}, reference=_keeps_diagonal(keeps, b),
               title="causal mask includes or excludes the diagonal by one comparison")
          for name, a, b in (("lt", "<", "<="), ("le", "<=", "<"), ("gt", ">", ">="), ("ge", ">=", ">"))
          for role, keeps, sinks in (("", True, kept), ("-fill", False, filled))],
    )
