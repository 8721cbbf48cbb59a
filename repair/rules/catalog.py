"""The hand-written starter rules for common Triton near-miss bug classes.

Each StarterPattern becomes one repair record (worker kind "hand") whose evidence comes from
evaluating the rules on a real near-miss of the example suite: see repair.rules.build_starter.
Rules are reduction-aware where the right value depends on the reduction (other=, initial
values); where a choice cannot be made from the syntax (1-D or 2-D row max), the pattern
carries both rewrites and the engine's evaluation picks.
"""
from __future__ import annotations

from dataclasses import dataclass

from ingest.rules.model import MetaConstraint, Rule

NEG_INF = '-float("inf")'
POS_INF = 'float("inf")'


@dataclass(frozen=True)
class StarterPattern:
    bug_class: str
    title: str
    root_cause: str
    fix: str
    rules: tuple[Rule, ...]
    examples: tuple[tuple[str, str], ...]  # (operator dir, near-miss file) the rules must repair


def _r(id: str, bug_class: str, pattern: str, rewrite: str, **kw) -> Rule:
    return Rule(id=f"starter/{bug_class}/{id}", bug_class=bug_class, pattern=pattern, rewrite=rewrite, **kw)


def _uses(fn: str, pair_fn: str | None, var: str) -> list[str]:
    """Patterns meaning "var feeds reduction fn (or its elementwise pair)"."""
    uses = [f"tl.{fn}({var} $$$)", f"tl.arg{fn}({var} $$$)"]
    if pair_fn:
        uses += [f"tl.{pair_fn}($ACC_, {var})", f"tl.{pair_fn}({var}, $ACC_)"]
    return uses


def _mask_rules() -> tuple[Rule, ...]:
    c = "mask-off-by-one"
    return (
        _r("kwarg-le", c, "f(mask=$A <= $B)", "mask=$A < $B", selector="keyword_argument",
           title="mask= compares with <= : the last lane reads one past the end", context="kernel"),
        _r("kwarg-plus-one", c, "f(mask=$A < $B + 1)", "mask=$A < $B", selector="keyword_argument",
           title="mask= bound is n + 1", context="kernel"),
        _r("assign-le", c, "$M = $A <= $B", "$M = $A < $B", where={"M": MetaConstraint(kind="identifier", regex="mask")},
           title="a mask variable compares with <=", context="kernel", requires=["tl.load($$$)"]),
    )


def _other_rules() -> tuple[Rule, ...]:
    c = "missing-other"
    out = []
    for name, fn, pair, value in (("max", "max", "maximum", NEG_INF), ("min", "min", "minimum", POS_INF)):
        out.append(_r(name, c, "$V = tl.load($P, mask=$M)", f"$V = tl.load($P, mask=$M, other={value})",
                      title=f"masked load feeding a {fn} has no other={value}", context="kernel",
                      requires_any=_uses(fn, pair, "$V")))
    out.append(_r("sum", c, "$V = tl.load($P, mask=$M)", "$V = tl.load($P, mask=$M, other=0.0)",
                  title="masked load feeding a sum or dot has no other=0.0", context="kernel",
                  requires_any=["tl.sum($V $$$)", "$ACC_ += $V", "tl.dot($V, $B_ $$$)", "tl.dot($A_, $V $$$)"],
                  forbids=["tl.max($V $$$)", "tl.min($V $$$)"]))
    return tuple(out)


def _init_rules() -> tuple[Rule, ...]:
    c = "reduction-init"
    out = []
    for name, pair, fn, value in (("max", "maximum", "max", NEG_INF), ("min", "minimum", "min", POS_INF)):
        uses = _uses(fn, pair, "$ACC")[2:]  # the running elementwise form: acc = tl.maximum(acc, x)
        out += [
            _r(f"{name}-zeros", c, "$ACC = tl.zeros($S, $T)", f"$ACC = tl.full($S, {value}, $T)",
               title=f"running {fn} starts at 0", context="kernel", requires_any=uses),
            _r(f"{name}-zeros-dtype", c, "$ACC = tl.zeros($S, dtype=$T)", f"$ACC = tl.full($S, {value}, dtype=$T)",
               title=f"running {fn} starts at 0", context="kernel", requires_any=uses),
            _r(f"{name}-scalar", c, "$ACC = 0.0", f"$ACC = {value}",
               title=f"running {fn} starts at 0", context="kernel", requires_any=uses),
        ]
    out.append(_r("prod-zeros", c, "$ACC = tl.zeros($S, $T)", "$ACC = tl.full($S, 1.0, $T)",
                  title="running product starts at 0", context="kernel", requires=["$ACC *= $X_"]))
    return tuple(out)


