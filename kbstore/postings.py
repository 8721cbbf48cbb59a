"""Sorted postings on disk: an int64 key (a hash) -> rows of values, in immutable segments that are appended and merged.

The live KB's mapped layout (kbstore.layout) keeps two such indexes: BM25 term frequencies (key: a token's hash,
values: the document's row and the token's count in it; each key also keeps its token's text) and the stored code
fingerprints (key: a fingerprint hash, values: the entry's row and the representation). A segment is a directory of
raw little-endian arrays, memory-mapped by readers: `keys` (sorted, distinct), `ptr` (len(keys) + 1: key i's postings
are ptr[i]:ptr[i+1]), one file per value column in key order, and for text keys `text` and `textoff`. A writer never
changes a segment: an ingest adds a small one, and merge() combines neighbours into a new one key range by key range
(bounded memory: the 100,000-entry fingerprint index is ~20 M postings), so a KB grows by appends and logarithmically
many rewrites, never by rebuilding over every entry.
"""
from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

import numpy as np

META = "meta.json"
MERGE_CHUNK = 2_000_000  # postings held at once while merging


def token_hash(text: str) -> int:
    """A token's key: the first 8 bytes of its blake2b, as a signed int64 (collisions are checked against its text)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)


class Segment:
    """One segment, memory-mapped (read only)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.meta = json.loads((self.path / META).read_text(encoding="utf-8"))
        self.n_keys, self.n_postings = int(self.meta["keys"]), int(self.meta["postings"])
        self.keys = _map(self.path / "keys", "<i8", self.n_keys)
        self.ptr = _map(self.path / "ptr", "<i8", self.n_keys + 1)
        self.columns = {c: _map(self.path / c, dt, self.n_postings) for c, dt in self.meta["columns"].items()}
        self.has_text = bool(self.meta.get("text"))
        if self.has_text:
            self.textoff = _map(self.path / "textoff", "<i8", self.n_keys + 1)
            self.text = _map(self.path / "text", "u1", int(self.textoff[-1]) if self.n_keys else 0)

    @property
    def name(self) -> str:
        return self.path.name

    def find(self, keys: np.ndarray) -> np.ndarray:
        """The index of each key in this segment, or -1."""
        keys = np.asarray(keys, dtype=np.int64)
        if not self.n_keys or not len(keys):
            return np.full(len(keys), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.keys, keys), self.n_keys - 1)
        return np.where(self.keys[pos] == keys, pos, -1)

    def key_text(self, i: int) -> str:
        return bytes(self.text[int(self.textoff[i]):int(self.textoff[i + 1])]).decode("utf-8")

    def postings(self, i: int) -> tuple[int, int]:
        return int(self.ptr[i]), int(self.ptr[i + 1])


