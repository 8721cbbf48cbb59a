"""Distillation: rules derived from one recorded fix reproduce it and carry over to other operators."""
from __future__ import annotations

from pathlib import Path

import pytest

from ingest.rules import BadSource, apply_rule, distill, equivalent

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _pair(op: str, nearmiss: str) -> tuple[str, str]:
    return (EXAMPLES / op / nearmiss).read_text(), (EXAMPLES / op / "correct.py").read_text()


def _repairs(rules, source: str, target: str) -> bool:
    """Some sequence of the rules' applications turns source into target (modulo formatting)."""
    frontier = {source}
    for _ in range(len(rules) + 1):
        if any(equivalent(s, target) for s in frontier):
            return True
        frontier = {a.patched_source for s in frontier for r in rules for a in apply_rule(r, s)}
    return False


@pytest.mark.parametrize("op,nearmiss", [
    ("max_lastdim", "nearmiss_1.py"), ("max_lastdim", "nearmiss_2.py"), ("softmax", "nearmiss_1.py"),
    ("log_softmax", "nearmiss_1.py"), ("matmul", "nearmiss_1.py"), ("add_relu", "nearmiss_1.py"),
    ("sum_lastdim", "nearmiss_2.py"), ("rowwise_dot", "nearmiss_1.py"),
])
def test_distilled_rules_reproduce_their_own_fix(op, nearmiss):
    before, after = _pair(op, nearmiss)
    rules = distill(before, after, "triton", bug_class="x")
    assert rules and all(r.origin == "distilled" and r.id.startswith("distilled/x/") for r in rules)
    assert _repairs(rules, before, after)


def test_missing_other_distilled_from_row_max_repairs_softmax():
    rules = distill(*_pair("max_lastdim", "nearmiss_1.py"), "triton", bug_class="missing-other")
    assert [(r.pattern, r.context) for r in rules] == [("tl.load($X0, mask=$X1)", "kernel")]
    before, after = _pair("softmax", "nearmiss_2.py")
    assert _repairs(rules, before, after)
    # and it leaves every correct kernel of the suite as it is
    for correct in EXAMPLES.glob("*/correct.py"):
        text = correct.read_text()
        assert all(equivalent(a.patched_source, text) for a in apply_rule(rules[0], text)) or correct.parent.name in (
            "sigmoid", "leaky_relu", "add_relu", "tanh_scaled", "affine_scale_shift", "batchnorm_inference",
            "transpose_copy"), correct  # elementwise kernels store masked lanes away: other= is moot there


def test_grid_rounding_distilled_from_add_relu_repairs_min_lastdim():
    rules = distill(*_pair("add_relu", "nearmiss_1.py"), "triton", bug_class="grid-floor-div")
    assert [r.pattern for r in rules] == ["($X0 // $X1,)"]
    assert _repairs(rules, *_pair("min_lastdim", "nearmiss_1.py"))


def test_loop_tail_distilled_from_one_site_fixes_every_site():
    before, after = _pair("log_softmax", "nearmiss_1.py")
    (rule,) = distill(before, after)
    assert rule.pattern == "range(0, $X0 - $X1 + 1, $X1)"
    apps = apply_rule(rule, before)
    assert apps[-1].location.startswith("all:") and equivalent(apps[-1].patched_source, after)


def test_statement_insertion_becomes_an_anchored_rewrite():
    before, after = _pair("softmax", "nearmiss_1.py")
    (rule,) = distill(before, after)
    assert rule.rewrite.splitlines()[1] == "$X0 = $X0 - tl.max($X0, axis=0)"


def test_no_change_and_unparseable_inputs():
    src = (EXAMPLES / "softmax" / "correct.py").read_text()
    assert distill(src, src) == []
    assert distill(src, src.replace('"""', '"""Changed docstring. ', 1)) == []
    with pytest.raises(BadSource, match="after"):
        distill(src, src + "\ndef (:\n")


def test_a_fix_no_rule_can_express_is_left_text_only():
    # three statements replaced by two different ones: no single-node pattern reproduces it
    before = "def f(a):\n    x = 1\n    y = 2\n    z = 3\n    return a\n"
    after = "def f(a):\n    w = a * 2\n    v = w + 1\n    return a\n"
    assert distill(before, after, "python") == []


def test_cpp_distillation():
    before = "__global__ void k(float* x, int n) {\n  int i = threadIdx.x;\n  if (i <= n) { x[i] = 0; }\n}\n"
    after = before.replace("i <= n", "i < n")
    rules = distill(before, after, "cuda")
    assert rules and rules[0].language == "cpp" and rules[0].context == "kernel"
    other = "__global__ void z(float* y, int m) {\n  int j = threadIdx.x;\n  if (j <= m) { y[j] = 1; }\n}\n"
    assert any("j < m" in a.patched_source for a in apply_rule(rules[0], other))


def test_kb_ingest_stores_rules_distilled_from_a_record_without_any(tmp_path, monkeypatch):
    """The hook is wired end to end: `kb ingest` of an accepted repair that carries no rules stores, with its
    entry, rules distilled from its before/after, and they reproduce its fix."""
    from ingest.api import ingest
    from ingest.synthetic import make_record, write_record
    from kbstore.retrieve import search
    from ingest.rules import rules_of

    monkeypatch.setenv("KB_EMBEDDER", "hash")
    record = make_record(3, bug_class="grid-floor-div")
    assert record.rules == []
    write_record(record, tmp_path / "records" / "r.json")
    assert ingest([tmp_path / "records"], tmp_path / "kb").count("admitted") == 1
    (hit,) = search(tmp_path / "kb", record.diagnosis.title, k=1)
    rules = rules_of({"rules": list(hit.rules)})
    assert rules and all(r.origin == "distilled" and r.id.startswith("distilled/grid-floor-div/") for r in rules)
    assert _repairs(rules, record.source.code, record.repaired.code)
