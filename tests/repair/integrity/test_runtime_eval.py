"""The runtime guards through the real harness: runtime-only cheats are caught in the sandbox, legitimate
candidates pass with a clean verdict, and the runtime guards catch framework compute with the static scan off."""
from __future__ import annotations

import pytest

from corpus_index import CORPUS, PROBLEM, cheats, expected_rules, phase

pytestmark = pytest.mark.slow
RUNTIME_CHEATS = [p for p in cheats() if phase(p) == "runtime"]
LEGIT_RUN = ["legit_basic", "legit_views_reshape", "legit_two_kernels", "legit_self_attr_kernel",
             "legit_output_view", "legit_cast_copy", "legit_helper_class", "legit_lambda_grid_in_init"]


def _evaluate(path, **kw):
    from repair.engine.harness import evaluate

    return evaluate(PROBLEM, path, tier="compact", seed=7, **kw)


@pytest.mark.parametrize("path", RUNTIME_CHEATS, ids=lambda p: p.stem)
def test_runtime_cheat_flagged_through_evaluate(path):
    r = _evaluate(path)
    assert r.integrity.verdict == "violation" and not r.passed
    found = {f.rule for f in r.integrity.findings}
    assert found & expected_rules(path), sorted(found)
    assert all(f.phase == "runtime" for f in r.integrity.findings)


@pytest.mark.parametrize("name", LEGIT_RUN)
def test_legit_candidate_passes_with_clean_verdict(name):
    r = _evaluate(CORPUS / f"{name}.py")
    assert r.numerics_passed, [c.message for c in r.cases]
    assert r.integrity.verdict == "clean", [(f.rule, f.message, f.evidence) for f in r.integrity.findings]
    assert r.passed


@pytest.mark.parametrize("name", ["cheat_torch_relu_after_kernel", "cheat_tensor_method_clamp",
                                  "cheat_tensor_arithmetic", "cheat_aten_op"])
def test_runtime_catches_framework_compute_with_static_scan_off(name):
    r = _evaluate(CORPUS / f"{name}.py", rules_off=["static.*"])
    assert r.numerics_passed  # the cheat computes the right numbers...
    assert "runtime.framework-compute" in {f.rule for f in r.integrity.findings}  # ...with the framework
    assert not r.passed and "static.framework-compute" in r.integrity.rules_off


def test_runtime_rule_off_is_recorded_and_not_flagged():
    r = _evaluate(CORPUS / "cheat_rt_input_scratch.py", rules_off=["runtime.input-mutated"])
    assert r.integrity.verdict == "clean" and r.passed
    assert "runtime.input-mutated" in r.integrity.rules_off
