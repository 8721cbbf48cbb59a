"""Reading retrieval state memory-mapped: a query touches what it scores and what it returns, not every row.

The live KB's layout (written by kbstore.layout under the write lock) lives in <kb>/mapped/:

    gen.json     the current generation, replaced atomically (temp + rename): what it was built from (KB id and
                 version, entry count, migrations, embedder), how many rows and bytes of each file are its own,
                 the filter labels, the lexical and fingerprint segments
    ids          entry ids, 64 ASCII bytes a row              \\
    vectors      float32 rows, L2-normalised                   |  append-only: a generation reads its first rows,
    codes        int32 a row: family, language, backend, rule  |  a writer appends after them
                 group (-1: no rules)                          |
    doclen       int32 a row: its BM25 document length         |
    rows.jsonl   each row's Store.retrieval_rows() row, canonical JSON (a snapshot's entries.jsonl line); a row
                 that changed (new evidence) is appended again /
    rowoff-*     int64 (offset, length) a row into rows.jsonl (a new file when a row changed)
    order-*      int32 rows sorted by id (a new file with every generation that adds rows)
    lex-*/       BM25 postings: token hash -> (row, term frequency), with the token's text (kbstore.postings)
    fp-*/        code fingerprints: fingerprint hash -> (row, representation, fingerprint id), one posting per hash
                 of each stored fingerprint, for kb freeze's overlap scan
    fpinfo       int32 a stored fingerprint, by id (append-only): its row, representation and language codes and
                 its count of distinct hashes (the scan computes every containment from these and the postings)

Rows are in id order when the layout is built and appended in ingest order after; `order` maps them back, so every
score a reader hands on is in id order, as the rows of an in-memory Corpus are (kbstore.retrieve gets the same ranks
from either). BM25 weights are computed at query time from the term frequencies, with bm25s's lucene arithmetic
(kbstore.lexical.lucene_scores), so an appended document changes no stored number.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from kbstore.lexical import B, K1, tokenize
from kbstore.postings import Segment, token_hash

SCHEMA = "kb.mapped/v2"  # v2: fingerprint postings per fingerprint (fid), fpinfo
GEN = "gen.json"
CODE_COLUMNS = ("family", "language", "backend", "rules")
ID_BYTES = 64
FPINFO = 4  # int32 a stored fingerprint in `fpinfo`: its row, representation code, language code, distinct hashes


CHUNK_ROWS = 16384  # rows per dense chunk: a multiple of every BLAS row block, 24 MiB of 384-dim vectors


def _release(arr, lo: int, hi: int) -> None:
    """Drop the pages of rows lo:hi of a memory-mapped matrix from this process (they stay in the page cache)."""
    import mmap

    mm = getattr(arr, "_mmap", None)
    if mm is None or not hasattr(mm, "madvise"):
        return
    row = arr.strides[0]
    base = arr.offset % mmap.ALLOCATIONGRANULARITY  # where the array starts in its mmap
    start = (base + lo * row) // mmap.PAGESIZE * mmap.PAGESIZE
    end = min(len(mm), -(-(base + hi * row) // mmap.PAGESIZE) * mmap.PAGESIZE)
    try:
        mm.madvise(mmap.MADV_DONTNEED, start, end - start)
    except (OSError, ValueError):
        pass


def read_generation(directory: Path) -> dict | None:
    try:
        gen = json.loads((Path(directory) / GEN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return gen if isinstance(gen, dict) and gen.get("schema") == SCHEMA else None


def _map(path: Path, dtype, shape):
    n = int(np.prod(shape))
    if n == 0:
        return np.zeros(shape, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", shape=shape)


class BM25Postings:
    """BM25 over term-frequency segments; scores() equals a kbstore.lexical.LexicalIndex built over the same documents
    (bm25s's lucene index, float32), bit for bit, in row order."""

    CACHE_POSTINGS = 4_000_000  # weighted postings kept per process (a warm server's repeated query words)

    def __init__(self, segments: list[Segment], doclen: np.ndarray, total_len: int):
        self.segments, self.doclen, self.size = segments, doclen, len(doclen)
        self.avg = np.float64(total_len) / self.size if self.size else 1.0  # np.mean of the lengths, exactly
        self._norm = None
        self._cache: dict[str, tuple | None] = {}  # insertion order = use order (least recent first)
        self._cached = 0

    def postings(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        """(rows, term frequencies) of a token, oldest segment first (a row is in one segment only)."""
        key = np.array([token_hash(token)], dtype=np.int64)
        rows, tfs = [], []
        for s in self.segments:
            i = int(s.find(key)[0])
            if i < 0 or s.key_text(i) != token:
                continue
            a, b = s.postings(i)
            rows.append(s.columns["row"][a:b])
            tfs.append(s.columns["tf"][a:b])
        if not rows:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32)
        return np.concatenate(rows), np.concatenate(tfs)

    def weighted(self, token: str) -> tuple | None:
        """(rows, float32 weights) of a token (kbstore.lexical.lucene_scores's arithmetic), or None when absent; rows as
        an index (intp, or a slice: see _index)."""
        if token in self._cache:
            got = self._cache.pop(token)  # moved to the end: most recently used
            self._cache[token] = got
            return got
        rows, tfs = self.postings(token)
        got = None
        if len(rows):
            if self._norm is None:
                self._norm = K1 * ((1 - B) + B * np.asarray(self.doclen).astype(np.float64) / self.avg)
            d = len(rows)
            idf = np.float32(math.log(1 + (self.size - d + 0.5) / (d + 0.5)))
            tf = tfs.astype(np.float32).astype(np.float64)
            got = (_index(rows), (np.float64(idf) * (tf / (self._norm[rows] + tf))).astype(np.float32))
        while self._cache and self._cached + len(rows) > self.CACHE_POSTINGS:  # least recently used out first
            old = self._cache.pop(next(iter(self._cache)))
            self._cached -= 0 if old is None else len(old[1])
        self._cache[token] = got
        self._cached += len(rows)
        return got

    def scores(self, query: str, *, distinct: bool = False) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float32)
        if not self.size:
            return out
        tokens = tokenize(query)
        if distinct:
            tokens = list(dict.fromkeys(tokens))
        for t in tokens:  # bm25s's accumulation: float32, token by token, in query order
            got = self.weighted(t)
            if got is not None:
                out[got[0]] += got[1]  # a token's rows are distinct: the same sums as np.add.at
        return out


