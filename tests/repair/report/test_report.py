import json
import re

import pytest

from repair.report import build_report, write_report
from repair.report.html import render_html
from repair.report.metrics import load_campaign

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


def test_paired_comparison_reproduces_the_papers_mcnemar_value(tmp_path):
    # 27 operators: both 7, only debug 11, only regenerate 4, neither 5 (Debug 18/27 vs Regenerate Pass@3 11/27).
    pattern = [(True, True)] * 7 + [(True, False)] * 11 + [(False, True)] * 4 + [(False, False)] * 5
    debug, regen = {}, {}
    for i, (d, r) in enumerate(pattern):
        debug[f"op{i:02d}/nearmiss_1"] = dict(status="repaired" if d else "failed", prompt_tokens=100)
        for t in range(3):
            regen[f"op{i:02d}/trial-{t}"] = dict(status="repaired" if (r and t == 2) else "failed", prompt_tokens=500)
    report = build_report([make_ledger(tmp_path / "debug", "debug", debug),
                           make_ledger(tmp_path / "regen", "regenerate", regen, trials=3)])
    (cmp,) = report.comparisons
    assert cmp.level == "task" and cmp.pairs == 27
    assert (cmp.both, cmp.only_a, cmp.only_b, cmp.neither) == (7, 11, 4, 5)
    assert cmp.mcnemar_p == pytest.approx(0.1185, abs=5e-5)
    assert cmp.tokens_per_success_a == pytest.approx(2700 / 18)
    assert cmp.tokens_per_success_b == pytest.approx(27 * 3 * 500 / 11)
    assert cmp.tokens_per_success_reduction == pytest.approx(1 - (2700 / 18) / (40500 / 11))
    assert report.campaigns[1].pass_at_k.value == pytest.approx(11 / 27)


def test_same_runs_pair_run_by_run(tmp_path):
    a = make_ledger(tmp_path / "kb", "debug", {"x/n1": dict(status="repaired"), "y/n1": dict(status="repaired"),
                                               "z/n1": dict(), "w/n1": dict(status="repaired")})
    b = make_ledger(tmp_path / "nokb", "debug", {"x/n1": dict(status="repaired"), "y/n1": dict(), "z/n1": dict()},
                    ablations=["no-kb"])
    (cmp,) = build_report([a, b]).comparisons
    assert (cmp.level, cmp.pairs, cmp.both, cmp.only_a, cmp.only_b, cmp.neither) == ("run", 3, 1, 1, 0, 1)
    assert cmp.mcnemar_p == 1.0


def test_markdown_and_self_contained_html(tmp_path):
    a, b = _debug(tmp_path, "with-kb"), _debug(tmp_path, "no-kb")
    html = tmp_path / "report.html"
    report, md = write_report([a, b], html=html)
    assert "| with-kb | debug |" in md and "50.0% [15.0, 85.0]" in md and "Exact McNemar p = 1" in md
    page = html.read_text()
    assert page.count("<svg") == 3 and "<script" not in page and "<link" not in page
    # no network assets: the only URL is the SVG namespace
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}
    assert "with-kb vs no-kb" in page and "a/nearmiss_1" in page
    data = json.loads(report.to_json())
    assert data["schema"] == "repair.report/v1" and len(data["campaigns"]) == 2


def test_html_escapes_names(tmp_path):
    path = make_ledger(tmp_path / "x<b>y", "debug", {"o<p>/n1": dict(status="repaired")})
    page = render_html(build_report([path]))
    assert "<b>y" not in page and "o<p>" not in page and "x&lt;b&gt;y" in page
