"""`kb export`: entries with their evidence as JSON Lines, or the whole provenance graph as W3C PROV-JSON."""
from __future__ import annotations

import json
from pathlib import Path
from typing import IO

from kbstore.errors import BadInput
from kbstore.paths import KBPaths
from kbstore.store import Store

FORMATS = ("jsonl", "prov-json")


def export(kb_path: str | Path | None, fmt: str, out: IO[str]) -> int:
    """Write the export to `out`; returns the number of entries exported."""
    if fmt not in FORMATS:
        raise BadInput(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
    with Store.open(KBPaths.of(kb_path)) as store:
        if fmt == "prov-json":
            return _prov_json(store, out)
        return _jsonl(store, out)


def _jsonl(store: Store, out: IO[str]) -> int:
    evidence: dict[str, list] = {}
    for row in store.evidence():
        evidence.setdefault(row["entry_id"], []).append(
            row["evidence"] | {"batch_id": row["batch_id"], "version": row["version"], "ingested_at": row["ingested_at"]})
    embed = {r["entry_id"]: r for r in store.rows("SELECT entry_id, model, fingerprint, dim FROM embeddings")}
    n = 0
    for row in store.rows("SELECT id, sha256, canonical_json, first_version, first_ingested_at FROM entries ORDER BY id"):
        e = embed.get(row["id"], {})
        line = {"kind": "entry", "id": row["id"], "sha256": row["sha256"], "pattern": json.loads(row["canonical_json"]),
                "first_version": row["first_version"], "first_ingested_at": row["first_ingested_at"],
                "embedding": {"model": e.get("model"), "fingerprint": e.get("fingerprint"), "dim": e.get("dim")},
                "evidence": evidence.get(row["id"], [])}
        out.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
        n += 1
    for v in store.versions():
        out.write(json.dumps({"kind": "version", **v}, sort_keys=True, ensure_ascii=False) + "\n")
    return n


def _prov_json(store: Store, out: IO[str]) -> int:
    from provenance.ledger import to_prov_json

    nodes, relations = store.prov()
    json.dump(to_prov_json(nodes, relations), out, indent=2, sort_keys=True, ensure_ascii=False)
    out.write("\n")
    return store.count("entries")