def _index(rows: np.ndarray):
    """A token's rows as the cheapest index of the same elements: a slice when they are one run (a word every
    document has), else intp (int32 indexes are converted on every use: scoring a kernel's tokens took 2.3x as long)."""
    rows = np.asarray(rows, dtype=np.intp)
    if len(rows) and int(rows[-1]) - int(rows[0]) + 1 == len(rows) and bool(np.all(np.diff(rows) == 1)):
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


class MappedCorpus:
    """What a Retriever reads, memory-mapped: every array a query needs, in id order (see the module docstring)."""

    def __init__(self, *, ids, order, vectors, codes, labels: dict[str, list[str]], lexical, rows, source: dict,
                 embedder_fingerprint: str | None, generation: dict | None = None):
        self.ids, self.order, self.vectors, self.codes = ids, order, vectors, codes
        self.labels, self.lexical, self._rows, self.source = labels, lexical, rows, source
        self.embedder_fingerprint, self.generation = embedder_fingerprint, generation
        self.n = len(order)
        self._sorted_codes: dict[str, np.ndarray] = {}
        self._resident = None
        self._bound = None  # kbstore.clusters.ClusterBound of the resident vectors
        self._order_ix = None

    def dense(self, qvec: np.ndarray) -> np.ndarray:
        """Cosine similarity of every entry to qvec, in id order: the same float32 numbers as one product over the
        vectors in id order (kbstore.retrieve.InMemory's). The matrix is read chunk by chunk in id order (chunks a
        multiple of the BLAS kernel's row block, so each row's dot product is the one a single product gives), and
        a cold reader drops each chunk's pages after it (the peak memory of a cold `kb query` stays small)."""
        from kbstore.vector import one_blas_thread

        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        if self._bound is not None:
            return self._bound.dense(q)
        if self._resident is not None:
            with one_blas_thread():
                return self._resident @ q
        out = np.empty(self.n, dtype=np.float32)
        order = np.asarray(self.order)
        with one_blas_thread():
            for s in range(0, self.n, CHUNK_ROWS):
                idx = order[s:s + CHUNK_ROWS]
                lo, hi = int(idx.min()), int(idx.max()) + 1
                block = self.vectors[lo:hi] if hi - lo == len(idx) and bool(np.all(np.diff(idx) == 1)) \
                    else self.vectors[idx]
                out[s:s + len(idx)] = block @ q
                _release(self.vectors, lo, hi)
        return out

    def make_resident(self) -> None:
        """Copy the vectors into memory in id order (a warm process: the kernel cannot evict them, no gathers), and
        cluster them for dense_top (kbstore.clusters; a few CPU-seconds at 100k, once)."""
        if self._resident is None and self._bound is None and self.n:
            from kbstore.clusters import ClusterBound

            resident = np.ascontiguousarray(self.vectors[np.asarray(self.order)], dtype=np.float32)
            self._bound = ClusterBound.build(resident)
            if self._bound is None:  # too few rows, or this BLAS fails the bound's check: the id-ordered copy
                self._resident = resident

    def dense_top(self, qvec: np.ndarray, depth: int, allowed: np.ndarray | None = None):
        """kbstore.retrieve.top_finite(self.dense(qvec), depth, allowed) from the clusters a resident corpus's bound
        keeps (kbstore.clusters): the same positions and scores; None when it cannot say (score every row)."""
        return self._bound.top(qvec, depth, allowed) if self._bound is not None else None

    def lexical_scores(self, text: str, *, distinct: bool = False) -> np.ndarray:
        if self._order_ix is None:  # intp: an int32 index is converted on every use
            self._order_ix = np.asarray(self.order, dtype=np.intp)
        return self.lexical.scores(text, distinct=distinct)[self._order_ix]

    def column(self, name: str) -> tuple[dict[str, int], np.ndarray]:
        """(label -> code, each row's code in id order) of a filter column (rules: -1 none, else a rule group)."""
        codes = self._sorted_codes.get(name)
        if codes is None:
            codes = self._sorted_codes[name] = np.asarray(self.codes[:, CODE_COLUMNS.index(name)])[self.order]
        return {v: n for n, v in enumerate(self.labels.get(name, []))}, codes

    def row(self, pos: int) -> dict:
        """The retrieval row (kbstore.shape.shape_row) of the entry at position pos in id order."""
        from kbstore.shape import shape_row

        return shape_row(self.raw_row(pos))

    def raw_row(self, pos: int) -> dict:
        return json.loads(self._rows.line(int(self.order[pos])))

    def vectors_at(self, positions: np.ndarray) -> np.ndarray:
        return np.asarray(self.vectors[np.asarray(self.order)[positions]])

    def id_at(self, pos: int) -> str:
        got = self.ids[int(self.order[pos])]
        return got if isinstance(got, str) else bytes(got).decode("ascii")


