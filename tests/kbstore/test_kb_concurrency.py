"""One writer at a time: a held lock is reported with the holder's pid; two concurrent ingests never corrupt the KB."""
import os
import subprocess
import sys

import pytest

from ingest.api import ingest
from ingest.synthetic import make_record, write_records
from kbstore.errors import LockHeld
from kbstore.lock import write_lock
from kbstore.paths import KBPaths
from kbstore.store import Store
from kbstore.verify import verify


def test_lock_held_names_the_holder_and_exits_3(tmp_path, kb_env):
    write_records(tmp_path / "r", [make_record(1)])
    with write_lock(KBPaths.of(kb_env).lock, wait_s=0):
        with pytest.raises(LockHeld, match=f"pid={os.getpid()}"):
            ingest([tmp_path / "r"], lock_wait_s=0.1)
        proc = subprocess.run([sys.executable, "-m", "kbstore.cli", "ingest", str(tmp_path / "r")],
                              env={**os.environ, "KB_LOCK_WAIT": "0.2"}, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3
    assert f"locked by another writer (pid={os.getpid()}" in proc.stderr
    assert ingest([tmp_path / "r"]).version == 1  # released: the next writer gets in


def test_lock_is_released_when_its_holder_is_killed(tmp_path, kb_env):
    lock = KBPaths.of(kb_env).lock
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from kbstore.lock import write_lock; "
                               "from pathlib import Path\nwith write_lock(Path(sys.argv[1])):\n print('held', flush=True); time.sleep(60)",
                               str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LockHeld, match=f"pid={holder.pid}"):
            with write_lock(lock, wait_s=0.1):
                pass
    finally:
        holder.kill()
        holder.wait()
    with write_lock(lock, wait_s=1.0):
        pass


@pytest.mark.slow
def test_two_concurrent_ingests_do_not_corrupt_the_kb(tmp_path, kb_env):
    write_records(tmp_path / "a", [make_record(i) for i in range(0, 30)])
    write_records(tmp_path / "b", [make_record(i) for i in range(20, 50)])  # overlapping records
    env = {**os.environ, "KB_LOCK_WAIT": "60"}
    procs = [subprocess.Popen([sys.executable, "-m", "kbstore.cli", "ingest", "--json", str(tmp_path / d)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for d in ("a", "b")]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert [rc for rc, _ in results] == [0, 0], results  # the second waited for the first
    with Store.open(kb_env) as s:
        assert s.count("entries") == 50 and s.count("records") == 50
        assert [v["version"] for v in s.versions()] == [1, 2]
    assert verify().ok


@pytest.mark.slow
def test_concurrent_ingest_without_waiting_fails_cleanly(tmp_path, kb_env):
    write_records(tmp_path / "a", [make_record(i) for i in range(0, 40)])
    write_records(tmp_path / "b", [make_record(i) for i in range(40, 80)])
    env = {**os.environ, "KB_LOCK_WAIT": "0"}
    procs = [subprocess.Popen([sys.executable, "-m", "kbstore.cli", "ingest", str(tmp_path / d)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for d in ("a", "b")]
    codes = [p.wait(timeout=300) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert set(codes) <= {0, 3} and 0 in codes
    for d, rc in zip("ab", codes):
        if rc == 3:  # the loser reran by hand, as the message says
            ingest([tmp_path / d])
    with Store.open(kb_env) as s:
        assert s.count("entries") == 80
    assert verify().ok
