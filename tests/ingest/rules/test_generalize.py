"""Generalisation over several fixes: anti-unified rules that reproduce every fix, learn what the fixed code
means, fire on no correct kernel, and repair the same bug in an operator none of the fixes came from."""
from __future__ import annotations

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
