"""OverlapIndex.scan over a whole KB, vectorised: stored hashes as flat numpy arrays, a batch of entries at a time;
scan_postings gives the same result from an index of the stored hashes (kb freeze: kbstore.layout keeps one, with each
fingerprint's distinct-hash count), computing both passes' statistics from the postings and reading the blobs only of
the entries with a pair worth evidence; the scoring of a packed part is done once per distinct blob (_score_parts).

A 100,000-entry KB holds about 22 million stored hashes; a Python set operation per fingerprint spent
30 s of a freeze here. The passes, rules and results are provenance.overlap's (see its docstring):
- pass one, per batch: the hashes a scan looks for (the cohort's and the seed boilerplate) are found
  through a bitmap of their low bits, then a binary search. Kept: each fingerprint's distinct
  cohort hashes and distinct seed-boilerplate count, and each entry's distinct cohort hashes (they make
  it a candidate and count towards the KB's boilerplate statistics);
- pass two: the containment of every (candidate fingerprint, cohort unit) pair that shares a hash, all
  at once: each candidate's best containment (the histogram). The fingerprints with a pair worth
  evidence (OverlapIndex._worth) are then scored again by OverlapIndex._score, which computes the
  evidence and keeps the best match per cohort file, in the same order as scoring every candidate
  there would (the others cannot make a match), so the matches are those too.
"""
from __future__ import annotations

from collections.abc import Iterable

from provenance.fingerprint import PARAMS
from provenance.fingerprint_store import flat_hashes, language_codes
from provenance.overlap_rules import OverlapScan, check_key

BATCH = 8192  # entries per batch: about 1.8 M hashes (15 MB) of the bench's KB
_BITS = 22  # the bitmap of target hashes' low bits: 4 MB, a few per cent of stored hashes pass it
REPRS = ("tokens", "ops")


class _Targets:
    """The hashes a scan looks for, sorted, with what each is in either representation."""

    def __init__(self, index):
        import numpy as np

        every: set[int] = set()
        for r in REPRS:
            every |= index._static[r] | set(index._inv[r])
        self.values = np.array(sorted(every), dtype=np.int64)
        n = len(self.values)
        self.static = np.zeros((n, 2), dtype=bool)
        self.key = np.full((n, 2), -1, dtype=np.int64)  # row -> key id (a non-seed cohort hash), per representation
        hashes: list[int] = []
        reprs: list[int] = []
        for ri, r in enumerate(REPRS):
            self.static[self._rows(sorted(index._static[r])), ri] = True
            keys = sorted(set(index._inv[r]) - index._static[r])
            self.key[self._rows(keys), ri] = np.arange(len(hashes), len(hashes) + len(keys))
            hashes += keys
            reprs += [ri] * len(keys)
        self.key_hash = np.array(hashes, dtype=np.int64)
        self.key_repr = np.array(reprs, dtype=np.int64)
        self.bits = np.zeros(1 << _BITS, dtype=bool)
        self.bits[self.values & ((1 << _BITS) - 1)] = True
        holders = [index._inv[REPRS[r]][h] for h, r in zip(hashes, reprs)]  # key -> cohort fingerprints, as CSR
        self.ci_len = np.array([len(x) for x in holders], dtype=np.int64)
        self.ci_start = np.cumsum(self.ci_len) - self.ci_len
        self.ci = np.array([ci for x in holders for ci in x], dtype=np.int64)

    def _rows(self, hashes: list[int]):
        import numpy as np

        return np.searchsorted(self.values, np.array(hashes, dtype=np.int64))

    def find(self, hashes):
        """(indexes into hashes, target rows) of the stored hashes that are targets."""
        import numpy as np

        idx = np.flatnonzero(self.bits[hashes & ((1 << _BITS) - 1)])
        if not len(self.values):
            return idx, idx
        vals = hashes[idx]
        pos = np.minimum(np.searchsorted(self.values, vals), len(self.values) - 1)
        ok = self.values[pos] == vals
        return idx[ok], pos[ok]


def scan(index, entries: Iterable[tuple[str, object]]):
    """OverlapIndex.scan (see the module docstring)."""
    import numpy as np

    targets = _Targets(index)
    need = np.array([index._min_hits()[r] for r in REPRS])
    languages = language_codes()
    n_keys = len(targets.key_hash)
    df = np.zeros(n_keys, dtype=np.int64)
    items: list[tuple[str, object]] = []
    segs: list[dict] = []
    cand: list = []
    batch: list = []
    for item in entries:
        items.append(item)
        batch.append(item[1])
        if len(batch) == BATCH:
            _first_pass(targets, flat_hashes(batch, check_key, languages), len(batch), len(items) - len(batch),
                        need, df, segs, cand)
            batch = []
    if batch:
        _first_pass(targets, flat_hashes(batch, check_key, languages), len(batch), len(items) - len(batch),
                    need, df, segs, cand)
    return _second_pass(index, targets, items, segs, cand, df, languages, len(items))


