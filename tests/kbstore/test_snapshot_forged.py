"""A forged snapshot (#30): self-consistent, every hash holds ("all kept, 0 excluded"), and still refused, because
freezing its KB at its version against its recorded cohort manifest gives another one; and what a killed freeze
leaves is named by `kb verify`."""
from pathlib import Path

import pytest
from click.testing import CliRunner

import freeze_corpus as fc
from kbstore.cli import cli
from kbstore.errors import IntegrityFailure
from kbstore.freeze import freeze
from kbstore.paths import KBPaths
from kbstore.snapshot import read_manifest
from kbstore.snapshot_write import RowsSource, write_snapshot
from kbstore.snapshot_verify import verify_snapshot
from kbstore.store import Store
from repair.loop.retrieve import open_retriever


@pytest.fixture(scope="module")
def frozen(tmp_path_factory):
    kb, manifest, _ = fc.build_copy(tmp_path_factory)
    report = freeze(manifest, kb, name="genuine", allow_outside=True)
    return kb, Path(report.path)


def _forge(kb: Path, genuine: Path) -> Path:
    """What someone who can write snapshots/ makes: every entry kept, nothing excluded, every hash recomputed."""
    m = read_manifest(genuine)
    with Store.open(KBPaths.of(kb)) as store:
        rows = store.retrieval_rows()
        _, matrix, _ = store.embeddings()
    rules = [r.model_copy(update={"excluded": 0, "only": 0}) for r in m.rules]
    forged = m.model_copy(update={
        "name": "forged", "excluded": [], "rules": rules,
        "identity": m.identity.model_copy(update={"entries": [r["id"] for r in rows]}),
        "counts": {"kb_entries": len(rows), "included": len(rows), "excluded": 0}})
    path, _, created = write_snapshot(KBPaths.of(kb), RowsSource(rows, matrix), forged)
    assert created
    return path


def test_a_forged_snapshot_fails_verify_and_eval_mode(frozen):
    kb, genuine = frozen
    m = read_manifest(genuine)
    assert m.excluded, "the corpus plants entries to exclude"
    forged = _forge(kb, genuine)
    r = verify_snapshot(forged, kb)
    derivation = [p["message"] for p in r.problems if p["check"] == "derivation"]
    assert not r.ok and derivation and all(p["check"] == "derivation" for p in r.problems), r.problems
    text = " ".join(derivation)
    assert f"keeps {len(m.identity.entries) + len(m.excluded)} and excludes 0" in text
    assert f"entry {m.excluded[0].id[:12]} is kept, but" in text
    res = CliRunner().invoke(cli, ["verify", forged.name, "--kb", str(kb)])
    assert res.exit_code == 1 and "is kept, but" in res.output
    op = m.operator_ids()[0]
    with pytest.raises(IntegrityFailure, match="is not what its KB and cohort manifest freeze to"):
        open_retriever(kb, forged.name, eval_mode=True, operator_id=op)
    assert verify_snapshot(genuine, kb).ok
    open_retriever(kb, genuine.name, eval_mode=True, operator_id=op)  # the genuine one re-derives


def test_kb_verify_names_what_a_killed_freeze_left(frozen):
    kb, genuine = frozen
    left = genuine.parent / ".tmp-deadbeef0000"
    left.mkdir()
    (left / "entries.jsonl").write_bytes(b"x" * 4096)
    try:
        res = CliRunner().invoke(cli, ["verify", "--kb", str(kb)])
        assert res.exit_code == 0 and ".tmp-deadbeef0000" in res.output, res.output
    finally:
        import shutil

        shutil.rmtree(left)
