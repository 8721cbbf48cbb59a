"""Derived indexes of the live KB: bring chromadb in line with DuckDB after an ingest, or rebuild it (`kb reindex`)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kbstore.paths import KBPaths
from kbstore.vector import ChromaIndex, chroma_meta


def index_inputs(store) -> tuple[list[str], np.ndarray, list[dict]]:
    """(ids, vectors, chromadb metadata) from DuckDB, sorted by id."""
    ids, matrix, _ = store.embeddings()
    meta = {r["id"]: chroma_meta(r) for r in store.rows("SELECT id, family, language, backend FROM entries")}
    return ids, matrix, [meta.get(i, chroma_meta({})) for i in ids]


def sync_index(store, kb: KBPaths) -> str:
    """Caller holds the write lock."""
    return ChromaIndex(kb).sync(*index_inputs(store))


@dataclass
class ReindexReport:
    kb_path: str
    index_dir: str
    entries: int
    seconds: float

    def as_dict(self) -> dict:
        return {"kb_path": self.kb_path, "index_dir": self.index_dir, "entries": self.entries,
                "seconds": round(self.seconds, 3)}


def reindex(kb_path: str | Path | None = None, *, lock_wait_s: float | None = None) -> ReindexReport:
    """Rebuild the chromadb index from the vectors stored in DuckDB (no re-embedding)."""
    from kbstore.lock import write_lock
    from kbstore.store import Store

    t0 = time.monotonic()
    kb = KBPaths.of(kb_path)
    with write_lock(kb.lock, wait_s=lock_wait_s, what="reindex"):
        with Store.open(kb) as store:
            ids, matrix, metas = index_inputs(store)
        path = ChromaIndex(kb).rebuild(ids, matrix, metas)
    return ReindexReport(str(kb.root), str(path), len(ids), time.monotonic() - t0)
