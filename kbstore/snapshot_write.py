"""Writing a snapshot (kbstore.snapshot has the layout): every file written once, streamed, hashed as it is written.

A freeze hands over a source of the included entries: RowsSource (rows read from DuckDB, the BM25 cache built by
kbstore.snapshot_lexical) or kbstore.mapped.SnapshotSource (lines, vectors and BM25 postings of the live KB's mapped
layout: nothing is serialised or tokenised again). Both write the same entries.jsonl and vectors.npy bytes, so the
same KB frozen against the same cohort gets the same id either way. Besides the lexical cache, a snapshot now carries a
`rows/` cache (each line's offset and length in entries.jsonl, the entries' filter and rule codes and their labels),
recorded with its digests like the lexical one: with both, opening the snapshot maps its files and reads only the
lines a query returns (kbstore.snapshot.Snapshot).
"""
from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from pathlib import Path

import numpy as np

from kbstore.paths import KBPaths
from kbstore.snapshot import (ENTRIES, LEXICAL, MANIFEST, ROWS, VECTORS, SnapshotManifest, _digest_synced, _fsync_dir,
                              _make_read_only, _remove, _remove_stale, exclusions_sha256, kb_store, read_manifest,
                              snapshots_dir)
from provenance.canonical import canonical_json


class RowsSource:
    """The included entries as Store.retrieval_rows() rows (sorted by id) and their vectors, held in memory."""

    def __init__(self, raw_rows: list[dict], matrix, lexical=None):
        """lexical(directory): writes the BM25 cache of raw_rows (default: built here by kbstore.snapshot_lexical)."""
        self.raw_rows, self.matrix, self._lexical = raw_rows, matrix, lexical
        self.n = len(raw_rows)

    def write_entries(self, f) -> list[int]:
        lens = []
        for s in range(0, self.n, 4096):
            lines = [(canonical_json(r) + "\n").encode("utf-8") for r in self.raw_rows[s:s + 4096]]
            lens.extend(map(len, lines))
            f.write(b"".join(lines))
        return lens

    def write_vectors(self, f) -> None:
        np.save(f, np.ascontiguousarray(self.matrix, dtype="<f4"), allow_pickle=False)

    def codes(self) -> tuple[np.ndarray, dict]:
        from kbstore.mapped import CODE_COLUMNS
        from provenance.parsing import language_key

        labels: dict[str, dict[str, int]] = {c: {} for c in CODE_COLUMNS[:3]}
        rules: dict[str, int] = {}
        out = np.empty((self.n, len(CODE_COLUMNS)), dtype="<i4")
        for n, r in enumerate(self.raw_rows):
            values = (r.get("family") or "", language_key(r.get("language")), r.get("backend") or "")
            out[n, :3] = [labels[c].setdefault(v, len(labels[c])) for c, v in zip(CODE_COLUMNS, values)]
            got = json.loads(r["canonical_json"]).get("rules")
            out[n, 3] = rules.setdefault(canonical_json(got), len(rules)) if got else -1
        return out, {c: list(v) for c, v in labels.items()}

    def write_lexical(self, directory: Path) -> None:
        if self._lexical is None:
            from kbstore.snapshot_lexical import LexicalBuilder

            builder = LexicalBuilder([r["lexical_text"] for r in self.raw_rows], workers=1)
            builder.build(list(range(self.n)), directory)
        else:
            self._lexical(directory)


