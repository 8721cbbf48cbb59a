"""Real campaigns over two example operators with the scripted worker (the Triton interpreter: slow tests)."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from campaign_helpers import DATA, EXPECTED, ROOT, outcome_facts
from ingest.record import RepairRecord
from repair.campaign import debug_config, make_executor, run_campaign
from repair.campaign.ledger import Ledger
from repair.report import build_report

pytestmark = pytest.mark.slow

REPAIR = [sys.executable, "-c", "from repair.cli import main; main()"]
CAMPAIGN = ["campaign", str(DATA / "mini.yaml"), "--script", str(DATA / "scripts"), "--max-attempts", "1", "--json"]


def _one_done_one_running(out: Path) -> bool:
    try:
        rows = Ledger(out, read_only=True).runs()
    except Exception:  # the ledger is not there yet, or the writer holds it for a moment
        return False
    return sorted((r.outcome is not None, r.starts) for r in rows) == [(False, 1), (True, 1)]


def _descendants(pid: int) -> set[int]:
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return set()
    return {int(k) for k in kids} | {d for k in kids for d in _descendants(int(k))}


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _wait_gone(pids: set[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)
    survivors = sorted(p for p in pids if _alive(p))
    for p in survivors:  # don't leave them to the next test
        os.kill(p, signal.SIGKILL)
    return survivors


@pytest.fixture(scope="module")
def resumed(tmp_path_factory):
    """A campaign SIGKILLed while its second run is under way, then rerun to completion."""
    out = tmp_path_factory.mktemp("campaign")
    cmd = REPAIR + CAMPAIGN + ["--out", str(out), "--jobs", "1"]
    # killed, it cannot remove what its processes made in TMPDIR (multiprocessing's pymp-* directory): keep that here
    # (a TMPDIR too long for the campaign's fork server socket beneath it: that one goes to /tmp)
    env = {**os.environ, "TMPDIR": str(tmp_path_factory.mktemp("killed-tmpdir"))}
    first = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 240
    while not _one_done_one_running(out) and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.05)  # a run takes a few tenths of a second on the campaign's warm fork server
    assert first.poll() is None, "the campaign ended before it could be killed"
    descendants = _descendants(first.pid)
    first.send_signal(signal.SIGKILL)
    first.wait()
    survivors = _wait_gone(descendants, 15.0)
    killed_state = {r.key: (r.outcome.status if r.outcome else "unfinished") for r in Ledger(out, read_only=True).runs()}
    second = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    return out, killed_state, json.loads(second.stdout), descendants, survivors


def test_a_killed_campaign_leaves_no_run_behind(resumed):
    descendants, survivors = resumed[3:]
    assert descendants  # the run process, the campaign's fork server and its session for the run...
    assert survivors == []  # ...all gone without the campaign's help


def test_a_killed_campaign_resumes_and_finishes(resumed):
    out, killed_state, summary = resumed[:3]
    assert sorted(killed_state.values()) == ["repaired", "unfinished"]  # jobs 1: add_relu first
    assert (summary["runs"], summary["skipped"], summary["ran"]) == (2, 1, 1)
    rows = Ledger(out, read_only=True).runs()
    assert {r.key: outcome_facts(r.outcome) for r in rows} == EXPECTED
    assert {r.key: r.starts for r in rows} == {"add_relu/nearmiss_1": 1, "leaky_relu/nearmiss_1": 2}


def test_run_directories_hold_what_kb_ingest_reads(resumed):
    out = resumed[0]
    records = sorted(out.rglob("*.json"))
    assert [p.relative_to(out).as_posix() for p in records] == [
        "runs/add_relu/nearmiss_1/record.json", "runs/leaky_relu/nearmiss_1/record.json"]
    statuses = {RepairRecord.model_validate_json(p.read_text()).status for p in records}
    assert statuses == {"repaired", "failed"}
    for run in ("add_relu/nearmiss_1", "leaky_relu/nearmiss_1"):
        assert (out / "runs" / run / "trajectory.jsonl").is_file() and (out / "runs" / run / "final.py").is_file()


def test_report_numbers_match_a_hand_count(resumed, tmp_path):
    out = resumed[0]
    proc = subprocess.run(REPAIR + ["report", str(out), "--json", "--html", str(tmp_path / "r.html")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (c,) = json.loads(proc.stdout)["campaigns"]
    # add_relu repaired in one attempt (1000+200 tokens, 400 cached); leaky_relu's cheat was rejected and the
    # attempt bound ended it (800+100 tokens). Workflow-accepted candidates: both near-misses (they pass the
    # compact tier), the add_relu fix and the cheat. Integrity rejected the cheat (static); the full tier
    # both near-misses (add_relu's leaves a full case smaller than a block unwritten: an empty grid).
    assert (c["finished"], c["repaired"]) == (2, 1)
    assert c["pass_at_1"]["value"] == 0.5
    assert (round(c["pass_at_1"]["low"], 4), round(c["pass_at_1"]["high"], 4)) == (0.0945, 0.9055)
    assert (c["tokens"], c["uncached_tokens"]) == (2100, 1700)
    assert (c["tokens_per_success"], c["uncached_tokens_per_success"]) == (2100, 1700)
    assert c["mean_attempts"] == 1.0
    assert (c["workflow_accepted"], c["integrity_rejected"], c["full_rejected"], c["gate_rejected"]) == (4, 1, 2, 3)
    assert c["patterns_cited_per_success"] == 0
    assert c["stop_reasons"] == {"attempts": 1, "repaired": 1}
    page = (tmp_path / "r.html").read_text()
    assert page.count("<svg") == 4 and "leaky_relu/nearmiss_1" in page


def test_regeneration_baseline_and_paired_report(resumed, tmp_path):
    out = tmp_path / "regen"
    proc = subprocess.run(REPAIR + ["regenerate", str(ROOT / "examples" / "add_relu" / "problem.py"), "--trials", "3",
                                    "--script", str(DATA / "regen" / "add_relu.yaml"), "--out", str(out), "--jobs", "2",
                                    "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["repaired"] == 1
    report = build_report([resumed[0], out])
    regen = report.campaigns[1]
    assert {u.key: u.status for u in regen.units} == {
        "add_relu/trial-0": "repaired", "add_relu/trial-1": "failed", "add_relu/trial-2": "failed"}
    assert regen.pass_at_1.value == pytest.approx(1 / 3) and regen.pass_at_k.value == 1.0
    assert regen.tokens == 300 * 3 + 700 + 650 + 20
    assert regen.stop_reasons == {"full-failed": 1, "patch-rejected": 1, "repaired": 1}
    (cmp,) = report.comparisons
    assert (cmp.level, cmp.pairs, cmp.both) == ("task", 1, 1)  # add_relu's near-miss vs add_relu's regeneration


def test_a_run_killed_at_its_hard_limit_is_a_recorded_crash(tmp_path):
    # near-misses that take 30 s to import: a limit of 0.5 s no run can meet, whatever the machine's speed
    files = {}
    for op in ("add_relu", "leaky_relu"):
        (tmp_path / op).mkdir()
        near = (ROOT / "examples" / op / "nearmiss_1.py").read_text()
        (tmp_path / op / "nearmiss_1.py").write_text("import time\ntime.sleep(30)\n" + near)
        files[op] = [str(ROOT / "examples" / op / "problem.py"), str(tmp_path / op / "nearmiss_1.py")]
    manifest = tmp_path / "slow.yaml"
    manifest.write_text("cohort: slow\nfrozen_at: '2026-11-30T00:00:00Z'\noperators:\n" + "".join(
        f"  - id: {op}\n    family: elementwise\n    files: [{', '.join(f)}]\n" for op, f in files.items()))
    config, specs = debug_config(manifest, script=DATA / "scripts", run_timeout_s=0.5, allow_outside=True)
    out = tmp_path / "out"
    summary = run_campaign(config, specs, out, executor=make_executor("local", 2))
    assert (summary.crashed, summary.ran) == (2, 2)
    (row, _) = Ledger(out, read_only=True).runs()
    assert row.outcome.status == "crashed" and "hard limit of 0.5 s" in row.outcome.stop_reason
    rerun = run_campaign(config, specs, out, executor=make_executor("local", 2))
    assert (rerun.skipped, rerun.ran) == (2, 0)  # a crash is a finished (failed) run, not retried


def test_no_full_tier_ablation_accepts_on_compact_and_records_the_shadow(tmp_path):
    manifest = tmp_path / "one.yaml"
    manifest.write_text((DATA / "mini.yaml").read_text().split("  - id: leaky_relu")[0].replace(
        "../../../../examples", str(ROOT / "examples")))
    config, specs = debug_config(manifest, script=DATA / "scripts", ablations=["no-full-tier"], allow_outside=True)
    run_campaign(config, specs, tmp_path / "out")
    (row,) = Ledger(tmp_path / "out", read_only=True).runs()
    o = row.outcome
    # the full-only near-miss passes the compact tier, so without the full tier it is accepted as it is
    assert (o.status, o.stop_reason, o.attempts) == ("repaired", "already-passing", 0)
    assert (o.workflow_accepted, o.full_rejected, o.full_shadow) == (1, 1, True)


def test_kb_ingest_takes_the_campaign_and_a_kb_campaign_records_cited_patterns(resumed, tmp_path, monkeypatch):
    from ingest.api import ingest

    monkeypatch.setenv("KB_EMBEDDER", "hash")
    kb = tmp_path / "kb"
    report = ingest([resumed[0]], kb)
    assert (report.count("admitted"), report.count("rejected")) == (1, 1)  # the repair; the failed run's record
    script = tmp_path / "scripts" / "add_relu" / "nearmiss_1.yaml"
    script.parent.mkdir(parents=True)
    script.write_text(f"steps:\n  - file: {ROOT / 'examples' / 'add_relu' / 'correct.py'}\n    cited: top\n")
    manifest = tmp_path / "one.yaml"
    manifest.write_text((DATA / "mini.yaml").read_text().split("  - id: leaky_relu")[0].replace(
        "../../../../examples", str(ROOT / "examples")))
    config, specs = debug_config(manifest, script=tmp_path / "scripts", kb=kb, allow_outside=True)
    run_campaign(config, specs, tmp_path / "with-kb")
    (row,) = Ledger(tmp_path / "with-kb", read_only=True).runs()
    assert row.outcome.status == "repaired"
    assert [p.rank for p in row.outcome.patterns] == list(range(len(row.outcome.patterns))) and row.outcome.patterns
    assert [p.cited for p in row.outcome.patterns][0] is True and sum(p.cited for p in row.outcome.patterns) == 1
    assert build_report([tmp_path / "with-kb"]).campaigns[0].patterns_cited_per_success == 1.0


def test_integrity_off_ablation_lets_the_cheat_through(tmp_path):
    manifest = tmp_path / "leaky.yaml"
    text = (DATA / "mini.yaml").read_text()
    manifest.write_text(text.split("  - id: add_relu")[0] + "  - id: leaky_relu" + text.split("  - id: leaky_relu")[1])
    manifest.write_text(manifest.read_text().replace("../../../../examples", str(ROOT / "examples")))
    config, specs = debug_config(manifest, script=DATA / "scripts", ablations=["integrity-off"], bounds={"attempts": 1},
                                 allow_outside=True)
    run_campaign(config, specs, tmp_path / "out")
    (row,) = Ledger(tmp_path / "out", read_only=True).runs()
    o = row.outcome
    # the same script the gated campaign rejects (EXPECTED): with every rule off the cheat is "repaired"
    assert (o.status, o.attempts, [a.outcome for a in o.attempt_rows]) == ("repaired", 1, ["accepted"])
    assert (o.workflow_accepted, o.integrity_rejected, o.findings) == (2, 0, [])
    record = json.loads((tmp_path / "out" / o.record_path).read_text())
    assert "static.framework-compute" in record["integrity_history"][0]["rules_off"]
