"""The `rules` worker: candidates from retrieved patterns' rules, cheapest first, zero tokens, cited;
driven through the engine, a rule that makes things worse is rolled back."""
from __future__ import annotations

from pathlib import Path

import pytest

from repair.loop.algorithm import RunConfig, run_repair
from repair.engine import CaseResult, EvalResult, TierSummary
from repair.integrity import IntegrityVerdict
from repair.loop.retrieve import FixedRetriever
from ingest.rules import Rule, equivalent
from repair.rules.catalog import STARTER
from repair.loop.trajectory import read_trajectory
from repair.workers import WORKERS, WorkerOptions, make_worker
from repair.workers.base import AttemptNote, Pattern, WorkerContext, WorkerExhausted
from repair.workers.rules_worker import ChainWorker, RulesWorker, candidates
from repair.workers.scripted import ScriptedWorker, Step

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SOURCE = (EXAMPLES / "max_lastdim" / "nearmiss_1.py").read_text()  # masked load without other=-inf
CORRECT = (EXAMPLES / "max_lastdim" / "correct.py").read_text()
OTHER_RULE = Rule(id="other-max", pattern="$V = tl.load($P, mask=$M)",
                  rewrite='$V = tl.load($P, mask=$M, other=-float("inf"))', requires=["tl.maximum($A, $V)"])
# plausible-looking rules that match here but make the kernel worse
WORSE_LE = Rule(id="worse-le", pattern="$A < $B", rewrite="$A <= $B", context="kernel")
WORSE_ZERO = Rule(id="worse-zero", pattern="$V = tl.load($P, mask=$M)", rewrite="$V = tl.load($P, mask=$M, other=0.0)")


def pattern(pid: str, *rules: Rule, **kw) -> Pattern:
    return Pattern(id=pid, score=kw.pop("score", 0.5), rules=tuple(r.to_dict() for r in rules), **kw)


def ctx(text=SOURCE, patterns=(), history=()) -> WorkerContext:
    return WorkerContext(attempt=len(history) + 1, problem_text="", candidate_text=text, forensics="",
                         patterns=tuple(patterns), history=tuple(history))


def test_candidates_are_ranked_by_symptom_fit_then_retrieval_then_size_and_distinct():
    insert = Rule(id="ins", pattern="$V = tl.load($P, mask=$M)", rewrite="$V = tl.load($P, mask=$M)\n$V = $V * 1.0")
    pats = [pattern("p1", WORSE_LE), pattern("p2", insert, OTHER_RULE, WORSE_ZERO)]
    found = candidates(SOURCE, pats)
    assert [c.pattern.id for c in found] == ["p1", "p2", "p2", "p2"]  # retrieval rank first
    costs = [c.application.changed_lines for c in found if c.pattern.id == "p2"]
    assert costs == sorted(costs) and found[1].application.rule_id == "ins"  # then the fewest changed lines
    texts = [c.application.patched_source for c in found]
    assert len(texts) == len(set(texts))
    # a rule whose bug class shows the observed symptom comes first, whatever its rank
    tail = Rule(id="tail-other", pattern="$V = tl.load($P, mask=$M)", symptoms=["tail-localized"],
                rewrite='$V = tl.load($P, mask=$M, other=-float("inf"))')
    ranked = candidates(SOURCE, [*pats, pattern("p3", tail)], cues={"tail-localized"})
    assert ranked[0].pattern.id == "p3" and ranked[0].fit > 0 and all(c.fit == 0 for c in ranked[1:])


def test_worker_proposes_each_candidate_once_with_zero_tokens_and_a_citation():
    worker = RulesWorker()
    pats = [pattern("kb-1", OTHER_RULE, title="other", bug_class="missing-other", fix="add other")]
    p = worker.propose(ctx(patterns=pats))
    assert equivalent(p.candidate, CORRECT)
    assert p.cited == ("kb-1",) and p.turns == 0 and p.usage.total == 0
    assert p.diagnosis["bug_class"] == "missing-other" and "other-max" in p.note
    with pytest.raises(WorkerExhausted):
        worker.propose(ctx(text=p.candidate, patterns=pats, history=[AttemptNote(1, "not-improved")]))


