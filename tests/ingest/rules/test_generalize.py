"""Generalisation over several fixes: anti-unified rules that reproduce every fix, learn what the fixed code
means, fire on no correct kernel, and repair the same bug in an operator none of the fixes came from."""
from __future__ import annotations

import re
from pathlib import Path

from ingest.rules import apply_rules, equivalent
from ingest.rules.generalize import generalize

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
DEV = ROOT / "tests" / "repair" / "rules" / "data" / "dev"
CORRECT = [p.read_text() for p in sorted(EXAMPLES.glob("*/correct.py"))]


def _fix(op_dir: Path, nearmiss: str) -> tuple[str, str]:
    return (op_dir / nearmiss).read_text(), (op_dir / "correct.py").read_text()


def test_two_grid_fixes_anti_unify_into_one_rule_that_knows_it_is_about_the_grid():
    fixes = [_fix(EXAMPLES / "add_relu", "nearmiss_1.py"), _fix(EXAMPLES / "min_lastdim", "nearmiss_1.py")]
    (rule,) = generalize(fixes, bug_class="grid-floor-div", corpus=CORRECT)
    assert (rule.pattern, rule.rewrite, rule.context) == ("$G0 // $G1", "triton.cdiv($G0, $G1)", "host")
    assert [f.sink for f in rule.flows] == [["$_K[$SINK]($$$)"]] and rule.origin == "distilled"
    # the same bug in operators neither fix came from: a count held in a variable, a grid lambda
    for op, nearmiss in (("col_mean", "nearmiss_grid.py"), ("clamp_scale", "nearmiss_grid.py")):
        before, after = _fix(DEV / op, nearmiss)
        assert any(equivalent(a.patched_source, after) for a in apply_rules([rule], before)), op
    # and no correct kernel of either suite is touched
    for text in CORRECT + [p.read_text() for p in DEV.glob("*/correct.py")]:
        assert all(equivalent(a.patched_source, text) for a in apply_rules([rule], text))


def test_fixes_whose_rewrites_disagree_stay_apart_and_each_keeps_its_own_rule():
    fixes = [_fix(EXAMPLES / "max_lastdim", "nearmiss_2.py"), _fix(DEV / "min_max_norm", "nearmiss_init.py")]
    rules = generalize(fixes, bug_class="reduction-init", corpus=CORRECT)
    assert len(rules) == 2  # -inf for a running max, +inf for a running min: no one rewrite says both
    assert {f.sink[0] for r in rules for f in r.flows} == {"tl.max($SINK)", "tl.min($SINK)"}
    for (before, after), rule in zip(fixes, sorted(rules, key=lambda r: "inf\")" not in r.rewrite)):
        assert any(equivalent(a.patched_source, after) for a in apply_rules([rule], before))


def test_a_rule_that_would_touch_a_correct_kernel_is_not_kept():
    fixes = [_fix(EXAMPLES / "add_relu", "nearmiss_1.py")]
    # a corpus with a legitimate floor division feeding a grid: the generalised rule must not fire there
    legit = CORRECT[0].replace("(triton.cdiv(n, BLOCK),)", "(n // BLOCK,)")
    assert all(r.pattern != "$G0 // $G1" for r in generalize(fixes, bug_class="g", corpus=[legit]))


def _repairs(rule, op_dir: Path, nearmiss: str) -> bool:
    before, after = _fix(op_dir, nearmiss)
    return any(equivalent(a.patched_source, after) for a in apply_rules([rule], before))


def _touches_no_correct_kernel(rules) -> bool:
    texts = CORRECT + [p.read_text() for p in DEV.glob("*/correct.py")]
    return all(equivalent(a.patched_source, t) for t in texts for a in apply_rules(rules, t))


def test_a_name_the_rewrite_adds_is_bound_by_a_fact_about_the_program():
    # two divisors by the padded block: the count to divide by is the bound the loads' masks compare against
    fixes = [_fix(EXAMPLES / "mean_lastdim", "nearmiss_1.py"), _fix(DEV / "layernorm_rows", "nearmiss_divblock.py")]
    (rule,) = generalize(fixes, bug_class="wrong-divisor", corpus=CORRECT)
    assert (rule.pattern, rule.rewrite) == ("$G0 / $G1", "$G0 / $D0")
    assert rule.derive["D0"].fact == "mask-bound" and rule.derive["D0"].of == "G0"
    assert any(f.fact == "reached-by" and f.of == "G0" for f in rule.derive.values())  # the dividend is a sum
    # a divisor by another dimension's size in a column mean, a loss summed with atomics: neither fix's shape
    assert _repairs(rule, DEV / "col_mean", "nearmiss_div.py") and _repairs(rule, DEV / "mse_loss", "nearmiss_div.py")
    assert _touches_no_correct_kernel([rule])


def test_a_replaced_literal_becomes_the_constructor_parameter_it_stands_for():
    fixes = [_fix(DEV / "clamp_scale", "nearmiss_scale.py")]  # 0.5 hard-coded where `scale` belongs
    (rule,) = generalize(fixes, bug_class="ignored-parameter", corpus=CORRECT)
    assert (rule.pattern, rule.rewrite, rule.where["L"].kind) == ("$L", "$D0", "number")
    assert rule.derive["D0"].fact == "constructor-parameter"
    # eps in a batch norm, beta in a swish: other literals, other operators, other parameters
    assert _repairs(rule, EXAMPLES / "batchnorm_inference", "nearmiss_1.py")
    assert _repairs(rule, DEV / "swish_beta", "nearmiss_beta.py")
    assert _touches_no_correct_kernel([rule])


def test_a_fix_whose_edits_a_fact_makes_generalises_to_the_fact():
    fixes = [_fix(EXAMPLES / "tanh_scaled", "nearmiss_1.py")]  # self.b, self.a passed in each other's place
    (rule,) = generalize(fixes, bug_class="swapped-parameters", corpus=CORRECT)
    assert rule.pattern == rule.rewrite == "$K[$G]($$$A)" and rule.derive["_E"].fact == "swapped-launch-args"
    assert _repairs(rule, DEV / "clamp_scale", "nearmiss_swap.py")  # other arity, other names


def test_a_rewrite_name_nothing_explains_makes_no_rule_and_generalisation_is_deterministic():
    before, after = _fix(EXAMPLES / "add_relu", "nearmiss_1.py")
    # the fix writes a name that is in the file but that neither the pattern nor any fact accounts for
    odd = after.replace("(triton.cdiv(n, BLOCK),)", "(triton.cdiv(n, BLOCK) + 0 * y.shape[0],)")
    assert odd != after
    rules = generalize([(before, odd)], bug_class="g", corpus=CORRECT)
    assert all(not re.search(r"\by\b", r.rewrite) for r in rules)  # no rule that writes this kernel's `y`
    fixes = [_fix(EXAMPLES / "add_relu", "nearmiss_1.py"), _fix(EXAMPLES / "min_lastdim", "nearmiss_1.py")]
    assert [r.id for r in generalize(fixes, bug_class="g", corpus=CORRECT)] == \
        [r.id for r in generalize(fixes, bug_class="g", corpus=CORRECT)]
