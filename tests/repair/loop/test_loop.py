"""The repair loop's decisions, driven by the scripted worker and a judge that reads a verdict line from each candidate.

These tests pin the engine's logic (bounds, checkpoints, rollback, gates, acceptance, records) without
running kernels; tests/repair/loop/test_loop_harness.py runs the same loop on the example kernels.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ingest.record import RepairRecord
from repair.loop.bounds import Bounds
from repair.errors import BadInput
from repair.loop.algorithm import RunConfig, run_repair
from repair.engine import CaseResult, EvalResult, TierSummary
from repair.integrity import IntegrityFinding, IntegrityVerdict
from repair.loop.retrieve import FixedRetriever, LeakageRefused, NoRetriever, check_eval_mode, open_retriever
from repair.loop.record import build_record
from repair.loop.trajectory import read_trajectory
from repair.workers.base import Pattern, Usage
from repair.workers.scripted import ScriptedWorker, Step

PROBLEM = '''import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.sum(x, dim=-1)

def get_inputs():
    return [torch.randn(4, 8)]

def get_init_inputs():
    return []
'''

KERNEL = '''import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x  # VERDICT {verdict}
'''

_VERDICT = re.compile(r"VERDICT c=(\d+) f=(\d+) e=([\d.]+)(?: gate=([\w-]+))?(?: runtime=([\w-]+))?")
COMPACT_TOTAL, FULL_TOTAL = 2, 4


def kernel(c=0, f=0, e=1.0, gate=None, runtime=None) -> str:
    verdict = f"c={c} f={f} e={e}" + (f" gate={gate}" if gate else "") + (f" runtime={runtime}" if runtime else "")
    return KERNEL.format(verdict=verdict)


def _cases(tier: str, passed: int, total: int, err: float) -> list[CaseResult]:
    return [CaseResult(case_id=f"{tier}-{i}", tier=tier, status="pass" if i < passed else "mismatch",
                       max_abs_err=0.0 if i < passed else err, mismatch_frac=0.0 if i < passed else 0.5)
            for i in range(total)]


class VerdictJudge:
    """Judges a candidate by its VERDICT comment: compact/full passes, max error, gate and runtime findings."""

    backend = "fake"
    rules_off = ()

    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def _verdict(self, path: Path):
        m = _VERDICT.search(path.read_text())
        return int(m.group(1)), int(m.group(2)), float(m.group(3)), m.group(4), m.group(5)

    def gate(self, candidate: Path) -> IntegrityVerdict:
        self.calls.append(("gate", candidate.name))
        rule = self._verdict(candidate)[3]
        if rule:
            return IntegrityVerdict(verdict="violation", findings=[IntegrityFinding(rule=rule, message="cheat")])
        return IntegrityVerdict()

    def evaluate(self, candidate: Path, tier: str) -> EvalResult:
        self.calls.append((tier, candidate.name))
        c, f, e, _, runtime = self._verdict(candidate)
        cases = _cases("compact", c, COMPACT_TOTAL, e)
        summary = {"compact": TierSummary(passed=c, total=COMPACT_TOTAL)}
        if tier == "full":
            cases += _cases("full", f, FULL_TOTAL, e)
            summary["full"] = TierSummary(passed=f, total=FULL_TOTAL)
        integrity = (IntegrityVerdict(verdict="violation", findings=[IntegrityFinding(rule=runtime, message="x",
                                                                                      phase="runtime")])
                     if runtime else IntegrityVerdict())
        numerics = all(x.status == "pass" for x in cases)
        return EvalResult(operator_id="toy_sum", family="reduction", problem_path="problem.py", problem_sha256="p" * 64,
                          candidate_path=str(candidate), candidate_sha256="c" * 64, backend="fake", tier=tier, seed=0,
                          case_set_sha256="s" * 64, cases=cases, summary=summary,
                          match=(f / FULL_TOTAL) if tier == "full" else None, numerics_passed=numerics,
                          integrity=integrity, passed=numerics and not runtime)


@pytest.fixture
def files(tmp_path):
    problem = tmp_path / "problem.py"
    problem.write_text(PROBLEM)
    source = tmp_path / "nearmiss.py"
    source.write_text(kernel(c=0, e=5.0))
    return problem, source


def run(files, tmp_path, steps, bounds=Bounds(), retriever=None, judge=None, worker=None, **kw):
    problem, source = files
    worker = worker or ScriptedWorker([s if isinstance(s, Step) else Step(candidate=s, diff=None) for s in steps])
    judge = judge or VerdictJudge()
    out = tmp_path / "out"
    outcome = run_repair(RunConfig(problem, source, bounds=bounds, out=out, **kw), worker,
                         retriever or NoRetriever(), judge)
    return outcome, out, judge


def test_a_repair_is_accepted_with_its_record_and_trajectory(files, tmp_path):
    fixed = kernel(c=2, f=4, e=0.0)
    outcome, out, judge = run(files, tmp_path, [kernel(c=1, e=2.0), fixed])
    assert outcome.status == "repaired" and outcome.exit_code == 0
    assert (out / "final.py").read_text() == fixed
    events = [e["event"] for e in read_trajectory(out / "trajectory.jsonl")]
    assert events[0] == "start" and events[-1] == "end" and events.count("accept") == 1
    # the full tier ran only for candidates whose compact tier passed
    assert [c for c in judge.calls if c[0] == "full"] == [("full", "attempt_002.py")]
    record = build_record(outcome, ScriptedWorker([]).info, backend="fake")
    assert record.status == "repaired" and record.repaired.code == fixed
    assert record.evidence.full_passed == record.evidence.full_total == FULL_TOTAL and record.evidence.match == 1.0
    assert [a.verdict for a in record.integrity_history] == ["clean", "clean"]
    assert record.symptom.failed_tier == "compact" and record.symptom.max_abs_err == 5.0
    assert "-        return x  # VERDICT c=0" in record.diff
    RepairRecord.model_validate_json(record.to_json())


@pytest.mark.parametrize("bound,bounds,usage", [
    ("attempts", Bounds(attempts=2), Usage()),
    ("turns", Bounds(turns=3), Usage()),
    ("tokens", Bounds(tokens=1000), Usage(400, 100)),
])
def test_each_bound_ends_the_run_with_its_name_keeping_the_best(files, tmp_path, bound, bounds, usage):
    steps = [Step(candidate=kernel(c=1, e=float(9 - i)), diff=None, usage=usage) for i in range(6)]
    steps[0] = Step(candidate=kernel(c=1, e=0.5), diff=None, usage=usage)  # the best; nothing after beats it
    outcome, out, _ = run(files, tmp_path, steps, bounds=bounds)
    assert outcome.status == bound and outcome.exit_code == 1
    assert outcome.best.attempt == 1 and (out / "final.py").read_text() == kernel(c=1, e=0.5)
    expected_attempts = {"attempts": 2, "turns": 3, "tokens": 2}[bound]
    assert len(outcome.attempts) == expected_attempts
    end = read_trajectory(out / "trajectory.jsonl")[-1]
    assert end["event"] == "end" and end["status"] == bound
    record = build_record(outcome, ScriptedWorker([]).info, backend="fake")
    assert record.status == "failed" and record.repaired.code == kernel(c=1, e=0.5)


def test_wall_clock_bound(files, tmp_path):
    now = [0.0]

    class Slow(VerdictJudge):
        def evaluate(self, candidate, tier):
            now[0] += 25.0  # each evaluation takes 25 s of the fake clock
            return super().evaluate(candidate, tier)

    problem, source = files
    worker = ScriptedWorker([Step(candidate=kernel(c=1, e=1.0), diff=None)] * 10)
    outcome = run_repair(RunConfig(problem, source, bounds=Bounds(wall_s=60), out=tmp_path / "o"), worker,
                         NoRetriever(), Slow(), clock=lambda: now[0])
    # source at 25 s, attempt 1 at 50 s, attempt 2 at 75 s; the check before attempt 3 stops the run
    assert outcome.status == "wall_s" and len(outcome.attempts) == 2


def test_two_non_improving_attempts_restore_the_best_checkpoint(files, tmp_path):
    seen = []

    class Recording(ScriptedWorker):
        def propose(self, ctx):
            seen.append(ctx.candidate_text)
            return super().propose(ctx)

    better, worse1, worse2 = kernel(c=1, e=1.0), kernel(c=0, e=3.0), kernel(c=0, e=4.0)
    # the fourth step is a diff that only applies to the restored best checkpoint
    diff = ("--- a/k.py\n+++ b/k.py\n@@ -8,1 +8,1 @@\n-        return x  # VERDICT c=1 f=0 e=1.0\n"
            "+        return x  # VERDICT c=2 f=4 e=0.0\n")
    problem, source = files
    worker = Recording([Step(candidate=t, diff=None) for t in (better, worse1, worse2)] + [Step(None, diff)])
    outcome = run_repair(RunConfig(problem, source, out=tmp_path / "o"), worker, NoRetriever(), VerdictJudge())
    assert outcome.status == "repaired"
    assert seen == [kernel(c=0, e=5.0), better, worse1, better]  # worse2 was dropped for the checkpoint
    rollbacks = [e for e in read_trajectory(tmp_path / "o" / "trajectory.jsonl") if e["event"] == "rollback"]
    assert len(rollbacks) == 1 and rollbacks[0]["to_attempt"] == 1 and rollbacks[0]["changed"]
    assert [a.outcome for a in outcome.attempts] == ["improved", "not-improved", "not-improved", "accepted"]


def test_a_cheating_attempt_is_rejected_and_recorded(files, tmp_path):
    cheat = kernel(c=2, f=4, e=0.0, gate="framework-op")
    runtime_cheat = kernel(c=2, f=4, e=0.0, runtime="input-mutation")
    outcome, _, judge = run(files, tmp_path, [cheat, runtime_cheat, kernel(c=2, f=4, e=0.0)])
    assert outcome.status == "repaired" and outcome.best.attempt == 3
    assert ("compact", "attempt_001.py") not in judge.calls  # the gate stopped it before evaluation
    record = build_record(outcome, ScriptedWorker([]).info, backend="fake")
    history = [(a.attempt, a.verdict, a.rules) for a in record.integrity_history]
    assert history == [(1, "violation", ["framework-op"]), (2, "violation", ["input-mutation"]), (3, "clean", [])]


def test_compact_passing_full_failing_patch_is_not_accepted(files, tmp_path):
    problem, source = files
    worker = ScriptedWorker([Step(kernel(c=2, f=3, e=0.2), None)])
    outcome = run_repair(RunConfig(problem, source, out=tmp_path / "o"), worker, NoRetriever(), VerdictJudge())
    assert outcome.status == "worker-exhausted" and outcome.exit_code == 1
    assert outcome.best.attempt == 1 and outcome.best.score.full_passed == 3
    record = build_record(outcome, worker.info, backend="fake")
    assert record.status == "failed" and record.evidence.full_passed == 3 and record.evidence.match == 0.75


def test_failing_full_cases_become_the_next_forensics(files, tmp_path):
    seen = []

    class Recording(ScriptedWorker):
        def propose(self, ctx):
            seen.append(ctx.forensics)
            return super().propose(ctx)

    problem, source = files
    worker = Recording([Step(kernel(c=2, f=3, e=0.2), None), Step(kernel(c=2, f=4, e=0.0), None)])
    outcome = run_repair(RunConfig(problem, source), worker, NoRetriever(), VerdictJudge())
    assert outcome.status == "repaired"
    assert seen[0].startswith("tier compact: 0 of 2") and seen[1].startswith("tier full: 3 of 4")
    assert "case full-3" in seen[1]


@pytest.mark.parametrize("bad,reason", [
    (kernel(c=2, f=4, e=0.0) + "\ndef get_inputs():\n    return []\n", "touches-reference"),
    (kernel(c=2, f=4, e=0.0).replace("def __init__(self):", "def __init__(self, n):"), "signature"),
    (kernel(c=2, f=4, e=0.0).replace("return x", "return x)"), "syntax"),
    (kernel(c=2, f=4, e=0.0).replace("class ModelNew", "class Other"), "signature"),
])
def test_changes_that_are_not_kernel_only_are_refused(files, tmp_path, bad, reason):
    outcome, out, judge = run(files, tmp_path, [bad])
    assert outcome.status == "worker-exhausted" and judge.calls == [("compact", "source.py")]
    patch = [e for e in read_trajectory(out / "trajectory.jsonl") if e["event"] == "patch"]
    assert patch[0]["ok"] is False and patch[0]["reason"] == reason
    # reaching for the reference is an integrity violation; a malformed change is merely not run
    assert outcome.attempts[0].verdict == ("violation" if reason == "touches-reference" else "not-run")


def test_a_diff_against_the_problem_file_is_refused(files, tmp_path):
    diff = "--- a/problem.py\n+++ b/problem.py\n@@ -1,1 +1,1 @@\n-import torch\n+import torch  # x\n"
    outcome, out, _ = run(files, tmp_path, [Step(None, diff)])
    assert outcome.attempts[0].outcome == "patch-rejected" and outcome.attempts[0].rules == ("touches-reference",)
    assert outcome.attempts[0].verdict == "violation"


def test_retrieved_and_cited_patterns_and_token_sums(files, tmp_path):
    patterns = [Pattern(id="kb-a", score=0.9, title="mask", bug_class="mask-off-by-one", fix="use <"),
                Pattern(id="kb-b", score=0.5)]
    steps = [Step(kernel(c=1, e=1.0), None, cited=("kb-b", "made-up"), usage=Usage(1000, 200, 300)),
             Step(kernel(c=2, f=4, e=0.0), None, cited="top", usage=Usage(1100, 150, 900))]
    outcome, out, _ = run(files, tmp_path, steps, retriever=FixedRetriever(patterns))
    record = build_record(outcome, ScriptedWorker([]).info, backend="fake")
    assert record.retrieval.retrieved == ["kb-a", "kb-b"]
    assert record.retrieval.cited == ["kb-b", "kb-a"]  # an id that was never retrieved is not a citation
    assert (record.worker.prompt_tokens, record.worker.completion_tokens, record.worker.cached_tokens) == (2100, 350, 1200)
    per_attempt = sum((a.usage for a in outcome.attempts), Usage())
    assert per_attempt == outcome.usage
    end = read_trajectory(out / "trajectory.jsonl")[-1]
    assert end["usage"]["total_tokens"] == 2450 and end["spent"]["turns"] == 2
    assert record.diagnosis.bug_class == "mask-off-by-one"  # from the top cited pattern: the worker gave none


def test_the_trajectory_is_saved_when_the_judge_crashes(files, tmp_path):
    class Crashing(VerdictJudge):
        def evaluate(self, candidate, tier):
            if candidate.name != "source.py":
                raise RuntimeError("sandbox died")
            return super().evaluate(candidate, tier)

    with pytest.raises(RuntimeError):
        run(files, tmp_path, [kernel(c=1)], judge=Crashing())
    events = read_trajectory(tmp_path / "out" / "trajectory.jsonl")
    assert events[-1]["event"] == "end" and events[-1]["status"] == "error" and "sandbox died" in events[-1]["why"]
    assert (tmp_path / "out" / "final.py").exists()


def test_a_near_miss_that_already_passes_needs_no_attempt(files, tmp_path):
    files[1].write_text(kernel(c=2, f=4, e=0.0))
    outcome, _, _ = run(files, tmp_path, [])
    assert outcome.status == "already-passing" and outcome.attempts == [] and outcome.exit_code == 0


def test_bad_inputs(files, tmp_path):
    problem, source = files
    with pytest.raises(BadInput, match="nope.py"):
        run_repair(RunConfig(problem, tmp_path / "nope.py"), ScriptedWorker([]), NoRetriever(), VerdictJudge())
    problem.write_text("def broken(:\n")
    with pytest.raises(BadInput, match=r"problem.py: does not parse"):
        run_repair(RunConfig(problem, source), ScriptedWorker([]), NoRetriever(), VerdictJudge())
    problem.write_text(PROBLEM)
    source.write_text("x = 1\n")
    with pytest.raises(BadInput, match="ModelNew"):
        run_repair(RunConfig(problem, source), ScriptedWorker([]), NoRetriever(), VerdictJudge())
    with pytest.raises(BadInput, match="positive"):
        Bounds(attempts=0)


def test_eval_mode_guard():
    manifest = {"cohort": {"operators": [{"id": "softmax"}, "sum_lastdim"]}}
    check_eval_mode(manifest, "sum_lastdim")
    with pytest.raises(LeakageRefused, match="not in the snapshot's excluded cohort"):
        check_eval_mode(manifest, "layernorm")
    with pytest.raises(BadInput, match="cohort.operators"):
        check_eval_mode({}, "softmax")
    with pytest.raises(BadInput, match="--eval-mode needs --snapshot"):
        open_retriever(eval_mode=True)
    assert LeakageRefused.exit_code == 2


def test_record_json_round_trips(files, tmp_path):
    outcome, _, _ = run(files, tmp_path, [kernel(c=2, f=4, e=0.0)])
    record = build_record(outcome, ScriptedWorker([]).info, backend="fake")
    again = RepairRecord.model_validate(json.loads(record.to_json()))
    assert again == record and len(record.run_id) == 24


def test_patterns_come_from_a_knowledge_base(files, tmp_path, monkeypatch):
    from ingest.api import ingest

    monkeypatch.setenv("KB_EMBEDDER", "hash")  # the fast deterministic embedder: this test is about the wiring
    starter = Path(__file__).resolve().parents[3] / "repair" / "rules" / "starter"
    report = ingest([starter], tmp_path / "kb")
    entry_ids = {o.entry_id for o in report.outcomes if o.outcome == "admitted"}
    assert entry_ids
    retriever = open_retriever(tmp_path / "kb")
    steps = [Step(kernel(c=2, f=4, e=0.0), None, cited="top")]
    outcome, out, _ = run(files, tmp_path, steps, retriever=retriever)
    record = build_record(outcome, ScriptedWorker([]).info, backend="fake")
    assert record.retrieval.kb_version == report.version and record.retrieval.snapshot_id is None
    assert len(record.retrieval.retrieved) == 5 and set(record.retrieval.retrieved) <= entry_ids
    assert record.retrieval.cited == record.retrieval.retrieved[:1]
    retrieve = [e for e in read_trajectory(out / "trajectory.jsonl") if e["event"] == "retrieve"]
    assert [h["id"] for h in retrieve[0]["hits"]] == record.retrieval.retrieved and retrieve[0]["query"]
    with pytest.raises(BadInput, match="no such knowledge base"):
        open_retriever(tmp_path / "missing")


def test_cli_maps_bad_input_and_unavailable_snapshots_to_exit_2(files, tmp_path):
    from click.testing import CliRunner

    from repair.cli import cli

    problem, source = files
    runner = CliRunner()
    missing = runner.invoke(cli, ["run", str(problem), str(tmp_path / "gone.py")])
    assert missing.exit_code == 2 and "gone.py: no such file" in missing.output
    no_script = runner.invoke(cli, ["run", str(problem), str(source)])
    assert no_script.exit_code == 2 and "--script" in no_script.output
    both = runner.invoke(cli, ["run", str(problem), str(source), "--kb", str(tmp_path), "--snapshot", "abc"])
    assert both.exit_code == 2 and "abc" in both.output  # the snapshot is looked up in --kb, and is not there
    eval_mode = runner.invoke(cli, ["run", str(problem), str(source), "--eval-mode"])
    assert eval_mode.exit_code == 2 and "--eval-mode needs --snapshot" in eval_mode.output


@pytest.mark.slow  # importing litellm takes 5-10 s here
def test_litellm_worker_through_the_custom_provider_drives_the_loop(files, tmp_path, monkeypatch):
    from provenance.offline import OFFLINE_ENV

    for k, v in OFFLINE_ENV.items():
        monkeypatch.setenv(k, v)
    import litellm

    from repair.workers import fake_llm
    from repair.workers.litellm_worker import LiteLLMWorker

    def reply(text, cited):
        return f"```python\n{text}```\nCITED: {cited}\nBUG_CLASS: mask-off-by-one\nFIX: use <\n"

    saved = list(litellm.custom_provider_map)
    try:
        llm = fake_llm.register([reply(kernel(c=1, e=1.0), "kb-a"), {"error": "RateLimitError"},
                                 reply(kernel(c=2, f=4, e=0.0), "kb-a, kb-b")])
        worker = LiteLLMWorker("fakellm/demo", sleep=lambda s: None)
        patterns = [Pattern(id="kb-a", score=0.9, title="mask"), Pattern(id="kb-b", score=0.4)]
        outcome, out, _ = run(files, tmp_path, [], retriever=FixedRetriever(patterns), worker=worker)
    finally:
        litellm.custom_provider_map = saved
    assert outcome.status == "repaired" and outcome.turns == 2 and worker.retries == 1
    per_call = [litellm.token_counter(model="gpt-3.5-turbo", messages=m) for m in llm.calls if m]
    record = build_record(outcome, worker.info, backend="fake")
    # the rate-limited call cost nothing; the two answered calls are counted with real prompt sizes
    assert record.worker.prompt_tokens == per_call[0] + per_call[2] == sum(a.usage.prompt_tokens for a in outcome.attempts)
    assert record.worker.cached_tokens > 0 and record.worker.model == "fakellm/demo"
    assert record.worker.prompt_template_sha256 == worker.info.prompt_template_sha256
    assert record.retrieval.cited == ["kb-a", "kb-b"] and record.diagnosis.bug_class == "mask-off-by-one"


@pytest.mark.slow  # importing litellm takes 5-10 s here
def test_each_model_exchange_is_kept_redacted_with_its_explanation(files, tmp_path, monkeypatch):
    """Issue 37: the prompts and replies are saved in the run directory, redacted, with token counts, and the
    model's explanation survives a reply without TITLE:/ROOT_CAUSE: lines."""
    from provenance.offline import OFFLINE_ENV

    for k, v in OFFLINE_ENV.items():
        monkeypatch.setenv(k, v)
    import litellm

    from repair.workers import fake_llm
    from repair.workers.litellm_worker import LiteLLMWorker

    secret = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    prose = f"The mask lets one element past the row end, so the tail reads padding. My key is {secret}."
    saved = list(litellm.custom_provider_map)
    try:
        fake_llm.register([f"{prose}\n```python\n{kernel(c=2, f=4, e=0.0)}```\n"])
        worker = LiteLLMWorker("fakellm/demo", sleep=lambda s: None, exchanges_dir=tmp_path / "out" / "exchanges")
        outcome, out, _ = run(files, tmp_path, [], worker=worker)
    finally:
        litellm.custom_provider_map = saved
    assert outcome.status == "repaired"
    saved_files = sorted((out / "exchanges").iterdir())
    assert [p.name for p in saved_files] == ["attempt-01.json"]
    text = saved_files[0].read_text()
    ex = json.loads(text)
    assert ex["schema"] == "repair.llm.exchange/v1" and ex["model"] == "fakellm/demo"
    assert [m["role"] for m in ex["messages"]] == ["system", "user"] and "```python" in ex["reply"]
    assert ex["usage"]["prompt_tokens"] > 0 and ex["usage"]["completion_tokens"] > 0
    assert secret not in text and "The mask lets one element past the row end" in ex["parsed"]["diagnosis"]["explanation"]
    record = build_record(outcome, worker.info, backend="fake")
    assert record.diagnosis.root_cause.startswith("The mask lets one element past the row end")
    assert secret not in record.diagnosis.root_cause
