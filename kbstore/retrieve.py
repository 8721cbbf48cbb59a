"""Hybrid retrieval: dense cosine + BM25 over code-aware tokens, fused by reciprocal rank fusion.

A Retriever loads the KB once (entries, vectors, BM25 index) and then answers queries from memory,
so a warm process (the repair loop) pays milliseconds per query. Metadata filters (family, language,
backend) are applied before ranking on both sides. Dense search is exact numpy by default (measured
faster than chromadb at 10k entries, and deterministic); `index="chroma"` uses the chromadb index,
read without the KB's write lock (kbstore.vector: readers search a private copy); `index="auto"` is exact
up to EXACT_MAX entries and chroma above.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from kbstore.embed import Embedder, choose_embedder
from kbstore.lexical import LexicalIndex
from kbstore.paths import KBPaths
from kbstore.store import Store
from kbstore.vector import ChromaIndex, ExactIndex
from provenance.parsing import language_key

RRF_K = 60
INDEXES = ("exact", "chroma", "auto")
# "auto": exact search up to this many entries, the chromadb HNSW index above. Exact dense search reads every vector
# (384 float32) per query: 12-15 ms at 100k entries on one core here, past a 20 ms budget at ~150k, 136 ms and 1.5 GB
# at 1M; a chromadb query costs ~12 ms at any size (its client; recall of the exact top 10: 0.79-0.88, bench_kb.py)
EXACT_MAX = 150_000


@dataclass(frozen=True)
class Hit:
    id: str
    score: float  # fused RRF score
    title: str
    bug_class: str
    family: str | None
    language: str
    backend: str
    symptom: str
    fix: str
    before: str
    after: str
    rules: tuple[dict, ...]
    provenance: dict  # evidence count, runs, operators, models, first version/time, best match
    dense_rank: int | None = None
    lexical_rank: int | None = None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["rules"] = list(self.rules)
        return d


@dataclass
class Corpus:
    """What retrieval needs, in row order: per-entry rows (see Store.retrieval_rows) and their vectors."""

    rows: list[dict]
    matrix: np.ndarray
    embedder_fingerprint: str | None
    source: dict = field(default_factory=dict)  # kb_path and kb_version, or a snapshot id

    def subset(self, ids: list[str] | set[str]) -> "Corpus":
        """The same corpus restricted to some entries (a snapshot's included set), row order kept."""
        keep = set(ids)
        rows = [n for n, r in enumerate(self.rows) if r["id"] in keep]
        return Corpus([self.rows[n] for n in rows], self.matrix[rows], self.embedder_fingerprint, dict(self.source))


class Retriever:
    def __init__(self, corpus: Corpus, embedder: Embedder, *, chroma: ChromaIndex | None = None,
                 lexical: LexicalIndex | None = None, notes: list[str] | None = None):
        if corpus.embedder_fingerprint and corpus.embedder_fingerprint != embedder.fingerprint:
            from kbstore.errors import EmbedderMismatch

            raise EmbedderMismatch(f"the KB's vectors come from embedder fingerprint {corpus.embedder_fingerprint[:12]}, "
                                   f"not {embedder.name} ({embedder.fingerprint[:12]}); set KB_EMBEDDER to match")
        self.corpus, self.embedder, self.chroma = corpus, embedder, chroma
        self.notes = list(notes or [])  # one line each, for the user: e.g. the chroma index was unusable, search is exact
        self.rows = corpus.rows
        self.ids = [r["id"] for r in self.rows]
        self._row_of = {i: n for n, i in enumerate(self.ids)}
        self.dense = ExactIndex(self.ids, corpus.matrix) if len(self.ids) else ExactIndex([], np.zeros((0, embedder.dim)))
        # a snapshot passes its BM25 cache (built from these rows); otherwise it is built here
        if lexical is None or lexical.size != len(self.rows):
            lexical = LexicalIndex([r["lexical_text"] for r in self.rows])
        self.lexical = lexical
        columns = {c: [r.get(c) or "" for r in self.rows] for c in ("family", "backend")}
        columns["language"] = [language_key(r.get("language")) for r in self.rows]
        self._columns = {c: _codes(values) for c, values in columns.items()}

    @property
    def source(self) -> dict:
        return self.corpus.source

    @classmethod
    def open(cls, kb: str | Path | KBPaths | None = None, *, embedder: Embedder | None = None,
             index: str = "exact") -> "Retriever":
        if index not in INDEXES:
            from kbstore.errors import BadInput

            raise BadInput(f"unknown index {index!r} (known: {', '.join(INDEXES)})")
        paths = kb if isinstance(kb, KBPaths) else KBPaths.of(kb)
        with Store.open(paths) as store:
            corpus = load_corpus(store)
            embedder = embedder or choose_embedder(store.meta("embedder"), store.meta("embedder_fingerprint"))
        if index == "auto":
            index = "chroma" if len(corpus.rows) > int(os.environ.get("KB_EXACT_MAX") or EXACT_MAX) else "exact"
        notes: list[str] = []
        chroma = _probed_chroma(paths, corpus, notes) if index == "chroma" else None
        return cls(corpus, embedder, chroma=chroma, notes=notes)

    def query(self, text: str, *, k: int = 5, family: str | None = None, language: str | None = None,
              backend: str | None = None, code: str | None = None, depth: int = 50) -> list[Hit]:
        """Best k hits for a short text (symptom, diagnosis), optionally with the failing kernel's code.

        Rankings fused: dense(text), BM25(text) and, when code is given, BM25(code) with each distinct
        code token counted once (a whole kernel file would otherwise drown the symptom words).
        """
        if not self.ids or k <= 0:
            return []
        allowed = self._mask(family=family, language=language, backend=backend)
        depth = max(depth, k)
        qvec = self.embedder.embed([text])[0]
        dense = _ranks(self._dense(qvec, depth, allowed))
        lexical = _ranks(self.lexical.search(text, depth, allowed))
        rankings = [dense, lexical]
        if code:
            rankings.append(_ranks(self.lexical.search(code, depth, allowed, distinct=True)))
        fused: dict[int, float] = {}
        for ranks in rankings:
            for row, rank in ranks.items():
                fused[row] = fused.get(row, 0.0) + 1.0 / (RRF_K + rank)
        best = sorted(fused, key=lambda r: (-fused[r], self.ids[r]))[:k]
        return [self._hit(r, fused[r], dense.get(r), lexical.get(r)) for r in best]

    def _mask(self, **filters) -> np.ndarray | None:
        mask = None
        for col, value in filters.items():
            if value is None:
                continue
            labels, codes = self._columns[col]
            m = codes == labels.get(language_key(value) if col == "language" else value, -1)  # AscendC == ascendc
            mask = m if mask is None else mask & m
        return mask

    def _dense(self, qvec, depth, allowed) -> list[tuple[int, float]]:
        # chromadb's `where` filter was 5-10x slower than exact search over the filtered rows (bench_kb:
        # p99 116 ms vs 11 ms at 10k), so filtered queries always take the exact path
        if self.chroma is None or allowed is not None:
            return self.dense.search(qvec, depth, allowed)
        return [(self._row_of[i], s) for i, s in self.chroma.search(qvec, depth) if i in self._row_of]

    def _hit(self, row: int, score: float, dense_rank: int | None, lexical_rank: int | None) -> Hit:
        r = self.rows[row]
        p = r["pattern"]
        return Hit(id=r["id"], score=round(score, 6), title=r["title"], bug_class=r["bug_class"], family=r["family"],
                   language=r["language"], backend=r["backend"], symptom=r["symptom_label"], fix=p["fix"],
                   before=p["before"], after=p["after"], rules=tuple(p.get("rules") or ()),
                   provenance=r["provenance"], dense_rank=dense_rank, lexical_rank=lexical_rank)


def _probed_chroma(paths: KBPaths, corpus: Corpus, notes: list[str]) -> ChromaIndex | None:
    """A private copy of the chromadb index, probed against the loaded vectors: no lock taken, nothing written. One
    that fails its probe is repaired from DuckDB when no writer is at work; while one is (the lock is taken), or if the
    repair fails, None: dense search is exact this time, and a note says so."""
    from kbstore.errors import LockHeld
    from kbstore.index import sync_index
    from kbstore.lock import write_lock

    ids = [r["id"] for r in corpus.rows]
    chroma = ChromaIndex(paths)
    drift = chroma.open_for_search(ids, corpus.matrix)
    if drift.searchable:
        return chroma
    try:
        with write_lock(paths.lock, wait_s=0, what="repair index"):
            with Store.open(paths) as store:  # DuckDB as it is now: a writer may have committed since the rows were read
                sync_index(store, paths)
    except LockHeld:
        why = "a writer holds the KB's lock"
    except Exception as e:  # chromadb raises many types; exact search answers all the same
        why = f"its repair failed ({type(e).__name__}: {str(e)[:120]})"
    else:
        drift = chroma.open_for_search(ids, corpus.matrix)
        if drift.searchable:
            return chroma
        why = "it fails its probe after a repair"
    notes.append(f"kb: note: the chromadb index is not usable ({drift.summary()}) and {why}; dense search is exact "
                 "this time (`kb verify --repair` rebuilds the index)")
    return None


def _codes(values: list[str]) -> tuple[dict[str, int], np.ndarray]:
    """A filter column as (value -> code, one code per row): comparing 100k strings per query took ~15 ms, codes 0.1."""
    labels: dict[str, int] = {}
    return labels, np.fromiter((labels.setdefault(v, len(labels)) for v in values), dtype=np.int32, count=len(values))


def _ranks(results: list[tuple[int, float]]) -> dict[int, int]:
    return {row: n + 1 for n, (row, _) in enumerate(results)}


def load_corpus(store: Store) -> Corpus:
    rows = store.retrieval_rows()
    ids, matrix, fingerprints = store.embeddings()
    if ids != [r["id"] for r in rows]:
        from kbstore.errors import IntegrityFailure

        raise IntegrityFailure(f"{store.paths.root}: entries and embeddings differ ({len(rows)} entries, {len(ids)} vectors); "
                               "run `kb verify`")
    if len(fingerprints) > 1:
        from kbstore.errors import IntegrityFailure

        raise IntegrityFailure(f"{store.paths.root}: vectors from {len(fingerprints)} different embedders")
    rows = [shape_row(r) for r in rows]
    source = {"kb_path": str(store.paths.root), "kb_version": store.head_version()}
    return Corpus(rows, matrix, next(iter(fingerprints), None), source)


def shape_row(r: dict, load_pattern=json.loads) -> dict:
    """A Store.retrieval_rows() row as retrieval uses it (a snapshot stores the raw row and shapes it on open,
    parsing each pattern only when a hit needs it)."""
    r = dict(r)
    r["pattern"] = load_pattern(r.pop("canonical_json"))
    r["provenance"] = {"evidence": r.pop("n_evidence"), "runs": r.pop("runs")[:5], "operators": r.pop("operators")[:5],
                       "models": r.pop("models")[:5], "best_match": r.pop("best_match"),
                       "first_version": r["first_version"], "first_ingested_at": r["first_ingested_at"]}
    return r


def search(kb: str | Path | None, text: str, *, k: int = 5, index: str = "exact", code: str | None = None,
           **filters) -> list[Hit]:
    """One-shot retrieval: open, query, done (`kb query` opens a Retriever itself, to print its notes)."""
    return Retriever.open(kb, index=index).query(text, k=k, code=code, **filters)