class RowStore:
    """Lines of a JSONL file by row: (offset, length) pairs over a memory-mapped file."""

    def __init__(self, data, offsets):
        self.data, self.offsets = data, offsets

    def line(self, row: int) -> str:
        off, length = (int(x) for x in self.offsets[row])
        return bytes(self.data[off:off + length]).decode("utf-8")


def open_layout(directory: Path, gen: dict, source: dict) -> MappedCorpus:
    """The corpus of one generation; FileNotFoundError when a writer removed its files meanwhile (read gen.json again)."""
    d = Path(directory) / gen["base"]
    n, dim = int(gen["rows"]), int(gen["dim"])
    ids = _map(d / "ids", f"S{ID_BYTES}", (n,))
    vectors = _map(d / "vectors", "<f4", (n, dim))
    codes = _map(d / "codes", "<i4", (n, len(CODE_COLUMNS)))
    doclen = _map(d / "doclen", "<i4", (n,))
    order = _map(d / gen["order"], "<i4", (n,))
    offsets = _map(d / gen["rowoff"], "<i8", (n, 2))
    data = _map(d / "rows.jsonl", "u1", (int(gen["rows_bytes"]),))
    lex = gen["lexical"]
    lexical = BM25Postings([Segment(d / s) for s in lex["segments"]], doclen, int(lex["total_len"]))
    return MappedCorpus(ids=ids, order=order, vectors=vectors, codes=codes, labels=gen["labels"], lexical=lexical,
                        rows=RowStore(data, offsets), source=source, embedder_fingerprint=gen.get("embedder_fingerprint"),
                        generation=gen)


