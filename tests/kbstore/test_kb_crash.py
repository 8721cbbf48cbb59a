"""SIGKILL an ingest at each named point; the KB must stay at a consistent version and a rerun must complete it."""
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ingest.api import ingest
from ingest.synthetic import make_record, write_records
from kbstore.faults import KILL_POINTS
from kbstore.lock import write_lock
from kbstore.store import Store
from kbstore.verify import verify

pytestmark = pytest.mark.slow


def _kb_ingest(*args, env_extra=None):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "kbstore.cli", "ingest", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120)


def _kb(*args):
    return subprocess.run([sys.executable, "-m", "kbstore.cli", *args], capture_output=True, text=True, timeout=120)


def _state(kb):
    with Store.open(kb) as s:
        return {"version": s.head_version(), "entries": s.count("entries"), "evidence": s.count("evidence"),
                "embeddings": s.count("embeddings"), "records": s.count("records")}


@pytest.mark.parametrize("point", [p for p in KILL_POINTS if p not in ("during-reindex", "during-embed-pool")])
def test_sigkill_mid_ingest_leaves_a_consistent_kb_and_a_rerun_completes(tmp_path, kb_env, point):
    write_records(tmp_path / "v1", [make_record(i) for i in range(3)])
    write_records(tmp_path / "v2", [make_record(i) for i in range(3, 8)])
    ingest([tmp_path / "v1"])
    before = _state(kb_env)

    proc = _kb_ingest(tmp_path / "v2", env_extra={"KB_TEST_KILL_AT": point})
    assert proc.returncode == -signal.SIGKILL, proc.stderr

    after_kill = _state(kb_env)
    committed = point in ("after-commit", "during-index", "after-index")
    expected_v2 = {"version": 2, "entries": 8, "evidence": 8, "embeddings": 8, "records": 8}
    assert after_kill == (expected_v2 if committed else before)  # version N or N+1, never half
    report = verify()  # an index behind DuckDB, or a half-built one left over, is a stale cache: a warning
    assert report.ok, report.problems

    rerun = ingest([tmp_path / "v2"])
    assert rerun.version == (None if committed else 2)
    assert _state(kb_env) == expected_v2
    report = verify()
    assert report.ok and not report.warnings, (report.problems, report.warnings)  # the rerun healed the index
    assert len(list((kb_env / "vectors").glob("chroma-*"))) == 1


def test_a_kill_between_commit_and_index_sync_is_a_warning_that_verify_repair_heals(tmp_path, kb_env):
    write_records(tmp_path / "v1", [make_record(i) for i in range(3)])
    write_records(tmp_path / "v2", [make_record(i) for i in range(3, 12)])
    ingest([tmp_path / "v1"])
    assert _kb_ingest(tmp_path / "v2", env_extra={"KB_TEST_KILL_AT": "after-commit"}).returncode == -signal.SIGKILL
    proc = _kb("verify")
    assert proc.returncode == 0 and "WARN index-drift" in proc.stdout, proc.stdout + proc.stderr
    proc = _kb("verify", "--repair")
    assert proc.returncode == 0 and "repaired" in proc.stdout, proc.stdout + proc.stderr
    report = verify()
    assert report.ok and report.index["ok"] and not report.warnings


def test_sigkill_during_reindex_keeps_the_old_index_usable(tmp_path, kb_env):
    write_records(tmp_path / "v1", [make_record(i) for i in range(4)])
    ingest([tmp_path / "v1"])
    env = {**os.environ, "KB_TEST_KILL_AT": "during-reindex"}
    proc = subprocess.run([sys.executable, "-m", "kbstore.cli", "reindex"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == -signal.SIGKILL
    report = verify()
    assert report.ok and report.index["ok"]  # CURRENT still names the complete old index
    assert len(list((kb_env / "vectors").glob("chroma-*"))) == 2  # the half-built one is left for the next writer
    assert [w["check"] for w in report.warnings] == ["stale-index"]
    write_records(tmp_path / "v2", [make_record(9)])
    ingest([tmp_path / "v2"])  # any writer removes it
    report = verify()
    assert len(list((kb_env / "vectors").glob("chroma-*"))) == 1 and report.ok and not report.warnings
    from kbstore.index import reindex

    reindex()
    assert len(list((kb_env / "vectors").glob("chroma-*"))) == 1 and verify().ok


def _alive_with(token: str) -> list[int]:
    """Processes (not zombies) whose environment carries the token."""
    pids = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and token.encode() in (d / "environ").read_bytes() \
                    and (d / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                pids.append(int(d.name))
        except OSError:
            continue
    return pids


def test_sigkill_of_a_pooled_ingest_leaves_no_worker_holding_the_lock(tmp_path, kb_env):
    """Pool workers die with the ingest (they share its flock on the write lock), so the next writer goes at once."""
    write_records(tmp_path / "big", [make_record(i) for i in range(3 * 64 + 8)])  # four chunks: the pool is used
    token = uuid.uuid4().hex
    proc = _kb_ingest(tmp_path / "big", env_extra={"KB_TEST_KILL_AT": "during-embed-pool", "KB_INGEST_WORKERS": "2",
                                                   "KB_TEST_TOKEN": token})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    deadline = time.monotonic() + 10
    while _alive_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive_with(token) == []
    with write_lock(kb_env / "write.lock", wait_s=0):  # taken at once
        pass
    assert ingest([tmp_path / "big"]).version == 1  # and the rerun completes
