"""Writing the live KB's mapped layout (kbstore.mapped): built once from DuckDB, then caught up by appending.

DuckDB stays the truth; the layout is a cache of it, keyed by what it was built from (the KB's id, head version,
entry count, applied migrations and embedder). Writers hold the KB write lock. update() compares the key: a layout of
the same KB at an older version is caught up with what the versions since added (new entries appended; entries with
new evidence get their row appended again; new fingerprints indexed); anything else (no layout, another KB, a
migration since, counts that do not add up, files shorter than recorded) is rebuilt, chunk by chunk, in id order.
Appending writes after the bytes the current generation owns (a killed writer's leftovers are cut off first), small
new postings segments merge with their neighbours geometrically (kbstore.postings), and the new generation is
published by replacing gen.json atomically: a reader maps generation N or N+1, never half of one. Files no
generation in use names are removed afterwards (a reader's mapped files stay readable; one that finds a file gone
reads gen.json again).
"""
from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import numpy as np

from kbstore.faults import kill_point
from kbstore.mapped import CODE_COLUMNS, FPINFO, GEN, ID_BYTES, SCHEMA, read_generation
from kbstore.postings import Segment, merge, plan_merges, token_hash, write
from provenance.canonical import canonical_json, sha256_text

CHUNK = 5000  # entries read from DuckDB at once while building
LEX_COLUMNS = {"row": "<i4", "tf": "<i4"}
FP_COLUMNS = {"row": "<i4", "repr": "i1", "fid": "<i4"}
APPEND_FILES = ("ids", "vectors", "codes", "doclen", "rows.jsonl", "fpinfo")


def layout_dir(kb) -> Path:
    return kb.root / "mapped"


def kb_key(store) -> dict:
    """What a layout must have been built from to answer for the KB open in store."""
    from kbstore.migrations import applied_names

    return {"kb_id": store.meta("kb_id"), "kb_version": store.head_version(), "entries": store.count("entries"),
            "migrations": applied_names(store.con), "embedder_fingerprint": store.meta("embedder_fingerprint")}


def matches(gen: dict | None, key: dict) -> bool:
    return gen is not None and all(gen.get(k) == v for k, v in key.items())


def update(store, kb) -> str:
    """Bring the layout in line with the KB open in store (caller holds the write lock); a line saying what was done."""
    root = layout_dir(kb)
    key = kb_key(store)
    gen = read_generation(root)
    if matches(gen, key) and _intact(root, gen):
        return f"mapped: current (generation {gen['generation']})"
    if gen is not None and _can_catch_up(gen, key) and _intact(root, gen):
        added, changed = _catch_up(store, root, gen, key)
        if added is not None:
            return f"mapped: +{added} rows, {changed} updated (generation {gen['generation'] + 1})"
    n = _rebuild(store, root, gen, key)
    return f"mapped: rebuilt ({n} rows)"


def rebuild(store, kb) -> int:
    """The layout rebuilt from DuckDB whatever its state (`kb reindex`, `kb verify --repair`); rows written."""
    root = layout_dir(kb)
    return _rebuild(store, root, read_generation(root), kb_key(store))


def _can_catch_up(gen: dict, key: dict) -> bool:
    same = all(gen.get(k) == key[k] for k in ("kb_id", "migrations", "embedder_fingerprint"))
    return same and gen.get("kb_version", 0) <= key["kb_version"]


def _intact(root: Path, gen: dict) -> bool:
    """Every file the generation names is there, at least as long as it says (a cheap structural probe)."""
    d = root / str(gen.get("base"))
    n, dim = int(gen["rows"]), int(gen["dim"])
    need = {"ids": n * ID_BYTES, "vectors": n * dim * 4, "codes": n * len(CODE_COLUMNS) * 4, "doclen": n * 4,
            "rows.jsonl": int(gen["rows_bytes"]), gen["rowoff"]: n * 16, gen["order"]: n * 4,
            "fpinfo": int(gen["fingerprints"]["fids"]) * FPINFO * 4}
    try:
        if any((d / name).stat().st_size < size for name, size in need.items()):
            return False
        return all((d / s / "meta.json").is_file() for s in gen["lexical"]["segments"] + gen["fingerprints"]["segments"])
    except OSError:
        return False


