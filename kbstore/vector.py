"""Vector search over the stored embeddings: exact (numpy) and the chromadb index, a cache of DuckDB.

chromadb is only ever given vectors (its collection gets an embedding function that refuses to run,
since chromadb's default one downloads a model). Its files are written in place without fsync, so a
crash can leave a collection that counts right and answers wrong; every open is therefore followed
by a probe (count and ids equal to DuckDB's, self-recall of a few stored vectors) and a failed probe
rebuilds it. A rebuild goes into a fresh directory and `vectors/CURRENT` is swapped atomically, so
a reader sees the old index or the new one, never half of one.
"""
from __future__ import annotations

import os
import shutil
import uuid
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from kbstore.faults import kill_point
from kbstore.paths import KBPaths

COLLECTION = "kb_entries"
# Wider than chromadb's defaults (16 neighbours, ef 100): on 10k near-duplicate patterns self-recall rose
# from 0.89 to 0.97 for 13% more build time (bench/bench_kb.py data).
HNSW = {"space": "cosine", "ef_construction": 200, "ef_search": 200, "max_neighbors": 32}
_ADD_CHUNK = 1000
_PROBES = 64
# HNSW is approximate: a healthy index can miss a few stored vectors; a broken one (truncated files)
# measured 0.49. Below this share of probes finding themselves, the index is rebuilt.
MIN_SELF_RECALL = 0.8


class ExactIndex:
    """Brute-force cosine search over an (n, dim) matrix of normalised rows: no build, same answer every time."""

    def __init__(self, ids: list[str], matrix: np.ndarray):
        self.ids, self.matrix = list(ids), np.ascontiguousarray(matrix, dtype=np.float32)

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """[(row, cosine similarity)] best first; `allowed` is a boolean row mask (metadata filters)."""
        if not len(self.ids) or k <= 0:
            return []
        with _one_blas_thread():
            scores = self.matrix @ np.asarray(query, dtype=np.float32).reshape(-1)
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)
        k = min(k, int(np.isfinite(scores).sum()))
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]  # ties broken by row: deterministic
        return [(int(i), float(scores[i])) for i in top]


@lru_cache(maxsize=1)
def _blas():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController().select(user_api="blas")


def _one_blas_thread():
    """A matrix-vector product this small gains nothing from BLAS threads, and on a busy machine their
    hand-offs cost tens of ms at p99 (measured: 31 ms p99 with threads, 9 ms with one, 10k x 384)."""
    blas = _blas()
    return blas.limit(limits=1) if blas is not None else nullcontext()


@dataclass
class Drift:
    """How the chromadb index differs from DuckDB (empty lists and ok=True: no drift)."""

    index_dir: str | None
    duckdb_count: int
    index_count: int | None
    missing: list[str] = field(default_factory=list)  # in DuckDB, not in the index
    extra: list[str] = field(default_factory=list)  # in the index, not in DuckDB
    changed: list[str] = field(default_factory=list)  # vector differs from the stored one
    recall_failures: list[str] = field(default_factory=list)  # probes that did not find themselves
    self_recall: float | None = None  # share of probes that did
    error: str | None = None

    @property
    def ok(self) -> bool:
        low = self.self_recall is not None and self.self_recall < MIN_SELF_RECALL
        return not (self.missing or self.extra or self.changed or low or self.error)

    def summary(self) -> str:
        if self.error:
            return f"index unreadable: {self.error}"
        recall = "n/a" if self.self_recall is None else f"{self.self_recall:.2f}"
        return (f"duckdb {self.duckdb_count}, index {self.index_count}: {len(self.missing)} missing, {len(self.extra)} extra, "
                f"{len(self.changed)} changed vectors, self-recall {recall} (min {MIN_SELF_RECALL})")


def _client(path: Path):
    import chromadb

    return chromadb.PersistentClient(path=str(path), settings=chromadb.Settings(anonymized_telemetry=False))


def _refusing_embedding_function():
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

    class RefuseToEmbed(EmbeddingFunction[Documents]):
        """chromadb's default embedding function downloads a model: the KB always passes vectors itself."""

        def __init__(self) -> None:
            pass

        def __call__(self, input: Documents) -> Embeddings:
            raise RuntimeError("kbstore: chromadb was asked to embed text; the KB passes embeddings explicitly")

        @staticmethod
        def name() -> str:
            return "nearmiss-refuse"

        def get_config(self) -> dict:
            return {}

        @staticmethod
        def build_from_config(config: dict) -> "RefuseToEmbed":
            return RefuseToEmbed()

    # registered so that reopening a collection rebuilds this function from its stored config instead of
    # warning "Could not reconstruct embedding function" (and setting it to None)
    from chromadb.utils.embedding_functions import known_embedding_functions, register_embedding_function

    if RefuseToEmbed.name() not in known_embedding_functions:
        register_embedding_function(RefuseToEmbed)
    return RefuseToEmbed()


