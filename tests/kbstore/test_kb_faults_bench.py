"""bench/bench_faults.py: its detectors fire on what they look for, and a one-trial run meets its target."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_faults", ROOT / "bench" / "bench_faults.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_a_process_outliving_its_session_leader_is_an_orphan_and_is_killed(bench):
    # the leader forks a sleeper and exits at once: the sleeper is re-parented but keeps the session
    p = subprocess.Popen([sys.executable, "-c", "import os, time\nif os.fork() == 0:\n    time.sleep(60)\n"],
                         start_new_session=True)
    assert p.wait(timeout=30) == 0
    assert bench._orphans(p.pid) == 1
    assert bench._session(p.pid) == []


def test_partial_versions_sees_rows_without_their_version_and_versions_without_rows(tmp_path, bench):
    from ingest.api import ingest
    from ingest.synthetic import make_record, write_records
    from kbstore.store import Store

    kb = tmp_path / "kb"
    write_records(tmp_path / "r", [make_record(i) for i in range(4)])
    ingest([tmp_path / "r"], kb)
    assert bench.partial_versions(kb) == []
    assert len(bench.records_in(kb)) == 4
    with Store.open(kb, write=True) as s:
        s.con.execute("DELETE FROM evidence WHERE run_id = (SELECT min(run_id) FROM evidence)")
    found = bench.partial_versions(kb)
    assert any(f.startswith("v1:") for f in found) and "1 records without evidence" in found
    with Store.open(kb, write=True) as s:
        s.con.execute("DELETE FROM versions")
    assert "entries rows of v1, which has no version row" in bench.partial_versions(kb)


@pytest.mark.slow
def test_one_kill_and_one_round_of_writers_meet_the_target(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_faults.py"), "--n", "1", "--records", "64",
                        "--seed", "3", "--work", str(tmp_path / "work"), "--hostile", "none"], capture_output=True,
                       text=True, env=env,
                       timeout=280)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SIGKILL of a pooled kb ingest" in r.stdout and "target 0 partial, 0 orphans, 0 lost" in r.stdout