def _second_pass(index, targets, items, segs, cand, df, languages, n: int):
    """Pass two over pass one's candidates (items: the entries pass one saw, in order; n: the entries scanned)."""
    import numpy as np

    cand = np.concatenate(cand) if cand else np.zeros(0, dtype=bool)  # one flag per item
    seg = {k: np.concatenate([s[k] for s in segs]) if segs else np.zeros(0, dtype=np.int64)
           for k in ("owner", "slot", "repr", "lang", "base", "pair_seg", "pair_key")}

    cfg = index.config
    limit = max(cfg.boilerplate_share * n, cfg.boilerplate_min_entries)
    kb_boiler = df > limit
    ignored = {r: index._static[r] | set(targets.key_hash[kb_boiler & (targets.key_repr == ri)].tolist())
               for ri, r in enumerate(REPRS)}
    top, worth = _containment(index, targets, seg, kb_boiler, ignored, languages, len(cand))

    hist = {r: [0] * 20 for r in REPRS}
    matches = []
    cache: dict = {}
    memo: dict = {}
    for i, slots in worth.items():  # in entry order
        eid, parts = items[i]
        matches.extend(_score_parts(index, eid, parts, ignored, cache, slots, memo))
    for ri, r in enumerate(REPRS):
        bins = np.minimum(19, (top[cand, ri] * 20).astype(np.int64))
        hist[r] = np.bincount(bins, minlength=20).tolist()
        hist[r][0] += n - int(cand.sum())
    return OverlapScan(n_entries=n, n_candidates=int(cand.sum()), matches=matches, histogram=hist,
                       boilerplate={r: len(ignored[r] & set(index._inv[r])) for r in REPRS})


