"""`kb freeze --exclude-cohort`: cut a snapshot of the KB with every entry tied to an evaluation cohort left out.

Four rules, each applied to every entry and reported on its own with its evidence (an entry can be
excluded by several):
- provenance: a record behind the entry names a cohort operator id, or its problem, source or repaired
  kernel hash equals the sha256 of a cohort file (problem hashes are taken from every cohort file, so a
  manifest need not say which one is the problem);
- overlap: the stored fingerprints of a record's source or repaired kernel overlap a cohort file at or
  above the provenance.overlap thresholds (tokens within a language, the op stream across languages);
- temporal: the entry was first ingested after the cohort's frozen_at (an entry ingested earlier keeps
  its place even if more evidence for it arrived later: its content predates the cohort);
- family: the entry's family, or a family its records name, is a cohort operator's family
  (only with --exclude-family).
Reads the KB read-only (no write lock: DuckDB gives a read-only handle a consistent view) and writes
only the new snapshot directory (kbstore.snapshot).
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from kbstore.errors import BadInput, IntegrityFailure
from kbstore.paths import KBPaths

RULES_SCHEMA = "kb.freeze.rules/v1"
RULES = ("provenance", "overlap", "temporal", "family")
HASH_FIELDS = ("problem_sha256", "source_sha256", "repaired_sha256")
NEAR_MISSES = 20  # unflagged pairs closest to the threshold, kept for the audit


@dataclass
class FreezeReport:
    snapshot_id: str
    path: str
    created: bool  # False: the same snapshot already existed (nothing written)
    name: str
    kb_path: str
    kb_version: int
    cohort: str
    cohort_sha256: str
    counts: dict[str, int]
    rules: dict[str, dict] = field(default_factory=dict)  # rule -> {enabled, excluded, only}
    timings: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def rule_params(cohort, config, *, exclude_family: bool) -> dict:
    """The hashed rule parameters (part of the snapshot id)."""
    from provenance.fingerprint import PARAMS, SCHEME

    return {
        "schema": RULES_SCHEMA,
        "provenance": {"operator_ids": sorted(cohort.operator_ids()), "hash_fields": list(HASH_FIELDS),
                       "hashes_from": "every cohort file"},
        "overlap": {"config": config.model_dump(mode="json"), "fingerprint_scheme": SCHEME,
                    "fingerprint_params": {k: list(v) for k, v in PARAMS.items()}, "parts": ["source", "repaired"]},
        "temporal": {"frozen_at": _iso(cohort.frozen_at), "field": "first_ingested_at", "excluded_when": "after"},
        "family": {"enabled": exclude_family, "families": sorted(cohort.families()) if exclude_family else []},
    }


def freeze(manifest_path: str | Path, kb_path: str | Path | None = None, *, name: str | None = None,
           overlap_threshold: float | None = None, exclude_family: bool = False,
           allow_outside: bool = False) -> FreezeReport:
    """Apply the rules against the cohort manifest and write the snapshot; see the module docstring.

    allow_outside: accept cohort files outside the manifest's tree (provenance.cohort.manifest_tree).
    """
    from kbstore.snapshot_lexical import LexicalBuilder
    from provenance.cohort import load_manifest
    from provenance.overlap import OverlapIndex
    from provenance.overlap_rules import OverlapConfig

    t_all = time.perf_counter()
    timings: dict[str, float] = {}
    cohort = load_manifest(manifest_path, allow_outside=allow_outside)
    if overlap_threshold is not None and not 0.0 <= overlap_threshold <= 1.0:
        raise BadInput(f"--overlap-threshold {overlap_threshold} is outside [0, 1]")
    config = OverlapConfig() if overlap_threshold is None else OverlapConfig(threshold=overlap_threshold)
    t = time.perf_counter()
    index = OverlapIndex.from_manifest(cohort, config)
    timings["overlap_index_s"] = time.perf_counter() - t
    kb = KBPaths.of(kb_path)
    kb_data = _read_kb(kb, timings)
    rows = kb_data["rows"]
    # the BM25 cache is tokenised in a forked child while this process scans (the DuckDB handle is closed)
    builder = LexicalBuilder([r["lexical_text"] for r in rows])
    try:
        t = time.perf_counter()
        kb_data["scan"] = index.scan(kb_data.pop("parts"))
        timings["overlap_scan_s"] = time.perf_counter() - t
        return _apply(kb, cohort, manifest_path, config, exclude_family, kb_data, builder, name, timings, t_all)
    finally:
        builder.close()


def _apply(kb, cohort, manifest_path, config, exclude_family, kb_data, builder, name, timings, t_all) -> FreezeReport:
    from provenance.cohort import manifest_hash, manifest_record

    rows = kb_data["rows"]
    t = time.perf_counter()
    found = rule_findings(kb_data, cohort, exclude_family)
    params = rule_params(cohort, config, exclude_family=exclude_family)
    reports = _reports(found, params, kb_data, exclude_family)
    excluded = _excluded(rows, found)
    timings["rules_s"] = time.perf_counter() - t

    path, manifest, created = _build(kb, cohort, manifest_path, params, reports, excluded, kb_data, builder, name,
                                     timings, manifest_hash(cohort), manifest_record(cohort))
    timings["total_s"] = time.perf_counter() - t_all
    return FreezeReport(manifest.id, str(path), created, manifest.name, str(kb.root), manifest.kb_version,
                        cohort.cohort, manifest.identity.cohort_sha256, dict(manifest.counts),
                        {r.rule: {"enabled": r.enabled, "excluded": r.excluded, "only": r.only} for r in manifest.rules},
                        {k: round(v, 3) for k, v in timings.items()})


def rule_findings(kb_data: dict, cohort, exclude_family: bool) -> dict[str, dict[str, list[dict]]]:
    """rule -> entry id -> its evidence, for every rule over what _read_kb read (its "scan" made): what a freeze
    excludes, and what `kb verify` re-derives a snapshot's exclusions with (kbstore.rederive)."""
    rows = kb_data["rows"]
    return {
        "provenance": provenance_rule(kb_data["evidence"], cohort.files(), cohort.operator_ids()),
        "overlap": {eid: [_match_evidence(m) for m in ms] for eid, ms in kb_data["scan"].flagged().items()},
        "temporal": temporal_rule(rows, cohort.frozen_at),
        "family": family_rule(rows, kb_data["evidence"], cohort.families()) if exclude_family else {},
    }


