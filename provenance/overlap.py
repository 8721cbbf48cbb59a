"""Overlap between KB entries and cohort files, from stored fingerprints, without all-pairs work.

    index = OverlapIndex.from_manifest(load_manifest("manifests/x.yaml"))    # or OverlapIndex.build(files)
    scan = index.scan((entry_id, {"source": blob, "repaired": blob}) for ...)  # stored fingerprints
    scan.flagged()   # entry id -> the OverlapMatch evidence that flags it

Each cohort file is indexed whole and kernel by kernel (a kernel pasted into a larger entry is
contained in its own unit). An inverted index maps each cohort hash to those units. A scan makes two
passes over the KB: the first intersects each entry's hashes with the cohort's (packed fingerprints
are read hashes-only) and counts, for every cohort hash, how many entries hold it; the second scores
only entries with enough hits to be flagged or reported, and computes evidence only for pairs that
could be. Both run over numpy arrays a batch of entries at a time (provenance.overlap_scan: 100k
entries in about 4 s here); the evidence is computed here, in _score. Hashes ignored as boilerplate,
in three layers:
- the seed idioms of provenance.boilerplate (the pid/offs/mask launch, host wrappers, scaffolding);
- hashes found in the files of several cohort operators (30% of them, at least 3: the KernelBench
  scaffolding of every problem.py, one author's house style across a cohort);
- hashes held by more than ``boilerplate_share`` of the KB entries (and more than
  ``boilerplate_min_entries``; the floor keeps a small KB from calling its own copies boilerplate).

Scores per (entry, cohort file, representation), the best over the entry's parts and the file's
units: containment = shared / the smaller side's non-boilerplate fingerprints; Dice = 2 shared /
(sum of both); covered = entry tokens inside shared k-grams; the longest shared run (Dolos
fragments: fingerprints consecutive on both sides), in tokens, with its line ranges on both sides
as evidence. For the pairs worth evidence (and only those: the index finds them), the entry part's op
stream is aligned with each kernel of the cohort file (provenance.align; the kernel with the most matched
weight is kept, with its line ranges). ``score`` and ``decide`` (provenance.overlap_rules) combine
containment and alignment; the threshold and the cross-language null are what bench/bench_overlap_heldout.py's
rules choose on the tune halves of the overlap sets (provenance.operating_point).
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from provenance import overlap_scan
from provenance.align import Alignment, align, total_weight
from provenance.fingerprint import (PARAMS, Fingerprint, fingerprint, fingerprint_stream, fingerprints, kernel_units,
                                    shifted)
from provenance.fingerprint_store import PackedView, unpack_views
from provenance.overlap_rules import (REPRESENTATIONS, OverlapConfig, OverlapMatch, OverlapScan, check_key, decide,
                                      score)
from provenance.parsing import code_language

# part name (source, repaired, ...) -> its fingerprints, as objects or as pack_fingerprints() bytes
Parts = Mapping[str, "Sequence[Fingerprint] | bytes"]


@dataclass
class CohortUnit:
    """What is indexed: a cohort file as a whole (unit "") or one kernel of it."""

    file_id: str
    operator_id: str
    unit: str
    fingerprints: Sequence[Fingerprint]


def cohort_units(file_id: str, operator_id: str, code: str, language: str) -> list[CohortUnit]:
    """The whole file and each of its kernels, fingerprinted (line numbers relative to the file)."""
    language = code_language(code, language)  # a unit cut out of an AscendC file is AscendC without its qualifiers
    whole = fingerprints(code, language)
    units = [CohortUnit(file_id, operator_id, "", whole)]
    ops = next(fp for fp in whole if fp.representation == "ops")
    for name, src, line in kernel_units(code, language):
        fps = [shifted(fingerprint(src, language, "tokens"), line - 1)]
        # a kernel's ops are the file's within its lines: helpers it calls are followed there (opwalker.inline)
        last = line + src.count("\n")
        mine = [(op, ln) for op, ln in zip(ops.stream, ops.stream_lines) if line <= ln <= last]
        fps.append(fingerprint_stream([op for op, _ in mine], [ln for _, ln in mine], "ops", ops.language))
        units.append(CohortUnit(file_id, operator_id, name, fps))
    return units


@dataclass
class _CohortFP:
    file_id: str
    operator_id: str
    unit: str
    fp: Fingerprint
    distinct: set[int] = field(default_factory=set)


class OverlapIndex:
    """Cohort fingerprints, inverted; build once per freeze, then scan the KB."""

    def __init__(self, units: Iterable[CohortUnit], config: OverlapConfig | None = None):
        self.config = config or OverlapConfig()
        self._cfps: list[_CohortFP] = []
        self._inv: dict[str, dict[int, list[int]]] = {r: defaultdict(list) for r in REPRESENTATIONS}
        for u in units:
            for fp in u.fingerprints:
                self._check(fp)
                ci = len(self._cfps)
                self._cfps.append(_CohortFP(u.file_id, u.operator_id, u.unit, fp, set(fp.hashes)))
                for h in self._cfps[-1].distinct:
                    self._inv[fp.representation][h].append(ci)
        self._keys = {r: set(self._inv[r]) for r in REPRESENTATIONS}
        self._static = {r: self._static_boilerplate(r) for r in REPRESENTATIONS}
        self._kernels = self._op_kernels()

    def _op_kernels(self) -> dict[str, list[tuple[str, list[str], list[int]]]]:
        """file id -> (unit, op stream, lines) of each kernel with ops (the whole file when it has no kernel unit)."""
        whole: dict[str, tuple] = {}
        kernels: dict[str, list] = defaultdict(list)
        seen: set[tuple[str, str]] = set()
        for c in self._cfps:
            if c.fp.representation != "ops" or (c.file_id, c.unit) in seen:
                continue
            seen.add((c.file_id, c.unit))
            stream = list(getattr(c.fp, "stream", []) or [])
            if c.unit:
                if stream:
                    kernels[c.file_id].append((c.unit, stream, list(c.fp.stream_lines)))
            else:
                whole[c.file_id] = ("", stream, list(c.fp.stream_lines))
        return {f: kernels.get(f) or ([w] if w[1] else []) for f, w in whole.items()}

    @classmethod
    def build(cls, cohort_files: Mapping[str, tuple[str, str]], config: OverlapConfig | None = None,
              operators: Mapping[str, str] | None = None) -> OverlapIndex:
        """cohort_files: file id -> (code, language); operators: file id -> operator id (default: the file id)."""
        ops = operators or {}
        return cls([u for fid, (code, lang) in cohort_files.items() for u in cohort_units(fid, ops.get(fid, fid), code, lang)],
                    config)

    @classmethod
    def from_manifest(cls, manifest, config: OverlapConfig | None = None) -> OverlapIndex:
        """Index every fingerprintable file of a provenance.cohort.CohortManifest."""
        return cls([u for f in manifest.files() if f.language != "other"
                    for u in cohort_units(f.path, f.operator_id, f.code, f.language)], config)

    def _check(self, fp: Fingerprint) -> None:
        check_key(fp.scheme, fp.representation, fp.k, fp.w)

    def _static_boilerplate(self, r: str) -> set[int]:
        out: set[int] = set()
        if self.config.builtin_boilerplate:
            from provenance.boilerplate import boilerplate_hashes

            out |= boilerplate_hashes(r)
        n_ops = len({c.operator_id for c in self._cfps})
        limit = max(self.config.boilerplate_min_operators, math.ceil(self.config.boilerplate_operator_share * n_ops))
        for h, cis in self._inv[r].items():
            if len({self._cfps[ci].operator_id for ci in cis}) >= limit:
                out.add(h)
        return out

    def match(self, entry_id: str, parts: Parts) -> list[OverlapMatch]:
        """Score one entry against the cohort (seed and cohort boilerplate only: no KB statistics)."""
        return self._score(entry_id, parts, self._static)[0]

    def scan(self, entries: Iterable[tuple[str, Parts]]) -> OverlapScan:
        """Two passes over the KB (see the module docstring; vectorised in provenance.overlap_scan); entries may be
        a one-shot generator."""
        return overlap_scan.scan(self, entries)

    def _min_hits(self) -> dict[str, int]:
        """The fewest shared fingerprints that could still be flagged or reported (the first pass's filter)."""
        k_tok = PARAMS["tokens"][0]
        tokens = max(1, min(-(-self.config.min_cover // k_tok), -(-self.config.paste_run // k_tok)))
        return {"tokens": min(tokens, self.config.report_min_shared), "ops": 1}

    def _unit(self, ci: int, ign: set[int], cache: dict):
        """(non-boilerplate size, hash -> indexes in the filtered sequence, filtered indexes) of a cohort unit."""
        got = cache.get(ci)
        if got is None:
            fp = self._cfps[ci].fp
            keep = [j for j, h in enumerate(fp.hashes) if h not in ign]
            where: dict[int, list[int]] = defaultdict(list)
            for n, j in enumerate(keep):
                where[fp.hashes[j]].append(n)
            got = cache[ci] = (len(self._cfps[ci].distinct - ign), where, keep)
        return got

    def _score(self, entry_id: str, parts: Parts, ignored: Mapping[str, set[int]], per_unit: bool = False,
               cache: dict | None = None, only: set[int] | None = None) -> tuple[list[OverlapMatch], dict[str, float]]:
        """(the best match per cohort file and representation worth reporting, the best containment per representation).

        only: the fingerprints to score, by position across the parts (the scan knows which can match);
        the best containment then covers those only.
        """
        cache = {} if cache is None else cache
        best: dict[tuple[str, ...], OverlapMatch] = {}
        top = {r: 0.0 for r in REPRESENTATIONS}
        slot = -1
        for part, fps in parts.items():
            if isinstance(fps, (bytes, bytearray, memoryview)):
                fps = unpack_views(bytes(fps))
            ops_fp = next((f for f in fps if f.representation == "ops"), None)
            for fp in fps:
                slot += 1
                if only is not None and slot not in only:
                    continue
                self._check(fp)
                r, ign = fp.representation, ignored[fp.representation]
                mine = set(fp.hashes) - ign
                per_unit_hits: Counter = Counter()
                inv = self._inv[r]
                for h in mine.intersection(self._keys[r]):
                    for ci in inv[h]:
                        per_unit_hits[ci] += 1
                for ci, shared in per_unit_hits.items():
                    c = self._cfps[ci]
                    if r == "ops" and not self.config.ops_same_language and c.fp.language == fp.language:
                        continue
                    nc, where, keep = self._unit(ci, ign, (cache.setdefault(r, {})))
                    containment = shared / max(1, min(len(mine), nc))
                    top[r] = max(top[r], containment)
                    if not self._worth(r, containment, shared, fp.k):
                        continue
                    m = self._pair(entry_id, part, fp, c, mine, shared, ign, nc, where, keep)
                    self._align(m, entry_id, part, ops_fp, cache)
                    key = (c.file_id, c.unit, r) if per_unit else (c.file_id, r)
                    old = best.get(key)
                    if old is None or (m.flagged, m.score, m.containment, m.covered) > \
                            (old.flagged, old.score, old.containment, old.covered):
                        best[key] = m
        return sorted(best.values(), key=lambda m: (m.cohort_file, m.representation, m.cohort_unit)), top

    def _worth(self, r: str, containment: float, shared: int, k: int) -> bool:
        """Could this pair be flagged, or is it close enough to report? (evidence is computed only then)

        A tokens pair's score is at most its containment; an ops pair is aligned from ops_floor."""
        cfg = self.config
        if containment >= cfg.report_floor and shared >= cfg.report_min_shared:
            return True
        if r == "ops":
            return containment >= cfg.ops_floor and shared >= 1
        return (containment >= cfg.threshold and shared * k >= cfg.min_cover) or shared * k >= cfg.paste_run

    def _align(self, m: OverlapMatch, entry_id: str, part: str, ops_fp, cache: dict) -> None:
        """Add the op alignment with the cohort file's best-aligned kernel to m, then its score and decision."""
        key = ("align", entry_id, part, m.cohort_file)
        if key not in cache:
            stream = tuple(getattr(ops_fp, "stream", None) or ())
            best = ("", Alignment(0.0, 0.0, 0, None, None), [])
            for unit, ops, c_lines in self._kernels.get(m.cohort_file, []):
                a = _aligned(stream, ops, unit, m.cohort_file, cache)
                if a.fraction * a.weight > best[1].fraction * best[1].weight:  # the most matched weight
                    best = (unit, a, c_lines)
            cache[key] = (*best, list(getattr(ops_fp, "stream_lines", None) or []))
        unit, a, c_lines, e_lines = cache[key]
        m.aligned, m.aligned_weight, m.aligned_ops, m.aligned_unit = a.fraction, a.weight, a.matched, unit
        if not a.matched:  # nothing aligned: the trust is the best-weighted kernel's (its ops were all missed)
            m.aligned_weight = max((total_weight(ops) for _, ops, _ in self._kernels.get(m.cohort_file, [])), default=0.0)
        if a.entry_span and e_lines:
            m.aligned_entry_lines = (e_lines[a.entry_span[0]], e_lines[a.entry_span[1]])
        if a.cohort_span and c_lines:
            m.aligned_cohort_lines = (c_lines[a.cohort_span[0]], c_lines[a.cohort_span[1]])
        m.score = score(m, self.config)
        m.flagged, m.reason = decide(m, self.config)

    def _pair(self, entry_id, part, fp, c: _CohortFP, mine, shared, ign, nc, where, keep) -> OverlapMatch:
        ne = len(mine)
        if isinstance(fp, PackedView):
            fp = fp.as_lists()
        run, e_span, c_span = _longest_run(fp, c.fp, ign, where, keep)
        common = mine & c.distinct
        m = OverlapMatch(
            entry_id=entry_id, entry_part=part, cohort_file=c.file_id, cohort_unit=c.unit, operator_id=c.operator_id,
            representation=fp.representation, containment=round(shared / max(1, min(ne, nc)), 4),
            dice=round(2 * shared / max(1, ne + nc), 4), shared=shared, entry_fingerprints=ne,
            cohort_fingerprints=nc, covered=_covered(fp, common), longest_run=run, run_entry_lines=e_span,
            run_cohort_lines=c_span, entry_lines=_spans(fp, common), cohort_lines=_spans(c.fp, common))
        return m  # scored and decided by _align


def _aligned(stream: tuple[str, ...], ops: list[str], unit: str, file_id: str, cache: dict) -> Alignment:
    """align(stream, ops), once per distinct entry stream and cohort kernel of a scan (KB entries repeat streams)."""
    key = ("stream", stream, file_id, unit)
    got = cache.get(key)
    if got is None:
        got = cache[key] = align(stream, ops)
    return got


def _longest_run(a: Fingerprint, b: Fingerprint, ign: set[int], where: Mapping[int, list[int]], bj: list[int]):
    """Longest chain of shared fingerprints consecutive in both (boilerplate skipped), in stream tokens.

    where/bj: b's non-boilerplate fingerprint indexes, and where each hash sits among them.
    """
    ai = [i for i, h in enumerate(a.hashes) if h not in ign]
    runs: dict[tuple[int, int], int] = {}
    best, end = 0, None
    for m, i in enumerate(ai):
        for n in where.get(a.hashes[i], ()):
            length = runs.get((m - 1, n - 1), 0) + 1
            runs[(m, n)] = length
            if length > best:
                best, end = length, (m, n)
    if end is None:
        return 0, None, None
    (m1, n1), (m0, n0) = end, (end[0] - best + 1, end[1] - best + 1)
    i0, i1, j0, j1 = ai[m0], ai[m1], bj[n0], bj[n1]
    tokens, stop = 0, -1
    for i in ai[m0:m1 + 1]:  # tokens inside the run's k-grams: boilerplate skipped between them is not counted
        p = int(a.positions[i])
        tokens += p + a.k - max(p, stop)
        stop = p + a.k
    return tokens, (int(a.line_start[i0]), int(a.line_end[i1])), (int(b.line_start[j0]), int(b.line_end[j1]))


def _covered(fp: Fingerprint, common: set[int]) -> int:
    """Stream tokens of fp inside at least one shared k-gram."""
    total, end = 0, -1
    for h, p in zip(fp.hashes, map(int, fp.positions)):
        if h in common:
            total += p + fp.k - max(p, end)
            end = p + fp.k
    return total


def _spans(fp: Fingerprint, common: set[int], limit: int = 20) -> list[tuple[int, int]]:
    spans = sorted((int(s), int(e)) for h, s, e in zip(fp.hashes, fp.line_start, fp.line_end) if h in common)
    merged: list[list[int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged[:limit]]
