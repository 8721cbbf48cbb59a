"""Starter rules for arithmetic that is right on paper and wrong in floating point or in its constants.

Reduction identities, precision (fp16 accumulators, missing upcasts), overflow (max shift, stable
sigmoid/tanh/softplus, the online-softmax rescale), eps placement and the divisor of a mean or variance.
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint, Reference
from repair.rules.vocab import (ACC_SUM, EXP, NEG_INF, POS_INF, SQUARES,
                                SUM, flow, rule)

_HALF = ["float16", "bfloat16", r"\.half\(\)", r"\bhalf\b"]
_ONE = {"ONE": MetaConstraint(regex=r"^1(\.0*)?$")}
_BOUNDED = MetaConstraint(not_regex=r"abs\(")  # exp(-|x|) cannot overflow: already the stable form
_X = {"X": _BOUNDED}
_EPS = MetaConstraint(regex=r"(?i)^(self\.)?\w*eps\w*$|^\d*\.?\d+e-\d+$|^0\.0000\d*$")
_BIASED = [r"LayerNorm", r"layer_norm", r"BatchNorm", r"batch_norm", r"GroupNorm", r"group_norm", r"InstanceNorm",
           r"instance_norm", r"unbiased\s*=\s*False", r"correction\s*=\s*0"]
_UNBIASED = [r"\.var\(", r"\.std\(", r"torch\.var\(", r"torch\.std\(", r"\bvar_mean\(", r"\bstd_mean\("]


def _accumulates(fn: str, elementwise: str) -> list[str]:
    """The accumulator $ACC is read by a running (elementwise) or final reduction."""
    return [f"tl.{elementwise}($ACC, $$$)", f"tl.{elementwise}($_, $ACC)", f"tl.{fn}($ACC)", f"tl.{fn}($ACC, $$$)"]


_SUMMED = ["$ACC += $_", "$ACC = $ACC + $_", "$ACC = $_ + $ACC", "tl.dot($_, $_, $ACC)", "tl.dot($_, $_, acc=$ACC)",
           "$ACC = tl.dot($$$)"]
_MULTIPLIED = ["$ACC *= $_", "$ACC = $ACC * $_"]


def reduction_init() -> tuple:
    c = "reduction-init"
    inits = (("zeros", "$ACC = tl.zeros($S, $T)", "$ACC = tl.full($S, {v}, $T)"),
             ("zeros-dtype", "$ACC = tl.zeros($S, dtype=$T)", "$ACC = tl.full($S, {v}, dtype=$T)"),
             ("zeros-like", "$ACC = tl.zeros_like($X)", "$ACC = tl.full($X.shape, {v}, $X.dtype)"),
             ("full-zero", "$ACC = tl.full($S, $Z, $$$R)", "$ACC = tl.full($S, {v}, $$$R)"),
             ("scalar", "$ACC = $Z", "$ACC = {v}"))
    zero = {"Z": MetaConstraint(regex=r"^0(\.0*)?$")}
    maxes, mins = _accumulates("max", "maximum"), _accumulates("min", "minimum")
    out = []
    for name, value, reads, not_reads in (("max", NEG_INF, maxes, _SUMMED + _MULTIPLIED + mins),
                                          ("min", POS_INF, mins, _SUMMED + _MULTIPLIED + maxes),
                                          ("prod", "1.0", _MULTIPLIED, _SUMMED + maxes + mins)):
        for form, pattern, rewrite in inits:
            out.append(rule(f"{name}-{form}", c, pattern, rewrite.format(v=value), context="kernel",
                            where=zero if "$Z" in pattern else {}, requires_any=reads, forbids=not_reads,
                            title=f"running {name} starts at 0, not at the {name}'s identity"))
    inf = {"Z": MetaConstraint(regex=r"^-?(float\(.*inf.*\)|math\.inf|np\.inf)$")}
    for form, pattern, rewrite in (("full-inf", "$ACC = tl.full($S, $Z, $$$R)", "$ACC = tl.full($S, 0.0, $$$R)"),
                                   ("scalar-inf", "$ACC = $Z", "$ACC = 0.0")):
        out.append(rule(f"sum-{form}", c, pattern, rewrite, context="kernel", where=inf, requires_any=_SUMMED,
                        forbids=maxes + mins, title="running sum starts at an infinity, not at 0"))
    return tuple(out)


def fp16_accumulation() -> tuple:
    c = "fp16-accumulation"
    acc = [flow(sink=ACC_SUM)]
    term = [flow(sink=SUM)]
    out = []
    for half in ("float16", "bfloat16"):
        out += [
            rule(f"zeros-{half}", c, f"tl.zeros($S, tl.{half})", "tl.zeros($S, tl.float32)", context="kernel",
                 flows=acc, title="accumulator allocated in half precision"),
            rule(f"zeros-dtype-{half}", c, f"tl.zeros($S, dtype=tl.{half})", "tl.zeros($S, dtype=tl.float32)",
                 context="kernel", flows=acc, title="accumulator allocated in half precision"),
            rule(f"term-cast-{half}", c, f"$E.to(tl.{half})", "$E", context="kernel", flows=term,
                 title="each term is rounded to half precision before it is accumulated"),
            rule(f"dot-out-{half}", c, f"tl.dot($A, $B, out_dtype=tl.{half})", "tl.dot($A, $B)", context="kernel",
                 title="tl.dot accumulates in half precision"),
        ]
    return tuple(out)


def missing_upcast() -> tuple:
    c = "missing-upcast"
    return (
        # max, min and tl.dot are exact or accumulate in fp32 already: a sum, exp, root, log or division is not
        rule("load", c, "tl.load($$$ARGS)", "tl.load($$$ARGS).to(tl.float32)", context="kernel",
             flows=[flow(sink=[*(p for p in SUM if "dot" not in p), *EXP, "tl.sqrt($SINK)", "tl.rsqrt($SINK)",
                               "tl.log($SINK)", "$_ / $SINK", "$SINK / $_"],
                         not_sink=["tl.dot($SINK, $$$)", "tl.dot($_, $SINK)", "tl.dot($_, $SINK, $$$)"])],
             not_inside=["$_.to($$$)"], reference=Reference(requires_any=_HALF),
             title="half-precision input reduced, exponentiated or divided without an fp32 upcast"),
    )


def missing_max_subtraction() -> tuple:
    c = "missing-max-subtraction"
    reach = [flow(source=["tl.load($$$)"], sink="$E")]
    unshifted = {"_U": Fact(fact="unshifted-exp")}
    return (
        rule("row-1d", c, "$V = $E", "$V = $E\n$V = $V - tl.max($V, axis=0)", context="kernel", flows=reach,
             where={"V": MetaConstraint(kind="identifier")}, derive=unshifted,
             title="exp of unshifted inputs overflows (1-D row)"),
        rule("row-2d", c, "$V = $E", "$V = $E\n$V = $V - tl.max($V, axis=1)[:, None]", context="kernel",
             flows=reach, where={"V": MetaConstraint(kind="identifier")}, derive=unshifted,
             title="exp of unshifted inputs overflows (2-D tile, rows on axis 0)"),
        rule("logsumexp", c, "tl.log(tl.sum(tl.exp($V) $$$R))",
             "tl.max($V, axis=0) + tl.log(tl.sum(tl.exp($V - tl.max($V, axis=0)) $$$R))",
             context="kernel", derive={"_U": Fact(fact="unshifted", of="V")},
             title="log-sum-exp without the max shift overflows"),
    )


def exp_overflow() -> tuple:
    c = "exp-overflow"
    e_is_exp = ["$E = tl.exp($X)"]
    return (
        rule("sigmoid", c, "$E / ($ONE + $E)", "tl.sigmoid($X)", context="kernel", requires=e_is_exp,
             where={**_ONE, **_X},
             title="sigmoid as e/(1+e) gives inf/inf = nan for large inputs"),
        rule("sigmoid-swapped", c, "$E / ($E + $ONE)", "tl.sigmoid($X)", context="kernel", requires=e_is_exp,
             where={**_ONE, **_X}, title="sigmoid as e/(e+1) gives inf/inf = nan for large inputs"),
        rule("sigmoid-inline", c, "tl.exp($X) / ($ONE + tl.exp($X))", "tl.sigmoid($X)", context="kernel",
             where={**_ONE, **_X},
             title="sigmoid as e/(1+e) gives inf/inf = nan for large inputs"),
        rule("silu", c, "$Z * $E / ($ONE + $E)", "$Z * tl.sigmoid($X)", context="kernel", requires=e_is_exp,
             where={**_ONE, **_X}, title="x*e/(1+e) gives inf/inf = nan for large inputs"),
        rule("silu-inline", c, "$Z * tl.exp($X) / ($ONE + tl.exp($X))", "$Z * tl.sigmoid($X)", context="kernel",
             where={**_ONE, **_X}, title="x*e/(1+e) gives inf/inf = nan for large inputs"),
        rule("tanh-negative", c, "($ONE - $E) / ($ONE + $E)", "2.0 / ($E + 1.0) - 1.0", context="kernel",
             requires=e_is_exp, where={**_ONE, **_X}, title="(1-e)/(1+e) gives inf/inf = nan for large e"),
        rule("tanh-negative-inline", c, "($ONE - tl.exp($X)) / ($ONE + tl.exp($X))", "2.0 / (tl.exp($X) + 1.0) - 1.0",
             context="kernel", where={**_ONE, **_X}, title="(1-e)/(1+e) gives inf/inf = nan for large e"),
        rule("tanh", c, "($E - $ONE) / ($E + $ONE)", "1.0 - 2.0 / ($E + 1.0)", context="kernel", requires=e_is_exp,
             where={**_ONE, **_X}, title="tanh as (e-1)/(e+1) gives inf/inf = nan for large inputs"),
        rule("tanh-inline", c, "(tl.exp($X) - $ONE) / (tl.exp($X) + $ONE)", "1.0 - 2.0 / (tl.exp($X) + 1.0)",
             context="kernel", where={**_ONE, **_X}, title="tanh as (e-1)/(e+1) gives inf/inf = nan for large inputs"),
        rule("tanh-two-exp", c, "($P - $Q) / ($P + $Q)", "1.0 - 2.0 / (tl.exp(2.0 * $X) + 1.0)", context="kernel",
             requires=["$P = tl.exp($X)", "$Q = tl.exp(-$X)"], where=_X,
             title="tanh as (e^x - e^-x)/(e^x + e^-x) gives inf/inf = nan for large inputs"),
        rule("softplus", c, "tl.log($ONE + tl.exp($X))", "tl.maximum($X, 0.0) + tl.log(1.0 + tl.exp(-tl.abs($X)))",
             context="kernel", where={**_ONE, **_X}, flows=_UNGUARDED,
             title="log(1 + exp(x)) overflows for large x"),
        rule("softplus-swapped", c, "tl.log(tl.exp($X) + $ONE)",
             "tl.maximum($X, 0.0) + tl.log(1.0 + tl.exp(-tl.abs($X)))", context="kernel", where={**_ONE, **_X},
             title="log(exp(x) + 1) overflows for large x"),
        rule("softplus-var", c, "tl.log($ONE + $E)", "tl.maximum($X, 0.0) + tl.log(1.0 + tl.exp(-tl.abs($X)))",
             context="kernel", requires=e_is_exp, where={**_ONE, **_X}, title="log(1 + exp(x)) overflows for large x"),
    )


# a value one branch of a select: a threshold guard (tl.where(z > 20, x, softplus)) keeps an overflow out of the output
_UNGUARDED = [flow(sink=["tl.store($_, $SINK)", "tl.store($_, $SINK, $$$)", "$_ += $SINK", "tl.sum($SINK)",
                         "tl.sum($SINK, $$$)", "tl.atomic_add($_, $SINK)", "tl.atomic_add($_, $SINK, $$$)"],
                   not_sink=["tl.where($_, $_, $SINK)", "tl.where($_, $SINK, $_)"])]


def online_rescale() -> tuple:
    c = "missing-online-rescale"
    new_max = "$MN = tl.maximum($M, $$$)"
    alpha = "$ALPHA = tl.exp($M - $MN)"
    exp2 = [rule(f"{r.id.rsplit('/', 1)[1]}-exp2", c, r.pattern, r.rewrite.replace("tl.exp(", "tl.exp2("),
                 context="kernel", requires=[p.replace("tl.exp(", "tl.exp2(") for p in r.requires],
                 forbids=[p.replace("tl.exp(", "tl.exp2(") for p in r.forbids], title=r.title)
            for r in _rescale(c, new_max, alpha)[:2]]
    return (*_rescale(c, new_max, alpha), *exp2)


def _rescale(c: str, new_max: str, alpha: str) -> tuple:
    return (
        rule("sum", c, "$L = $L + $T", "$L = $L * tl.exp($M - $MN) + $T", context="kernel",
             requires=[new_max, "tl.exp($_ - $MN)"], forbids=[alpha, "$L *= $_"],
             title="running sum is not rescaled by exp(m_old - m_new) when the running max grows"),
        rule("sum-aug", c, "$L += $T", "$L = $L * tl.exp($M - $MN) + $T", context="kernel",
             requires=[new_max, "tl.exp($_ - $MN)"], forbids=[alpha, "$L *= $_", "$L = $L * $_"],
             title="running sum is not rescaled by exp(m_old - m_new) when the running max grows"),
        rule("sum-alpha", c, "$L = $L + $T", "$L = $L * $ALPHA + $T", context="kernel", requires=[new_max, alpha],
             forbids=["$L *= $_"], title="running sum ignores the computed rescale factor"),
        rule("sum-alpha-aug", c, "$L += $T", "$L = $L * $ALPHA + $T", context="kernel", requires=[new_max, alpha],
             forbids=["$L *= $_", "$L = $L * $_"], title="running sum ignores the computed rescale factor"),
        rule("acc-alpha", c, "$L += tl.dot($$$D)", "$L = $L * $ALPHA[:, None] + tl.dot($$$D)", context="kernel",
             requires=[new_max, alpha], forbids=["$L *= $_", "$L = $L * $_"],
             title="output accumulator ignores the rescale factor"),
        rule("acc-alpha-assign", c, "$L = $L + tl.dot($$$D)", "$L = $L * $ALPHA[:, None] + tl.dot($$$D)",
             context="kernel", requires=[new_max, alpha], forbids=["$L *= $_"],
             title="output accumulator ignores the rescale factor"),
    )


def eps_placement() -> tuple:
    c = "eps-placement"
    eps = {"E": _EPS}
    outside = Reference(requires_any=[r"(sqrt\([^()]*\)|\.std\([^()]*\)|norm\([^()]*\))\s*\+\s*(self\.)?\w*eps"])
    normalize = Reference(requires_any=[r"normalize\(", r"clamp\(min\s*=", r"clamp_min\("])
    return (
        rule("sqrt", c, "tl.sqrt($V) + $E", "tl.sqrt($V + $E)", context="kernel", where=eps,
             reference=Reference(forbids=outside.requires_any), title="eps added after the square root, not inside"),
        rule("over-sqrt", c, "$X / tl.sqrt($V) + $E", "$X / tl.sqrt($V + $E)", context="kernel", where=eps,
             reference=Reference(forbids=outside.requires_any),
             title="eps added after dividing by the root, not inside"),
        rule("times-rsqrt", c, "$X * tl.rsqrt($V) + $E", "$X * tl.rsqrt($V + $E)", context="kernel", where=eps,
             title="eps added after scaling by the reciprocal root, not inside"),
        rule("unused-sqrt", c, "tl.sqrt($V)", "tl.sqrt($V + $EPS)", context="kernel",
             derive={"EPS": Fact(fact="unused-parameter", args={"like": r"(?i)eps"})},
             title="the eps the kernel is passed is never added under the square root"),
        rule("unused-rsqrt", c, "tl.rsqrt($V)", "tl.rsqrt($V + $EPS)", context="kernel",
             derive={"EPS": Fact(fact="unused-parameter", args={"like": r"(?i)eps"})},
             title="the eps the kernel is passed is never added under the square root"),
        rule("named-sqrt", c, "$S + $E", "tl.sqrt($V + $E)", context="kernel", where=eps, requires=["$S = tl.sqrt($V)"],
             reference=Reference(forbids=outside.requires_any),
             title="eps added to the standard deviation, not to the variance"),
        rule("rsqrt-outside", c, "tl.rsqrt($V) + $E", "tl.rsqrt($V + $E)", context="kernel", where=eps,
             title="eps added after the reciprocal square root, not inside"),
        rule("sqrt-inside", c, "tl.sqrt($V + $E)", "tl.sqrt($V) + $E", context="kernel", where=eps,
             reference=outside, title="eps added inside the square root where the reference adds it to the norm"),
        rule("rsqrt-inside", c, "tl.rsqrt($V + $E)", "1.0 / (tl.sqrt($V) + $E)", context="kernel", where=eps,
             reference=outside, title="eps added inside the square root where the reference adds it to the norm"),
        rule("clamp", c, "$X / ($N + $E)", "$X / tl.maximum($N, $E)", context="kernel", where=eps,
             reference=normalize, title="norm is offset by eps where the reference clamps it to at least eps"),
        rule("offset", c, "tl.maximum($N, $E)", "($N + $E)", context="kernel", where=eps, reference=outside,
             title="norm is clamped to eps where the reference adds eps to it"),
    )


def variance_divisor() -> tuple:
    c = "variance-divisor"
    squares = [flow(source=SQUARES, sink="$S")]
    return (
        rule("unbiased-to-biased", c, "$S / ($N - 1)", "$S / $N", context="kernel", flows=squares,
             reference=Reference(requires_any=_BIASED),
             title="variance divides by n - 1 where the reference is biased (divides by n)"),
        rule("biased-to-unbiased", c, "$S / $N", "$S / ($N - 1)", context="kernel", flows=squares,
             where={"N": MetaConstraint(not_regex=r"-\s*1\s*\)?$")},
             reference=Reference(requires_any=_UNBIASED, forbids=_BIASED),
             title="variance divides by n where the reference is unbiased (divides by n - 1)"),
    )


def wrong_divisor() -> tuple:
    c = "wrong-divisor"
    from_sum = [flow(source=["tl.sum($$$)"], sink="$S")]
    return (
        rule("block", c, "$S / $B", "$S / $N", context="kernel", flows=from_sum,
             derive={"_B": Fact(fact="constexpr", of="B"), "N": Fact(fact="mask-bound", of="S")},
             title="mean divides by the block size, not the element count"),
        rule("floor", c, "$S // $D", "$S / $D", context="kernel", flows=from_sum,
             title="mean floor-divides a float sum"),
        rule("block-reciprocal", c, "$S * ($ONE / $B)", "$S * ($ONE / $N)", context="kernel", flows=from_sum,
             where=_ONE, derive={"_B": Fact(fact="constexpr", of="B"), "N": Fact(fact="mask-bound", of="S")},
             title="mean scales by one over the block size, not the element count"),
        rule("count", c, "$S / $D", "$S / $N", context="kernel", flows=from_sum,
             where={"D": MetaConstraint(kind="identifier")},
             derive={"_D": Fact(fact="kernel-parameter", of="D"), "_G": Fact(fact="not-grid-extent", of="D"),
                     "_P": Fact(fact="not-partials", of="S"),
                     "N": Fact(fact="mask-bound", of="S", args={"unless": "D"})},
             title="mean divides by another dimension's size, not the reduced element count"),
    )


def one_pass_variance() -> tuple:
    c = "one-pass-variance"
    centred = "tl.sum(tl.where($MASK, ($X - $M) * ($X - $M), 0.0), $$$R) / $N"
    mask = {"MASK": Fact(fact="load-mask", of="X")}
    return (
        rule("inline", c, "tl.sum($X * $X, $$$R) / $N - $M * $M", centred, context="kernel", derive=mask,
             title="variance as E[x^2] - E[x]^2 cancels catastrophically"),
        rule("named", c, "$Q / $N - $M * $M", centred, context="kernel", requires=["$Q = tl.sum($X * $X, $$$R)"],
             derive=mask, title="variance as E[x^2] - E[x]^2 cancels catastrophically"),
        rule("named-mean", c, "$Q - $M * $M", centred, context="kernel",
             requires=["$Q = tl.sum($X * $X, $$$R) / $N"], derive=mask,
             title="variance as E[x^2] - E[x]^2 cancels catastrophically"),
    )