def _grid_rules() -> tuple[Rule, ...]:
    c = "grid-floor-div"
    # (n + BLOCK - 1) // BLOCK already rounds up; leave it alone
    n = {"N": MetaConstraint(not_regex=r"-\s*1\s*\)?\s*$")}
    return (
        _r("1d", c, "($N // $B,)", "(triton.cdiv($N, $B),)", where=n, context="host",
           title="grid rounds the program count down"),
        _r("first", c, "($N // $B, $$$REST)", "(triton.cdiv($N, $B), $$$REST)", where=n, context="host",
           title="grid rounds the first axis down"),
        _r("second", c, "($A, $N // $B)", "($A, triton.cdiv($N, $B))", where=n, context="host",
           title="grid rounds the second axis down"),
    )


def _loop_rules() -> tuple[Rule, ...]:
    c = "loop-tail"
    return (
        _r("range-minus-block", c, "range($S, $N - $B + 1, $B)", "range($S, $N, $B)", context="kernel",
           title="chunk loop stops before the partial last chunk"),
        _r("range-floor", c, "range($S, $N // $B)", "range($S, tl.cdiv($N, $B))", context="kernel",
           title="block-count loop rounds down and skips the tail block"),
        _r("range-floor-1arg", c, "range($N // $B)", "range(tl.cdiv($N, $B))", context="kernel",
           title="block-count loop rounds down and skips the tail block"),
    )


def _fp16_rules() -> tuple[Rule, ...]:
    c = "fp16-accumulation"
    return (
        _r("zeros", c, "tl.zeros($S, tl.float16)", "tl.zeros($S, tl.float32)", context="kernel",
           title="accumulator allocated in fp16"),
        _r("zeros-dtype", c, "tl.zeros($S, dtype=tl.float16)", "tl.zeros($S, dtype=tl.float32)", context="kernel",
           title="accumulator allocated in fp16"),
        _r("cast-before-add", c, "$ACC += ($E).to(tl.float16)", "$ACC += $E", context="kernel",
           title="each term is rounded to fp16 before it is accumulated"),
        _r("cast-before-add-bare", c, "$ACC += $E.to(tl.float16)", "$ACC += $E", context="kernel",
           title="each term is rounded to fp16 before it is accumulated"),
    )


def _softmax_rules() -> tuple[Rule, ...]:
    c = "missing-max-subtraction"
    no_max = ["tl.max($V $$$)"]
    return (
        _r("row-1d", c, "$V = tl.load($$$ARGS)", "$V = tl.load($$$ARGS)\n$V = $V - tl.max($V, axis=0)",
           context="kernel", requires=["tl.exp($V)"], forbids=no_max,
           title="exp of unshifted inputs overflows (1-D row)"),
        _r("row-2d", c, "$V = tl.load($$$ARGS)", "$V = tl.load($$$ARGS)\n$V = $V - tl.max($V, axis=1)[:, None]",
           context="kernel", requires=["tl.exp($V)"], forbids=no_max,
           title="exp of unshifted inputs overflows (2-D tile, rows on axis 0)"),
        _r("logsumexp", c, "tl.log(tl.sum(tl.exp($V) $$$R))",
           "tl.max($V, axis=0) + tl.log(tl.sum(tl.exp($V - tl.max($V, axis=0)) $$$R))",
           context="kernel", forbids=no_max, title="log-sum-exp without the max shift overflows"),
    )


def _exp_rules() -> tuple[Rule, ...]:
    c = "exp-overflow"
    return (
        _r("sigmoid", c, "$Y = $E / (1.0 + $E)", "$Y = tl.where($X >= 0, 1.0 / (1.0 + tl.exp(-$X)), $E / (1.0 + $E))",
           context="kernel", requires=["$E = tl.exp($X)"],
           title="sigmoid as e/(1+e) gives inf/inf = nan for large inputs"),
    )


def _stride_rules() -> tuple[Rule, ...]:
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
                out.append(_r(
                    f"swap-{x}{y}-{form}", c,
                    f"{lhs}$A[:, None] * $S1 + $B[None, :] * $S2",
                    f"{lhs}$A[:, None] * $S2 + $B[None, :] * $S1",
                    where=where, context="kernel",
                    title=f"the {x} index is scaled by the {y} stride and vice versa"))
    return tuple(out)


