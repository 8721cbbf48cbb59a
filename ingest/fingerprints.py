"""The one place ingest fingerprints code for overlap detection (provenance.fingerprint, issue 5).

Each admitted record's source and repaired kernels are fingerprinted once, at ingest, and stored with
the entry: tokenising is the slow part of a freeze, so it is not redone per snapshot.
"""
from __future__ import annotations

from provenance.canonical import canonical_json

ROLES = ("source", "repaired")


def code_fingerprints(code: str, language: str) -> tuple[str, str] | None:
    """(scheme, canonical JSON of the fingerprint list) for one kernel; None for a language it cannot parse."""
    from provenance.errors import BadInput
    from provenance.fingerprint import SCHEME, fingerprints

    try:
        fps = fingerprints(code, language)
    except BadInput:
        return None  # an unknown language: the entry stays, without fingerprints (freeze reports it)
    return SCHEME, canonical_json([fp.model_dump(mode="json", by_alias=True) for fp in fps])