def write_snapshot(kb: KBPaths, source, manifest: SnapshotManifest) -> tuple[Path, SnapshotManifest, bool]:
    """Write entries, vectors and the caches from source (RowsSource or kbstore.mapped.SnapshotSource), fill in the
    identity's data digests, the id and the seal; (path, manifest, created). The manifest comes in with everything but
    data digests, exclusions digest, id, caches and seal. A snapshot of the same content frozen before is kept as it
    is (its own labels and time) and this one discarded."""
    root = snapshots_dir(kb)
    root.mkdir(parents=True, exist_ok=True)
    _remove_stale(root)
    with kb_store(kb) as store:
        kb_id = manifest.kb_id or (store.meta("kb_id") if store else None)
    tmp = root / f".tmp-{uuid.uuid4().hex[:12]}"
    tmp.mkdir()
    try:
        with _Hashed(tmp / ENTRIES) as f:
            lens = source.write_entries(f)
        entries_sha = f.hexdigest
        with _Hashed(tmp / VECTORS) as f:
            source.write_vectors(f)
        ident = manifest.identity.model_copy(update={
            "data": {ENTRIES: entries_sha, VECTORS: f.hexdigest},
            "exclusions_sha256": exclusions_sha256(manifest.rules, manifest.excluded)})
        final = root / ident.snapshot_id()
        if final.is_dir():  # frozen before
            _remove(tmp)
            return final, read_manifest(final), False
        t0 = time.perf_counter()
        if hasattr(source, "lexical"):
            source.lexical().save(tmp / LEXICAL)
        else:
            source.write_lexical(tmp / LEXICAL)
        lex_files = {f"{LEXICAL}/{p.name}": _digest_synced(p) for p in sorted((tmp / LEXICAL).iterdir())}
        _fsync_dir(tmp / LEXICAL)
        lexical_s = time.perf_counter() - t0
        rows_files = _write_rows_cache(tmp / ROWS, lens, *source.codes())
        manifest = manifest.model_copy(update={
            "identity": ident, "id": ident.snapshot_id(), "kb_id": kb_id,
            "caches": {LEXICAL: {"files": lex_files, "built_from": entries_sha},
                       ROWS: {"files": rows_files, "built_from": entries_sha}},
            "timings": {**manifest.timings, "lexical_cache_s": round(lexical_s, 3)}})
        manifest.seal = manifest.compute_seal()
        with _Hashed(tmp / MANIFEST) as f:
            f.write(manifest_text(manifest.dump()).encode())
        _fsync_dir(tmp)
        _make_read_only(tmp)
        try:
            os.rename(tmp, final)  # atomic; fails when the same snapshot exists (or another freeze just made it)
        except OSError:
            if not final.is_dir():
                raise
            _remove(tmp)
            return final, read_manifest(final), False
        _fsync_dir(root)
        return final, manifest, True
    except BaseException:
        if tmp.exists():
            _remove(tmp)
        raise


def manifest_text(d: dict) -> str:
    """manifest.json: one top-level key a line, each value compact (json's C encoder; with indent it encodes in Python,
    seconds for the 100,000 ids of a large snapshot's identity)."""
    items = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}" for k, v in sorted(d.items())]
    return "{\n" + ",\n".join(items) + "\n}\n"


def _write_rows_cache(d: Path, lens: list[int], codes: np.ndarray, labels: dict) -> dict[str, str]:
    """rows/offsets (int64 offset and length, newline excluded, of each line), rows/codes, rows/labels.json; digests."""
    d.mkdir()
    lens_arr = np.asarray(lens, dtype=np.int64)
    offsets = np.stack([np.cumsum(lens_arr) - lens_arr, lens_arr - 1], axis=1) if len(lens) else np.zeros((0, 2), np.int64)
    out = {}
    for name, blob in (("offsets", offsets.astype("<i8").tobytes()), ("codes", np.asarray(codes, dtype="<i4").tobytes()),
                       ("labels.json", json.dumps(labels, sort_keys=True).encode())):
        with _Hashed(d / name) as f:
            f.write(blob)
        out[f"{ROWS}/{name}"] = f.hexdigest
    _fsync_dir(d)
    return out


class _Hashed:
    """A file opened for writing that hashes (sha256) what goes through it, then is made durable."""

    def __init__(self, path: Path):
        self.path, self._h, self.hexdigest = path, hashlib.sha256(), ""

    def __enter__(self) -> "_Hashed":
        self._f = open(self.path, "wb")
        return self

    def write(self, data) -> int:
        self._h.update(data)
        return self._f.write(data)

    def __exit__(self, *exc) -> None:
        self._f.flush()
        os.fsync(self._f.fileno())
        self._f.close()
        self.hexdigest = self._h.hexdigest()