class ChromaIndex:
    def __init__(self, kb: KBPaths):
        self.kb = kb
        self._search_col = None

    @property
    def pointer(self) -> Path:
        return self.kb.vectors / "CURRENT"

    def current_dir(self) -> Path | None:
        try:
            name = self.pointer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return self.kb.vectors / name if name else None

    def collection(self, path: Path | None = None, *, create: bool = False):
        path = path or self.current_dir()
        if path is None or not (create or path.is_dir()):
            raise FileNotFoundError(f"{self.kb.vectors}: no vector index (run `kb reindex`)")
        client = _client(path)
        ef = _refusing_embedding_function()
        if create:
            return client.get_or_create_collection(COLLECTION, embedding_function=ef, configuration={"hnsw": dict(HNSW)})
        return client.get_collection(COLLECTION, embedding_function=ef)

    # ---- write side (callers hold the KB write lock)
    def rebuild(self, ids: list[str], matrix: np.ndarray, metas: list[dict]) -> Path:
        """A fresh index from the stored vectors, swapped in atomically; old index directories removed."""
        self.kb.vectors.mkdir(parents=True, exist_ok=True)
        fresh = self.kb.vectors / f"chroma-{uuid.uuid4().hex[:12]}"
        col = self.collection(fresh, create=True)
        self._add(col, ids, matrix, metas, kill_name="during-reindex")
        drift = self.drift(ids, matrix, path=fresh, full=False)
        if not drift.ok:
            raise RuntimeError(f"{fresh}: a freshly built vector index fails its probe: {drift.summary()}")
        tmp = self.pointer.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(fresh.name + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.pointer)
        for old in self.kb.vectors.glob("chroma-*"):
            if old != fresh:
                shutil.rmtree(old, ignore_errors=True)
        return fresh

    def sync(self, ids: list[str], matrix: np.ndarray, metas: list[dict]) -> str:
        """Bring the index in line with DuckDB: add what is missing, drop what is extra; rebuild when it fails its probe."""
        try:
            col = self.collection()
            have = set(col.get(include=[])["ids"])
        except Exception:  # missing or unreadable: chromadb raises several types here
            self.rebuild(ids, matrix, metas)
            return "rebuilt"
        want = set(ids)
        extra = sorted(have - want)
        if extra:
            col.delete(ids=extra)
        missing_rows = [n for n, i in enumerate(ids) if i not in have]
        if missing_rows:
            self._add(col, [ids[n] for n in missing_rows], matrix[missing_rows], [metas[n] for n in missing_rows],
                      kill_name="during-index")
        if not self.drift(ids, matrix, full=False).ok:
            self.rebuild(ids, matrix, metas)
            return "rebuilt"
        return f"synced (+{len(missing_rows)} -{len(extra)})"

    @staticmethod
    def _add(col, ids: list[str], matrix: np.ndarray, metas: list[dict], *, kill_name: str) -> None:
        for start in range(0, len(ids), _ADD_CHUNK):
            stop = start + _ADD_CHUNK
            col.upsert(ids=ids[start:stop], embeddings=matrix[start:stop], metadatas=metas[start:stop])
            kill_point(kill_name)

    # ---- checks
    def drift(self, ids: list[str], matrix: np.ndarray, *, path: Path | None = None, full: bool = True) -> Drift:
        """Compare with DuckDB: ids always, every vector when full, self-recall of a few stored vectors."""
        path = path or self.current_dir()
        report = Drift(str(path) if path else None, len(ids), None)
        try:
            col = self.collection(path)
            report.index_count = col.count()
            got = col.get(include=["embeddings"] if full else [])
        except Exception as e:
            report.error = f"{type(e).__name__}: {str(e)[:200]}"
            return report
        have = set(got["ids"])
        report.missing = sorted(set(ids) - have)
        report.extra = sorted(have - set(ids))
        if full and len(got["ids"]):
            row = {i: n for n, i in enumerate(ids)}
            for i, vec in zip(got["ids"], got["embeddings"]):
                if i in row and not np.allclose(np.asarray(vec, dtype=np.float32), matrix[row[i]], atol=1e-6):
                    report.changed.append(i)
            report.changed.sort()
        if ids:
            rows = sorted({int(x) for x in np.linspace(0, len(ids) - 1, num=min(_PROBES, len(ids)))})
            try:
                res = col.query(query_embeddings=matrix[rows], n_results=1, include=["distances"])
            except Exception as e:
                report.error = f"probe query failed: {type(e).__name__}: {str(e)[:160]}"
                return report
            # a stored vector must find itself (or an identical twin) at distance ~0
            report.recall_failures = [ids[r] for r, d in zip(rows, res["distances"]) if not d or d[0] > 1e-3]
            report.self_recall = 1 - len(report.recall_failures) / len(rows)
        return report

    def open_for_search(self) -> None:
        self._search_col = self.collection()

    def search(self, query: np.ndarray, k: int, where: dict | None = None) -> list[tuple[str, float]]:
        """[(id, cosine similarity)]; the collection is opened once and kept (callers probe it first, see sync)."""
        if self._search_col is None:
            self.open_for_search()
        col = self._search_col
        n = col.count()
        if n == 0:
            return []
        res = col.query(query_embeddings=np.asarray(query, dtype=np.float32).reshape(1, -1), n_results=min(k, n),
                        where=where or None, include=["distances"])
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0])]


def chroma_meta(row: dict) -> dict:
    return {"family": row.get("family") or "", "language": row.get("language") or "", "backend": row.get("backend") or ""}