def fingerprint_lookup(directory: Path, gen: dict):
    """provenance.overlap_scan.scan_postings's lookup over the generation's fingerprint segments: hashes ->
    (index into hashes, row, representation, fingerprint id) of every posting."""
    d = Path(directory) / gen["base"]
    segments = [Segment(d / s) for s in gen["fingerprints"]["segments"]]

    def lookup(values: np.ndarray):
        out: list[tuple] = []
        for s in segments:
            pos = s.find(values)
            hit = np.flatnonzero(pos >= 0)
            if not len(hit):
                continue
            a = np.asarray(s.ptr[pos[hit]])
            cnt = np.asarray(s.ptr[pos[hit] + 1]) - a
            idx = _ranges(a, cnt)
            out.append((np.repeat(hit, cnt), np.asarray(s.columns["row"][idx]), np.asarray(s.columns["repr"][idx]),
                        np.asarray(s.columns["fid"][idx])))
        if not out:
            z = np.zeros(0, dtype=np.int64)
            return z, z, z, z
        return tuple(np.concatenate([o[k] for o in out]).astype(np.int64) for k in range(4))

    return lookup


def fingerprint_info(directory: Path, gen: dict) -> np.ndarray:
    """(fingerprints, 4) int32: each stored fingerprint's row, representation code, language code, distinct hashes."""
    d = Path(directory) / gen["base"]
    return _map(d / "fpinfo", "<i4", (int(gen["fingerprints"]["fids"]), FPINFO))


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """starts[i] .. starts[i] + lengths[i] - 1 for every i, end to end."""
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if len(ends) else 0
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(total)


BLOCK_BYTES = 16 << 20  # bytes copied at once into a snapshot's files


