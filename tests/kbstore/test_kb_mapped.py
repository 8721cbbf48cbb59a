"""The mapped layout (kbstore.layout / kbstore.mapped) answers exactly as every row loaded in memory does: the same ids,
in the same order, with the same scores and ranks, on bench_kb's query set, after a build, after ingests that append
(new entries, new evidence for an old entry) and after a rebuild; a snapshot over its mapped files answers as its rows
loaded; the rules ranking keeps one entry per distinct rule set in query order."""
import sys
from pathlib import Path

import pytest

from ingest.api import ingest
from ingest.synthetic import BUG_CLASSES, kernel_pair, make_record, write_records
from kbstore.layout import layout_dir
from kbstore.mapped import MappedCorpus, read_generation
from kbstore.paths import KBPaths
from kbstore.retrieve import Retriever, load_corpus
from kbstore.store import Store
from provenance.canonical import canonical_json
from repair.rules.build_starter import STARTER_DIR

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_kb import QUERIES  # noqa: E402

CLASSES = sorted(BUG_CLASSES)
FILTERS = ({}, {"family": "softmax"}, {"language": "triton"}, {"language": "AscendC"}, {"backend": "cpu"})


def _answers(r: Retriever, code: str | None, **filters) -> list:
    return [[(h.id, h.score, h.dense_rank, h.lexical_rank, h.provenance) for h in r.query(q, k=8, code=code, **filters)]
            for q in QUERIES]


def _same_as_loaded(kb: Path) -> MappedCorpus:
    mapped = Retriever.open(kb)
    assert isinstance(mapped.corpus, MappedCorpus) and not mapped.notes
    with Store.open(KBPaths.of(kb)) as store:
        loaded = Retriever(load_corpus(store), mapped.embedder)
    code = kernel_pair(7, CLASSES[0])[0]
    for filters in FILTERS:
        for c in (None, code):
            assert _answers(mapped, c, **filters) == _answers(loaded, c, **filters), filters
    for q in QUERIES[:3]:
        n = loaded.n
        full = [h for h in loaded.query(q, k=n, depth=n, code=code) if h.rules]
        seen, want = set(), []
        for h in full:
            key = canonical_json(list(h.rules))
            if key not in seen:
                seen.add(key)
                want.append((h.id, h.score))
        for r in (mapped, loaded):
            assert [(h.id, h.score) for h in r.rule_hits(q, code=code)] == want
    return mapped.corpus


@pytest.fixture
def grown_kb(tmp_path, kb_env):
    """The starter records (entries with rules), then synthetic ones appended, then new evidence for old entries."""
    ingest([STARTER_DIR])
    write_records(tmp_path / "v2", [make_record(i) for i in range(12)])
    ingest([tmp_path / "v2"])
    write_records(tmp_path / "v3", [make_record(i, run_id=f"again-{i}") for i in (2, 5)] + [make_record(40)])
    ingest([tmp_path / "v3"])
    return kb_env


def test_appended_layout_answers_as_the_rows_loaded_and_as_a_rebuild(grown_kb):
    gen = read_generation(layout_dir(KBPaths.of(grown_kb)))
    assert gen["generation"] == 3 and gen["kb_version"] == 3  # built once, then caught up twice (not rebuilt)
    corpus = _same_as_loaded(grown_kb)
    assert corpus.generation["rows"] == corpus.n  # every entry one row: evidence updates rewrite a line, not a row
    from kbstore.index import reindex

    reindex(grown_kb)
    rebuilt = read_generation(layout_dir(KBPaths.of(grown_kb)))
    assert rebuilt["base"] != gen["base"] and rebuilt["rows"] == gen["rows"]
    _same_as_loaded(grown_kb)


def test_a_missing_or_foreign_layout_is_rebuilt_by_the_next_reader(grown_kb):
    import shutil

    shutil.rmtree(layout_dir(KBPaths.of(grown_kb)))
    _same_as_loaded(grown_kb)  # the reader built it under the free write lock
    assert read_generation(layout_dir(KBPaths.of(grown_kb)))["kb_version"] == 3


def test_while_a_writer_holds_the_lock_a_reader_answers_from_the_last_generation(grown_kb, tmp_path):
    from kbstore.lock import write_lock

    kb = KBPaths.of(grown_kb)
    write_records(tmp_path / "v4", [make_record(50)])
    ingest([tmp_path / "v4"])
    gen = read_generation(layout_dir(kb))
    import json

    (layout_dir(kb) / "gen.json").write_text(json.dumps({**gen, "kb_version": 3}))  # as if the writer had not caught up
    with write_lock(kb.lock, what="test writer"):
        r = Retriever.open(grown_kb)
    assert isinstance(r.corpus, MappedCorpus) and "answering from version 3" in r.notes[0]


def test_a_freeze_over_the_layout_is_the_freeze_over_every_row_and_its_snapshot_answers_as_its_rows_loaded(
        grown_kb, tmp_path, monkeypatch):
    from kbstore import freeze as freeze_module
    from kbstore.snapshot import Snapshot

    (tmp_path / "cohort").mkdir()
    (tmp_path / "cohort" / "kernel.py").write_text(make_record(2).repaired.code)  # entry 2's code: an overlap
    manifest = tmp_path / "cohort" / "cohort.yaml"
    manifest.write_text("cohort: one\nfrozen_at: '2030-01-01T00:00:00Z'\noperators:\n"
                        "- id: cohort_op\n  family: elementwise\n  files:\n  - kernel.py\n")
    report = freeze_module.freeze(manifest, grown_kb, allow_outside=True)
    assert report.counts["excluded"] >= 1
    with monkeypatch.context() as m:
        m.setattr(freeze_module, "_read_kb_mapped", lambda *a: None)  # every row read, as before the layout
        again = freeze_module.freeze(manifest, grown_kb, allow_outside=True)
    assert again.snapshot_id == report.snapshot_id
    snap = Snapshot.open(report.path)
    assert snap.lexical_cache_ok and snap.rows_cache_ok
    mapped = snap.retriever()
    assert isinstance(mapped.corpus, MappedCorpus)
    loaded = Retriever(snap.corpus(), mapped.embedder)
    code = kernel_pair(3, CLASSES[1])[0]
    for filters in FILTERS:
        assert _answers(mapped, code, **filters) == _answers(loaded, code, **filters)
