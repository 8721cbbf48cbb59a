from pathlib import Path

import pytest

from repair.campaign.ledger import CampaignBusy, CampaignLock, Ledger
from repair.campaign.outcome import AttemptRow, FindingRow, PatternRow, RunOutcome
from repair.campaign.spec import CampaignConfig, RunSpec
from repair.errors import BadInput


def _specs(n=3):
    return [RunSpec(f"op{i}/nearmiss_1", f"op{i}", "fam", Path("/p/problem.py"), Path("/p/nearmiss_1.py")) for i in range(n)]


def test_record_round_trips_every_table(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.open_campaign(CampaignConfig(worker="scripted"), _specs())
    outcome = RunOutcome(
        key="op1/nearmiss_1", status="repaired", stop_reason="repaired", attempts=2, turns=2,
        prompt_tokens=100, completion_tokens=20, cached_tokens=5, wall_s=1.5,
        workflow_accepted=2, integrity_rejected=1, full_rejected=0,
        attempt_rows=[AttemptRow(attempt=1, outcome="integrity-violation", integrity="violation"),
                      AttemptRow(attempt=2, outcome="accepted", integrity="clean", full_passed=6, full_total=6)],
        findings=[FindingRow(attempt=1, rule="static.framework-compute", message="F.leaky_relu")],
        patterns=[PatternRow(entry_id="e1", rank=0, score=0.9, cited=True), PatternRow(entry_id="e2", rank=1)],
    )
    ledger.mark_running(outcome.key)
    ledger.record(outcome)
    rows = {r.key: r for r in Ledger(tmp_path, read_only=True).runs()}
    assert rows["op0/nearmiss_1"].outcome is None
    got = rows["op1/nearmiss_1"]
    assert got.starts == 1
    assert got.outcome.model_dump() == outcome.model_dump()
    assert got.outcome.cited == ["e1"]
    assert ledger.finished_keys() == {"op1/nearmiss_1"}


def test_recording_again_replaces_the_run(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.open_campaign(CampaignConfig(), _specs(1))
    key = "op0/nearmiss_1"
    ledger.record(RunOutcome(key=key, status="failed", findings=[FindingRow(attempt=1, rule="a"), FindingRow(attempt=2, rule="b")]))
    ledger.record(RunOutcome(key=key, status="repaired", findings=[FindingRow(attempt=1, rule="c")]))
    (row,) = ledger.runs()
    assert row.outcome.status == "repaired"
    assert [f.rule for f in row.outcome.findings] == ["c"]


def test_resume_with_other_settings_is_refused(tmp_path):
    Ledger(tmp_path).open_campaign(CampaignConfig(worker="scripted"), _specs())
    with pytest.raises(BadInput, match="worker differ"):
        Ledger(tmp_path).open_campaign(CampaignConfig(worker="litellm"), _specs())
    # speed settings are not part of a campaign's identity
    Ledger(tmp_path).open_campaign(CampaignConfig(worker="scripted", run_timeout_s=5), _specs())


def test_reopening_adds_only_new_runs(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.open_campaign(CampaignConfig(), _specs(2))
    ledger.record(RunOutcome(key="op0/nearmiss_1", status="repaired"))
    ledger.open_campaign(CampaignConfig(), _specs(3))
    rows = {r.key: r for r in ledger.runs()}
    assert len(rows) == 3 and rows["op0/nearmiss_1"].outcome.status == "repaired"


def test_one_campaign_process_per_directory(tmp_path):
    with CampaignLock(tmp_path):
        with pytest.raises(CampaignBusy, match="another campaign"):
            with CampaignLock(tmp_path):
                pass
    with CampaignLock(tmp_path):  # released
        pass


def test_reading_a_directory_without_ledger_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match="no campaign ledger"):
        Ledger(tmp_path, read_only=True)
