"""End-to-end cost: a cohort manifest's generation_cost travels through a campaign's plan and ledger into the report,
which prints debugging's tokens per success with and without it next to regeneration's, or says 'not given'."""
import pytest

from provenance.cohort import load_manifest, manifest_hash
from provenance.errors import BadInput
from repair.campaign.ledger import Ledger
from repair.campaign.outcome import RunOutcome
from repair.campaign.spec import CampaignConfig, load_operators, plan_debug
from repair.report import build_report
from repair.report.html import render_html
from repair.report.markdown import render_markdown

from ledgers import make_ledger

COSTS = """\
    generation_cost:
      a/nearmiss_1.py: {tokens: 400, model: gpt-4o}
      a/nearmiss_2.py: {tokens: 600, model: gpt-4o}
  - id: b
    files: [b/problem.py, b/nearmiss_1.py]
    generation_cost:
      b/nearmiss_1.py: {tokens: 1000}
"""


def _manifest(tmp_path, costs: str | None = COSTS):
    for f in ("a/problem.py", "a/nearmiss_1.py", "a/nearmiss_2.py", "b/problem.py", "b/nearmiss_1.py"):
        (tmp_path / f).parent.mkdir(exist_ok=True)
        (tmp_path / f).write_text(f"# {f}\n")
    head = ("cohort: cost\nfrozen_at: '2026-11-30T00:00:00Z'\noperators:\n"
            "  - id: a\n    files: [a/problem.py, a/nearmiss_1.py, a/nearmiss_2.py]\n")
    tail = costs if costs is not None else "  - id: b\n    files: [b/problem.py, b/nearmiss_1.py]\n"
    path = tmp_path / "cohort.yaml"
    path.write_text(head + tail)
    return path


def _campaign(manifest, out):
    """The ledger `repair campaign MANIFEST` opens, with outcomes recorded as its runs would: 600 repair tokens,
    2 successes."""
    specs = plan_debug(load_operators(manifest))
    ledger = Ledger(out)
    ledger.open_campaign(CampaignConfig(kind="debug", manifest=str(manifest)), specs)
    ledger.record(RunOutcome(key="a/nearmiss_1", status="repaired", prompt_tokens=100),
                  RunOutcome(key="a/nearmiss_2", status="failed", prompt_tokens=300),
                  RunOutcome(key="b/nearmiss_1", status="repaired", prompt_tokens=150, completion_tokens=50))
    return out


def test_generation_cost_travels_from_the_manifest_into_the_report(tmp_path):
    manifest = _manifest(tmp_path)
    debug = _campaign(manifest, tmp_path / "debug")
    costs = Ledger(debug, read_only=True).generation_costs()
    assert {k: (c.tokens, c.model) for k, c in costs.items()} == {
        "a/nearmiss_1": (400, "gpt-4o"), "a/nearmiss_2": (600, "gpt-4o"), "b/nearmiss_1": (1000, None)}
    regen = make_ledger(tmp_path / "regen", "regenerate", {
        "a/trial-0": dict(status="repaired", prompt_tokens=700), "a/trial-1": dict(prompt_tokens=800),
        "b/trial-0": dict(prompt_tokens=600), "b/trial-1": dict(prompt_tokens=900)}, trials=2)
    report = build_report([debug, regen])
    d, r = report.campaigns
    assert d.tokens_per_success == 300 and d.generation_tokens == 2000 and d.generation_models == ["gpt-4o"]
    assert d.end_to_end_tokens_per_success == (600 + 2000) / 2
    assert r.tokens_per_success == r.end_to_end_tokens_per_success == 3000
    (cmp,) = report.comparisons
    assert (cmp.end_to_end_a, cmp.end_to_end_b) == (1300, 3000)
    assert cmp.end_to_end_reduction == pytest.approx(1 - 1300 / 3000)
    md = render_markdown(report)
    assert "| 300 | 1,300 |" in md and "| 3,000 | 3,000 (all generation) |" in md
    assert "Tokens per success: debug 300 (repairs only), 1,300 (incl. generation); regen 3,000 (all generation)." in md
    assert "Repairs only: 90.0% fewer tokens per success for debug." in md
    assert "Incl. generation: 56.7% fewer tokens per success for debug." in md
    assert "- **debug**: generating its near-misses cost 2,000 tokens (model gpt-4o)" in md
    # the cost curve: the counted near-misses (a/nearmiss_1, b/nearmiss_1) with and without their generation
    assert d.cost_curve() == [(0, 0), (100, 1), (300, 2)]
    assert d.cost_curve(generation=True) == [(0, 0), (500, 1), (1700, 2)]
    assert r.cost_curve() == [(0, 0), (700, 1), (2200, 1)] and r.cost_curve(generation=True) is None
    assert 'stroke-dasharray="6 4"' in render_html(report)


def test_without_a_generation_cost_the_column_says_not_given(tmp_path):
    manifest = _manifest(tmp_path)
    debug = _campaign(manifest, tmp_path / "debug")
    with_cost = manifest_hash(load_manifest(manifest))
    _manifest(tmp_path, costs=None)
    assert manifest_hash(load_manifest(manifest)) == with_cost  # a cost annotates the cohort, it does not change it
    _campaign(manifest, debug)  # rerunning the campaign records the manifest as it now is: no cost
    (d,) = build_report([debug]).campaigns
    assert d.generation_given == 0 and d.end_to_end_tokens_per_success is None
    md = render_markdown(build_report([debug]))
    assert "| 300 | not given |" in md
    # given for some near-misses only: no number, and how many lack it
    _manifest(tmp_path, costs=COSTS.replace("    generation_cost:\n      b/nearmiss_1.py: {tokens: 1000}\n", ""))
    _campaign(manifest, debug)
    md = render_markdown(build_report([debug]))
    assert "| 300 | not given for 1 of 3 near-misses |" in md
    assert "a generation cost is given for 2 of 3 finished runs only (model gpt-4o)" in md


@pytest.mark.parametrize("costs,message", [
    (COSTS.replace("a/nearmiss_2.py: {tokens", "a/nearmiss_9.py: {tokens"), "a/nearmiss_9.py, not among the operator's files"),
    (COSTS.replace("tokens: 400", "tokens: -1"), "greater than or equal to 0"),
    (COSTS.replace("model: gpt-4o}", "model: gpt-4o, usd: 3}", 1), "unknown key"),
])
def test_a_bad_generation_cost_is_a_one_line_error(tmp_path, costs, message):
    with pytest.raises(BadInput, match=message):
        load_manifest(_manifest(tmp_path, costs))
