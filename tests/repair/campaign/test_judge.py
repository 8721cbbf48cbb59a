"""The accounting judge: ablations and gate bookkeeping, with a fake harness (fast)."""
from pathlib import Path

from repair.campaign.judge import AccountingJudge, gate_accounting, read_gate_log
from repair.engine import CaseResult, Diagnostics, EvalResult, TierSummary
from repair.integrity import IntegrityFinding, IntegrityVerdict


def _result(tier: str, passed: bool, violation: bool = False) -> EvalResult:
    status = "pass" if passed else "mismatch"
    cases = [CaseResult(case_id="c0", tier="compact", status=status, diagnostics=Diagnostics(symptom="tail-localized"))]
    if tier == "full":
        cases.append(CaseResult(case_id="f0", tier="full", status=status))
    verdict = IntegrityVerdict(verdict="violation", findings=[IntegrityFinding(rule="runtime.no-launch", message="m",
                                                                                phase="runtime")]) if violation else IntegrityVerdict()
    return EvalResult(operator_id="op", problem_path="p", problem_sha256="x", candidate_path="c", candidate_sha256="y",
                      backend="triton-cpu", tier=tier, seed=0, case_set_sha256="z", cases=cases,
                      summary={tier: TierSummary(passed=sum(c.status == "pass" for c in cases), total=len(cases))},
                      match=None, numerics_passed=passed, integrity=verdict, passed=passed and not violation)


class FakeHarness:
    backend, rules_off = "triton-cpu", ()

    def __init__(self, table):
        self.table, self.calls = table, []  # (candidate name, tier) -> EvalResult

    def gate(self, candidate):
        bad = self.table.get((Path(candidate).name, "gate"))
        return IntegrityVerdict(verdict="violation", findings=[IntegrityFinding(rule="static.framework-compute",
                                                                                message="F.relu")]) if bad else IntegrityVerdict()

    def evaluate(self, candidate, tier):
        self.calls.append((Path(candidate).name, tier))
        return self.table[(Path(candidate).name, tier)]


def test_diagnostics_ablation_strips_what_the_loop_sees_but_not_the_log(tmp_path):
    inner = FakeHarness({("a.py", "compact"): _result("compact", False)})
    judge = AccountingJudge(inner, tmp_path / "gates.jsonl", diagnostics=False)
    seen = judge.evaluate(tmp_path / "a.py", "compact")
    assert all(c.diagnostics is None for c in seen.cases)
    assert inner.table[("a.py", "compact")].cases[0].diagnostics.symptom == "tail-localized"


def test_without_the_full_tier_the_loop_gets_the_compact_result_and_the_full_tier_runs_as_shadow(tmp_path):
    compact, full = _result("compact", True), _result("full", False)
    inner = FakeHarness({("a.py", "compact"): compact, ("a.py", "full"): full})
    judge = AccountingJudge(inner, tmp_path / "gates.jsonl", full_tier=False)
    judge.evaluate(tmp_path / "a.py", "compact")
    assert judge.evaluate(tmp_path / "a.py", "full") == compact
    assert inner.calls == [("a.py", "compact"), ("a.py", "full")]  # the compact tier is not run twice
    log = read_gate_log(tmp_path / "gates.jsonl")
    assert [(e["tier"], e["shadow"], e["numerics_passed"]) for e in log] == [("compact", False, True), ("full", True, False)]
    assert gate_accounting(log) == (1, 0, 1, 1)


def test_a_gated_candidate_is_still_scored_on_the_compact_tier(tmp_path):
    inner = FakeHarness({("cheat.py", "gate"): True, ("cheat.py", "compact"): _result("compact", True, violation=True),
                         ("src.py", "compact"): _result("compact", True), ("src.py", "full"): _result("full", False, True),
                         ("fix.py", "compact"): _result("compact", True), ("fix.py", "full"): _result("full", True),
                         ("bad.py", "compact"): _result("compact", False)})
    judge = AccountingJudge(inner, tmp_path / "gates.jsonl")
    judge.evaluate(tmp_path / "src.py", "compact"), judge.evaluate(tmp_path / "src.py", "full")
    assert judge.gate(tmp_path / "cheat.py").verdict == "violation"
    assert inner.calls[-1] == ("cheat.py", "compact")
    judge.evaluate(tmp_path / "bad.py", "compact")
    judge.evaluate(tmp_path / "fix.py", "compact"), judge.evaluate(tmp_path / "fix.py", "full")
    # accepted by the workflow: src, cheat, fix; integrity: src (runtime, full tier), cheat; full tier: src
    assert gate_accounting(read_gate_log(tmp_path / "gates.jsonl")) == (3, 2, 1, 2)
