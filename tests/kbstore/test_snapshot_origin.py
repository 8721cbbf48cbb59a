"""A snapshot is trusted by its content and its origin, not its directory name: opening one checks that its id is its
directory's name and that it was cut from this KB (its kb_id is this KB's, its entries exist here)."""
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import freeze_corpus as fc
from ingest.api import ingest
from ingest.synthetic import make_record, write_records
from kbstore.cli import cli
from kbstore.errors import ForeignSnapshot, IntegrityFailure
from kbstore.freeze import freeze
from kbstore.snapshot import Snapshot, list_snapshots, read_manifest
from kbstore.snapshot_verify import verify_snapshot
from kbstore.store import Store
from kbstore.verify import verify
from provenance.canonical import content_hash


def _kb(root: Path, records: range) -> tuple[Path, str]:
    """A KB of synthetic records and one snapshot of it; (kb, snapshot id)."""
    write_records(root / "recs", [make_record(i) for i in records])
    ingest([root / "recs"], root / "kb")
    shutil.copy(fc.kernel("softmax"), root / "softmax.py")
    manifest = root / "cohort.yaml"
    manifest.write_text('cohort: tiny\nfrozen_at: "2100-01-01T00:00:00Z"\n'
                        "operators:\n  - id: softmax\n    family: softmax\n    files: [softmax.py]\n")
    return root / "kb", freeze(manifest, root / "kb", name="eval").snapshot_id


@pytest.fixture(scope="module")
def kbs(tmp_path_factory):
    """Two KBs of the same records (same entry ids, different KB identities) and one of other records."""
    return {name: _kb(tmp_path_factory.mktemp(name), records)
            for name, records in (("a", range(6)), ("b", range(6)), ("c", range(100, 106)))}


def _writable(root: Path) -> None:
    for p in [root, *root.rglob("*")]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)


def _copy_in(kbs, src: str, dst: str, tmp_path, name: str | None = None) -> tuple[Path, Path]:
    """Copy src's snapshot into a private copy of dst's KB (under `name`, by default its own id); (kb, dir)."""
    kb = tmp_path / "kb"
    shutil.copytree(kbs[dst][0], kb)
    _writable(kb / "snapshots")
    where = kb / "snapshots" / (name or kbs[src][1])
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(kbs[src][0] / "snapshots" / kbs[src][1], where)
    return kb, where


def _code(args: list[str]) -> int:
    from kbstore.cli import main

    try:
        main(args)
    except SystemExit as e:
        return e.code or 0
    return 0


def test_a_snapshot_of_this_kb_opens(kbs):
    kb, sid = kbs["a"]
    with Store.open(kb) as s:
        kb_id = s.meta("kb_id")
    assert kb_id and read_manifest(kb / "snapshots" / sid).kb_id == kb_id
    assert Snapshot.open(sid, kb).id == sid and verify_snapshot(sid, kb).ok and verify(kb).ok


def test_another_kbs_snapshot_copied_in_under_its_own_id_is_refused(kbs, tmp_path, capsys):
    """Same entry ids (same records), but cut from another KB: its kb_id gives it away."""
    kb, where = _copy_in(kbs, "b", "a", tmp_path)
    with pytest.raises(ForeignSnapshot, match="another KB") as e:
        Snapshot.open(where.name, kb)
    assert e.value.exit_code == 1 and str(where) in str(e.value) and "\n" not in str(e.value)
    r = verify_snapshot(where.name, kb)
    assert not r.ok and {p["check"] for p in r.problems} == {"origin"}
    assert _code(["query", "--snapshot", where.name[:12], "mask", "--kb", str(kb)]) == 1
    assert "another KB" in capsys.readouterr().err
    assert _code(["verify", where.name[:12], "--kb", str(kb)]) == 1
    kb_report = verify(kb)  # the KB's own verify lists the foreign snapshot too
    assert not kb_report.ok and any(p["check"] == "snapshot" and where.name[:12] in p["message"] for p in kb_report.problems)
    assert [s["ok"] for s in list_snapshots(kb) if s["id"] == where.name] == [False]


def test_a_snapshot_whose_entries_are_not_here_is_refused(kbs, tmp_path):
    """A snapshot from before KB identities (no kb_id in its manifest) is matched by its entries."""
    kb, where = _copy_in(kbs, "c", "a", tmp_path)
    m = json.loads((where / "manifest.json").read_text())
    del m["kb_id"]
    m.pop("seal")
    m["seal"] = content_hash(m)
    (where / "manifest.json").write_text(json.dumps(m))
    assert read_manifest(where).kb_id is None
    with pytest.raises(ForeignSnapshot, match="entries are not in this KB"):
        Snapshot.open(where.name, kb)
    assert "origin" in {p["check"] for p in verify_snapshot(where.name, kb).problems}


def test_a_legacy_snapshot_of_this_kb_still_opens(kbs, tmp_path):
    kb, where = _copy_in(kbs, "a", "a", tmp_path)
    m = json.loads((where / "manifest.json").read_text())
    del m["kb_id"]
    m.pop("seal")
    m["seal"] = content_hash(m)
    (where / "manifest.json").write_text(json.dumps(m))
    assert Snapshot.open(where.name, kb).id == where.name and verify_snapshot(where.name, kb).ok


def test_a_snapshot_replaced_under_the_old_name_is_refused(kbs, tmp_path, capsys):
    kb, where = _copy_in(kbs, "c", "a", tmp_path, name=kbs["a"][1])
    with pytest.raises(IntegrityFailure, match="does not carry the snapshot's id"):
        Snapshot.open(where.name[:12], kb)
    assert _code(["query", "--snapshot", where.name[:12], "mask", "--kb", str(kb)]) == 1
    err = capsys.readouterr().err
    assert str(where) in err and "does not carry" in err
    assert not verify_snapshot(where.name, kb).ok


def test_an_old_kb_gets_its_identity_on_its_next_write(tmp_path):
    write_records(tmp_path / "r", [make_record(1)])
    ingest([tmp_path / "r"], tmp_path / "kb")
    with Store.open(tmp_path / "kb", write=True) as s:
        first = s.meta("kb_id")
        s.con.execute("DELETE FROM meta WHERE key = 'kb_id'")  # as a KB made before identities were recorded
    with Store.open(tmp_path / "kb") as s:
        assert s.meta("kb_id") is None  # a reader adds nothing
    write_records(tmp_path / "r2", [make_record(2)])
    ingest([tmp_path / "r2"], tmp_path / "kb")
    with Store.open(tmp_path / "kb") as s:
        assert s.meta("kb_id") and s.meta("kb_id") != first and len(s.meta("kb_id")) == 32


def test_cli_query_of_a_foreign_snapshot_names_the_directory(kbs, tmp_path):
    kb, where = _copy_in(kbs, "b", "a", tmp_path)
    res = CliRunner().invoke(cli, ["verify", str(where), "--kb", str(kb)])
    assert res.exit_code == 1 and "FAIL origin" in res.output
