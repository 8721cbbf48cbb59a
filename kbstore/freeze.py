"""`kb freeze --exclude-cohort`: cut a snapshot of the KB with every entry tied to an evaluation cohort left out.

Four rules, each applied to every entry and reported on its own with its evidence (an entry can be
excluded by several):
- provenance: a record behind the entry names a cohort operator id, or its problem, source or repaired
  kernel hash equals the sha256 of a cohort file (problem hashes are taken from every cohort file, so a
  manifest need not say which one is the problem);
- overlap: the stored fingerprints of a record's source or repaired kernel overlap a cohort file at or
  above the provenance.overlap thresholds (tokens within a language, the op stream across languages);
- temporal: the entry was first ingested after the cohort's frozen_at (an entry ingested earlier keeps
  its place even if more evidence for it arrived later: its content predates the cohort), unless a record
  shipped with the tool is among its evidence and was recorded before it (kbstore.origins: the starter
  patterns predate any cohort); `frozen_at` overrides the manifest's time (`kb freeze --frozen-at`), recorded;
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
    warnings: list[str] = field(default_factory=list)  # snapshot_warnings: printed on stderr by `kb freeze`
    frozen_at: str = ""  # the time the temporal rule cut at (the manifest's, or --frozen-at)

    def as_dict(self) -> dict:
        return asdict(self)


def rule_params(cohort, config, *, exclude_family: bool, frozen_at: datetime | None = None,
                origins: bool = True) -> dict:
    """The hashed rule parameters (part of the snapshot id). frozen_at: the --frozen-at override; origins: the
    temporal rule consults the shipped records (kbstore.origins; snapshots cut before it was added do not)."""
    from kbstore.origins import shipped_params
    from provenance.fingerprint import PARAMS, SCHEME

    temporal = {"frozen_at": _iso(frozen_at or cohort.frozen_at), "field": "first_ingested_at", "excluded_when": "after"}
    if frozen_at is not None:
        temporal["frozen_at_from"] = "--frozen-at"
        temporal["manifest_frozen_at"] = _iso(cohort.frozen_at)
    if origins:
        temporal["shipped_origins"] = shipped_params()

    return {
        "schema": RULES_SCHEMA,
        "provenance": {"operator_ids": sorted(cohort.operator_ids()), "hash_fields": list(HASH_FIELDS),
                       "hashes_from": "every cohort file"},
        "overlap": {"config": config.model_dump(mode="json"), "fingerprint_scheme": SCHEME,
                    "fingerprint_params": {k: list(v) for k, v in PARAMS.items()}, "parts": ["source", "repaired"]},
        "temporal": temporal,
        "family": {"enabled": exclude_family, "families": sorted(cohort.families()) if exclude_family else []},
    }


def freeze(manifest_path: str | Path, kb_path: str | Path | None = None, *, name: str | None = None,
           overlap_threshold: float | None = None, exclude_family: bool = False,
           allow_outside: bool = False, frozen_at: datetime | None = None, progress=None) -> FreezeReport:
    """Apply the rules against the cohort manifest and write the snapshot; see the module docstring.

    allow_outside: accept cohort files outside the manifest's tree (provenance.cohort.manifest_tree).
    frozen_at: when the cohort really froze, instead of the manifest's frozen_at (recorded in the snapshot).
    progress: called with a line at each stage (`kb freeze` prints them on stderr).
    """
    say = progress or (lambda text: None)
    from kbstore.snapshot_lexical import LexicalBuilder
    from provenance.cohort import load_manifest
    from provenance.overlap import OverlapIndex
    from provenance.overlap_rules import OverlapConfig

    t_all = time.perf_counter()
    timings: dict[str, float] = {}
    cohort = load_manifest(manifest_path, allow_outside=allow_outside)
    if frozen_at is not None and frozen_at.tzinfo is None:
        raise BadInput(f"--frozen-at {frozen_at.isoformat()} needs a time zone (write it as 2026-11-30T00:00:00Z)")
    if overlap_threshold is not None and not 0.0 <= overlap_threshold <= 1.0:
        raise BadInput(f"--overlap-threshold {overlap_threshold} is outside [0, 1]")
    config = OverlapConfig() if overlap_threshold is None else OverlapConfig(threshold=overlap_threshold)
    t = time.perf_counter()
    say(f"indexing the cohort's {len(cohort.operators)} operators")
    index = OverlapIndex.from_manifest(cohort, config)
    timings["overlap_index_s"] = time.perf_counter() - t
    kb = KBPaths.of(kb_path)
    kb_data = _read_kb_mapped(kb, index, timings, say)
    if kb_data is not None:
        say("applying the rules and writing the snapshot")
        return _apply(kb, cohort, manifest_path, config, exclude_family, kb_data, None, name, timings, t_all,
                      frozen_at)
    kb_data = _read_kb(kb, timings)
    rows = kb_data["rows"]
    # the BM25 cache is tokenised in a forked child while this process scans (the DuckDB handle is closed)
    builder = LexicalBuilder([r["lexical_text"] for r in rows])
    try:
        t = time.perf_counter()
        say(f"scanning {len(rows)} entries for overlap with the cohort")
        kb_data["scan"] = index.scan(kb_data.pop("parts"))
        say("applying the rules and writing the snapshot")
        timings["overlap_scan_s"] = time.perf_counter() - t
        return _apply(kb, cohort, manifest_path, config, exclude_family, kb_data, builder, name, timings, t_all,
                      frozen_at)
    finally:
        builder.close()


def _apply(kb, cohort, manifest_path, config, exclude_family, kb_data, builder, name, timings, t_all,
           frozen_at) -> FreezeReport:
    from provenance.cohort import manifest_hash, manifest_record

    t = time.perf_counter()
    found = rule_findings(kb_data, cohort, exclude_family, frozen_at=frozen_at)
    params = rule_params(cohort, config, exclude_family=exclude_family, frozen_at=frozen_at)
    reports = _reports(found, params, kb_data, exclude_family)
    excluded = _excluded(kb_data["rows"], found)
    timings["rules_s"] = time.perf_counter() - t

    path, manifest, created = _build(kb, cohort, manifest_path, params, reports, excluded, kb_data, builder, name,
                                     timings, manifest_hash(cohort), manifest_record(cohort))
    timings["total_s"] = time.perf_counter() - t_all
    return FreezeReport(manifest.id, str(path), created, manifest.name, str(kb.root), manifest.kb_version,
                        cohort.cohort, manifest.identity.cohort_sha256, dict(manifest.counts),
                        {r.rule: {"enabled": r.enabled, "excluded": r.excluded, "only": r.only} for r in manifest.rules},
                        {k: round(v, 3) for k, v in timings.items()},
                        warnings=snapshot_warnings(manifest.counts, found, params["temporal"]["frozen_at"]),
                        frozen_at=params["temporal"]["frozen_at"])


def snapshot_warnings(counts: dict, found: dict, frozen_at: str) -> list[str]:
    """A snapshot that keeps nothing, or that one rule alone empties of most of the KB, says so (rule and count)."""
    total = counts["kb_entries"]
    if not total:
        return []
    out = []
    alone = {rule: len(set(found[rule]) - set().union(*(set(found[r]) for r in RULES if r != rule))) for rule in RULES}
    if counts["included"] == 0:
        by = ", ".join(f"{rule} {len(found[rule])} ({alone[rule]} alone)" for rule in RULES if found[rule])
        out.append(f"the snapshot keeps none of the KB's {total} entries (excluded by {by})")
    for rule in RULES:
        if alone[rule] * 2 > total:
            hint = (f": they were first ingested after the cohort's frozen_at {frozen_at}; if the cohort did not "
                    "freeze then, say when it did with --frozen-at" if rule == "temporal" else "")
            out.append(f"the {rule} rule alone excludes {alone[rule]} of {total} entries{hint}")
    return out


def rule_findings(kb_data: dict, cohort, exclude_family: bool, *, frozen_at: datetime | None = None,
                  origins: bool = True) -> dict[str, dict[str, list[dict]]]:
    """rule -> entry id -> its evidence, for every rule over what _read_kb read (its "scan" made): what a freeze
    excludes, and what `kb verify` re-derives a snapshot's exclusions with (kbstore.rederive)."""
    from kbstore.origins import entry_origins

    rows = kb_data["rows"]
    return {
        "provenance": provenance_rule(kb_data["evidence"], cohort.files(), cohort.operator_ids()),
        "overlap": {eid: [_match_evidence(m) for m in ms] for eid, ms in kb_data["scan"].flagged().items()},
        "temporal": temporal_rule(rows, frozen_at or cohort.frozen_at,
                                  entry_origins(kb_data["evidence"]) if origins else {}),
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
        out["evidence"] = _evidence(store)
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


def _read_kb_mapped(kb: KBPaths, index, timings: dict, say=lambda text: None) -> dict | None:
    """What _read_kb reads, with the live KB's mapped layout (kbstore.layout) standing in for the rows' JSON, the
    vectors and the fingerprints, and the overlap scan made through its fingerprint index (only the entries that share
    hashes with the cohort are read): rows hold only what the rules and the report use. The layout is first brought up
    to date under the write lock; None when that cannot be done (a writer holds the lock past KB_LOCK_WAIT, or the KB
    moved on meanwhile), and the freeze reads everything (_read_kb)."""
    import numpy as np

    from kbstore import layout
    from kbstore.errors import LockHeld
    from kbstore.lock import write_lock
    from kbstore.mapped import fingerprint_info, fingerprint_lookup, open_layout, read_generation
    from kbstore.store import Store
    from provenance.overlap_scan import scan_postings

    t = time.perf_counter()
    if not kb.db.is_file():
        return None
    try:
        with write_lock(kb.lock, what="freeze (mapped layout)"), Store.open(kb) as store:
            layout.update(store, kb)
    except (LockHeld, OSError):
        return None
    root = layout.layout_dir(kb)
    timings["layout_s"] = time.perf_counter() - t
    t = time.perf_counter()
    with Store.open(kb) as store:
        gen = read_generation(root)
        if not layout.matches(gen, layout.kb_key(store)):
            return None
        corpus = open_layout(root, gen, {"kb_path": str(kb.root), "kb_version": gen["kb_version"]})
        out = {"kb_version": store.head_version(), "mapped": corpus,
               "rows": store.rows("SELECT id, title, family, language, first_version, first_ingested_at FROM entries "
                                  "ORDER BY id"),
               "embedder": {"name": store.meta("embedder"), "fingerprint": store.meta("embedder_fingerprint"),
                            "dim": int(gen["dim"]) if gen["rows"] else None},
               "evidence": _evidence(store),
               "unfingerprinted": [r[0] for r in store.con.execute(
                   "SELECT id FROM entries e WHERE NOT EXISTS (SELECT 1 FROM fingerprints f WHERE f.entry_id = e.id "
                   "AND f.packed IS NOT NULL) ORDER BY id").fetchall()]}
        timings["load_s"] = time.perf_counter() - t

        def fetch(rows: np.ndarray):
            ids = sorted(bytes(corpus.ids[int(r)]).decode("ascii") for r in rows)
            if not ids:
                return []
            store.con.register("_kb_scan_ids", {"id": np.array(ids, dtype=object)})
            try:
                return _fingerprint_parts(store, "AND entry_id IN (SELECT id FROM _kb_scan_ids)")
            finally:
                store.con.unregister("_kb_scan_ids")

        t = time.perf_counter()
        say(f"scanning {len(out['rows'])} entries for overlap with the cohort")
        fp = gen["fingerprints"]
        out["scan"] = scan_postings(index, fingerprint_lookup(root, gen), fetch, int(fp["entries"]),
                                    [tuple(k) for k in fp["keys"]], fingerprint_info(root, gen))
        timings["overlap_scan_s"] = time.perf_counter() - t
    return out


def _evidence(store) -> list[dict]:
    return store.rows(
        "SELECT entry_id, record_sha256, run_id, operator_id, family, problem_sha256, source_sha256, repaired_sha256, "
        "version, ingested_at FROM evidence ORDER BY entry_id, version, record_sha256")


def _fingerprint_parts(store, where: str = "") -> list[tuple[str, dict[str, bytes]]]:
    """[(entry id, {"role:record": packed blob})] in entry order (about 300 MB at 100k entries)."""
    rows = store.con.execute("SELECT entry_id, record_sha256, role, packed FROM fingerprints "
                             f"WHERE packed IS NOT NULL {where} ORDER BY entry_id, record_sha256, role").fetchall()
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


def temporal_rule(rows: list[dict], frozen_at: datetime, origins: dict[str, dict] | None = None) -> dict[str, list[dict]]:
    """entry id -> [when it was first ingested], for entries first ingested after frozen_at whose content no shipped
    record dates before it (origins: kbstore.origins.entry_origins)."""
    out = {}
    for r in rows:
        when = _parse_time(r["first_ingested_at"], r["id"])
        origin = (origins or {}).get(r["id"])
        if origin and _parse_time(origin["recorded_at"], r["id"]) <= frozen_at:
            continue
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
    from kbstore.snapshot import Identity, SnapshotManifest
    from kbstore.snapshot_write import RowsSource, write_snapshot
    from provenance.version import tool_version

    t = time.perf_counter()
    gone = {e.id for e in excluded}
    keep = [n for n, r in enumerate(kb_data["rows"]) if r["id"] not in gone]
    rows = [kb_data["rows"][n] for n in keep]
    if "mapped" in kb_data:  # rows in the same (id) order as the layout's positions
        from kbstore.mapped import SnapshotSource

        source = SnapshotSource(kb_data["mapped"], keep)
    else:
        matrix = kb_data["matrix"][keep] if len(kb_data["rows"]) else kb_data["matrix"]
        source = RowsSource(rows, matrix, lambda directory: builder.build(keep, directory))
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
    out = write_snapshot(kb, source, manifest)
    timings["write_s"] = time.perf_counter() - t
    return out