def _read_kb(kb: KBPaths, timings: dict) -> dict:
    """Everything the rules and the snapshot need, read in one read-only session and held in memory."""
    from kbstore.store import Store

    t = time.perf_counter()
    with Store.open(kb) as store:
        out = {"kb_version": store.head_version(), "rows": store.retrieval_rows(),
               "embedder": {"name": store.meta("embedder"), "fingerprint": store.meta("embedder_fingerprint")}}
        ids, out["matrix"], prints = store.embeddings()
        out["evidence"] = store.rows(
            "SELECT entry_id, record_sha256, run_id, operator_id, family, problem_sha256, source_sha256, repaired_sha256, "
            "version, ingested_at FROM evidence ORDER BY entry_id, version, record_sha256")
        out["parts"] = _fingerprint_parts(store)
    timings["load_s"] = time.perf_counter() - t
    if ids != [r["id"] for r in out["rows"]]:
        raise IntegrityFailure(f"{kb.root}: entries and embeddings differ ({len(out['rows'])} entries, {len(ids)} vectors); "
                               "run `kb verify`")
    if len(prints) > 1:
        raise IntegrityFailure(f"{kb.root}: vectors from {len(prints)} different embedders; run `kb verify`")
    out["embedder"]["dim"] = int(out["matrix"].shape[1]) if len(ids) else None
    out["unfingerprinted"] = sorted(set(ids) - {eid for eid, _ in out["parts"]})
    return out


def _fingerprint_parts(store) -> list[tuple[str, dict[str, bytes]]]:
    """[(entry id, {"role:record": packed blob})] in entry order (about 300 MB at 100k entries)."""
    rows = store.con.execute("SELECT entry_id, record_sha256, role, packed FROM fingerprints "
                             "WHERE packed IS NOT NULL ORDER BY entry_id, record_sha256, role").fetchall()
    out: list[tuple[str, dict[str, bytes]]] = []
    for eid, record, role, blob in rows:
        if not out or out[-1][0] != eid:
            out.append((eid, {}))
        out[-1][1][f"{role}:{record[:12]}"] = blob
    return out


# ---------------------------------------------------------------- the rules

def provenance_rule(evidence: list[dict], files, operator_ids: set[str]) -> dict[str, list[dict]]:
    """entry id -> the records tying it to the cohort (operator id, or a kernel/problem hash equal to a cohort file's)."""
    by_sha = defaultdict(list)
    for f in files:
        by_sha[f.sha256].append(f)
    out: dict[str, list[dict]] = defaultdict(list)
    for ev in evidence:
        base = {"run_id": ev["run_id"], "record_sha256": ev["record_sha256"], "operator_id": ev["operator_id"]}
        if ev["operator_id"] in operator_ids:
            out[ev["entry_id"]].append({**base, "match": "operator_id"})
        for name in HASH_FIELDS:
            for f in by_sha.get(ev[name] or "", ()):
                out[ev["entry_id"]].append({**base, "match": name, "sha256": ev[name], "cohort_file": f.path,
                                            "cohort_operator": f.operator_id})
    return dict(out)