class _Appender:
    """One generation's appends and new files, published at the end."""

    def __init__(self, root: Path, gen: dict | None, key: dict, dim: int, base: str | None = None):
        self.root, self.key, self.dim = root, key, dim
        self.prev = gen
        fresh = gen is None
        self.base = base or gen["base"]
        self.d = d = root / self.base
        d.mkdir(parents=True, exist_ok=True)
        self.rows = 0 if fresh else int(gen["rows"])  # (a rebuild passes gen=None and sets prev after)
        self.rows_bytes = 0 if fresh else int(gen["rows_bytes"])
        self.labels = {c: [] for c in CODE_COLUMNS[:3]} if fresh else {c: list(v) for c, v in gen["labels"].items()}
        self.lex = {"segments": [], "sizes": [], "total_len": 0} if fresh else json.loads(json.dumps(gen["lexical"]))
        self.fp = ({"segments": [], "sizes": [], "entries": 0, "keys": [], "fids": 0} if fresh
                   else json.loads(json.dumps(gen["fingerprints"])))
        self.fp_keys = {tuple(k) for k in self.fp["keys"]}
        self.new_files: list[str] = []
        self.files = {name: open(d / name, "r+b" if (d / name).exists() else "w+b") for name in APPEND_FILES}
        sizes = {"ids": self.rows * ID_BYTES, "vectors": self.rows * dim * 4, "codes": self.rows * len(CODE_COLUMNS) * 4,
                 "doclen": self.rows * 4, "rows.jsonl": self.rows_bytes, "fpinfo": int(self.fp["fids"]) * FPINFO * 4}
        for name, f in self.files.items():  # a killed writer's leftovers are cut off
            f.truncate(sizes[name])
            f.seek(sizes[name])
        self.rulekeys = _read_lines(d / "rulekeys") if not fresh else []
        self._rulecode = {k: n for n, k in enumerate(self.rulekeys)}
        self._new_rulekeys: list[str] = []
        self.offsets: list[tuple[int, int]] = []  # (offset, length) of each appended row line
        self.gnum = 1 if gen is None else int(gen["generation"]) + 1
        self.replaced: dict[int, tuple[int, int]] = {}  # existing row -> its new line

    def close(self) -> None:
        for f in self.files.values():
            f.close()

    def code(self, column: str, value: str) -> int:
        labels = self.labels[column]
        try:
            return labels.index(value)
        except ValueError:
            labels.append(value)
            return len(labels) - 1

    def rule_code(self, rules) -> int:
        if not rules:
            return -1
        k = sha256_text(canonical_json(rules))
        if k not in self._rulecode:
            self._rulecode[k] = len(self.rulekeys)
            self.rulekeys.append(k)
            self._new_rulekeys.append(k)
        return self._rulecode[k]

    def line(self, raw: dict) -> tuple[int, int]:
        blob = (canonical_json(raw) + "\n").encode("utf-8")
        at = self.rows_bytes
        self.files["rows.jsonl"].write(blob)
        self.rows_bytes += len(blob)
        return at, len(blob) - 1

    def add_rows(self, raw_rows: list[dict], vectors: np.ndarray, doclens: np.ndarray) -> None:
        from provenance.parsing import language_key

        codes = np.empty((len(raw_rows), len(CODE_COLUMNS)), dtype="<i4")
        for n, r in enumerate(raw_rows):
            rules = json.loads(r["canonical_json"]).get("rules")
            codes[n] = (self.code("family", r.get("family") or ""), self.code("language", language_key(r.get("language"))),
                        self.code("backend", r.get("backend") or ""), self.rule_code(rules))
            self.offsets.append(self.line(r))
        self.files["ids"].write(b"".join(r["id"].encode("ascii").ljust(ID_BYTES, b"\0") for r in raw_rows))
        self.files["vectors"].write(np.ascontiguousarray(vectors, dtype="<f4").tobytes())
        self.files["codes"].write(codes.tobytes())
        self.files["doclen"].write(np.asarray(doclens, dtype="<i4").tobytes())
        self.rows += len(raw_rows)

    def add_segment(self, which: str, name: str, size: int) -> None:
        self.new_files.append(name)
        index = self.lex if which == "lex" else self.fp
        index["segments"].append(name)
        index["sizes"].append(size)

    def publish(self, ids_sorted_rows: np.ndarray, fp_entries: int) -> dict:
        """Make everything durable, merge segments, write order and offsets, replace gen.json; the new generation."""
        for f in self.files.values():
            f.flush()
            os.fsync(f.fileno())
            f.close()
        if self._new_rulekeys:
            with open(self.d / "rulekeys", "a", encoding="ascii") as f:
                f.write("".join(k + "\n" for k in self._new_rulekeys))
                f.flush()
                os.fsync(f.fileno())
        for which, index, prefix in (("lex", self.lex, "lex"), ("fp", self.fp, "fp")):
            self._merge(index, prefix)
        gnum = self.gnum
        order = f"order-{gnum}-{uuid.uuid4().hex[:8]}"
        _write_array(self.d / order, np.asarray(ids_sorted_rows, dtype="<i4"))
        rowoff = self._offsets(gnum)
        self.fp["entries"], self.fp["keys"] = fp_entries, sorted(list(k) for k in self.fp_keys)
        gen = {"schema": SCHEMA, "generation": gnum, **self.key, "base": self.base, "rows": self.rows, "dim": self.dim,
               "rows_bytes": self.rows_bytes, "order": order, "rowoff": rowoff, "labels": self.labels,
               "lexical": self.lex, "fingerprints": self.fp}
        gen["files"] = sorted({order, rowoff, *self.lex["segments"], *self.fp["segments"]})
        kill_point("before-layout-publish")
        _fsync_dir(self.d)
        tmp = self.root / f".gen-{uuid.uuid4().hex[:8]}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(gen, f, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.root / GEN)
        _fsync_dir(self.root)
        _remove_unused(self.root, gen, self.prev)
        return gen

    def _merge(self, index: dict, prefix: str) -> None:
        k = plan_merges(index["sizes"])
        if not k:
            return
        segs = [Segment(self.d / s) for s in index["segments"][-k:]]
        name = merge(self.d, prefix, segs)
        index["segments"][-k:] = [name]
        index["sizes"][-k:] = [sum(s.n_postings for s in segs)]

    def _offsets(self, gnum: int) -> str:
        new = np.asarray(self.offsets, dtype="<i8").reshape(-1, 2)
        same = self.prev is not None and self.prev.get("base") == self.base
        if same and not self.replaced:
            name = self.prev["rowoff"]
            with open(self.d / name, "r+b") as f:
                f.truncate((self.rows - len(new)) * 16)
                f.seek(0, os.SEEK_END)
                f.write(new.tobytes())
                f.flush()
                os.fsync(f.fileno())
            return name
        name = f"rowoff-{gnum}-{uuid.uuid4().hex[:8]}"
        old = np.zeros((0, 2), dtype="<i8") if not same else \
            np.fromfile(self.d / self.prev["rowoff"], dtype="<i8", count=2 * int(self.prev["rows"])).reshape(-1, 2)
        for row, where in self.replaced.items():
            old[row] = where
        _write_array(self.d / name, np.concatenate([old, new]))
        return name