def test_worker_skips_broken_rules_and_other_languages():
    cpp = Rule(id="c", language="cpp", pattern="$A < $B", rewrite="$A <= $B")
    broken = Pattern(id="kb-bad", score=0.1, rules=({"id": "x", "pattern": "a"},))  # no rewrite
    with pytest.raises(WorkerExhausted, match="no rule matches: none of the 2 patterns with rules"):
        RulesWorker().propose(ctx(patterns=[pattern("kb-cpp", cpp), broken, pattern("kb-none")]))


def test_after_an_improvement_the_worker_builds_on_it():
    first = Rule(id="a", pattern="tl.max($A, axis=0)", rewrite="tl.max($A, axis=-1)")
    worker = RulesWorker()
    pats = [pattern("kb-a", first), pattern("kb-b", OTHER_RULE)]
    p1 = worker.propose(ctx(patterns=pats))  # the cheaper swap first (both change one line; rank breaks the tie)
    assert "axis=-1" in p1.candidate
    p2 = worker.propose(ctx(text=p1.candidate, patterns=pats, history=[AttemptNote(1, "improved")]))
    assert "axis=-1" in p2.candidate and 'other=-float("inf")' in p2.candidate
    # had it not improved, the next candidate would have come from the original kernel
    other = RulesWorker()
    q1 = other.propose(ctx(patterns=pats))
    q2 = other.propose(ctx(text=q1.candidate, patterns=pats, history=[AttemptNote(1, "not-improved")]))
    assert "axis=-1" not in q2.candidate and 'other=-float("inf")' in q2.candidate


def test_chain_moves_on_when_the_rules_are_exhausted():
    chain = ChainWorker([RulesWorker(), ScriptedWorker([Step(candidate=CORRECT, diff=None)])], kind="rules+scripted")
    assert chain.propose(ctx()).candidate == CORRECT  # no patterns: straight to the second worker
    with pytest.raises(WorkerExhausted):
        chain.propose(ctx())


def test_registry_knows_the_rules_workers():
    assert {"rules", "rules+litellm"} <= set(WORKERS)
    assert isinstance(make_worker("rules"), RulesWorker) and make_worker("rules").info.kind == "rules"


# -- through the engine, with a judge that scores a candidate by what it is ----------------------

class TextJudge:
    """Full marks for the correct kernel, the near-miss's score for itself, worse for anything else."""

    backend = "fake"
    rules_off = ()

    def __init__(self, table: list[tuple[str, int, int, float]]):
        self.table = table  # (program, compact passed of 2, full passed of 4, max error)
        self.evaluated: list[str] = []

    def gate(self, candidate: Path) -> IntegrityVerdict:
        return IntegrityVerdict()

    def evaluate(self, candidate: Path, tier: str) -> EvalResult:
        text = candidate.read_text()
        self.evaluated.append(tier)
        c, f, e = next(((c, f, e) for prog, c, f, e in self.table if equivalent(prog, text)), (0, 0, 9.0))
        cases = [CaseResult(case_id=f"c{i}", tier="compact", status="pass" if i < c else "mismatch",
                            max_abs_err=0.0 if i < c else e) for i in range(2)]
        summary = {"compact": TierSummary(passed=c, total=2)}
        if tier == "full":
            cases += [CaseResult(case_id=f"f{i}", tier="full", status="pass" if i < f else "mismatch",
                                 max_abs_err=0.0 if i < f else e) for i in range(4)]
            summary["full"] = TierSummary(passed=f, total=4)
        ok = all(x.status == "pass" for x in cases)
        return EvalResult(operator_id="max_lastdim", family="reduction", problem_path="p.py", problem_sha256="p" * 64,
                          candidate_path=str(candidate), candidate_sha256="c" * 64, backend="fake", tier=tier, seed=0,
                          case_set_sha256="s" * 64, cases=cases, summary=summary,
                          match=f / 4 if tier == "full" else None, numerics_passed=ok, passed=ok)