def _blocks(starts: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) ranges, in order, with each range that begins where the one before ends merged into it."""
    cut = np.flatnonzero(starts[1:] != ends[:-1]) + 1
    first, last = np.concatenate([[0], cut]), np.concatenate([cut, [len(starts)]]) - 1
    return list(zip(starts[first].tolist(), ends[last].tolist()))


class SnapshotSource:
    """A snapshot's data files written from the mapped layout (kb freeze): the included rows' lines copied from
    rows.jsonl, their vectors gathered, and their BM25 index computed from the term frequencies, in id order, a chunk
    at a time. positions: the included entries' positions in id order, ascending."""

    def __init__(self, corpus: MappedCorpus, positions: np.ndarray, chunk: int = 8192):
        self.corpus, self.positions, self.chunk = corpus, np.asarray(positions, dtype=np.int64), chunk
        self.rows = np.asarray(corpus.order)[self.positions]  # their rows in the layout
        self.n = len(self.positions)
        self.dim = int(corpus.vectors.shape[1]) if corpus.n else 0

    def write_entries(self, f) -> list[int]:
        """The included rows' lines, in id order; the length of each line (newline included). Lines that follow each
        other in rows.jsonl (a layout is built in id order) are copied as one block of bytes."""
        if not self.n:
            return []
        data = self.corpus._rows.data
        off = np.asarray(self.corpus._rows.offsets[self.rows], dtype=np.int64).reshape(-1, 2)
        starts, ends = off[:, 0], off[:, 0] + off[:, 1] + 1  # each line with the newline after it
        if len(data) < int(ends.max()) or not bool(np.all(np.asarray(data[ends - 1]) == 0x0A)):
            return self._write_lines(f)  # not the layout's own framing: read line by line
        for a, b in _blocks(starts, ends):
            for x in range(a, b, BLOCK_BYTES):
                f.write(bytes(data[x:min(b, x + BLOCK_BYTES)]))
        return (ends - starts).tolist()

    def _write_lines(self, f) -> list[int]:
        lens: list[int] = []
        store = self.corpus._rows
        for s in range(0, self.n, self.chunk):
            lines = [store.line(int(r)).encode("utf-8") + b"\n" for r in self.rows[s:s + self.chunk]]
            lens.extend(map(len, lines))
            f.write(b"".join(lines))
        return lens

    def write_vectors(self, f) -> None:
        """vectors.npy, byte for byte what np.save writes for the (n, dim) float32 matrix; rows that follow each other
        in the layout are copied as one block."""
        np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (self.n, self.dim)})
        if not self.n:
            return
        step = max(1, BLOCK_BYTES // max(1, 4 * self.dim))
        for a, b in _blocks(self.rows, self.rows + 1):
            for x in range(a, b, step):
                f.write(np.ascontiguousarray(self.corpus.vectors[x:min(b, x + step)], dtype="<f4").tobytes())

    def codes(self) -> tuple[np.ndarray, dict]:
        """The included rows' filter and rule codes (kbstore.mapped.CODE_COLUMNS), and their labels."""
        return np.asarray(self.corpus.codes[self.rows] if self.n else np.zeros((0, len(CODE_COLUMNS)), dtype="<i4")), \
            self.corpus.labels

    def lexical(self):
        """The included documents' BM25 index (kbstore.lexical.LexicalIndex), as a build over them would score."""
        from kbstore.lexical import LexicalIndex, _Scores

        index = LexicalIndex.from_tokens([])
        if not self.n:
            return index
        bm25 = self.corpus.lexical
        doc_of = np.full(self.corpus.n, -1, dtype=np.int64)
        doc_of[self.rows] = np.arange(self.n)
        lens = np.asarray(bm25.doclen[self.rows]).astype(np.int64)
        avg = np.float64(int(lens.sum())) / self.n
        keys, docs, tfs, texts = [], [], [], {}
        for seg in bm25.segments:
            doc = doc_of[np.asarray(seg.columns["row"])]
            keep = doc >= 0
            key = np.repeat(np.asarray(seg.keys), np.diff(np.asarray(seg.ptr)))[keep]
            keys.append(key)
            docs.append(doc[keep])
            tfs.append(np.asarray(seg.columns["tf"])[keep])
            used = np.unique(key)
            at = np.searchsorted(seg.keys, used)
            lo, hi = np.asarray(seg.textoff[at]), np.asarray(seg.textoff[at + 1])
            blob = bytes(seg.text)
            for k, a, b in zip(used.tolist(), lo.tolist(), hi.tolist()):
                texts.setdefault(k, blob[a:b].decode("utf-8"))
        key, doc, tf = (np.concatenate(x) for x in (keys, docs, tfs))
        order = np.lexsort((doc, key))
        key, doc, tf = key[order], doc[order], tf[order]
        distinct, first = np.unique(key, return_index=True)
        counts = np.diff(np.append(first, len(key)))
        # kbstore.lexical.lucene_scores's arithmetic over the included documents only
        idf = np.array([math.log(1 + (self.n - d + 0.5) / (d + 0.5)) for d in counts.tolist()], dtype=np.float32)
        tf64 = tf.astype(np.float32).astype(np.float64)
        norm = K1 * ((1 - B) + B * lens[doc].astype(np.float64) / avg)
        data = (np.repeat(idf, counts).astype(np.float64) * (tf64 / (norm + tf64))).astype(np.float32)
        indptr = np.zeros(len(distinct) + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        vocab = {texts[k]: n for n, k in enumerate(distinct.tolist())}
        vocab[""] = len(vocab)  # bm25s's create_empty_token (kbstore.lexical._bm25 keeps it too)
        scores = {"data": data, "indices": doc.astype(np.int32), "indptr": indptr, "num_docs": self.n}
        index._set(self.n, _Scores(scores, vocab))
        return index


def open_snapshot_corpus(path: Path, manifest, vectors, lexical, source: dict) -> MappedCorpus:
    """A snapshot's corpus over its files (their digests checked by kbstore.snapshot): ids from its identity (sorted, as
    its rows are), vectors.npy, its BM25 cache and rows/ cache mapped; a query reads the lines it returns."""
    d = Path(path)
    ids = manifest.identity.entries
    n = len(ids)
    offsets = _map(d / "rows" / "offsets", "<i8", (n, 2))
    data = _map(d / "entries.jsonl", "u1", ((d / "entries.jsonl").stat().st_size,))
    codes = _map(d / "rows" / "codes", "<i4", (n, len(CODE_COLUMNS)))
    labels = json.loads((d / "rows" / "labels.json").read_text(encoding="utf-8"))
    return MappedCorpus(ids=ids, order=np.arange(n, dtype=np.int32), vectors=vectors, codes=codes, labels=labels,
                        lexical=lexical, rows=RowStore(data, offsets), source=source,
                        embedder_fingerprint=manifest.embedder.get("fingerprint"))
