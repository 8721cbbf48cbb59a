"""The vectorised KB scan (provenance.overlap_scan) gives exactly what scoring every candidate in Python gives."""
from collections import Counter

import numpy as np
import pytest

import planted_corpus as corpus
from provenance import overlap_scan
from provenance.errors import BadInput, StaleFingerprint
from provenance.fingerprint import fingerprints
from provenance.fingerprint_store import pack_fingerprints
from provenance.overlap import OverlapIndex
from provenance.overlap_rules import REPRESENTATIONS, OverlapConfig, OverlapScan


@pytest.fixture(scope="module")
def kb():
    return [(e.id, {p: fingerprints(c, lang) for p, (c, lang) in e.parts.items()}) for e in corpus.entries()]


def _index(ops, config=None):
    files = corpus.cohort_files(ops)
    return OverlapIndex.build(files, config, operators={f: f[:-3] for f in files})


def reference_scan(index: OverlapIndex, entries) -> OverlapScan:
    """The scan written plainly: Python sets per fingerprint, every candidate scored by _score."""
    keys = {r: set(index._inv[r]) - index._static[r] for r in REPRESENTATIONS}
    need = index._min_hits()
    df = {r: Counter() for r in REPRESENTATIONS}
    candidates = []
    for eid, parts in entries:
        seen = {r: set() for r in REPRESENTATIONS}
        for fps in parts.values():
            for fp in fps:
                seen[fp.representation].update(keys[fp.representation].intersection(fp.hashes))
        for r in REPRESENTATIONS:
            df[r].update(seen[r])
        if any(len(seen[r]) >= need[r] for r in REPRESENTATIONS):
            candidates.append((eid, parts))
    limit = max(index.config.boilerplate_share * len(entries), index.config.boilerplate_min_entries)
    ignored = {r: index._static[r] | {h for h, c in df[r].items() if c > limit} for r in REPRESENTATIONS}
    hist = {r: [0] * 20 for r in REPRESENTATIONS}
    matches = []
    for eid, parts in candidates:
        found, top = index._score(eid, parts, ignored)
        matches.extend(found)
        for r in REPRESENTATIONS:
            hist[r][min(19, int(top[r] * 20))] += 1
    for r in REPRESENTATIONS:
        hist[r][0] += len(entries) - len(candidates)
    return OverlapScan(n_entries=len(entries), n_candidates=len(candidates), matches=matches, histogram=hist,
                       boilerplate={r: len(ignored[r] & set(index._inv[r])) for r in REPRESENTATIONS})


# a low boilerplate floor, so that the KB's own statistics ignore hashes in this small corpus too
KB_STATS = OverlapConfig(boilerplate_min_entries=2, boilerplate_share=0.05)


@pytest.mark.parametrize("config", [None, KB_STATS, OverlapConfig(report_floor=0.1, ops_same_language=True)])
def test_the_scan_equals_scoring_every_candidate(kb, config, monkeypatch):
    monkeypatch.setattr(overlap_scan, "BATCH", 7)  # many batches, candidates and statistics across them
    for ops in corpus.FOLDS:
        index = _index(ops, config)
        want = reference_scan(index, kb)
        packed = [(eid, {p: pack_fingerprints(v) for p, v in parts.items()}) for eid, parts in kb]
        assert index.scan(kb).model_dump() == want.model_dump()
        assert index.scan(iter(packed)).model_dump() == want.model_dump()
        assert want.matches and want.n_candidates < len(kb)
    assert sum(want.boilerplate.values()) > 0 or config is not KB_STATS


def test_kb_statistics_change_the_result_the_same_way(kb):
    """With the KB's boilerplate statistics active, fewer hashes count, and both scans agree on which."""
    plain, stats = _index(corpus.FOLDS[0]), _index(corpus.FOLDS[0], KB_STATS)
    a, b = plain.scan(kb), stats.scan(kb)
    assert b.boilerplate["tokens"] > a.boilerplate["tokens"]
    assert b.model_dump() == reference_scan(stats, kb).model_dump()


def test_mixed_packed_and_object_parts_and_empty_entries(kb):
    index = _index(corpus.FOLDS[1])
    mixed = [(eid, {p: (pack_fingerprints(v) if n % 2 else v) for n, (p, v) in enumerate(parts.items())})
             for eid, parts in kb] + [("empty", {}), ("no-hashes", {"x": pack_fingerprints([])})]
    want = reference_scan(index, [(e, {p: v for p, v in parts.items()}) for e, parts in kb] + [("empty", {}),
                                                                                           ("no-hashes", {"x": []})])
    assert index.scan(mixed).model_dump() == want.model_dump()
    assert index.scan([]).model_dump() == reference_scan(index, []).model_dump()


def test_damaged_and_stale_blobs_are_refused_by_the_scan(kb):
    index = _index(corpus.FOLDS[0])
    eid, parts = kb[0]
    blob = pack_fingerprints(next(iter(parts.values())))
    for bad in (blob[:-3], blob + b"\x00", b"JUNK", b""):
        with pytest.raises(BadInput, match="damaged"):
            index.scan([(eid, {"x": bad})])
    stale = pack_fingerprints([fp.model_copy(update={"scheme": "ts0"}) for fp in next(iter(parts.values()))])
    with pytest.raises(StaleFingerprint):
        index.scan([(eid, {"x": stale})])
    with pytest.raises(StaleFingerprint):
        index.scan([(eid, {"x": [fp.model_copy(update={"k": 5}) for fp in next(iter(parts.values()))]})])


def test_distinct_counts_and_unique():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 300, 500)
    hashes = rng.integers(0, 40, int(lengths.sum())).astype(np.int64) * (1 << 40)  # many repeats
    starts = np.cumsum(lengths) - lengths
    got = overlap_scan._distinct(hashes, starts, lengths)
    assert got.tolist() == [len(set(hashes[s:s + n].tolist())) for s, n in zip(starts, lengths)]
    values, counts = overlap_scan._unique(hashes)
    assert dict(zip(values.tolist(), counts.tolist())) == Counter(hashes.tolist())
    assert overlap_scan._unique(np.zeros(0, dtype=np.int64))[0].size == 0


def test_entries_that_repeat_kernels_score_as_if_each_were_scored_alone(kb):
    """The scan scores each distinct packed part once (overlap_scan._score_parts): entries that share kernels, in
    either part and in other combinations, get the matches scoring every entry whole gives (labels included)."""
    index = _index(corpus.FOLDS[0])
    firsts = [next(iter(parts.values())) for _, parts in kb]
    lasts = [list(parts.values())[-1] for _, parts in kb]
    again = [(f"{eid}-again", dict(reversed(list(parts.items())))) for eid, parts in kb]
    mixed = [(f"mix-{n}", {"source:a": lasts[(n + 3) % len(kb)], "repaired:b": firsts[n]}) for n in range(len(kb))]
    entries = kb + again + mixed
    want = reference_scan(index, entries)
    packed = [(eid, {p: pack_fingerprints(v) for p, v in parts.items()}) for eid, parts in entries]
    assert index.scan(packed).model_dump() == want.model_dump()
    flagged = {m.entry_id for m in want.matches if m.flagged}
    assert {e for e, _ in kb} & flagged and {e for e, _ in again} & flagged and {e for e, _ in mixed} & flagged
