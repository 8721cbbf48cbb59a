import json
import re

import pytest

from repair.report import build_report, write_report
from repair.report.html import render_html
from repair.report.markdown import render_markdown
from repair.report.metrics import load_campaign
from repair.report.stats import mcnemar_exact

from ledgers import make_ledger


def _debug(tmp_path, name="debug"):
    return make_ledger(tmp_path / name, "debug", {
        "a/nearmiss_1": dict(status="repaired", attempts=1, prompt_tokens=1000, completion_tokens=200, cached_tokens=400,
                             wall_s=10, workflow_accepted=2, full_rejected=1, gate_rejected=1, cited=["e1", "e2"]),
        "a/nearmiss_2": dict(status="failed", stop_reason="attempts", attempts=3, prompt_tokens=500, completion_tokens=100,
                             wall_s=20, workflow_accepted=1, integrity_rejected=1, gate_rejected=1,
                             rules=["static.framework-compute"]),
        "b/nearmiss_1": dict(status="repaired", attempts=2, prompt_tokens=300, completion_tokens=100, wall_s=30,
                             workflow_accepted=1, cited=["e3"]),
        "c/nearmiss_1": dict(status="crashed", stop_reason="killed", wall_s=40),
    }, pending=["d/nearmiss_1"])


def test_campaign_metrics_match_a_hand_count(tmp_path):
    m = load_campaign(_debug(tmp_path))
    assert (m.runs, m.finished, m.repaired, m.crashed, m.operators) == (5, 4, 2, 1, 4)
    assert m.pass_at_1.value == pytest.approx(2 / 4)
    assert (m.pass_at_1.low, m.pass_at_1.high) == pytest.approx((0.150036, 0.849964), abs=1e-5)  # Wilson 2/4
    assert m.tokens == 2200 and m.uncached_tokens == 1800
    assert m.tokens_per_success == 1100 and m.uncached_tokens_per_success == 900
    assert m.mean_attempts == pytest.approx(6 / 4) and m.mean_wall_s == pytest.approx(25)
    assert (m.workflow_accepted, m.integrity_rejected, m.full_rejected) == (4, 1, 1)
    assert m.integrity_rejection.value == 0.25 and m.full_tier_rejection.value == 0.25
    assert (m.gate_rejection.successes, m.gate_rejection.n) == (2, 4)
    assert m.patterns_cited_per_success == pytest.approx(1.5)
    assert m.stop_reasons == {"": 2, "attempts": 1, "killed": 1}
    assert {u.key: u.status for u in m.units}["d/nearmiss_1"] == "pending"
    # one outcome per task: a by its first near-miss (the second set aside), b, c crashed; d not decided yet
    assert [(t.operator_id, t.recovered, t.set_aside, t.tokens) for t in m.tasks] == [
        ("a", True, 1, 1200), ("b", True, 0, 400), ("c", False, 0, 0), ("d", None, 0, 0)]
    assert (m.task_rate.successes, m.task_rate.n) == (2, 3)
    assert m.generation_given == 0 and m.end_to_end_tokens_per_success is None


def test_regeneration_pass_at_1_and_pass_at_k(tmp_path):
    path = make_ledger(tmp_path / "regen", "regenerate", {
        "a/trial-0": dict(status="repaired", prompt_tokens=100), "a/trial-1": dict(), "a/trial-2": dict(),
        "b/trial-0": dict(), "b/trial-1": dict(), "b/trial-2": dict(),
        "c/trial-0": dict(status="repaired"), "c/trial-1": dict(status="repaired"), "c/trial-2": dict(),
    }, trials=3)
    m = load_campaign(path)
    assert m.pass_at_1.value == pytest.approx((1 / 3 + 0 + 2 / 3) / 3)
    assert (m.pass_at_1.successes, m.pass_at_1.n) == (3, 9)
    assert m.pass_at_k.value == pytest.approx(2 / 3) and m.pass_at_k.n == 3
    # a task's tokens: its trials up to the first that passed (a user stops there), all of them when none did
    assert [(t.operator_id, t.recovered, t.tokens) for t in m.tasks] == [("a", True, 100), ("b", False, 0), ("c", True, 0)]


