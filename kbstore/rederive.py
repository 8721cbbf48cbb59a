"""Re-deriving a snapshot: the same rules, over the KB as it was at the snapshot's version, against the cohort
manifest it records, must give the same result.

A snapshot's seal is an unkeyed hash: anyone who can write its directory can write a self-consistent one ("29 kept,
0 excluded") that every hash check passes, and an evaluation would then retrieve what the cohort taught. So
`kb verify SNAPSHOT` and `repair run --eval-mode` run the freeze's rules again (kbstore.freeze: its reading of the
KB, its overlap index and scan, its rule_findings), with the parameters the snapshot records, over the entries
and evidence of the KB up to the snapshot's version, and compare (through the KB's mapped layout when the KB is still at the snapshot's version, as the freeze read
it; else every row, cut back to that version): every entry kept that a rule excludes, every
entry excluded that no rule does, an entry excluded by other rules, an entry of the KB at that version in neither
list. A cohort manifest that is gone or no longer hashes as recorded is a problem too: the snapshot can then not
be re-derived, so nothing vouches for its exclusions.
"""
from __future__ import annotations

import os
from pathlib import Path

SHOWN = 8  # differences named one by one; the rest are counted


def rederive_problems(path: Path, m, kb) -> list[str]:
    """Why the snapshot `m` (at `path`) is not what freezing the KB `kb` (KBPaths) at its version against its cohort
    manifest gives; [] when it is."""
    from kbstore.freeze import RULES, _read_kb, rule_findings, rule_params
    from provenance.cohort import load_manifest, manifest_hash
    from provenance.errors import ProvenanceError
    from provenance.overlap import OverlapIndex
    from provenance.overlap_rules import OverlapConfig

    source = m.cohort_source
    if not source or not os.path.isfile(source):
        return [f"its cohort manifest {source or '(none recorded)'} is gone: its exclusions cannot be re-derived"]
    try:
        cohort = load_manifest(source, allow_outside=True)
    except (ProvenanceError, OSError, ValueError) as e:
        return [f"its cohort manifest {source} does not load ({e}): its exclusions cannot be re-derived"]
    if manifest_hash(cohort) != m.identity.cohort_sha256:
        return [f"its cohort manifest {source} (or a file it lists) changed since the freeze "
                f"(sha256 {manifest_hash(cohort)[:12]}, recorded {m.identity.cohort_sha256[:12]}): its exclusions "
                "cannot be re-derived"]
    try:
        config = OverlapConfig(**m.identity.rules["overlap"]["config"])
        exclude_family = bool(m.identity.rules["family"]["enabled"])
        temporal = m.identity.rules["temporal"]
        frozen_at = _time(temporal["frozen_at"]) if temporal.get("frozen_at_from") == "--frozen-at" else None
        origins = "shipped_origins" in temporal  # snapshots cut before kbstore.origins dated by ingestion alone
    except (KeyError, TypeError, ValueError) as e:
        return [f"its rule parameters do not read ({e})"]
    params = rule_params(cohort, config, exclude_family=exclude_family, frozen_at=frozen_at, origins=origins)
    if params != m.identity.rules:
        changed = sorted(k for k in set(params) | set(m.identity.rules) if params.get(k) != m.identity.rules.get(k))
        return [f"its rule parameters ({', '.join(changed)}) are not the ones these rules would record for its "
                f"cohort (tool {m.identity.tool_version}): it cannot be re-derived here"]
    index = OverlapIndex.from_manifest(cohort, config)
    data = _mapped_at(kb, index, m.kb_version)
    if data is None:
        data = _at_version(_read_kb(kb, {}), m.kb_version)
        data["scan"] = index.scan(data.pop("parts"))
    found = rule_findings(data, cohort, exclude_family, frozen_at=frozen_at, origins=origins)
    return _compare(m, data, {eid: sorted(r for r in RULES if eid in found[r]) for r in RULES for eid in found[r]})


def _mapped_at(kb, index, version: int) -> dict | None:
    """What the freeze reads through the mapped layout (kbstore.freeze._read_kb_mapped: the overlap scan through the
    fingerprint postings, no row loaded whole) when the KB is still at the snapshot's version; None otherwise (the
    layout holds the KB's head, and a KB that moved on is read whole and cut back to the version, _at_version)."""
    from kbstore.freeze import _read_kb_mapped
    from kbstore.store import Store

    if not kb.db.is_file():
        return None
    with Store.open(kb) as store:
        if store.head_version() != version:
            return None
    data = _read_kb_mapped(kb, index, {})
    return data if data is not None and data["kb_version"] == version else None


def _time(text: str):
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _at_version(data: dict, version: int) -> dict:
    """The KB as it was at `version`: entries first ingested by then, evidence and fingerprints of records by then."""
    rows = [r for r in data["rows"] if r["first_version"] <= version]
    evidence = [e for e in data["evidence"] if e["version"] <= version]
    records = {(e["entry_id"], e["record_sha256"][:12]) for e in evidence}
    parts = [(eid, {k: b for k, b in blobs.items() if (eid, k.split(":", 1)[1]) in records})
             for eid, blobs in data["parts"]]
    return {**data, "rows": rows, "evidence": evidence, "parts": [(eid, b) for eid, b in parts if b]}


def _compare(m, data: dict, excluded: dict[str, list[str]]) -> list[str]:
    kept, recorded = set(m.identity.entries), {e.id: sorted(e.rules) for e in m.excluded}
    everything = {r["id"] for r in data["rows"]}
    out = []
    for eid in sorted(kept & set(excluded)):
        out.append(f"entry {eid[:12]} is kept, but {', '.join(excluded[eid])} excludes it")
    for eid in sorted(set(recorded) - set(excluded)):
        out.append(f"entry {eid[:12]} is excluded ({', '.join(recorded[eid])}), but no rule excludes it")
    for eid in sorted(set(recorded) & set(excluded)):
        if recorded[eid] != excluded[eid]:
            out.append(f"entry {eid[:12]} is excluded by {', '.join(recorded[eid])}, re-derived by "
                       f"{', '.join(excluded[eid])}")
    missing = everything - kept - set(recorded)
    for eid in sorted(missing):
        out.append(f"entry {eid[:12]} of the KB at version {m.kb_version} is neither kept nor excluded")
    for eid in sorted((kept | set(recorded)) - everything):
        out.append(f"entry {eid[:12]} was not in the KB at version {m.kb_version}")
    if len(out) > SHOWN:
        out = out[:SHOWN] + [f"... and {len(out) - SHOWN} more differences"]
    if out:
        n_kept = len(everything - set(excluded))
        out.insert(0, f"re-derived from the KB at version {m.kb_version} and its cohort manifest, it would keep "
                      f"{n_kept} and exclude {len(everything) - n_kept} of {len(everything)} entries; it keeps "
                      f"{len(kept)} and excludes {len(recorded)}")
    return out
