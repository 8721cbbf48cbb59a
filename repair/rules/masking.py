"""Starter rules for what masked lanes hold and which lanes a mask admits: other=, fill values, re-masking, bounds.

Each rule says what the code does, not how it is spelt: a masked load matches whether or not it is
upcast or scaled, and the value it must pad with follows from the reductions its value reaches
(through assignments, casts, arithmetic and loop-carried accumulators).
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint
from repair.rules.vocab import EXP, MASK, MAX, MIN, NEG_INF, POS_INF, PROD, SUM, flow, rule

_ZERO = r"^0(\.0*)?$"
_IDENTITIES = (  # (name, value, the flow the value must take: sinks, sinks it must not reach, then)
    ("max", NEG_INF, (MAX, MIN, ())),
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


def mask_off_by_one() -> tuple:
    c = "mask-off-by-one"
    # a bound: a mask, a masked select or a scalar guard, compared against a size (not a broadcast index, not
    # the program id: those are causal masks, below)
    to_mask = [flow(sink=[*MASK, "tl.where($SINK, $$$)", "if $SINK: $$$"])]
    size = {"_B": Fact(fact="not-reached-by", of="B", args={"pattern": "tl.program_id($$$)"})}
    not_lit = MetaConstraint(not_regex=r"^-?[0-9.]+$")
    causal = [flow(sink=["tl.where($SINK, $$$)", *MASK])]
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
        # a causal (diagonal) mask that fills with -inf: the diagonal is in or out by one comparison
        *[rule(f"diagonal-{name}-{order}", c, f"$A {a} $B", f"$A {b} $B", context="kernel", flows=causal,
               where={"A": ra, "B": rb}, title="causal mask includes or excludes the diagonal by one comparison")
          for name, a, b in (("lt", "<", "<="), ("le", "<=", "<"), ("gt", ">", ">="), ("ge", ">=", ">"))
          for order, ra, rb in (("rc", rows, cols), ("cr", cols, rows))],
        # a row-wise causal mask: a column index against the program's row
        *[rule(f"diagonal-row-{name}", c, f"$A {a} $B", f"$A {b} $B", context="kernel", flows=causal, derive=by_pid,
               title="causal mask includes or excludes the diagonal by one comparison")
          for name, a, b in (("lt", "<", "<="), ("le", "<=", "<"), ("gt", ">", ">="), ("ge", ">=", ">"))],
    )
