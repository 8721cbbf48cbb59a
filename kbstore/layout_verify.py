"""`kb verify` of the live KB's mapped layout (kbstore.layout): its current generation checked against DuckDB.

The layout is what a cold query answers from, so a file changed under it (a bad disk, a hand edit, a bug in an append)
changes answers without any hash failing. The check builds the layout DuckDB gives now (kbstore.layout's own
rebuild, into a temporary directory: rows in id order) and compares the live generation with it through the ids, so
rows appended in ingest order compare with rows in id order: every entry id at its position, every vector (bit for
bit), each row's JSON line, filter and rule codes (as labels) and BM25 length, every BM25 posting (token, entry, term
frequency; each token's stored text against its hash) and every fingerprint posting (hash, entry, representation),
and the generation's totals. Postings are compared key range by key range (memory stays about MERGE_CHUNK postings a
side, whatever the KB). Each difference is one line (the first SHOWN of a kind, then a count). A layout that is behind
the KB or of another build (it is caught up or rebuilt by the next reader or writer) is a warning, not a difference.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np

from kbstore.mapped import CODE_COLUMNS, ID_BYTES, open_layout, read_generation
from kbstore.postings import MERGE_CHUNK, Segment, _key_bounds, token_hash

SHOWN = 8  # differences of one kind named one by one; the rest are counted


def layout_problems(store, kb) -> tuple[list[str], list[str]]:
    """(differences between the live layout and DuckDB, warnings); the caller holds the write lock."""
    from kbstore import layout

    root = layout.layout_dir(kb)
    gen = read_generation(root)
    if gen is None:
        if (root / "gen.json").exists():
            return ["mapped/gen.json does not read as a generation (`kb verify --repair` rebuilds the layout)"], []
        return [], ["no mapped layout (the next reader or writer builds it)"] if store.count("entries") else []
    key = layout.kb_key(store)
    if not layout.matches(gen, key):
        what = ", ".join(f"{k} {gen.get(k)!r} (KB: {v!r})" for k, v in key.items() if gen.get(k) != v)
        return [], [f"the mapped layout is not of the KB as it is ({what}): the next reader or writer catches it up"]
    if not layout._intact(root, gen):
        return [f"mapped/{gen['base']}: a file generation {gen['generation']} names is missing or shorter than it "
                "records"], []
    tmp = Path(tempfile.mkdtemp(prefix=".verify-", dir=kb.root))
    try:
        layout._rebuild(store, tmp, None, key)
        want = read_generation(tmp)
        return compare(root, gen, tmp, want), []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compare(root: Path, gen: dict, want_root: Path, want: dict) -> list[str]:
    """Differences of the generation `gen` under root from `want` (a rebuild: rows in id order), one line each."""
    out = _Lines()
    have = open_layout(root, gen, {})
    ref = open_layout(want_root, want, {})
    if have.n != ref.n or int(gen["dim"]) != int(want["dim"]):
        out.add("rows", f"generation {gen['generation']} holds {have.n} rows of dimension {gen['dim']}; DuckDB has "
                        f"{ref.n} entries of dimension {want['dim']}")
        return out.lines()
    order = np.asarray(have.order, dtype=np.int64)
    if len(np.unique(order)) != have.n or (have.n and (order.min() < 0 or order.max() >= have.n)):
        out.add("order", f"{gen['order']} is not a permutation of the {have.n} rows")
        return out.lines()
    ids = np.asarray(ref.ids)
    name = [bytes(x).rstrip(b"\0").decode("ascii", "replace")[:12] for x in ids]
    for p in np.flatnonzero(np.asarray(have.ids)[order] != ids)[:SHOWN + 1].tolist():
        got = bytes(have.ids[order[p]]).rstrip(b"\0").decode("ascii", "replace")
        out.add("ids", f"position {p} (row {order[p]}) holds id {got[:12]!r}; DuckDB's entry there is {name[p]}")
    out.more("ids", int(np.sum(np.asarray(have.ids)[order] != ids)))
    _rows(out, have, ref, order, name, gen, want, root / gen["base"], want_root / want["base"])
    inv = np.empty(have.n, dtype=np.int64)
    inv[order] = np.arange(have.n)
    texts = _texts(ref.lexical.segments)
    _postings(out, "BM25 postings", have.lexical.segments, ref.lexical.segments, inv, ("tf",), name,
              lambda k: repr(texts.get(k, f"#{k:x}")))
    _key_texts(out, have.lexical.segments)
    d, w = root / gen["base"], want_root / want["base"]
    _postings(out, "fingerprint postings", [Segment(d / s) for s in gen["fingerprints"]["segments"]],
              [Segment(w / s) for s in want["fingerprints"]["segments"]], inv, ("repr",), name, lambda k: f"#{k & (2**64 - 1):016x}")
    _fingerprints(out, root / gen["base"], gen, want_root / want["base"], want, inv, name)
    for what, a, b in (("BM25 total length", gen["lexical"]["total_len"], want["lexical"]["total_len"]),
                       ("fingerprinted entries", gen["fingerprints"]["entries"], want["fingerprints"]["entries"]),
                       ("fingerprint keys", sorted(map(list, gen["fingerprints"]["keys"])),
                        sorted(map(list, want["fingerprints"]["keys"])))):
        if a != b:
            out.add("totals", f"gen.json records {what} {a}; DuckDB gives {b}")
    return out.lines()


def _rows(out, have, ref, order, name, gen, want, have_dir: Path, want_dir: Path) -> None:
    """Vectors, JSON lines, codes (as labels) and BM25 lengths, position by position, a chunk at a time."""
    from kbstore.layout import _read_lines

    rulekeys = {"have": _read_lines(have_dir / "rulekeys"), "want": _read_lines(want_dir / "rulekeys")}
    labels = {"have": gen["labels"], "want": want["labels"]}
    for s in range(0, have.n, 16384):
        rows = order[s:s + 16384]
        pos = np.arange(s, s + len(rows))
        bad = np.flatnonzero(np.any(np.asarray(have.vectors[np.sort(rows)])[np.argsort(np.argsort(rows))]
                                    != np.asarray(ref.vectors[s:s + len(rows)]), axis=1))
        for p in bad.tolist():
            out.add("vectors", f"entry {name[s + p]} (row {rows[p]}): its vector differs from DuckDB's")
        bad = np.flatnonzero(np.asarray(have.lexical.doclen[rows]) != np.asarray(ref.lexical.doclen[s:s + len(rows)]))
        for p in bad.tolist():
            out.add("doclen", f"entry {name[s + p]} (row {rows[p]}): BM25 length {int(have.lexical.doclen[rows[p]])}, "
                              f"DuckDB's text gives {int(ref.lexical.doclen[s + p])}")
        hc, rc = np.asarray(have.codes[rows]), np.asarray(ref.codes[s:s + len(rows)])
        for c, column in enumerate(CODE_COLUMNS):
            got = [_label(labels["have"], rulekeys["have"], column, int(x)) for x in hc[:, c]]
            exp = [_label(labels["want"], rulekeys["want"], column, int(x)) for x in rc[:, c]]
            for p in (n for n, (a, b) in enumerate(zip(got, exp)) if a != b):
                out.add("codes", f"entry {name[s + p]} (row {rows[p]}): {column} {got[p]!r}, DuckDB's {exp[p]!r}")
        for p, r in zip(pos.tolist(), rows.tolist()):
            if _line(have, r) != _line(ref, p):
                out.add("rows", f"entry {name[p]} (row {r}): its JSON line differs from DuckDB's retrieval row")


def _fingerprints(out, d: Path, gen: dict, w: Path, want: dict, inv, name) -> None:
    """fpinfo (each stored fingerprint's entry, representation, language, distinct hashes) as a multiset per entry, and
    every posting's fingerprint id naming a fingerprint of its own row and representation."""
    from kbstore.mapped import fingerprint_info

    def table(root: Path, g: dict, to_pos) -> np.ndarray:
        info = np.asarray(fingerprint_info(root.parent, {**g, "base": root.name})).astype(np.int64).reshape(-1, 4)
        rows = info[:, 0]
        ok = (rows >= 0) & (rows < len(inv))
        pos = np.where(ok, to_pos[np.clip(rows, 0, max(0, len(inv) - 1))], -1) if to_pos is not None else rows
        t = np.concatenate([pos[:, None], info[:, 1:]], axis=1)
        return t[np.lexsort(tuple(t[:, c] for c in range(3, -1, -1)))]

    have, ref = table(d, gen, inv), table(w, want, None)
    if have.shape != ref.shape or not np.array_equal(have, ref):
        bad = sorted({int(p) for p in np.setxor1d(_rows_as(have), _rows_as(ref)) // (1 << 40)}) if len(have) or len(ref) else []
        for p in bad:
            entry = name[p] if 0 <= p < len(name) else f"<position {p}>"
            out.add("fingerprints", f"entry {entry}: its stored fingerprints (representation, language, distinct "
                                    "hashes) differ from DuckDB's")
        if not bad:
            out.add("fingerprints", f"fpinfo holds {len(have)} fingerprints; DuckDB has {len(ref)}")
    info = np.asarray(fingerprint_info(d.parent, {**gen, "base": d.name})).reshape(-1, 4)
    for s in gen["fingerprints"]["segments"]:
        seg = Segment(d / s)
        if not seg.n_postings:
            continue
        fid = np.asarray(seg.columns["fid"]).astype(np.int64)
        ok = (fid >= 0) & (fid < len(info))
        own = np.zeros(len(fid), dtype=bool)
        own[ok] = (info[fid[ok], 0] == np.asarray(seg.columns["row"])[ok]) & \
                  (info[fid[ok], 1] == np.asarray(seg.columns["repr"])[ok])
        bad = np.flatnonzero(~own)
        for at in bad[:SHOWN].tolist():
            out.add("fingerprint postings", f"{s}: posting {at} names fingerprint {int(fid[at])}, not one of its row's")
        if len(bad) > SHOWN:
            out.extra["fingerprint postings"] = out.extra.get("fingerprint postings", 0) + len(bad) - SHOWN


def _rows_as(t: np.ndarray) -> np.ndarray:
    """One int per fpinfo line (position in the high bits), for set differences."""
    if not len(t):
        return np.zeros(0, dtype=np.int64)
    h = (t[:, 1] * 1_000_003 + t[:, 2]) * 1_000_003 + t[:, 3]
    return (t[:, 0] << 40) + (h % (1 << 40))


def _line(corpus, row: int) -> str | None:
    try:
        return corpus._rows.line(row)
    except (UnicodeDecodeError, ValueError, IndexError):
        return None


def _label(labels: dict, rulekeys: list[str], column: str, code: int):
    if column == "rules":
        return None if code < 0 else (rulekeys[code] if code < len(rulekeys) else f"<code {code}>")
    values = labels.get(column, [])
    return values[code] if 0 <= code < len(values) else f"<code {code}>"


def _texts(segments: list[Segment]) -> dict[int, str]:
    out: dict[int, str] = {}
    for s in segments:
        blob, off = bytes(s.text), np.asarray(s.textoff)
        for k, a, b in zip(np.asarray(s.keys).tolist(), off[:-1].tolist(), off[1:].tolist()):
            out.setdefault(k, blob[a:b].decode("utf-8", "replace"))
    return out


def _key_texts(out, segments: list[Segment]) -> None:
    """Each token's stored text hashes to its key (a changed text would answer another word's postings)."""
    for s in segments:
        blob, off = bytes(s.text), np.asarray(s.textoff)
        for k, a, b in zip(np.asarray(s.keys).tolist(), off[:-1].tolist(), off[1:].tolist()):
            text = blob[a:b].decode("utf-8", "replace")
            if token_hash(text) != k:
                out.add("BM25 postings", f"{s.name}: the text {text!r} stored for token #{k & (2**64 - 1):016x} "
                                         "does not hash to it")


def _postings(out, what: str, have: list[Segment], want: list[Segment], inv, columns, name, key_name) -> None:
    """Every (key, entry position, values) of `have` (rows mapped to positions by inv) against `want`'s."""
    total = sum(s.n_postings for s in have) + sum(s.n_postings for s in want)
    bounds = _key_bounds(max(1, -(-total // (2 * MERGE_CHUNK))))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        a = _gather(have, lo, hi, columns, inv)
        b = _gather(want, lo, hi, columns, None)
        if len(a[0]) == len(b[0]) and all(np.array_equal(x, y) for x, y in zip(a, b)):
            continue
        got, exp = _grouped(a), _grouped(b)
        for kp in sorted(set(got) | set(exp)):
            g, e = got.get(kp, []), exp.get(kp, [])
            if g == e:
                continue
            where = f"{key_name(kp[0])} of entry {name[kp[1]] if 0 <= kp[1] < len(name) else f'<position {kp[1]}>'}"
            cols = ", ".join(columns)
            out.add(what, f"{where}: {cols} {_values(g)} in the layout, {_values(e)} from DuckDB" if g and e else
                    f"{where}: in the layout, not from DuckDB" if g else f"{where}: from DuckDB, missing from the layout")


def _grouped(arrays) -> dict[tuple[int, int], list[list[int]]]:
    out: dict = {}
    for k, p, *v in zip(*(x.tolist() for x in arrays)):
        out.setdefault((k, p), []).append(v)
    return out


def _values(vs: list[list[int]]) -> str:
    return ", ".join(" ".join(map(str, v)) for v in vs)


def _gather(segments: list[Segment], lo, hi, columns, inv) -> tuple[np.ndarray, ...]:
    """(keys, positions, *columns) of the postings with keys in [lo, hi), sorted by key then position."""
    keys, rows, vals = [], [], [[] for _ in columns]
    for s in segments:
        a = int(np.searchsorted(s.keys, lo, side="left"))
        b = int(np.searchsorted(s.keys, hi, side="left")) if hi is not None else s.n_keys
        if b <= a:
            continue
        ptr = np.asarray(s.ptr[a:b + 1])
        keys.append(np.repeat(np.asarray(s.keys[a:b]), np.diff(ptr)))
        rows.append(np.asarray(s.columns["row"][ptr[0]:ptr[-1]]).astype(np.int64))
        for v, c in zip(vals, columns):
            v.append(np.asarray(s.columns[c][ptr[0]:ptr[-1]]).astype(np.int64))
    if not keys:
        z = np.zeros(0, dtype=np.int64)
        return (z, z, *(z for _ in columns))
    k, r = np.concatenate(keys), np.concatenate(rows)
    if inv is not None:
        ok = (r >= 0) & (r < len(inv))
        r = np.where(ok, inv[np.clip(r, 0, max(0, len(inv) - 1))], -1 - r)
    v = [np.concatenate(x) for x in vals]
    order = np.lexsort((*reversed(v), r, k))  # by key, then position, then values
    return (k[order], r[order], *(x[order] for x in v))


class _Lines:
    """Difference lines, at most SHOWN of a kind, then a count of the rest."""

    def __init__(self):
        self.kinds: dict[str, list[str]] = {}
        self.extra: dict[str, int] = {}

    def add(self, kind: str, line: str) -> None:
        got = self.kinds.setdefault(kind, [])
        if len(got) < SHOWN:
            got.append(f"{kind}: {line}")
        else:
            self.extra[kind] = self.extra.get(kind, 0) + 1

    def more(self, kind: str, total: int) -> None:
        """kind's true total when only the first few were added."""
        shown = len(self.kinds.get(kind, []))
        if total > shown:
            self.extra[kind] = total - shown

    def lines(self) -> list[str]:
        out = []
        for kind, lines in self.kinds.items():
            out += [f"mapped {line}" for line in lines]
            if self.extra.get(kind):
                out.append(f"mapped {kind}: ... and {self.extra[kind]} more differences")
        return out