def test_paired_comparison_reproduces_the_papers_mcnemar_value(tmp_path):
    # 27 operators: both 7, only debug 11, only regenerate 4, neither 5 (Debug 18/27 vs Regenerate Pass@3 11/27).
    # Each operator has a second near-miss, repaired where the first was not: the task-level rule sets it aside.
    pattern = [(True, True)] * 7 + [(True, False)] * 11 + [(False, True)] * 4 + [(False, False)] * 5
    debug, regen = {}, {}
    for i, (d, r) in enumerate(pattern):
        debug[f"op{i:02d}/nearmiss_1"] = dict(status="repaired" if d else "failed", prompt_tokens=100)
        debug[f"op{i:02d}/nearmiss_2"] = dict(status="failed" if d else "repaired", prompt_tokens=100)
        for t in range(3):
            regen[f"op{i:02d}/trial-{t}"] = dict(status="repaired" if (r and t == 2) else "failed", prompt_tokens=500)
    report = build_report([make_ledger(tmp_path / "debug", "debug", debug),
                           make_ledger(tmp_path / "regen", "regenerate", regen, trials=3)])
    (cmp,) = report.comparisons
    assert cmp.level == "task" and cmp.pairs == 27 and cmp.set_aside_a == 27 and cmp.undecided == 0
    assert (cmp.both, cmp.only_a, cmp.only_b, cmp.neither) == (7, 11, 4, 5)
    assert cmp.mcnemar_p == pytest.approx(0.1185, abs=5e-5) and cmp.no_test is None
    debug_m, regen_m = report.campaigns
    assert (debug_m.task_rate.successes, debug_m.task_rate.n) == (18, 27)
    assert (regen_m.task_rate.successes, regen_m.task_rate.n) == (11, 27)
    assert cmp.tokens_per_success_a == pytest.approx(5400 / 27)  # every near-miss's repair, over every success
    assert cmp.tokens_per_success_b == pytest.approx(27 * 3 * 500 / 11)
    assert cmp.tokens_per_success_reduction == pytest.approx(1 - (5400 / 27) / (40500 / 11))
    assert cmp.end_to_end_a is None and cmp.end_to_end_b == cmp.tokens_per_success_b  # no generation cost given
    assert regen_m.pass_at_k.value == pytest.approx(11 / 27)


def test_task_level_mcnemar_on_a_hand_computed_example(tmp_path):
    """Several near-misses per task. By hand: the first near-miss by name decides each debug task, any of the two
    trials each regeneration task; t9 and t10 are not decided in both and are left out; 9 tasks pair:
    both 1 (t7), only debug 6 (t0-t5), only regenerate 1 (t6), neither 1 (t8); p = 2 (C(7,0) + C(7,1)) / 2^7."""
    ok, no = dict(status="repaired"), dict(status="failed")
    debug = {
        "t0/nearmiss_1": ok, "t0/nearmiss_2": ok, "t0/nearmiss_3": ok,
        "t1/nearmiss_1": ok, "t1/nearmiss_2": no,
        "t2/nearmiss_1": ok, "t2/nearmiss_2": ok, "t2/nearmiss_3": ok,
        "t3/nearmiss_1": ok,
        "t4/nearmiss_1": ok, "t4/nearmiss_2": ok,
        "t5/nearmiss_10": no, "t5/nearmiss_2": ok,  # natural order: nearmiss_2 comes first
        "t6/nearmiss_1": no, "t6/nearmiss_2": ok, "t6/nearmiss_3": ok,
        "t7/nearmiss_1": ok, "t7/nearmiss_2": no,
        "t8/nearmiss_1": no, "t8/nearmiss_2": ok,
        "t9/nearmiss_2": ok,  # t9/nearmiss_1, its first, is still pending
        "t10/nearmiss_1": ok,
    }
    regen = {f"t{i}/trial-{t}": no for i in range(9) for t in range(2)}
    regen |= {"t6/trial-0": ok, "t7/trial-1": ok, "t9/trial-0": ok, "t9/trial-1": ok, "t10/trial-0": no}
    report = build_report([make_ledger(tmp_path / "debug", "debug", debug, pending=["t9/nearmiss_1"]),
                           make_ledger(tmp_path / "regen", "regenerate", regen, trials=2, pending=["t10/trial-1"])])
    (cmp,) = report.comparisons
    assert (cmp.pairs, cmp.both, cmp.only_a, cmp.only_b, cmp.neither, cmp.undecided) == (9, 1, 6, 1, 1, 2)
    assert cmp.only_a_tasks == ["t0", "t1", "t2", "t3", "t4", "t5"] and cmp.only_b_tasks == ["t6"]
    assert cmp.set_aside_a == 2 + 1 + 2 + 0 + 1 + 1 + 2 + 1 + 1 and cmp.set_aside_b == 0
    assert cmp.mcnemar_p == 2 * (1 + 7) / 2**7 == 0.125
    assert report.campaigns[0].task("t5").decided_by == ["nearmiss_2"]
    # Pairing each finished near-miss with its operator's Pass@3 outcome (the one regeneration outcome reused)
    # would count 12 vs 2 discordant and claim p = 0.013: the dependence this pairing removes.
    assert mcnemar_exact(12, 2) == pytest.approx(0.01294, abs=1e-5)
    md = render_markdown(report)
    assert "Paired by task: 9 task(s) decided in both (2 not yet decided in both, left out)" in md
    assert "- debug when its first near-miss by name (natural order) is repaired; its other near-misses are set aside " \
           "(11 here)" in md
    assert "- regen when any of its K trials passes (Pass@K, all K finished)" in md
    assert "Exact McNemar p = 0.125 (discordant 6 vs 1)" in md and "No near-miss-level test" in md


