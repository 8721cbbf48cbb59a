"""Read-only views of the KB: the version log (`kb log`) and one entry with its provenance chain (`kb show`)."""
from __future__ import annotations

from pathlib import Path

from kbstore.paths import KBPaths
from kbstore.store import Store


def log(kb_path: str | Path | None = None) -> list[dict]:
    """The version timeline, oldest first: version, time, batch, counts, rejections with reasons, and the derived
    rule entries its ingest learned (ingest.learn)."""
    with Store.open(KBPaths.of(kb_path)) as store:
        versions = store.versions()
        learned: dict[str, list[str]] = {}
        for row in store.rows("SELECT batch_id, entry_id FROM ingest_events WHERE outcome = 'learned' "
                              "ORDER BY batch_id, seq"):
            learned.setdefault(row["batch_id"], []).append(row["entry_id"])
    for v in versions:
        v["learned"] = learned.get(v["batch_id"], [])
    return versions


def show(kb_path: str | Path | None, entry_id: str) -> dict:
    """An entry (id or unique prefix): its pattern, evidence (runs, models, operators, gate), stats and provenance chain."""
    from provenance.ledger import chain

    with Store.open(KBPaths.of(kb_path)) as store:
        eid = store.resolve_id(entry_id)
        entry = store.entry(eid)
        evidence = [row["evidence"] | {"batch_id": row["batch_id"], "version": row["version"],
                                       "ingested_at": row["ingested_at"]} for row in store.evidence(eid)]
        steps = chain(f"nm:entry/{eid}", store.prov_edges_from, store.prov_nodes)
        embedding = store.rows("SELECT model, fingerprint, dim, text_sha256 FROM embeddings WHERE entry_id = ?", [eid])
    return {"id": eid, "sha256": entry["sha256"], "pattern": entry["pattern"], "first_version": entry["first_version"],
            "first_ingested_at": entry["first_ingested_at"], "embedding": embedding[0] if embedding else None,
            "symptom_stats": symptom_stats(evidence), "evidence": evidence, "provenance": steps,
            "derived_from": sorted({s["object"].split("/", 1)[1] for s in steps if s["subject"] == f"nm:entry/{eid}"
                                    and s["relation"] == "wasDerivedFrom" and s["object"].startswith("nm:entry/")})}


def symptom_stats(evidence: list[dict]) -> dict:
    """Symptom statistics over the entry's evidence: the range of each error figure and the summed statuses."""
    out: dict = {"records": len(evidence)}
    for key in ("max_abs_err", "max_rel_err", "mismatch_frac"):
        values = [e["symptom_stats"].get(key) for e in evidence if e["symptom_stats"].get(key) is not None]
        if values:
            out[key] = {"min": min(values), "max": max(values)}
    statuses: dict[str, int] = {}
    for e in evidence:
        for status, n in (e["symptom_stats"].get("statuses") or {}).items():
            statuses[status] = statuses.get(status, 0) + n
    out["statuses"] = dict(sorted(statuses.items()))
    return out
