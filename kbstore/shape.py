"""A Store.retrieval_rows() row shaped as retrieval uses it (kbstore.retrieve, kbstore.mapped, kbstore.snapshot)."""
from __future__ import annotations

import json


def shape_row(r: dict, load_pattern=json.loads) -> dict:
    """A Store.retrieval_rows() row as retrieval uses it (a snapshot stores the raw row and shapes it on open,
    parsing each pattern only when a hit needs it)."""
    r = dict(r)
    r["pattern"] = load_pattern(r.pop("canonical_json"))
    r["provenance"] = {"evidence": r.pop("n_evidence"), "runs": r.pop("runs")[:5], "operators": r.pop("operators")[:5],
                       "models": r.pop("models")[:5], "best_match": r.pop("best_match"),
                       "first_version": r["first_version"], "first_ingested_at": r["first_ingested_at"]}
    return r