def test_debug_against_debug_pairs_the_same_near_miss_per_task(tmp_path):
    a = make_ledger(tmp_path / "kb", "debug", {"x/n1": dict(status="repaired"), "y/n1": dict(status="repaired"),
                                               "z/n1": dict(), "w/n1": dict(status="repaired")})
    b = make_ledger(tmp_path / "nokb", "debug", {"x/n1": dict(status="repaired"), "y/n1": dict(), "z/n1": dict()},
                    ablations=["no-kb"])
    (cmp,) = build_report([a, b]).comparisons
    assert (cmp.level, cmp.pairs, cmp.both, cmp.only_a, cmp.only_b, cmp.neither) == ("task", 3, 1, 1, 0, 1)
    assert cmp.mcnemar_p == 1.0


def test_a_test_it_cannot_justify_is_refused_with_the_reason(tmp_path):
    # the task's first near-miss differs between the two campaigns: not one input under two settings
    a = make_ledger(tmp_path / "a", "debug", {"x/n1": dict(status="repaired"), "x/n2": dict(), "y/n1": dict()})
    b = make_ledger(tmp_path / "b", "debug", {"x/n2": dict(), "y/n1": dict(status="repaired")})
    (cmp,) = build_report([a, b]).comparisons
    assert cmp.mcnemar_p is None and "decided by different near-misses (e.g. x: n1 in a, n2 in b)" in cmp.no_test
    # two cohort manifests: an operator id need not name the same task
    c = make_ledger(tmp_path / "c", "debug", {"x/n1": dict(status="repaired")}, cohort="1" * 64)
    d = make_ledger(tmp_path / "d", "regenerate", {"x/trial-0": dict()}, cohort="2" * 64)
    report = build_report([c, d])
    (cmp,) = report.comparisons
    assert cmp.mcnemar_p is None and "different cohort manifests (111111111111 vs 222222222222)" in cmp.no_test
    md = render_markdown(report)
    assert "No McNemar test: the campaigns ran different cohort manifests" in md and "McNemar p =" not in md
    assert "No McNemar test" in render_html(report)


def test_markdown_and_self_contained_html(tmp_path):
    a, b = _debug(tmp_path, "with-kb"), _debug(tmp_path, "no-kb")
    html = tmp_path / "report.html"
    report, md = write_report([a, b], html=html)
    assert "| with-kb | debug |" in md and "50.0% [15.0, 85.0]" in md and "Exact McNemar p = 1" in md
    page = html.read_text()
    assert page.count("<svg") == 4 and "<script" not in page and "<link" not in page
    # no network assets: the only URL is the SVG namespace
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}
    assert "with-kb vs no-kb" in page and "a/nearmiss_1" in page
    data = json.loads(report.to_json())
    assert data["schema"] == "repair.report/v3" and len(data["campaigns"]) == 2


def test_html_escapes_names(tmp_path):
    path = make_ledger(tmp_path / "x<b>y", "debug", {"o<p>/n1": dict(status="repaired")})
    page = render_html(build_report([path]))
    assert "<b>y" not in page and "o<p>" not in page and "x&lt;b&gt;y" in page