def scan_postings(index, lookup, fetch, n_entries: int, keys: Iterable[tuple], info=None):
    """OverlapIndex.scan over a KB whose stored fingerprint hashes are indexed by hash, with the same result as scan()
    over all its entries: the work grows with the entries that share hashes with the cohort (or its boilerplate), not
    with the KB.

    lookup(hashes) -> (i, entry, representation, fingerprint id): one posting per distinct (hashes[i], stored
    fingerprint); info: (fingerprints, 4) array of each fingerprint id's entry, representation code, language code and
    distinct hash count; fetch(entries) -> [(entry id, parts)] of those entries (scan()'s items), in entry id order;
    n_entries: the entries with stored fingerprints; keys: every (scheme, representation, k, w) stored (each is checked).
    From the postings and info alone: each cohort hash's entry count (the KB's boilerplate), the candidates (entries
    holding enough distinct cohort hashes), every candidate fingerprint's containment of every cohort unit (the
    histogram) and which pairs are worth evidence; only those entries' blobs are read, and scored as scan() scores them.
    """
    import numpy as np

    for key in keys:
        check_key(*key)
    targets = _Targets(index)
    need = np.array([index._min_hits()[r] for r in REPRS])
    n_keys = len(targets.key_hash)
    nk = max(1, n_keys)
    z = np.zeros(0, dtype=np.int64)
    i, entry, rep, fid = lookup(targets.values) if len(targets.values) else (z, z, z, z)
    key = targets.key[i, rep] if len(i) else z
    static = targets.static[i, rep] if len(i) else np.zeros(0, dtype=bool)
    n_fp = len(info)
    n_static = np.bincount(fid[static], minlength=n_fp)  # postings are distinct per (hash, fingerprint)
    has = key >= 0
    entry, key, fid = np.asarray(entry, dtype=np.int64)[has], key[has], fid[has]
    owned = _unique(entry * nk + key)[0]  # distinct (entry, key)
    df = np.bincount(owned % nk, minlength=n_keys)
    ent, per = np.unique(owned // nk * 2 + targets.key_repr[owned % nk], return_counts=True) if len(owned) else (owned, owned)
    cand_rows = np.unique(ent[per >= need[ent % 2]] // 2)
    n_rows = int(info[:, 0].max()) + 1 if n_fp else 0
    is_cand = np.zeros(max(n_rows, int(entry.max()) + 1 if len(entry) else 0), dtype=bool)
    is_cand[cand_rows] = True
    pairs = _unique(fid[is_cand[entry]] * nk + key[is_cand[entry]])[0]  # distinct (candidate fingerprint, key)
    p_fid, p_key = pairs // nk, pairs % nk
    scored, counts = _unique(p_fid)
    fp_info = np.asarray(info[scored]).astype(np.int64) if len(scored) else np.zeros((0, 4), dtype=np.int64)
    seg = {"owner": fp_info[:, 0], "slot": np.zeros(len(scored), dtype=np.int64), "repr": fp_info[:, 1],
           "lang": fp_info[:, 2], "base": fp_info[:, 3] - n_static[scored],
           "pair_seg": np.repeat(np.arange(len(scored)), counts), "pair_key": p_key}
    cfg = index.config
    kb_boiler = df > max(cfg.boilerplate_share * n_entries, cfg.boilerplate_min_entries)
    ignored = {r: index._static[r] | set(targets.key_hash[kb_boiler & (targets.key_repr == ri)].tolist())
               for ri, r in enumerate(REPRS)}
    languages = language_codes()
    top, worth = _containment(index, targets, seg, kb_boiler, ignored, languages, len(is_cand))
    items = list(fetch(np.array(sorted(worth), dtype=np.int64)))  # only the entries with a pair worth evidence
    segs: list[dict] = []
    cand: list = []
    for start in range(0, len(items), BATCH):
        batch = [parts for _, parts in items[start:start + BATCH]]
        _first_pass(targets, flat_hashes(batch, check_key, languages), len(batch), start, need,
                    np.zeros(n_keys, dtype=np.int64), segs, cand)
    got = _second_pass(index, targets, items, segs, cand, df, languages, n_entries)
    hist = {}
    for ri, r in enumerate(REPRS):
        hist[r] = np.bincount(np.minimum(19, (top[cand_rows, ri] * 20).astype(np.int64)), minlength=20).tolist()
        hist[r][0] += n_entries - len(cand_rows)
    return got.model_copy(update={"n_candidates": len(cand_rows), "histogram": hist})


def _score_parts(index, eid: str, parts, ignored, cache: dict, slots: set[int], memo: dict) -> list:
    """index._score(eid, parts, ignored, only=slots)[0], each part's blob scored once per scan: a part's matches depend
    on its fingerprints, the slots scored and the scan's boilerplate only, and KB entries repeat kernels (records of
    the same source kernel, one repaired kernel behind several entries). Per part, the best match per cohort file and
    representation is kept as _score keeps it across parts (the first of equals, in part order)."""
    import hashlib

    from provenance.fingerprint_store import _blob_headers

    best: dict = {}
    first = 0
    for part, fps in parts.items():
        packed = isinstance(fps, (bytes, bytearray, memoryview))
        blob = bytes(fps) if packed else None
        n = len(_blob_headers(blob)) if packed else len(fps)
        local = frozenset(s - first for s in slots if first <= s < first + n)
        first += n
        if not local:
            continue
        if packed:
            key = (blob, local)
            got = memo.get(key)
            if got is None:  # labelled by the blob's hash: _score's caches key on the entry and part
                label = hashlib.sha256(blob).hexdigest()
                got = memo[key] = index._score(label, {label: blob}, ignored, cache=cache, only=set(local))[0]
            got = [m.model_copy(update={"entry_id": eid, "entry_part": part}) for m in got]
        else:
            got = index._score(eid, {part: fps}, ignored, cache=cache, only=set(local))[0]
        for m in got:
            k = (m.cohort_file, m.representation)
            old = best.get(k)
            if old is None or (m.flagged, m.score, m.containment, m.covered) > \
                    (old.flagged, old.score, old.containment, old.covered):
                best[k] = m
    return sorted(best.values(), key=lambda m: (m.cohort_file, m.representation, m.cohort_unit))


def _first_pass(t: _Targets, flat, n_items: int, first: int, need, df, segs: list, cand: list) -> None:
    """One batch: add to df, append the batch's candidate flags and its candidates' fingerprints (see the docstring)."""
    import numpy as np

    idx, pos = t.find(flat.hashes)
    seg = np.searchsorted(flat.starts, idx, side="right") - 1
    r = flat.reprs[seg].astype(np.int64)
    static, key = t.static[pos, r], t.key[pos, r]
    nv, nk = max(1, len(t.values)), max(1, len(t.key_hash))
    n_static = np.bincount(_unique(seg[static] * nv + pos[static])[0] // nv, minlength=len(flat.lengths))
    pairs = _unique(seg[key >= 0] * nk + key[key >= 0])[0]  # distinct (fingerprint, key), by fingerprint
    p_seg, p_key = pairs // nk, pairs % nk
    owned = _unique(flat.owners[p_seg] * nk + p_key)[0]  # distinct (entry, key)
    df += np.bincount(owned % nk, minlength=len(df))
    seen = np.bincount(owned // nk * 2 + t.key_repr[owned % nk], minlength=2 * n_items).reshape(n_items, 2)
    is_cand = (seen >= need).any(axis=1)
    cand.append(is_cand)
    keep = is_cand[flat.owners[p_seg]]
    p_seg, p_key = p_seg[keep], p_key[keep]
    scored, counts = _unique(p_seg)  # candidates' fingerprints sharing a key (p_seg is sorted)
    p_local = np.repeat(np.arange(len(scored)), counts)
    base = _distinct(flat.hashes, flat.starts[scored], flat.lengths[scored]) - n_static[scored]
    offset = sum(len(s["owner"]) for s in segs)
    slot = scored - np.searchsorted(flat.owners, flat.owners[scored])  # the fingerprint's position in its entry
    segs.append({"owner": flat.owners[scored] + first, "slot": slot, "repr": flat.reprs[scored].astype(np.int64),
                 "lang": flat.langs[scored].astype(np.int64), "base": base, "pair_seg": p_local + offset,
                 "pair_key": p_key})


def _containment(index, t: _Targets, seg: dict, kb_boiler, ignored: dict, languages: dict, n: int):
    """(best containment per entry and representation, {entry: its fingerprints with a pair worth evidence})."""
    import numpy as np

    top = np.zeros((n, 2))
    pb = kb_boiler[seg["pair_key"]]
    mine = seg["base"] - np.bincount(seg["pair_seg"][pb], minlength=len(seg["base"]))
    p_seg, p_key = seg["pair_seg"][~pb], seg["pair_key"][~pb]
    cnt = t.ci_len[p_key]  # each (fingerprint, key) pair -> one (fingerprint, cohort fingerprint) pair per holder
    ends = np.cumsum(cnt)
    ci = t.ci[np.repeat(t.ci_start[p_key] - (ends - cnt), cnt) + np.arange(int(ends[-1]) if len(ends) else 0)]
    n_ci = max(1, len(index._cfps))
    u, shared = _unique(np.repeat(p_seg, cnt) * n_ci + ci)
    s, ci = u // n_ci, u % n_ci
    c_fps = [c.fp for c in index._cfps]
    nc = np.array([len(c.distinct - ignored[c.fp.representation]) for c in index._cfps] or [0], dtype=np.int64)
    c_lang = np.array([languages.setdefault(fp.language, len(languages)) for fp in c_fps] or [0], dtype=np.int64)
    r = seg["repr"][s]
    if not index.config.ops_same_language:
        ok = (r == 0) | (c_lang[ci] != seg["lang"][s])
        s, ci, r, shared = s[ok], ci[ok], r[ok], shared[ok]
    containment = shared / np.maximum(1, np.minimum(mine[s], nc[ci]))
    owner = seg["owner"][s]
    np.maximum.at(top, (owner, r), containment)
    worth = _worth(index.config, r, containment, shared)
    out: dict[int, set[int]] = {}
    for i, slot in zip(owner[worth].tolist(), seg["slot"][s[worth]].tolist()):
        out.setdefault(i, set()).add(slot)
    return top, dict(sorted(out.items()))


def _worth(cfg, r, containment, shared):
    """OverlapIndex._worth over arrays."""
    k_tok = PARAMS["tokens"][0]
    report = (containment >= cfg.report_floor) & (shared >= cfg.report_min_shared)
    ops = (containment >= cfg.ops_floor) & (shared >= 1)
    tokens = ((containment >= cfg.threshold) & (shared * k_tok >= cfg.min_cover)) | (shared * k_tok >= cfg.paste_run)
    return report | ((r == 1) & ops) | ((r == 0) & tokens)


def _unique(a):
    """(sorted distinct values, their counts): np.unique's hash table (numpy 2.3+) took seconds on some of these codes."""
    import numpy as np

    a = np.sort(a)
    first = np.ones(len(a), dtype=bool)
    np.not_equal(a[1:], a[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return a[starts], np.diff(np.append(starts, len(a)))


def _distinct(hashes, starts, lengths):
    """Distinct values of each segment: rows sorted in place, padded with their last value, bucketed by length."""
    import numpy as np

    out = np.zeros(len(lengths), dtype=np.int64)
    if not len(lengths):
        return out
    width = 1 << np.frexp(np.maximum(lengths, 1) - 1)[1]  # the power of two at or above the length
    for w in np.unique(width).tolist():
        rows = np.flatnonzero(width == w)
        L = lengths[rows]
        cols = np.minimum(np.arange(int(L.max()))[None, :], (L - 1)[:, None])
        m = hashes[starts[rows][:, None] + cols]
        m.sort(axis=1)
        out[rows] = 1 + (m[:, 1:] != m[:, :-1]).sum(axis=1)
    return out