def _rebuild(store, root: Path, old_gen: dict | None, key: dict) -> int:
    """The layout from scratch in a fresh base directory, rows in id order, chunk by chunk; published over the old
    generation, whose directory goes once no generation in use names it."""
    from kbstore.store import entry_range

    root.mkdir(parents=True, exist_ok=True)
    app = _Appender(root, None, key, _dim(store), base=f"b-{uuid.uuid4().hex[:12]}")
    app.prev = old_gen
    app.gnum = 1 + (int(old_gen["generation"]) if old_gen else 0)
    try:
        for lo, hi in store.entry_chunks(CHUNK):
            where, params = entry_range(lo, hi)
            _append_chunk(store, app, store.retrieval_rows(where, params), where, params)
            kill_point("during-layout-build")
        n = app.rows
        app.publish(np.arange(n, dtype=np.int32), _fingerprint_entries(store))
    except BaseException:
        app.close()
        import shutil

        shutil.rmtree(app.d, ignore_errors=True)
        raise
    return n


def _append_chunk(store, app: _Appender, raw_rows: list[dict], where: str, params: list) -> None:
    """Rows (sorted by id) with their vectors, BM25 postings and fingerprints appended as the next rows."""
    ids, matrix, _ = store.embeddings(where, params)
    if ids != [r["id"] for r in raw_rows]:
        from kbstore.errors import IntegrityFailure

        raise IntegrityFailure(f"{store.paths.root}: entries and embeddings differ; run `kb verify`")
    first = app.rows
    doclens = _lexical_segment(app, [r["lexical_text"] for r in raw_rows], first)
    app.add_rows(raw_rows, matrix.reshape(len(raw_rows), app.dim), doclens)
    rows = {r["id"]: first + n for n, r in enumerate(raw_rows)}
    _fingerprint_segment(store, app, where, params, rows)