def _divisor_rules() -> tuple[Rule, ...]:
    c = "wrong-divisor"
    return (
        _r("mean-block", c, "tl.sum($X $$$R) / $B", "tl.sum($X $$$R) / $N", context="kernel",
           where={"B": MetaConstraint(kind="identifier", regex="^BLOCK"), "N": MetaConstraint(kind="identifier")},
           requires=["$C < $N"], title="mean divides by the block size, not the element count"),
    )


STARTER: tuple[StarterPattern, ...] = (
    StarterPattern("mask-off-by-one", "Mask compares with <= (or n + 1): one lane past the end is live",
                   "The boundary mask admits offset n, so the tail lane reads and writes out of bounds.",
                   "Compare offsets with a strict < against the element count.",
                   _mask_rules(), (("sum_lastdim", "nearmiss_2.py"),)),
    StarterPattern("missing-other", "Masked load without the reduction's identity as other=",
                   "Masked-off lanes read 0 (or garbage), which wins a max/min or pollutes a sum on partial blocks.",
                   "Give the masked load other= the identity of the reduction it feeds: -inf for max, "
                   "+inf for min, 0.0 for sum and dot.",
                   _other_rules(), (("max_lastdim", "nearmiss_1.py"), ("softmax", "nearmiss_2.py"))),
    StarterPattern("reduction-init", "Running max/min/product accumulator starts at 0",
                   "The accumulator starts at 0 instead of the reduction's identity, so all-negative (max) or "
                   "all-positive (min) rows report 0.",
                   "Initialise the accumulator with tl.full(shape, identity, dtype): -inf for max, +inf for min, "
                   "1 for product.",
                   _init_rules(), (("max_lastdim", "nearmiss_2.py"),)),
    StarterPattern("grid-floor-div", "Launch grid rounds the program count down",
                   "n // BLOCK programs leave the last partial block unprocessed.",
                   "Launch triton.cdiv(n, BLOCK) programs (and mask the tail inside the kernel).",
                   _grid_rules(), (("add_relu", "nearmiss_1.py"), ("min_lastdim", "nearmiss_1.py"))),
    StarterPattern("loop-tail", "Chunk loop skips the partial last chunk",
                   "The loop bound rounds down (n // BLOCK, n - BLOCK + 1), so the tail chunk is never processed.",
                   "Loop over range(0, n, BLOCK) or tl.cdiv(n, BLOCK) chunks with a masked tail.",
                   _loop_rules(), (("log_softmax", "nearmiss_1.py"), ("matmul", "nearmiss_1.py"))),
    StarterPattern("fp16-accumulation", "Accumulating in fp16",
                   "An fp16 accumulator (or terms rounded to fp16 before the add) loses about three digits.",
                   "Accumulate in tl.float32 and add the unrounded terms; cast once at the store if needed.",
                   _fp16_rules(), (("rowwise_dot", "nearmiss_1.py"),)),
    StarterPattern("missing-max-subtraction", "Softmax/log-sum-exp without subtracting the row max",
                   "exp of large inputs overflows to inf, giving nan after the normalisation.",
                   "Subtract the row max before exp (and add it back for log-sum-exp).",
                   _softmax_rules(), (("softmax", "nearmiss_1.py"),)),
    StarterPattern("exp-overflow", "Sigmoid as e/(1+e) overflows",
                   "exp(x) is inf for large x and inf/inf is nan.",
                   "Take exp only of non-positive arguments: 1/(1+exp(-x)) for x >= 0.",
                   _exp_rules(), (("sigmoid", "nearmiss_1.py"),)),
    StarterPattern("wrong-stride", "Index scaled by the other axis's stride",
                   "A 2-D tile offset multiplies each index by the stride of the other axis (swapped strides).",
                   "Scale each index by its own axis's stride.",
                   _stride_rules(), (("matmul", "nearmiss_2.py"),)),
    StarterPattern("wrong-divisor", "Mean divides by the block size",
                   "The row mean divides by the padded BLOCK instead of the number of valid elements.",
                   "Divide by the element count the mask compares against.",
                   _divisor_rules(), (("mean_lastdim", "nearmiss_1.py"),)),
)


def starter_rules() -> list[Rule]:
    return [r for p in STARTER for r in p.rules]