def test_a_rule_that_makes_things_worse_is_rolled_back_by_the_engine(tmp_path):
    (tmp_path / "problem.py").write_text((EXAMPLES / "max_lastdim" / "problem.py").read_text())
    (tmp_path / "nearmiss.py").write_text(SOURCE)
    judge = TextJudge([(SOURCE, 2, 1, 3.0), (CORRECT, 2, 4, 0.0)])
    # the harmful rules are retrieved first and cost as little as the right one, so they are tried first
    pats = [pattern("kb-worse", WORSE_LE, WORSE_ZERO), pattern("kb-right", OTHER_RULE)]
    out = tmp_path / "out"
    outcome = run_repair(RunConfig(tmp_path / "problem.py", tmp_path / "nearmiss.py", out=out), RulesWorker(),
                         FixedRetriever(pats), judge)
    assert outcome.status == "repaired"
    assert [a.outcome for a in outcome.attempts] == ["not-improved", "not-improved", "accepted"]
    assert [a.cited for a in outcome.attempts] == [("kb-worse",), ("kb-worse",), ("kb-right",)]
    events = read_trajectory(out / "trajectory.jsonl")
    rollback = [e for e in events if e["event"] == "rollback"]
    assert len(rollback) == 1 and rollback[0]["to_attempt"] == 0 and rollback[0]["changed"] is True
    final = (out / "final.py").read_text()
    assert equivalent(final, CORRECT) and "<=" not in final
    assert outcome.usage.total == 0 and outcome.turns == 0


@pytest.mark.slow
def test_rules_worker_repairs_a_real_nearmiss_with_the_harness(tmp_path):
    """The starter patterns, offered together, repair a near-miss that is not their record's example."""
    from repair.loop.judge import HarnessJudge
    from repair.rules.build_starter import pattern_id

    pats = [Pattern(id=pattern_id(p), score=1.0, title=p.title, bug_class=p.bug_class, fix=p.fix,
                    rules=tuple(r.to_dict() for r in p.rules)) for p in STARTER]
    problem = EXAMPLES / "min_lastdim" / "problem.py"
    outcome = run_repair(RunConfig(problem, EXAMPLES / "min_lastdim" / "nearmiss_1.py"), RulesWorker(),
                         FixedRetriever(pats), HarnessJudge(problem, seed=0))
    assert outcome.status == "repaired" and len(outcome.attempts) == 1
    assert outcome.attempts[0].cited == ("starter/grid-floor-div",)
    assert equivalent(outcome.best.candidate, (EXAMPLES / "min_lastdim" / "correct.py").read_text())


@pytest.mark.slow
def test_rules_then_litellm_asks_the_model_only_when_the_rules_are_spent(tmp_path, monkeypatch):
    """`--worker rules+litellm` with the scripted custom provider: the rule first at zero tokens, then the model."""
    import litellm

    from provenance.offline import OFFLINE_ENV

    for k, v in OFFLINE_ENV.items():
        monkeypatch.setenv(k, v)
    saved = list(litellm.custom_provider_map)
    try:
        (tmp_path / "replies.yaml").write_text(
            "- |\n  ```python\n" + "".join(f"  {ln}\n" for ln in CORRECT.splitlines()) + "  ```\n  CITED: kb-1\n")
        worker = make_worker("rules+litellm", WorkerOptions(model="fakellm/demo", script=tmp_path / "replies.yaml"))
        assert worker.info.kind == "rules+litellm" and worker.info.model == "fakellm/demo"
        pats = [pattern("kb-1", WORSE_LE)]
        first = worker.propose(ctx(patterns=pats))
        assert first.turns == 0 and first.usage.total == 0 and "<=" in first.candidate
        second = worker.propose(ctx(text=first.candidate, patterns=pats, history=[AttemptNote(1, "not-improved")]))
        assert second.turns == 1 and second.usage.prompt_tokens > 0 and second.cited == ("kb-1",)
        assert equivalent(second.candidate, CORRECT)
    finally:
        litellm.custom_provider_map = saved


