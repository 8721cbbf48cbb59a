"""Hybrid retrieval: dense cosine + BM25 over code-aware tokens, fused by reciprocal rank fusion.

A Retriever loads the KB once (entries, vectors, BM25 index) and then answers queries from memory,
so a warm process (the repair loop) pays milliseconds per query. Metadata filters (family, language,
backend) are applied before ranking on both sides. Dense search is exact numpy by default (measured
faster than chromadb at 10k entries, and deterministic); `index="chroma"` uses the chromadb index,
read without the KB's write lock (kbstore.vector: readers search a private copy); `index="auto"` is exact
up to EXACT_MAX entries and chroma above.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from kbstore.embed import Embedder, choose_embedder
from kbstore.lexical import LexicalIndex
from kbstore.paths import KBPaths
from kbstore.shape import shape_row
from kbstore.store import Store
from kbstore.vector import EXACT_MAX, ChromaIndex, exact_max, one_blas_thread  # noqa: F401  (EXACT_MAX re-exported)
from provenance.canonical import canonical_json
from provenance.parsing import language_key

RRF_K = 60
INDEXES = ("exact", "chroma", "auto")


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


class InMemory:
    """A Corpus held in memory (rows, vectors, a BM25 index), behind the interface a Retriever reads (MappedCorpus's):
    scores in id order, filter columns, rows by position. What opens when the KB has no usable mapped layout, and what
    an old snapshot (without mapped caches) opens."""

    def __init__(self, corpus: Corpus, dim: int, lexical: LexicalIndex | None = None):
        self.corpus, self.rows, self.n = corpus, corpus.rows, len(corpus.rows)
        self.source, self.embedder_fingerprint = corpus.source, corpus.embedder_fingerprint
        self.matrix = (np.ascontiguousarray(corpus.matrix, dtype=np.float32) if self.n
                       else np.zeros((0, dim), dtype=np.float32))
        # a snapshot passes its BM25 cache (built from these rows); otherwise it is built here
        if lexical is None or lexical.size != self.n:
            lexical = LexicalIndex([r["lexical_text"] for r in self.rows])
        self.lexical = lexical
        columns = {c: [r.get(c) or "" for r in self.rows] for c in ("family", "backend")}
        columns["language"] = [language_key(r.get("language")) for r in self.rows]
        self._columns = {c: _codes(values) for c, values in columns.items()}

    def dense(self, qvec: np.ndarray) -> np.ndarray:
        with one_blas_thread():
            return self.matrix @ np.asarray(qvec, dtype=np.float32).reshape(-1)

    def lexical_scores(self, text: str, *, distinct: bool = False) -> np.ndarray:
        return self.lexical.scores(text, distinct=distinct)

    def dense_top(self, qvec: np.ndarray, depth: int, allowed: np.ndarray | None = None) -> None:
        """No bounded search in memory: score every row."""
        return None

    def column(self, name: str) -> tuple[dict[str, int], np.ndarray]:
        if name == "rules" and name not in self._columns:
            keys: dict[str, int] = {}
            self._columns[name] = ({}, np.fromiter(
                (keys.setdefault(canonical_json(list(rules)), len(keys)) if rules else -1
                 for rules in (r["pattern"].get("rules") for r in self.rows)), dtype=np.int32, count=self.n))
        return self._columns[name]

    def row(self, pos: int) -> dict:
        return self.rows[pos]

    def vectors_at(self, positions: np.ndarray) -> np.ndarray:
        return self.matrix[positions]

    def make_resident(self) -> None:
        """Already in memory."""

    def id_at(self, pos: int) -> str:
        return self.rows[pos]["id"]


class Retriever:
    def __init__(self, corpus, embedder: Embedder, *, chroma: ChromaIndex | None = None,
                 lexical: LexicalIndex | None = None, notes: list[str] | None = None):
        """corpus: a Corpus (held in memory), or a kbstore.mapped.MappedCorpus / InMemory."""
        if isinstance(corpus, Corpus):
            corpus = InMemory(corpus, embedder.dim, lexical)
        if corpus.embedder_fingerprint and corpus.embedder_fingerprint != embedder.fingerprint:
            from kbstore.errors import EmbedderMismatch

            raise EmbedderMismatch(f"the KB's vectors come from embedder fingerprint {corpus.embedder_fingerprint[:12]}, "
                                   f"not {embedder.name} ({embedder.fingerprint[:12]}); set KB_EMBEDDER to match")
        self.corpus, self.embedder, self.chroma = corpus, embedder, chroma
        self.notes = list(notes or [])  # one line each, for the user: e.g. the chroma index was unusable, search is exact
        self.n = corpus.n
        self._row_of: dict[str, int] | None = None

    @property
    def source(self) -> dict:
        return self.corpus.source

    @classmethod
    def open(cls, kb: str | Path | KBPaths | None = None, *, embedder: Embedder | None = None,
             index: str = "exact", resident: bool = False) -> "Retriever":
        """The KB's retriever over its mapped layout (kbstore.mapped; see open_corpus). resident: copy the vectors into
        memory (a process that answers many queries: `kb server`); otherwise each query reads them from the mapped
        file, a chunk at a time."""
        if index not in INDEXES:
            from kbstore.errors import BadInput

            raise BadInput(f"unknown index {index!r} (known: {', '.join(INDEXES)})")
        paths = kb if isinstance(kb, KBPaths) else KBPaths.of(kb)
        notes: list[str] = []
        corpus, recorded = open_corpus(paths, notes)
        embedder = embedder or choose_embedder(*recorded)
        if index == "auto":
            index = "chroma" if corpus.n > exact_max() else "exact"
        chroma = _probed_chroma(paths, corpus, notes) if index == "chroma" else None
        if resident:
            corpus.make_resident()
        return cls(corpus, embedder, chroma=chroma, notes=notes)

    def query(self, text: str, *, k: int = 5, family: str | None = None, language: str | None = None,
              backend: str | None = None, code: str | None = None, depth: int = 50) -> list[Hit]:
        """Best k hits for a short text (symptom, diagnosis), optionally with the failing kernel's code.

        Rankings fused: dense(text), BM25(text) and, when code is given, BM25(code) with each distinct
        code token counted once (a whole kernel file would otherwise drown the symptom words).
        """
        if not self.n or k <= 0:
            return []
        allowed = self._mask(family=family, language=language, backend=backend)
        depth = max(depth, k)
        qvec = self.embedder.embed([text])[0]
        dense = _ranks(self._dense(qvec, depth, allowed))
        lexical = _ranks(top_positive(self.corpus.lexical_scores(text), depth, allowed))
        rankings = [dense, lexical]
        if code:
            rankings.append(_ranks(top_positive(self.corpus.lexical_scores(code, distinct=True), depth, allowed)))
        fused: dict[int, float] = {}
        for ranks in rankings:
            for row, rank in ranks.items():
                fused[row] = fused.get(row, 0.0) + 1.0 / (RRF_K + rank)
        best = sorted(fused, key=lambda r: (-fused[r], r))[:k]  # positions are in id order: ties go to the lower id
        return [self._hit(r, fused[r], dense.get(r), lexical.get(r)) for r in best]

    def rule_hits(self, text: str, *, code: str | None = None, family: str | None = None, language: str | None = None,
                  backend: str | None = None) -> list[Hit]:
        """The best-ranked entry of each distinct set of rules, in the order query(text, k=n, depth=n) ranks every
        entry (the same fused scores): entries whose rules equal a better-ranked one's are left out, since they
        propose nothing it does not (repair.workers.rules_worker tries each rule set's applications once)."""
        if not self.n:
            return []
        allowed = self._mask(family=family, language=language, backend=backend)
        qvec = self.embedder.embed([text])[0]
        scores = self.corpus.dense(qvec)
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)
        fused = np.zeros(self.n)
        seen = np.zeros(self.n, dtype=bool)
        dense_rank = np.zeros(self.n, dtype=np.int64)
        lexical_rank = np.zeros(self.n, dtype=np.int64)
        dense = _full_order(scores, np.isfinite(scores))
        lists = [(dense, dense_rank)]
        for distinct, source in ((False, text), (True, code)):
            if source:
                s = self.corpus.lexical_scores(source, distinct=distinct)
                if allowed is not None:
                    s = np.where(allowed, s, 0.0)
                lists.append((_full_order(s, s > 0), lexical_rank if not distinct else None))
        for order, ranks in lists:  # the same float64 sums, in the same order, as query()'s dict
            r = np.arange(1, len(order) + 1)
            fused[order] += 1.0 / (RRF_K + r)
            seen[order] = True
            if ranks is not None:
                ranks[order] = r
        pos = np.flatnonzero(seen)
        pos = pos[np.lexsort((pos, -fused[pos]))]
        _, groups = self.corpus.column("rules")
        g = groups[pos]
        pos, g = pos[g >= 0], g[g >= 0]
        _, first = np.unique(g, return_index=True)
        best = pos[np.sort(first)]
        return [self._hit(int(p), float(fused[p]), int(dense_rank[p]) or None, int(lexical_rank[p]) or None)
                for p in best]

    def _mask(self, **filters) -> np.ndarray | None:
        mask = None
        for col, value in filters.items():
            if value is None:
                continue
            labels, codes = self.corpus.column(col)
            m = codes == labels.get(language_key(value) if col == "language" else value, -1)  # AscendC == ascendc
            mask = m if mask is None else mask & m
        return mask

    def _dense(self, qvec, depth, allowed) -> list[tuple[int, float]]:
        # chromadb's `where` filter was 5-10x slower than exact search over the filtered rows (bench_kb:
        # p99 116 ms vs 11 ms at 10k), so filtered queries always take the exact path
        if self.chroma is None or allowed is not None:
            got = self.corpus.dense_top(qvec, depth, allowed)
            return got if got is not None else top_finite(self.corpus.dense(qvec), depth, allowed)
        if self._row_of is None:
            self._row_of = {self.corpus.id_at(p): p for p in range(self.n)}
        return [(self._row_of[i], s) for i, s in self.chroma.search(qvec, depth) if i in self._row_of]

    def _hit(self, row: int, score: float, dense_rank: int | None, lexical_rank: int | None) -> Hit:
        r = self.corpus.row(row)
        p = r["pattern"]
        return Hit(id=r["id"], score=round(score, 6), title=r["title"], bug_class=r["bug_class"], family=r["family"],
                   language=r["language"], backend=r["backend"], symptom=r["symptom_label"], fix=p["fix"],
                   before=p["before"], after=p["after"], rules=tuple(p.get("rules") or ()),
                   provenance=r["provenance"], dense_rank=dense_rank, lexical_rank=lexical_rank)


def top_finite(scores: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
    """[(position, score)] best first over the allowed positions (kbstore.vector.ExactIndex.search's selection)."""
    if not len(scores) or k <= 0:
        return []
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    k = min(k, int(np.isfinite(scores).sum()))
    if k == 0:
        return []
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.lexsort((top, -scores[top]))]  # ties broken by position (id order): deterministic
    return [(int(i), float(scores[i])) for i in top]


def top_positive(scores: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
    """[(position, BM25 score)] best first, positive scores only (kbstore.lexical.LexicalIndex.search's selection)."""
    if allowed is not None:
        scores = np.where(allowed, scores, 0.0)
    k = min(k, int((scores > 0).sum()))
    if k <= 0:
        return []
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.lexsort((top, -scores[top]))]
    return [(int(i), float(scores[i])) for i in top]


def _full_order(scores: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The kept positions, best score first, ties by position (what top_* give with k = all of them)."""
    pos = np.flatnonzero(keep)
    return pos[np.lexsort((pos, -scores[pos]))]


def open_corpus(paths: KBPaths, notes: list[str]) -> tuple[object, tuple[str | None, str | None]]:
    """The KB's corpus for retrieval and its recorded embedder (name, fingerprint): the mapped layout when it is the
    KB's current one; else it is caught up (or built) now when the write lock is free; while a writer holds it, the
    layout's last generation when it is of this KB (an older version: the writer is adding the next), else every row
    loaded here (load_corpus); each of the last two with a note."""
    from kbstore import layout

    root = layout.layout_dir(paths)
    key, recorded = _kb_key(paths)
    corpus = _open_generation(root, paths, lambda gen: layout.matches(gen, key))
    if corpus is not None:
        return corpus, recorded
    why = _catch_up_layout(paths)
    if why is None:
        key, recorded = _kb_key(paths)
        corpus = _open_generation(root, paths, lambda gen: layout.matches(gen, key))
        if corpus is not None:
            return corpus, recorded
        why = "a writer changed the KB while its mapped layout was brought up to date"
    same_kb = ("kb_id", "migrations", "embedder_fingerprint")
    corpus = _open_generation(root, paths, lambda gen: gen is not None and all(gen.get(k) == key[k] for k in same_kb)
                              and gen["kb_version"] <= key["kb_version"])
    if corpus is not None:
        notes.append(f"kb: note: {why}; answering from version {corpus.source['kb_version']} of the KB (its head is "
                     f"{key['kb_version']})")
        return corpus, recorded
    with Store.open(paths) as store:
        loaded = load_corpus(store)
    notes.append(f"kb: note: {why}; every entry is loaded for this query")
    return InMemory(loaded, int(loaded.matrix.shape[1]) if len(loaded.rows) else 0), recorded


def _kb_key(paths: KBPaths) -> tuple[dict, tuple[str | None, str | None]]:
    from kbstore.layout import kb_key

    with Store.open(paths) as store:
        return kb_key(store), (store.meta("embedder"), store.meta("embedder_fingerprint"))


def _open_generation(root: Path, paths: KBPaths, accept):
    """The current generation's corpus when accept(gen) holds, else None; read again if a writer replaced it while
    its files were being opened."""
    from kbstore.mapped import open_layout, read_generation

    for _ in range(5):
        gen = read_generation(root)
        if not accept(gen):
            return None
        try:
            return open_layout(root, gen, {"kb_path": str(paths.root), "kb_version": gen["kb_version"]})
        except (FileNotFoundError, ValueError):  # ValueError: a file shorter than its map (being replaced)
            continue
    return None


def _catch_up_layout(paths: KBPaths) -> str | None:
    """Bring the layout up to date under the write lock if it is free; None when done, else why not."""
    from kbstore.errors import LockHeld
    from kbstore.layout import update
    from kbstore.lock import write_lock

    try:
        with write_lock(paths.lock, wait_s=0, what="index (mapped layout)"):
            with Store.open(paths) as store:
                update(store, paths)
    except LockHeld:
        return "a writer holds the KB's lock, so its mapped layout is not brought up to date"
    except OSError as e:  # e.g. a KB directory this user cannot write: answer from memory
        return f"the mapped layout could not be written ({e.strerror or e})"
    return None


class _ByPosition:
    """A corpus's vectors indexed by position in id order, as kbstore.vector's probe reads a matrix."""

    def __init__(self, corpus):
        self.corpus = corpus

    def __len__(self) -> int:
        return self.corpus.n

    def __getitem__(self, positions):
        return self.corpus.vectors_at(np.asarray(positions))


def _probed_chroma(paths: KBPaths, corpus, notes: list[str]) -> ChromaIndex | None:
    """A private copy of the chromadb index, probed against the loaded vectors: no lock taken, nothing written. One
    that fails its probe is repaired from DuckDB when no writer is at work; while one is (the lock is taken), or if the
    repair fails, None: dense search is exact this time, and a note says so."""
    from kbstore.errors import LockHeld
    from kbstore.index import sync_index
    from kbstore.lock import write_lock

    ids = [corpus.id_at(p) for p in range(corpus.n)]
    matrix = _ByPosition(corpus)
    chroma = ChromaIndex(paths)
    drift = chroma.open_for_search(ids, matrix)
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
        drift = chroma.open_for_search(ids, matrix)
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


def search(kb: str | Path | None, text: str, *, k: int = 5, index: str = "exact", code: str | None = None,
           **filters) -> list[Hit]:
    """One-shot retrieval: open, query, done (`kb query` opens a Retriever itself, to print its notes)."""
    return Retriever.open(kb, index=index).query(text, k=k, code=code, **filters)
