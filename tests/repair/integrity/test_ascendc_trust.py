"""benchmark_owned decides from a runtime finding's typed fields (its case and the input it is about), set where the
finding is made, never from its words: a reworded message or evidence leaves every verdict as it was."""
from __future__ import annotations

import torch

from repair.integrity import IntegrityFinding
from repair.integrity.ascendc_trust import Trust, benchmark_owned
from repair.integrity.runtime import mutation_findings, output_findings

TRUSTED = Trust(True, "validation/ as imported")


def _f(rule, case, index, words="input 0 [case 0]"):
    return IntegrityFinding(rule=rule, message=words, evidence=words, phase="runtime", case_id=case,
                            input_index=index)


def _levels(findings):
    return [f.level for f in benchmark_owned(findings, TRUSTED)]


def test_a_mutated_input_the_binding_returns_is_the_benchmarks_and_another_stays_the_candidates():
    alias = _f("runtime.output-alias", "0", 1)
    assert _levels([alias, _f("runtime.input-mutated", "0", 1)]) == ["note", "note"]
    assert _levels([alias, _f("runtime.input-mutated", "0", 0)]) == ["note", "policy"]  # not the input returned
    assert _levels([alias, _f("runtime.input-mutated", "1", 1)]) == ["note", "policy"]  # another case's
    assert [f.level for f in benchmark_owned([alias, _f("runtime.input-mutated", "0", 1)], Trust(False, "no"))] == [
        "cheat", "policy"]  # untrusted validation files: judged as the candidate's


def test_reworded_messages_and_evidence_change_no_verdict():
    """The words say another input and case than the fields (as a reworded or translated message might): the
    verdict follows the fields."""
    plain = [_f("runtime.output-alias", "3", 2, "output 0 shares storage with an input"),
             _f("runtime.input-mutated", "3", 2, "input 2 was modified by forward [case 3]"),
             _f("runtime.input-mutated", "3", 0, "input 0 was modified by forward [case 3]")]
    reworded = [f.model_copy(update={"message": m, "evidence": m}) for f, m in zip(plain, (
        "alias of input 0 [case 9]", "the operator wrote argument #0 in place", "input 2 changed [case 3]"))]
    assert _levels(plain) == _levels(reworded) == ["note", "note", "policy"]


def test_runtime_findings_carry_the_input_they_are_about():
    x, y = torch.zeros(4), torch.ones(4)
    before = [x.clone(), y.clone()]
    y += 1
    (mutated,) = mutation_findings(before, [x, y])
    (alias,) = output_findings([x, y], y)
    assert (mutated.rule, mutated.input_index) == ("runtime.input-mutated", 1)
    assert (alias.rule, alias.input_index) == ("runtime.output-alias", 1)