def test_every_rule_carrying_pattern_is_tried_whatever_k(tmp_path):
    """-k bounds what a model is shown, not which free rules run: the right pattern ranked past k still fires."""
    (tmp_path / "problem.py").write_text((EXAMPLES / "max_lastdim" / "problem.py").read_text())
    (tmp_path / "nearmiss.py").write_text(SOURCE)
    judge = TextJudge([(SOURCE, 2, 1, 3.0), (CORRECT, 2, 4, 0.0)])
    pats = [pattern("kb-text-only"), pattern("kb-worse", WORSE_LE), pattern("kb-right", OTHER_RULE)]
    outcome = run_repair(RunConfig(tmp_path / "problem.py", tmp_path / "nearmiss.py", k=1), RulesWorker(),
                         FixedRetriever(pats), judge)
    assert outcome.status == "repaired" and outcome.attempts[-1].cited == ("kb-right",)
    # the record lists what was cited among the retrieved patterns, not every free pattern offered
    assert {p.id for p in outcome.retrieved} == {"kb-text-only", "kb-worse", "kb-right"}
    assert [a.cited for a in outcome.attempts] == [("kb-worse",), ("kb-right",)]


def test_failure_cues_come_from_the_loops_labels_not_from_text():
    from repair.workers.base import CaseLabel, FailureLabels
    from repair.workers.rules_worker import failure_cues

    labels = FailureLabels(symptom="scaled-output", location="scattered", tier="full", cases=(
        CaseLabel("c4", "full", "mismatch", (("M", 3), ("N", 1025), ("eps", 0.1)), "scaled-output", "scattered",
                  ("output is about 0.05 x",)),
        CaseLabel("c5", "full", "mismatch", (("M", 6), ("N", 300), ("layout", "transposed")), "nan-introduced",
                  "tail-columns", nan_count=3)))
    problem = "def get_init_inputs(N=4, eps=1e-5, **case):\n    return [N, eps]\n\n\ndef get_inputs(M=8, N=4):\n    pass\n"
    assert failure_cues(labels, problem) == {"scaled-output", "scattered", "nan-introduced", "tail-columns",
                                             "nan", "layout", "param"}
    assert failure_cues(FailureLabels()) == set()


def test_the_loop_hands_the_worker_its_labels(tmp_path):
    """The worker receives the failing evaluation's labels as data, the same the forensics text prints."""
    seen = []

    class Spy(RulesWorker):
        def propose(self, ctx):
            seen.append(ctx.labels)
            return super().propose(ctx)

    (tmp_path / "problem.py").write_text((EXAMPLES / "max_lastdim" / "problem.py").read_text())
    (tmp_path / "nearmiss.py").write_text(SOURCE)
    judge = TextJudge([(SOURCE, 2, 1, 3.0), (CORRECT, 2, 4, 0.0)])
    run_repair(RunConfig(tmp_path / "problem.py", tmp_path / "nearmiss.py", k=1), Spy(),
               FixedRetriever([pattern("kb-right", OTHER_RULE)]), judge)
    labels = seen[0]
    assert labels.tier == "full" and labels.cases and all(c.status != "pass" for c in labels.cases)
    assert labels.cases[0].case_id and isinstance(labels.cases[0].params, tuple)


# -- AscendC: the working text is a bundle of C++ files ------------------------------------------------------

ASCENDC = EXAMPLES / "ascendc"


def _bundle(path):
    from repair.ascendc import load_candidate
    from repair.ascendc.bundle import to_bundle

    return to_bundle(load_candidate(path))


def _ascendc_patterns():
    from repair.rules.build_starter import pattern_id

    return [Pattern(id=pattern_id(p), score=1.0, title=p.title, bug_class=p.bug_class, fix=p.fix,
                    rules=tuple(r.to_dict() for r in p.rules)) for p in STARTER if p.language == "ascendc"]