def temporal_rule(rows: list[dict], frozen_at: datetime) -> dict[str, list[dict]]:
    """entry id -> [when it was first ingested], for entries first ingested after frozen_at."""
    out = {}
    for r in rows:
        when = _parse_time(r["first_ingested_at"], r["id"])
        if when > frozen_at:
            out[r["id"]] = [{"first_ingested_at": r["first_ingested_at"], "first_version": r["first_version"],
                             "frozen_at": _iso(frozen_at), "after_s": round((when - frozen_at).total_seconds(), 3)}]
    return out


def family_rule(rows: list[dict], evidence: list[dict], families: set[str]) -> dict[str, list[dict]]:
    """entry id -> the cohort families it belongs to (its own family, or one its records name)."""
    out: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r["family"] in families:
            out[r["id"]].append({"family": r["family"], "from": "entry"})
    for ev in evidence:
        if ev["family"] in families and not any(x["family"] == ev["family"] for x in out.get(ev["entry_id"], [])):
            out[ev["entry_id"]].append({"family": ev["family"], "from": f"record {ev['record_sha256'][:12]}"})
    return dict(out)


def _match_evidence(m) -> dict:
    return m.model_dump(mode="json", exclude={"entry_id", "flagged"})


def _parse_time(text: str, eid: str) -> datetime:
    try:
        t = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise IntegrityFailure(f"entry {eid[:12]}: first_ingested_at {text!r} is not an ISO 8601 time") from None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


# ---------------------------------------------------------------- reports and the snapshot

def _reports(found: dict, params: dict, kb_data: dict, exclude_family: bool) -> list:
    from kbstore.snapshot import RuleReport

    scan = kb_data["scan"]
    flagged = set(found["overlap"])
    near = sorted((m for m in scan.matches if not m.flagged and m.entry_id not in flagged),
                  key=lambda m: (-m.score, -m.containment, m.entry_id, m.cohort_file, m.representation))[:NEAR_MISSES]
    details = {
        "overlap": {"scanned": scan.n_entries, "candidates": scan.n_candidates, "histogram": scan.histogram,
                    "boilerplate": scan.boilerplate, "not_fingerprinted": len(kb_data["unfingerprinted"]),
                    "not_fingerprinted_ids": kb_data["unfingerprinted"][:20],
                    "near_misses": [{"entry_id": m.entry_id, **_match_evidence(m)} for m in near]},
    }
    out = []
    for rule in RULES:
        others = set().union(*(set(found[r]) for r in RULES if r != rule))
        out.append(RuleReport(rule=rule, enabled=rule != "family" or exclude_family, excluded=len(found[rule]),
                              only=len(set(found[rule]) - others), params=params[rule], details=details.get(rule, {})))
    return out


def _excluded(rows: list[dict], found: dict) -> list:
    from kbstore.snapshot import ExcludedEntry

    out = []
    for r in rows:
        hit = [rule for rule in RULES if r["id"] in found[rule]]
        if hit:
            out.append(ExcludedEntry(id=r["id"], sha256=r["id"], title=r["title"], family=r["family"],
                                     language=r["language"], first_version=r["first_version"],
                                     first_ingested_at=r["first_ingested_at"], rules=hit,
                                     evidence={rule: found[rule][r["id"]] for rule in hit}))
    return out


def _build(kb, cohort, manifest_path, params, reports, excluded, kb_data, builder, name, timings, cohort_sha,
           cohort_record):
    from kbstore.snapshot import Identity, SnapshotManifest, write_snapshot
    from provenance.version import tool_version

    t = time.perf_counter()
    gone = {e.id for e in excluded}
    keep = [n for n, r in enumerate(kb_data["rows"]) if r["id"] not in gone]
    rows = [kb_data["rows"][n] for n in keep]
    matrix = kb_data["matrix"][keep] if len(kb_data["rows"]) else kb_data["matrix"]
    identity = Identity(entries=[r["id"] for r in rows], cohort_sha256=cohort_sha, rules=params,
                        embedder_fingerprint=kb_data["embedder"]["fingerprint"], tool_version=tool_version(),
                        data={}, exclusions_sha256="")
    manifest = SnapshotManifest(
        id="", name=name or cohort.cohort, created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        kb_path=str(kb.root), kb_version=kb_data["kb_version"], cohort=cohort_record,
        cohort_source=str(Path(manifest_path).resolve()),  # absolute: an audit run from elsewhere finds the files
        embedder=kb_data["embedder"], identity=identity,
        counts={"kb_entries": len(kb_data["rows"]), "included": len(rows), "excluded": len(excluded)},
        rules=reports, excluded=excluded, timings={k: round(v, 3) for k, v in timings.items()})
    out = write_snapshot(kb, rows, matrix, manifest, lexical=lambda directory: builder.build(keep, directory))
    timings["write_s"] = time.perf_counter() - t
    return out
