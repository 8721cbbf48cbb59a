"""The chromadb index as a cache: readers never take the write lock nor write into it; a stale or drifted index is a
warning of `kb verify`, healed by `kb verify --repair` and by the next writer."""
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ingest.api import ingest
from ingest.synthetic import make_record, write_records
from kbstore.cli import cli
from kbstore.lock import write_lock
from kbstore.paths import KBPaths
from kbstore.retrieve import Retriever
from kbstore.vector import ChromaIndex
from kbstore.verify import verify


@pytest.fixture
def kb(tmp_path, kb_env):
    write_records(tmp_path / "recs", [make_record(i) for i in range(12)])
    ingest([tmp_path / "recs"])
    return KBPaths.of(kb_env)


def _tree(root) -> dict:
    """path -> (mtime_ns, sha256) of every file under root."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            out[p] = (os.stat(p).st_mtime_ns, hashlib.sha256(open(p, "rb").read()).hexdigest())
    return out


def _drop_some(kb, n=3) -> list[str]:
    col = ChromaIndex(kb).collection()
    some = col.get(include=[])["ids"][:n]
    col.delete(ids=some)
    return some


def test_a_chroma_reader_never_writes_into_the_index(kb):
    before = _tree(kb.vectors)
    r = Retriever.open(kb.root, index="chroma")
    assert r.chroma is not None and len(r.query("masked load", k=20)) == 12
    proc = subprocess.run([sys.executable, "-m", "kbstore.cli", "query", "--index", "chroma", "masked load"],
                          capture_output=True, text=True, timeout=120)  # a fresh process opens it from disk
    assert proc.returncode == 0, proc.stderr
    assert _tree(kb.vectors) == before


def test_chroma_readers_do_not_need_the_write_lock(kb):
    exact = [h.id for h in Retriever.open(kb.root).query("masked load without other value", k=5)]
    with write_lock(kb.lock, wait_s=0, what="ingest"):  # a writer at work
        r = Retriever.open(kb.root, index="chroma")
        assert r.chroma is not None and not r.notes
        assert [h.id for h in r.query("masked load without other value", k=5)] == exact
        res = CliRunner().invoke(cli, ["query", "--index", "chroma", "masked load", "--json"])
    assert res.exit_code == 0, res.output


def test_a_reader_of_a_stale_index_searches_exactly_while_a_writer_runs(kb):
    _drop_some(kb)
    with write_lock(kb.lock, wait_s=0, what="ingest"):
        r = Retriever.open(kb.root, index="chroma")
        assert r.chroma is None and len(r.notes) == 1 and "exact" in r.notes[0]
        assert len(r.query("mask", k=20)) == 12
        res = CliRunner().invoke(cli, ["query", "--index", "chroma", "mask"])
    assert res.exit_code == 0 and "exact" in res.stderr
    assert Retriever.open(kb.root, index="chroma").chroma is not None  # the lock free: the reader repaired it
    assert verify().index["ok"]


def test_index_drift_is_a_warning_and_verify_repair_heals_it(kb):
    some = _drop_some(kb)
    r = verify()
    assert r.ok and not r.index["ok"] and r.index["missing"] == sorted(some)
    assert [w["check"] for w in r.warnings] == ["index-drift"]
    res = CliRunner().invoke(cli, ["verify"])
    assert res.exit_code == 0 and "WARN index-drift" in res.output
    res = CliRunner().invoke(cli, ["verify", "--repair"])
    assert res.exit_code == 0 and "repaired" in res.output, res.output
    r = verify()
    assert r.ok and r.index["ok"] and not r.warnings


def test_a_stale_index_directory_is_a_warning_removed_by_the_next_writer_and_by_repair(kb, tmp_path):
    current = ChromaIndex(kb).current_dir()
    for n in range(2):
        stale = kb.vectors / f"chroma-{n}dead0000000"
        shutil.copytree(current, stale)  # as a killed `kb reindex` leaves one
        r = verify()
        assert r.ok and [w["check"] for w in r.warnings] == ["stale-index"] and stale.name in r.warnings[0]["message"]
        if n == 0:
            write_records(tmp_path / "more", [make_record(50)])
            ingest([tmp_path / "more"])
        else:
            assert CliRunner().invoke(cli, ["verify", "--repair"]).exit_code == 0
        assert not stale.exists() and not verify().warnings
        current = ChromaIndex(kb).current_dir()
    assert list(kb.vectors.glob("chroma-*")) == [current]


def test_verify_repair_takes_no_snapshot():
    res = CliRunner().invoke(cli, ["verify", "abcdef123456", "--repair"])
    assert res.exit_code == 2


def test_a_reader_copying_while_a_writer_publishes_copies_the_new_index(kb, monkeypatch):
    from kbstore import vector
    from kbstore.index import index_inputs
    from kbstore.store import Store

    with Store.open(kb) as s:
        ids, matrix, metas = index_inputs(s)
    real, copied = shutil.copytree, []

    def copytree(src, dst, *a, **kw):
        if Path(src).parent != kb.vectors:  # shutil's own recursion
            return real(src, dst, *a, **kw)
        copied.append(src)
        out = real(src, dst, *a, **kw)
        if len(copied) == 1:  # a writer publishes another index meanwhile and removes this one
            ChromaIndex(kb).rebuild(ids, matrix, metas)
        return out

    old = ChromaIndex(kb).current_dir()
    monkeypatch.setattr(vector.shutil, "copytree", copytree)
    reader = ChromaIndex(kb)
    drift = reader.open_for_search(ids, matrix)
    assert drift.searchable and copied == [old, ChromaIndex(kb).current_dir()] and not old.exists()
    assert drift.index_dir == str(copied[1]) and len(reader.search(matrix[0], 3)) == 3