def test_an_unsupported_near_miss_is_in_no_rate(tmp_path):
    """A near-miss the backend cannot judge (an AscendC API ascendc-cpu lacks) is neither a repair nor a failure."""
    ledger = make_ledger(tmp_path / "u", "debug", {
        "a/nearmiss_1": dict(status="repaired", attempts=1, wall_s=1),
        "b/nearmiss_1": dict(status="unsupported", stop_reason="unsupported", wall_s=1),
        "c/nearmiss_1": dict(status="failed", stop_reason="attempts", attempts=2, wall_s=1),
    })
    m = load_campaign(ledger)
    assert (m.finished, m.repaired, m.unsupported) == (3, 1, 1)
    assert (m.pass_at_1.successes, m.pass_at_1.n) == (1, 2)
    assert [(t.operator_id, t.recovered) for t in m.tasks] == [("a", True), ("b", None), ("c", False)]
    assert "~nearmiss_1" in render_markdown(build_report([ledger]))


def test_report_shows_each_runs_integrity_policy_and_level(tmp_path):
    path = make_ledger(tmp_path / "lax", "debug", {
        "a/nearmiss_1": dict(status="repaired", rules=[("runtime.framework-compute", "policy"),
                                                        ("static.kernel-not-launched", "note")]),
        "b/nearmiss_1": dict(status="failed", rules=[("static.no-kernel", "cheat"), ("runtime.input-mutated", "policy")]),
        "c/nearmiss_1": dict(status="failed", rules=["static.framework-compute"]),  # recorded before levels: failed
        "d/nearmiss_1": dict(status="repaired"),
    }, policy="epilogue")
    m = load_campaign(path)
    assert m.policy == "epilogue"
    got = {u.key: (u.integrity, u.integrity_rules) for u in m.units}
    assert got == {"a/nearmiss_1": ("policy", ["runtime.framework-compute"]),
                   "b/nearmiss_1": ("cheat", ["static.no-kernel"]),
                   "c/nearmiss_1": ("cheat", ["static.framework-compute"]), "d/nearmiss_1": ("clean", [])}
    md = render_markdown(build_report([path]))
    assert "| triton-cpu | scripted | epilogue |" in md  # the reproducibility table names the policy
    assert "- **lax** (epilogue policy): cheat 2, policy 1, clean 1" in md
    assert "| lax | epilogue | a/nearmiss_1 | policy | runtime.framework-compute |" in md
    assert "d/nearmiss_1 | clean" not in md
    assert "a/nearmiss_1</td><td>policy" in render_html(build_report([path]))


def test_every_format_says_which_backend_ran_and_whether_emulated(tmp_path):
    """Issue 37: a report of an AscendC campaign on ascendc-cpu says the figures come from an emulation."""
    a = make_ledger(tmp_path / "asc", "debug", {"op/n1": dict(status="repaired")}, backend="ascendc-cpu")
    b = make_ledger(tmp_path / "tri", "debug", {"op/n1": dict(status="failed")})
    report = build_report([a, b])
    md, page, data = render_markdown(report), render_html(report), json.loads(report.to_json())
    assert "- **asc**: backend ascendc-cpu (emulated: the kernels ran on a CPU emulation" in md
    assert "- **tri**: backend triton-cpu\n" in md
    assert "<li><b>asc</b>: backend ascendc-cpu (emulated: " in page and "<li><b>tri</b>: backend triton-cpu</li>" in page
    assert [(c["backend"], c["emulated"]) for c in data["campaigns"]] == [("ascendc-cpu", True), ("triton-cpu", False)]
    assert "## Reproducibility" in md and "| asc | " in md and "| ascendc-cpu (emulated) | scripted | strict |" in md
    assert all(c["created_at"] for c in data["campaigns"])


def test_the_page_links_each_run_to_the_files_it_left(tmp_path):
    """Links resolve from where the page is written; a file a run did not leave gets no link."""
    ledger = make_ledger(tmp_path / "c", "debug", {"a/nearmiss_1": dict(status="repaired"),
                                                   "b/nearmiss_1": dict(status="failed")})
    run = ledger / "runs" / "a" / "nearmiss_1"
    run.mkdir(parents=True)
    for name in ("final.diff", "trajectory.jsonl", "record.json", "final.py"):
        (run / name).write_text("x\n")
    html = tmp_path / "pages" / "report.html"
    html.parent.mkdir()
    report, _ = write_report([ledger], html=html)
    page = html.read_text()
    assert '<a href="../c/runs/a/nearmiss_1/final.diff">diff</a>' in page
    assert '<a href="../c/runs/a/nearmiss_1/trajectory.jsonl">trajectory</a>' in page
    assert "b/nearmiss_1/" not in page  # nothing left, nothing linked
    units = {u.key: u.files for u in report.campaigns[0].units}
    assert list(units["a/nearmiss_1"]) == ["diff", "trajectory", "record", "final"] and units["b/nearmiss_1"] == {}