def test_on_a_bundle_the_worker_rewrites_one_cpp_file_and_proposes_the_whole_bundle():
    from repair.ascendc.bundle import parse_bundle

    source = _bundle(ASCENDC / "bias_add" / "npukb" / "nearmiss_queue_order")
    worker = RulesWorker()
    c = WorkerContext(attempt=1, problem_text="", candidate_text=source, forensics="", patterns=(),
                      rule_patterns=tuple(_ascendc_patterns()), language="ascendc")
    p = worker.propose(c)
    before, after = parse_bundle(source), parse_bundle(p.candidate)
    changed = [f.name for f, g in zip(before.files, after.files) if f.text != g.text]
    assert changed == ["op_kernel/bias_add_custom.cpp"] and after.format == before.format
    assert p.diagnosis["bug_class"] == "queue-out-of-order" and "op_kernel/bias_add_custom.cpp:" in p.note
    assert p.cited == ("starter/ascendc-queue-out-of-order",) and p.usage.total == 0
    correct = parse_bundle(_bundle(ASCENDC / "bias_add" / "answer" / "0"))
    assert equivalent(after.file(changed[0]).text, correct.file(changed[0]).text, "cpp")


def test_bundle_candidates_are_distinct_programs_and_cpp_rules_only():
    from repair.workers.rules_worker import source_key

    source = _bundle(ASCENDC / "cast" / "nearmiss_unaligned.py")
    found = candidates(source, _ascendc_patterns(), "ascendc")
    keys = [source_key(c.application.patched_source) for c in found]
    # copy-out-indexed and copy-out-whole write the same DataCopyPad: one candidate
    assert len(keys) == len(set(keys)) == 1 and found[0].pattern.bug_class == "unaligned-datacopy"
    # formatting is not a different program
    assert source_key(source.replace("    DataCopy(", "  DataCopy(")) == source_key(source)
    # Python rules never run on a bundle, C++ rules never on a Triton source
    assert candidates(source, [pattern("py", OTHER_RULE)], "ascendc") == []
    assert candidates(SOURCE, _ascendc_patterns()) == []


def test_emulator_faults_are_cues_that_rank_their_class_first():
    from repair.workers.base import CaseLabel, FailureLabels
    from repair.workers.rules_worker import failure_cues

    def fault(message):
        return FailureLabels(cases=(CaseLabel("0", "compact", "error", message=message),))

    queue = fault("ascendc-cpu: Add writes a LocalTensor after its EnQue: the queue's consumer may already be copying it")
    align = fault("ascendc-cpu: DataCopy of 2002 bytes: the length must be a multiple of 32 bytes (DataCopyPad "
                  "copies any length)")
    assert failure_cues(queue) == {"queue"} and failure_cues(align) == {"datacopy-align"}
    # a kernel with both bugs: the observed fault decides which fix comes first
    text = _bundle(ASCENDC / "bias_add" / "nearmiss_queue_order.py").replace(
        "DataCopyPad(yGm[r * this->cols], yLocal, RowParams());",
        "DataCopy(yGm[r * this->cols], yLocal, this->cols);")
    assert "DataCopy(yGm" in text  # the second bug is in
    pats = _ascendc_patterns()
    assert candidates(text, pats, cues={"queue"})[0].pattern.bug_class == "queue-out-of-order"
    assert candidates(text, pats, cues={"datacopy-align"})[0].pattern.bug_class == "unaligned-datacopy"


def test_a_run_that_repairs_nothing_ends_with_what_matched_and_what_each_attempt_did(tmp_path):
    from repair.loop import ending_lines

    (tmp_path / "problem.py").write_text((EXAMPLES / "max_lastdim" / "problem.py").read_text())
    (tmp_path / "nearmiss.py").write_text(SOURCE)
    judge = TextJudge([(SOURCE, 2, 1, 3.0), (CORRECT, 2, 4, 0.0)])
    outcome = run_repair(RunConfig(tmp_path / "problem.py", tmp_path / "nearmiss.py"), RulesWorker(),
                         FixedRetriever([pattern("kb-worse", WORSE_LE), pattern("kb-none")]), judge)
    line = "\n".join(ending_lines(outcome, "rules"))
    assert not outcome.repaired and "every rule application tried" in line and "kb-worse (worse-le)" in line
    # each attempt: the rule and where, then the score it started from and the one it got
    assert "  attempt 1: not-improved, cites kb-worse" in line and "rule worse-le at " in line
    assert "full 1 compact 2 err 0 -> full 0 compact 0 err 9 (not-improved)" in line