def _lexical_segment(app: _Appender, documents: list[str], first_row: int) -> np.ndarray:
    """A segment of the documents' term frequencies (rows first_row...); their BM25 lengths."""
    from kbstore.snapshot_lexical import token_ids

    if not documents:
        return np.zeros(0, dtype=np.int32)
    tok = token_ids(documents)
    flat, lens = tok.documents(list(range(len(documents))))
    n_docs = len(documents)
    pairs = flat * n_docs + np.repeat(np.arange(n_docs), lens)
    pairs.sort()
    first = np.ones(len(pairs), dtype=bool)
    np.not_equal(pairs[1:], pairs[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    tf = np.diff(np.append(starts, len(pairs)))
    token, doc = pairs[starts] // n_docs, pairs[starts] % n_docs
    words = list(tok.vocab)
    hashes = np.array([token_hash(w) for w in words], dtype=np.int64)
    texts = {int(hashes[t]): words[t] for t in np.unique(token).tolist()}
    name = write(app.d, "lex", hashes[token], {"row": doc + first_row, "tf": tf}, LEX_COLUMNS, texts)
    app.add_segment("lex", name, len(token))
    app.lex["total_len"] += int(lens.sum())
    return lens


def _fingerprint_segment(store, app: _Appender, where: str, params: list, rows: dict[str, int]) -> None:
    """A segment of the fingerprint hashes of the records in `where` (entry id -> row for each of their entries)."""
    from provenance.fingerprint_store import flat_hashes, language_codes

    blobs = store.con.execute(f"SELECT entry_id, record_sha256, role, packed FROM fingerprints WHERE packed IS NOT NULL"
                              f"{' AND ' + where if where else ''} ORDER BY entry_id, record_sha256, role",
                              list(params)).fetchall()
    if not blobs:
        return
    owners, items = [], []
    for eid, _, _, blob in blobs:
        owners.append(rows[eid])
        items.append({"": bytes(blob)})
    from provenance.overlap_scan import _distinct

    flat = flat_hashes(items, lambda *key: app.fp_keys.add(key), language_codes())
    # each stored fingerprint gets the next id: fpinfo says whose it is and what it is (kb freeze's overlap scan
    # computes every containment from these and the postings, without reading a blob)
    fid0, n_fp = int(app.fp["fids"]), len(flat.lengths)
    fp_rows = np.asarray(owners, dtype=np.int64)[flat.owners]
    info = np.stack([fp_rows, flat.reprs.astype(np.int64), flat.langs.astype(np.int64),
                     _distinct(flat.hashes.copy(), flat.starts, flat.lengths)], axis=1).astype("<i4")
    app.files["fpinfo"].write(info.tobytes())
    app.fp["fids"] = fid0 + n_fp
    seg = np.repeat(np.arange(n_fp), flat.lengths)
    # one posting per (hash, fingerprint)
    order = np.lexsort((seg, flat.hashes))
    h, f = flat.hashes[order], seg[order]
    keep = np.ones(len(h), dtype=bool)
    keep[1:] = (h[1:] != h[:-1]) | (f[1:] != f[:-1])
    h, f = h[keep], f[keep]
    name = write(app.d, "fp", h, {"row": fp_rows[f], "repr": flat.reprs[f].astype(np.int64), "fid": f + fid0},
                 FP_COLUMNS)
    app.add_segment("fp", name, int(keep.sum()))


def _fingerprint_entries(store) -> int:
    """Entries with stored fingerprints (what a freeze's overlap scan counts as scanned)."""
    return int(store.scalar("SELECT count(DISTINCT entry_id) FROM fingerprints WHERE packed IS NOT NULL"))


def _catch_up(store, root: Path, gen: dict, key: dict) -> tuple[int | None, int]:
    """Append what versions after the layout's added; (None, 0) when the KB does not add up (then rebuild)."""
    since = int(gen["kb_version"])
    app = _Appender(root, gen, key, int(gen["dim"]))
    d = app.d
    try:
        new_ids = [r[0] for r in store.con.execute("SELECT id FROM entries WHERE first_version > ? ORDER BY id",
                                                   [since]).fetchall()]
        if int(gen["rows"]) + len(new_ids) != key["entries"]:
            app.close()
            return None, 0
        old_ids = np.asarray(_map_ids(d, gen))
        sorted_old = old_ids[np.asarray(np.fromfile(d / gen["order"], dtype="<i4", count=int(gen["rows"])))]
        changed = [r[0] for r in store.con.execute(
            "SELECT DISTINCT v.entry_id FROM evidence v JOIN entries e ON e.id = v.entry_id "
            "WHERE v.version > ? AND e.first_version <= ? ORDER BY v.entry_id", [since, since]).fetchall()]
        rows_of_old = _rows_of(old_ids, sorted_old, np.fromfile(d / gen["order"], dtype="<i4", count=int(gen["rows"])),
                               changed)
        if new_ids:
            where, params = _id_filter(store, new_ids)
            try:
                _append_chunk(store, app, store.retrieval_rows(where), where, [])
            finally:
                store.con.unregister("_kb_layout_ids")
        if changed:
            where, _ = _id_filter(store, changed)
            try:
                for r in store.retrieval_rows(where):
                    app.replaced[rows_of_old[r["id"]]] = app.line(r)
                # their new records' fingerprints (records of versions after the layout's)
                fp_where = ("entry_id IN (SELECT id FROM _kb_layout_ids) AND record_sha256 IN "
                            "(SELECT record_sha256 FROM evidence WHERE version > ?)")
                _fingerprint_segment(store, app, fp_where, [since], rows_of_old)
            finally:
                store.con.unregister("_kb_layout_ids")
        all_ids = np.concatenate([old_ids, np.array([i.encode("ascii") for i in new_ids], dtype=f"S{ID_BYTES}")])
        app.publish(np.argsort(all_ids, kind="stable").astype(np.int32), _fingerprint_entries(store))
        return len(new_ids), len(changed)
    except BaseException:
        app.close()
        raise


def _rows_of(old_ids, sorted_old, order, ids: list[str]) -> dict[str, int]:
    if not ids:
        return {}
    want = np.array([i.encode("ascii") for i in ids], dtype=f"S{ID_BYTES}")
    pos = np.searchsorted(sorted_old, want)
    return {i: int(order[p]) for i, p in zip(ids, pos.tolist())}


def _id_filter(store, ids: list[str]) -> tuple[str, list]:
    store.con.register("_kb_layout_ids", {"id": np.array(ids, dtype=object)})
    return "entry_id IN (SELECT id FROM _kb_layout_ids)", []


def _map_ids(d: Path, gen: dict):
    n = int(gen["rows"])
    return np.fromfile(d / "ids", dtype=f"S{ID_BYTES}", count=n) if n else np.zeros(0, dtype=f"S{ID_BYTES}")


def _dim(store) -> int:
    dim = store.scalar("SELECT dim FROM embeddings LIMIT 1")
    return int(dim) if dim is not None else 0


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="ascii").split()
    except FileNotFoundError:
        return []


def _write_array(path: Path, arr: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(np.ascontiguousarray(arr).tobytes())
        f.flush()
        os.fsync(f.fileno())


def _remove_unused(root: Path, gen: dict, prev: dict | None) -> None:
    """Base directories and files neither this generation nor the one before names (the previous one's readers may
    still be opening theirs; mapped files stay readable after they go)."""
    import shutil

    keep = {b: {"rulekeys", *APPEND_FILES, *g["files"]} for g in (prev, gen) if g for b in [g.get("base")]}
    if prev and prev.get("base") == gen["base"]:
        keep[gen["base"]] = {"rulekeys", *APPEND_FILES, *gen["files"], *prev["files"]}
    for p in root.iterdir():
        if p.name == GEN:
            continue
        if p.name not in keep:
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
            continue
        for q in p.iterdir():
            if q.name not in keep[p.name]:
                shutil.rmtree(q, ignore_errors=True) if q.is_dir() else q.unlink(missing_ok=True)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
