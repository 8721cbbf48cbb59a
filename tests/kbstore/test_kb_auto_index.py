"""`--index auto`: exact search up to KB_EXACT_MAX entries, the chromadb HNSW index above (same hits on a small KB)."""
from ingest.api import ingest
from ingest.synthetic import make_record, write_records
from kbstore.retrieve import Retriever


def test_auto_switches_to_chroma_above_the_exact_limit(tmp_path, monkeypatch):
    write_records(tmp_path / "r", [make_record(i) for i in range(8)])
    ingest([tmp_path / "r"], tmp_path / "kb")
    exact = Retriever.open(tmp_path / "kb", index="auto")
    assert exact.chroma is None
    monkeypatch.setenv("KB_EXACT_MAX", "5")
    approx = Retriever.open(tmp_path / "kb", index="auto")
    assert approx.chroma is not None
    q = "mask drops the last column"
    assert [h.id for h in approx.query(q, k=3)] == [h.id for h in exact.query(q, k=3)]
