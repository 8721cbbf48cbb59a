"""Every cheat in the corpus is flagged by the static scan (or, for runtime-only exploits, left to the guards);
no legitimate candidate and no example kernel is flagged; switching a rule off clears it and is recorded."""
from __future__ import annotations

import pytest

from repair.integrity.static import scan
from corpus_index import EXAMPLES, PROBLEM, cheats, expected_rules, legit, phase

STATIC_CHEATS = [p for p in cheats() if phase(p) == "static"]
RUNTIME_CHEATS = [p for p in cheats() if phase(p) == "runtime"]


def test_corpus_is_large_enough():
    assert len(cheats()) >= 25
    assert len(legit()) >= 15


@pytest.mark.parametrize("path", STATIC_CHEATS, ids=lambda p: p.stem)
def test_static_cheat_flagged_by_expected_rule(path):
    v = scan(PROBLEM, path)
    assert v.verdict == "violation"
    found = {f.rule for f in v.findings}
    assert found & expected_rules(path), f"{path.name}: found {sorted(found)}"
    assert all(f.phase == "static" and f.line and f.evidence for f in v.findings)


@pytest.mark.parametrize("path", RUNTIME_CHEATS, ids=lambda p: p.stem)
def test_runtime_only_cheat_passes_the_static_scan(path):
    """These exploits are invisible in the source; tests/repair/integrity/test_runtime_eval.py catches them."""
    assert scan(PROBLEM, path).verdict == "clean"


@pytest.mark.parametrize("path", legit(), ids=lambda p: p.stem)
def test_legit_candidate_is_clean(path):
    v = scan(PROBLEM, path)
    assert v.verdict == "clean", [(f.rule, f.line, f.message) for f in v.findings]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*/correct.py")) + sorted(EXAMPLES.glob("*/nearmiss*.py")),
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_kernels_are_clean(path):
    v = scan(path.parent / "problem.py", path)
    assert v.verdict == "clean", [(f.rule, f.line, f.message) for f in v.findings]


def test_examples_exist():
    assert len(list(EXAMPLES.glob("*/correct.py"))) >= 12


@pytest.mark.parametrize("path", STATIC_CHEATS, ids=lambda p: p.stem)
def test_rules_off_clear_their_findings_and_are_recorded(path):
    rules = sorted({f.rule for f in scan(PROBLEM, path).findings})
    v = scan(PROBLEM, path, rules_off=rules)
    assert v.verdict == "clean"
    assert v.rules_off == rules


def test_one_rule_off_leaves_the_others():
    path = next(p for p in STATIC_CHEATS if p.stem == "cheat_inspect_frames")
    v = scan(PROBLEM, path, rules_off=["static.introspection"])
    assert v.verdict == "clean" and v.rules_off == ["static.introspection"]
    v = scan(PROBLEM, path, rules_off=["static.framework-compute"])
    assert v.verdict == "violation" and {f.rule for f in v.findings} == {"static.introspection"}
