"""`kb verify SNAPSHOT`: recompute every hash of a snapshot and report each mismatch; never repair.

Checks: the manifest's seal; the data files against their recorded digests; every entry's id against the
sha256 of its canonical JSON, and the sorted ids against the identity; the vectors' shape, dtype and unit
length; the cohort record against its hash; the exclusion report against its digest; the id against
the identity; the counts; the lexical and rows caches against their digests; no stray files; its origin: the directory
carries its id, and it was cut from this KB (kbstore.snapshot.origin_problems; a warning when there is no KB to check);
and its derivation: freezing the KB at its version against its cohort manifest gives the same exclusions
(kbstore.rederive; a forged, self-consistent snapshot passes every hash, not this).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from kbstore.errors import IntegrityFailure
from kbstore.report import ProblemReport
from provenance.canonical import content_hash, sha256_text


@dataclass
class SnapshotVerifyReport(ProblemReport):
    path: str
    id: str | None
    entries: int = 0


def verify_snapshot(ref: str | os.PathLike, kb_path: str | os.PathLike | None = None) -> SnapshotVerifyReport:
    """Every check in the module docstring; the report lists each failure (ok when none)."""
    from kbstore.snapshot import MANIFEST, read_manifest, resolve_snapshot

    path = resolve_snapshot(ref, kb_path)
    report = SnapshotVerifyReport(str(path), None)
    try:
        m = read_manifest(path)
    except IntegrityFailure as e:
        report.add("manifest", str(e))
        return _unsealed(path / MANIFEST, report)
    report.id = m.id
    if _check_origin(path, m, kb_path, report):
        _check_derivation(path, m, kb_path, report)
    _check_identity(path, m, report)
    blobs = _check_data(path, m, report)
    if blobs is not None:
        _check_entries(m, blobs, report)
    _check_cache(path, m, report)
    return report


def _unsealed(manifest: Path, report: SnapshotVerifyReport) -> SnapshotVerifyReport:
    """The seal failed: still say what else the manifest claims wrongly, when it parses at all."""
    try:
        raw = json.loads(manifest.read_text(encoding="utf-8"))
        report.id = raw.get("id")
    except (OSError, ValueError):
        pass
    return report


def _check_origin(path: Path, m, kb_path, report: SnapshotVerifyReport) -> bool:
    """True when the snapshot was cut from a KB found here (which its derivation can then be checked against)."""
    from kbstore.snapshot import home_kb, kb_store, origin_problems

    kb = home_kb(path, kb_path)
    if not kb.db.is_file():
        report.warn("origin", f"no KB at {kb.root} to check that the snapshot was cut from it (pass --kb)")
    with kb_store(kb) as store:
        problems = origin_problems(path, m, store)
    for problem in problems:
        report.add("origin", problem)
    return kb.db.is_file() and not problems


def _check_derivation(path: Path, m, kb_path, report: SnapshotVerifyReport) -> None:
    from kbstore.rederive import rederive_problems
    from kbstore.snapshot import home_kb

    for problem in rederive_problems(path, m, home_kb(path, kb_path)):
        report.add("derivation", problem)


def _check_identity(path: Path, m, report: SnapshotVerifyReport) -> None:
    from kbstore.snapshot import exclusions_sha256

    if m.identity.snapshot_id() != m.id:
        report.add("id", f"the id {m.id[:12]} is not the hash of the snapshot's identity ({m.identity.snapshot_id()[:12]})")
    if content_hash(m.cohort) != m.identity.cohort_sha256:
        report.add("cohort", "the cohort record does not match the cohort hash in the identity")
    if exclusions_sha256(m.rules, m.excluded) != m.identity.exclusions_sha256:
        report.add("exclusions", "the excluded entries or rule reports do not match their recorded digest")
    excluded = {e.id for e in m.excluded}
    both = excluded & set(m.identity.entries)
    if both:
        report.add("exclusions", f"{len(both)} entries are both included and excluded, e.g. {sorted(both)[0][:12]}")
    want = {"kb_entries": len(m.identity.entries) + len(excluded), "included": len(m.identity.entries),
            "excluded": len(excluded)}
    if m.counts != want:
        report.add("counts", f"counts {m.counts} do not match the manifest's lists {want}")
    for r in m.rules:
        n = sum(r.rule in e.rules for e in m.excluded)
        if n != r.excluded:
            report.add("exclusions", f"rule {r.rule} reports {r.excluded} exclusions; {n} excluded entries name it")


def _check_data(path: Path, m, report: SnapshotVerifyReport) -> dict | None:
    from kbstore.snapshot import CACHES, DATA_FILES, MANIFEST

    blobs = {}
    for name in DATA_FILES:
        try:
            blobs[name] = (path / name).read_bytes()
        except OSError as e:
            report.add("data", f"{name}: cannot read: {e.strerror or e}")
            continue
        if sha256_text(blobs[name]) != m.identity.data.get(name):
            report.add("data", f"{name}: sha256 {sha256_text(blobs[name])[:12]} differs from the recorded "
                               f"{str(m.identity.data.get(name))[:12]}")
    stray = sorted(p.name for p in path.iterdir() if p.name not in (*DATA_FILES, MANIFEST, *CACHES))
    if stray:
        report.add("files", f"files that are not part of the snapshot: {', '.join(stray[:5])}")
    return blobs if len(blobs) == len(DATA_FILES) else None


def _check_entries(m, blobs: dict, report: SnapshotVerifyReport) -> None:
    import numpy as np

    from kbstore.snapshot import ENTRIES, VECTORS, _load_vectors

    ids, bad = [], 0
    for n, line in enumerate(blobs[ENTRIES].decode("utf-8", "replace").splitlines(), 1):
        try:
            row = json.loads(line)
            ok = sha256_text(row["canonical_json"]) == row["id"]
        except (ValueError, KeyError, TypeError):
            row, ok = {"id": f"<line {n}>"}, False
        ids.append(row["id"])
        if not ok:
            bad += 1
            if bad <= 5:
                report.add("entries", f"{ENTRIES} line {n}: entry {str(row['id'])[:12]} does not hash to its id")
    report.entries = len(ids)
    if ids != m.identity.entries:
        report.add("entries", f"the {len(ids)} entries in {ENTRIES} are not the {len(m.identity.entries)} sorted "
                              "entry hashes of the identity")
    try:
        matrix = _load_vectors(blobs[VECTORS], Path(VECTORS))
    except IntegrityFailure as e:
        report.add("vectors", str(e))
        return
    dim = m.embedder.get("dim")
    if matrix.dtype != np.float32 or matrix.shape[0] != len(ids) or (len(ids) and dim and matrix.shape[1] != dim):
        report.add("vectors", f"vectors are {matrix.dtype} {matrix.shape}; expected float32 ({len(ids)}, {dim})")
    elif len(ids):
        off = np.flatnonzero(np.abs(np.linalg.norm(matrix, axis=1) - 1.0) > 1e-3)
        if len(off):
            report.add("vectors", f"{len(off)} vectors are not unit length, e.g. row {int(off[0])}")


def _check_cache(path: Path, m, report: SnapshotVerifyReport) -> None:
    from kbstore.snapshot import LEXICAL, ROWS, cache_ok

    if not cache_ok(path, m):
        report.add("cache", f"{LEXICAL}/ does not match its recorded digests (queries rebuild BM25 in memory)")
    if (ROWS in m.caches or (path / ROWS).exists()) and not cache_ok(path, m, ROWS):
        report.add("cache", f"{ROWS}/ does not match its recorded digests (queries load every row)")