def _map(path: Path, dtype: str, n: int):
    if n == 0:
        return np.zeros(0, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", shape=(n,))


class SegmentWriter:
    """Writes a segment in key order, chunk by chunk, into a fresh directory under parent; finish() makes it durable."""

    def __init__(self, parent: Path, prefix: str, columns: dict[str, str], text: bool = False):
        self.path = Path(parent) / f"{prefix}-{uuid.uuid4().hex[:12]}"
        self.path.mkdir(parents=True)
        self.columns, self.text = dict(columns), text
        self._files = {name: open(self.path / name, "wb") for name in ("keys", "ptr", *columns, *(("text", "textoff") if text else ()))}
        self._files["ptr"].write(np.zeros(1, dtype="<i8").tobytes())
        if text:
            self._files["textoff"].write(np.zeros(1, dtype="<i8").tobytes())
        self.n_keys = self.n_postings = self.n_text = 0

    def add(self, keys: np.ndarray, counts: np.ndarray, values: dict[str, np.ndarray], texts: list[str] | None = None):
        """Distinct keys (ascending, above every key added before), their posting counts and the postings' values."""
        if not len(keys):
            return
        self._files["keys"].write(np.asarray(keys, dtype="<i8").tobytes())
        self._files["ptr"].write((self.n_postings + np.cumsum(counts, dtype=np.int64)).astype("<i8").tobytes())
        for c, dt in self.columns.items():
            self._files[c].write(np.asarray(values[c], dtype=dt).tobytes())
        if self.text:
            blobs = [t.encode("utf-8") for t in texts]
            lens = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
            self._files["text"].write(b"".join(blobs))
            self._files["textoff"].write((self.n_text + np.cumsum(lens)).astype("<i8").tobytes())
            self.n_text += int(lens.sum())
        self.n_keys += len(keys)
        self.n_postings += int(np.sum(counts))

    def finish(self) -> str:
        for f in self._files.values():
            f.flush()
            os.fsync(f.fileno())
            f.close()
        meta = {"schema": "kb.postings/v1", "keys": self.n_keys, "postings": self.n_postings, "columns": self.columns,
                "text": self.text}
        with open(self.path / META, "w", encoding="utf-8") as f:
            json.dump(meta, f, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        _fsync_dir(self.path)
        return self.path.name

    def abort(self) -> None:
        import shutil

        for f in self._files.values():
            f.close()
        shutil.rmtree(self.path, ignore_errors=True)


def write(parent: Path, prefix: str, keys: np.ndarray, values: dict[str, np.ndarray], columns: dict[str, str],
          texts: dict[int, str] | None = None) -> str:
    """A segment of postings given in any order (one key per posting); postings of a key keep their given order.
    texts: key -> its text, for every key (text segments). Returns the segment's directory name."""
    keys = np.asarray(keys, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    distinct, counts = _runs(k)
    w = SegmentWriter(parent, prefix, columns, text=texts is not None)
    try:
        w.add(distinct, counts, {c: np.asarray(values[c])[order] for c in columns},
              [texts[int(x)] for x in distinct.tolist()] if texts is not None else None)
        return w.finish()
    except BaseException:
        w.abort()
        raise


def merge(parent: Path, prefix: str, segments: list[Segment], chunk: int = MERGE_CHUNK) -> str:
    """One segment holding every posting of `segments` (in their order within a key: list older segments first),
    written key range by key range, so memory stays about `chunk` postings whatever the total."""
    columns = segments[0].meta["columns"]
    text = segments[0].has_text
    total = sum(s.n_postings for s in segments)
    n_ranges = max(1, -(-total // chunk))
    bounds = _key_bounds(n_ranges)
    w = SegmentWriter(parent, prefix, columns, text=text)
    try:
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            parts = []
            for s in segments:
                a, b = (np.searchsorted(s.keys, x, side="left") if x is not None else s.n_keys for x in (lo, hi))
                if b > a:
                    parts.append((s, int(a), int(b)))
            if not parts:
                continue
            keys = np.concatenate([np.repeat(np.asarray(s.keys[a:b]), np.diff(np.asarray(s.ptr[a:b + 1]))) for s, a, b in parts])
            vals = {c: np.concatenate([np.asarray(s.columns[c][s.ptr[a]:s.ptr[b]]) for s, a, b in parts]) for c in columns}
            order = np.argsort(keys, kind="stable")
            distinct, counts = _runs(keys[order])
            texts = None
            if text:
                texts_of: dict[int, str] = {}
                for s, a, b in parts:
                    off = np.asarray(s.textoff[a:b + 1])
                    blob = bytes(s.text[off[0]:off[-1]])
                    for key, x, y in zip(np.asarray(s.keys[a:b]).tolist(), (off[:-1] - off[0]).tolist(),
                                         (off[1:] - off[0]).tolist()):
                        texts_of.setdefault(key, blob[x:y].decode("utf-8"))
                texts = [texts_of[x] for x in distinct.tolist()]
            w.add(distinct, counts, {c: v[order] for c, v in vals.items()}, texts)
        return w.finish()
    except BaseException:
        w.abort()
        raise


def _key_bounds(n: int) -> list:
    """n key ranges over the int64 hashes, as searchsorted bounds (None: the end)."""
    if n <= 1:
        return [np.int64(np.iinfo(np.int64).min), None]
    edges = np.linspace(float(np.iinfo(np.int64).min), float(np.iinfo(np.int64).max), n + 1)[1:-1]
    return [np.int64(np.iinfo(np.int64).min), *(np.int64(int(e)) for e in edges), None]


def _runs(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values, run lengths) of a sorted array."""
    if not len(sorted_keys):
        return sorted_keys[:0], np.zeros(0, dtype=np.int64)
    first = np.ones(len(sorted_keys), dtype=bool)
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return sorted_keys[starts], np.diff(np.append(starts, len(sorted_keys)))


def plan_merges(sizes: list[int], factor: int = 2, max_segments: int = 16) -> int:
    """How many trailing segments to merge after an append (0: none): while the newest segments together reach
    1/factor of the one before them, they join it (sizes stay geometric: log-many segments, each posting rewritten
    log-many times), and never more than max_segments are kept."""
    k = 1
    while k < len(sizes) and (sum(sizes[-k:]) * factor >= sizes[-k - 1] or len(sizes) - k >= max_segments):
        k += 1
    return k if k > 1 else 0


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
