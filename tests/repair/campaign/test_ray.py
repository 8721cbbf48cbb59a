"""The Ray executor on a local Ray: the two-operator campaign gives the local executor's results."""
import shutil
import tempfile

import pytest

from campaign_helpers import DATA, EXPECTED, outcome_facts
from repair.campaign import debug_config, make_executor, run_campaign
from repair.campaign.ledger import Ledger

pytestmark = pytest.mark.slow


def test_ray_campaign_gives_the_same_results_as_local(tmp_path, monkeypatch, request):
    pytest.importorskip("ray")
    tmp = tempfile.mkdtemp(prefix="rt-", dir="/tmp")  # short: ray's socket paths go beneath it
    request.addfinalizer(lambda: shutil.rmtree(tmp, ignore_errors=True))
    monkeypatch.setenv("TMPDIR", tmp)  # what ray's workers leave in TMPDIR when it stops them goes with it
    config, specs = debug_config(DATA / "mini.yaml", script=DATA / "scripts", bounds={"attempts": 1})
    summary = run_campaign(config, specs, tmp_path, executor=make_executor("ray", 2))
    assert (summary.executor, summary.ran, summary.repaired, summary.failed) == ("ray", 2, 1, 1)
    rows = Ledger(tmp_path, read_only=True).runs()
    # EXPECTED is the hand count the local executor's campaign is checked against (test_campaign.py)
    assert {r.key: outcome_facts(r.outcome) for r in rows} == EXPECTED
    for r in rows:  # the task's files land where a local campaign puts them
        run = tmp_path / "runs" / r.key
        assert (run / "record.json").is_file() and (run / "trajectory.jsonl").is_file()
        assert r.outcome.record_path == f"runs/{r.key}/record.json"


def test_address_is_only_for_ray():
    from repair.errors import BadInput

    with pytest.raises(BadInput, match="--address is for --executor ray"):
        make_executor("local", 1, "ray://somewhere:10001")
