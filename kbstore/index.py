"""Derived indexes of the live KB: after an ingest, the mapped layout caught up (kbstore.layout) and the chromadb
index synced where it is used; `kb reindex` rebuilds both from DuckDB."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kbstore.paths import KBPaths
from kbstore.layout import rebuild as rebuild_layout
from kbstore.vector import ChromaIndex, chroma_meta


def index_inputs(store) -> tuple[list[str], np.ndarray, list[dict]]:
    """(ids, vectors, chromadb metadata) from DuckDB, sorted by id."""
    ids, matrix, _ = store.embeddings()
    meta = {r["id"]: chroma_meta(r) for r in store.rows("SELECT id, family, language, backend FROM entries")}
    return ids, matrix, [meta.get(i, chroma_meta({})) for i in ids]


def sync_index(store, kb: KBPaths) -> str:
    """The chromadb index brought in line with DuckDB (caller holds the write lock)."""
    return ChromaIndex(kb).sync(*index_inputs(store))


def sync_indexes(store, kb: KBPaths) -> str:
    """After a commit (caller holds the write lock; returns chromadb's line): the mapped layout caught up with what the new versions added (an
    append), and the chromadb index synced (`--index chroma`/`auto` past exact search's size search it). The chromadb
    sync still copies its index directory, so an ingest's cost keeps a term in the KB's size there."""
    from kbstore.layout import update

    update(store, kb)
    return sync_index(store, kb)


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
    """Rebuild the chromadb index and the mapped layout from what DuckDB stores (no re-embedding)."""
    from kbstore.lock import write_lock
    from kbstore.store import Store

    t0 = time.monotonic()
    kb = KBPaths.of(kb_path)
    with write_lock(kb.lock, wait_s=lock_wait_s, what="reindex"):
        with Store.open(kb) as store:
            ids, matrix, metas = index_inputs(store)
            rebuild_layout(store, kb)
        path = ChromaIndex(kb).rebuild(ids, matrix, metas)
    return ReindexReport(str(kb.root), str(path), len(ids), time.monotonic() - t0)
