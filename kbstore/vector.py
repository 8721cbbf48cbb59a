"""Vector search over the stored embeddings: exact (numpy) and the chromadb index, a cache of DuckDB.

chromadb is only ever given vectors (its collection gets an embedding function that refuses to run,
since chromadb's default one downloads a model). Its files are written in place without fsync, so a
crash can leave a collection that counts right and answers wrong; every open is therefore followed
by a probe (ids equal to DuckDB's, self-recall of a few stored vectors) and a failed probe rebuilds it.
chromadb also writes into a directory whenever it opens it, so a published index is never opened in
place: writers (under the KB write lock) build the next version in a fresh directory, from a copy of
the current one or from scratch, and swap `vectors/CURRENT` atomically; readers take no lock and
search a private copy. A reader sees the old index or the new one, never half of one.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import uuid
import weakref
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterator

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
# `--index auto`: exact search up to this many entries, the chromadb HNSW index above ($KB_EXACT_MAX). Exact dense
# search reads every vector (384 float32) per query: see README "The KB at scale" for where it stops (bench_kb.py).
EXACT_MAX = 150_000


def exact_max() -> int:
    return int(os.environ.get("KB_EXACT_MAX") or EXACT_MAX)


class ExactIndex:
    """Brute-force cosine search over an (n, dim) matrix of normalised rows: no build, same answer every time."""

    def __init__(self, ids: list[str], matrix: np.ndarray):
        self.ids, self.matrix = list(ids), np.ascontiguousarray(matrix, dtype=np.float32)

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """[(row, cosine similarity)] best first; `allowed` is a boolean row mask (metadata filters)."""
        if not len(self.ids) or k <= 0:
            return []
        with one_blas_thread():
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


def one_blas_thread():
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
        return self.searchable and not self.extra

    @property
    def searchable(self) -> bool:
        """Good enough to search for a reader whose rows are these ids: extra ids are filtered out of its hits (a
        writer may have published an index of entries committed after the reader loaded its rows)."""
        low = self.self_recall is not None and self.self_recall < MIN_SELF_RECALL
        return not (self.missing or self.changed or low or self.error)

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
    """The live index: `vectors/CURRENT` names a published `chroma-<id>` directory. Opening a directory writes into it
    (even to query it), so nothing opens a published one in place: a writer builds the next one beside it and swaps
    CURRENT, a reader or `kb verify` opens a private copy. A published directory therefore never changes until it is
    removed, so copying it needs no lock: a copy counts when CURRENT still names its source afterwards."""

    def __init__(self, kb: KBPaths):
        self.kb = kb
        self._search_col = None
        self._discard = None  # closes and removes the private copy searched (weakref.finalize)

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
        """Open a directory in place: one no other process reads (a build, a private copy), or in tests, to damage it."""
        return self._open(path or self.current_dir(), create=create)[1]

    def _open(self, path: Path | None, *, create: bool = False):
        if path is None or not (create or path.is_dir()):
            raise FileNotFoundError(f"{self.kb.vectors}: no vector index (run `kb reindex`)")
        client = _client(path)
        ef = _refusing_embedding_function()
        try:
            if create:
                return client, client.get_or_create_collection(COLLECTION, embedding_function=ef,
                                                               configuration={"hnsw": dict(HNSW)})
            return client, client.get_collection(COLLECTION, embedding_function=ef)
        except BaseException:
            client.close()
            raise

    @contextmanager
    def _opened(self, path: Path, *, create: bool = False) -> Iterator:
        client, col = self._open(path, create=create)
        try:
            yield col
        finally:
            client.close()  # stops chromadb's system: nothing of it writes into the directory afterwards

    # ---- write side (callers hold the KB write lock)
    def rebuild(self, ids: list[str], matrix: np.ndarray, metas: list[dict]) -> Path:
        """A fresh index from the stored vectors, probed and published; every other index directory removed."""
        fresh = self._fresh()
        try:
            with self._opened(fresh, create=True) as col:
                self._add(col, ids, matrix, metas, kill_name="during-reindex")
                drift = _probe(col, ids, matrix, Drift(str(fresh), len(ids), None), full=False)
            if not drift.ok:
                raise RuntimeError(f"{fresh}: a freshly built vector index fails its probe: {drift.summary()}")
        except Exception:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        self._publish(fresh)
        return fresh

    def sync(self, ids: list[str], matrix: np.ndarray, metas: list[dict]) -> str:
        """Bring the index in line with DuckDB: leftover directories removed, the published index copied, what is
        missing added to the copy and what is extra dropped, the copy probed and published; rebuilt when there is no
        index or the copy fails its probe."""
        gone = self.remove_stale()
        note = f"; removed {len(gone)} stale index directories" if gone else ""
        fresh = self._fresh()
        try:
            if self._copy_current(fresh) is None:
                raise FileNotFoundError("no index")
            with self._opened(fresh) as col:
                have = set(col.get(include=[])["ids"])
                extra = sorted(have - set(ids))
                if extra:
                    col.delete(ids=extra)
                missing = [n for n, i in enumerate(ids) if i not in have]
                if missing:
                    self._add(col, [ids[n] for n in missing], matrix[missing], [metas[n] for n in missing],
                              kill_name="during-index")
                drift = _probe(col, ids, matrix, Drift(str(fresh), len(ids), None), full=False)
        except Exception:  # missing or unreadable: chromadb raises several types here
            drift = None
        if drift is None or not drift.ok:
            shutil.rmtree(fresh, ignore_errors=True)
            self.rebuild(ids, matrix, metas)
            return "rebuilt" + note
        if extra or missing:
            self._publish(fresh)
        else:  # the published index is these same bytes: nothing to swap
            shutil.rmtree(fresh)
        return f"synced (+{len(missing)} -{len(extra)})" + note

    def stale_dirs(self) -> list[Path]:
        """Index directories CURRENT does not name: left by a killed build (or being built by the lock's holder)."""
        current = self.current_dir()
        return sorted(d for d in self.kb.vectors.glob("chroma-*") if d != current) if self.kb.vectors.is_dir() else []

    def remove_stale(self) -> list[str]:
        gone = self.stale_dirs()
        for d in gone:
            shutil.rmtree(d, ignore_errors=True)
        return [d.name for d in gone]

    def _fresh(self) -> Path:
        self.kb.vectors.mkdir(parents=True, exist_ok=True)
        return self.kb.vectors / f"chroma-{uuid.uuid4().hex[:12]}"

    def _publish(self, fresh: Path) -> None:
        """Make fresh durable, swap CURRENT to it atomically, remove every other index directory."""
        for dirpath, _, files in os.walk(fresh):
            for f in files:
                _fsync(os.path.join(dirpath, f))
            _fsync(dirpath)
        tmp = self.pointer.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(fresh.name + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.pointer)
        _fsync(self.kb.vectors)
        self.remove_stale()

    @staticmethod
    def _add(col, ids: list[str], matrix: np.ndarray, metas: list[dict], *, kill_name: str) -> None:
        for start in range(0, len(ids), _ADD_CHUNK):
            stop = start + _ADD_CHUNK
            col.upsert(ids=ids[start:stop], embeddings=matrix[start:stop], metadatas=metas[start:stop])
            kill_point(kill_name)

    # ---- read side (no lock)
    def _copy_current(self, dest: Path) -> Path | None:
        """Copy the published index to dest; its source, or None when there is none. A writer may publish another
        and remove this one meanwhile: then the copy is made again from the new one."""
        for _ in range(5):
            src = self.current_dir()
            if src is None or not src.is_dir():
                return None
            try:
                shutil.copytree(src, dest)
                failed = None
            except OSError as e:
                failed = e
            if self.current_dir() == src:
                if failed is not None:
                    raise failed
                return src
            shutil.rmtree(dest, ignore_errors=True)
        raise RuntimeError(f"{self.kb.vectors}: the vector index was replaced five times while it was being copied")

    @contextmanager
    def _private_copy(self) -> Iterator[tuple[Path | None, Path]]:
        tmp = Path(tempfile.mkdtemp(prefix="kb-chroma-"))
        try:
            yield self._copy_current(tmp / "index"), tmp / "index"
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def drift(self, ids: list[str], matrix: np.ndarray, *, path: Path | None = None, full: bool = True) -> Drift:
        """Compare with DuckDB: ids always, every vector when full, self-recall of a few stored vectors; the published
        index is compared through a private copy, a directory given (a build) in place."""
        if path is not None:
            return self._drift_of(path, ids, matrix, Drift(str(path), len(ids), None), full)
        with self._private_copy() as (src, copy):
            return self._drift_of(copy if src else None, ids, matrix, Drift(str(src) if src else None, len(ids), None), full)

    def _drift_of(self, path: Path | None, ids: list[str], matrix: np.ndarray, report: Drift, full: bool) -> Drift:
        try:
            with self._opened(path) as col:
                return _probe(col, ids, matrix, report, full)
        except Exception as e:  # missing or unreadable: chromadb raises several types here
            report.error = f"{type(e).__name__}: {str(e)[:200]}"
            return report

    def open_for_search(self, ids: list[str], matrix: np.ndarray) -> Drift:
        """Search a private copy of the published index from now on when it passes its probe against (ids, matrix)
        (see Drift.searchable); the copy is removed by close() or when this object goes."""
        self.close()
        tmp = Path(tempfile.mkdtemp(prefix="kb-chroma-"))
        report = Drift(None, len(ids), None)
        try:
            src = self._copy_current(tmp / "index")
            report.index_dir = str(src) if src else None
            client, col = self._open(src and tmp / "index")
        except Exception as e:
            shutil.rmtree(tmp, ignore_errors=True)
            report.error = f"{type(e).__name__}: {str(e)[:200]}"
            return report
        self._discard = weakref.finalize(self, _discard, client, tmp)
        try:
            report = _probe(col, ids, matrix, report, full=False)
        except Exception as e:  # unreadable: chromadb raises several types here
            report.error = f"{type(e).__name__}: {str(e)[:200]}"
        if report.searchable:
            self._search_col = col
        else:
            self.close()
        return report

    def close(self) -> None:
        self._search_col = None
        if self._discard is not None:
            self._discard()
            self._discard = None

    def search(self, query: np.ndarray, k: int, where: dict | None = None) -> list[tuple[str, float]]:
        """[(id, cosine similarity)] from the copy open_for_search opened and probed."""
        if self._search_col is None:
            raise RuntimeError("ChromaIndex.search before a successful open_for_search")
        col = self._search_col
        n = col.count()
        if n == 0:
            return []
        res = col.query(query_embeddings=np.asarray(query, dtype=np.float32).reshape(1, -1), n_results=min(k, n),
                        where=where or None, include=["distances"])
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0])]


def _probe(col, ids: list[str], matrix: np.ndarray, report: Drift, full: bool) -> Drift:
    """Fill report from an open collection: ids always, every vector when full, self-recall of a few stored vectors."""
    report.index_count = col.count()
    got = col.get(include=["embeddings"] if full else [])
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


def _discard(client, tmp: Path) -> None:
    try:
        client.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _fsync(path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def chroma_meta(row: dict) -> dict:
    return {"family": row.get("family") or "", "language": row.get("language") or "", "backend": row.get("backend") or ""}
