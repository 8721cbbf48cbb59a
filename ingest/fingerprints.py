"""The one place ingest fingerprints code for overlap detection (provenance.fingerprint, issue 5).

Each admitted record's source and repaired kernels are fingerprinted once, at ingest, and stored with
the entry as pack_fingerprints() bytes: tokenising is the slow part of a freeze, and reading JSON back
costs ~20 s at 100k entries, so neither is redone per snapshot. The record's language names the grammar
(triton, c, cuda, ascendc; provenance.parsing), and AscendC is also told by its content (a kernel file or a
six-source file), so an AscendC record fingerprints as its cohort file does whatever it is called.
"""
from __future__ import annotations

ROLES = ("source", "repaired")


def code_fingerprints(code: str, language: str) -> tuple[str, bytes] | None:
    """(scheme, packed fingerprints) for one kernel; None for a language it cannot parse."""
    from provenance.errors import BadInput
    from provenance.fingerprint import SCHEME, fingerprints
    from provenance.fingerprint_store import pack_fingerprints

    try:
        fps = fingerprints(code, language)
    except BadInput:
        return None  # an unknown language: the entry stays, without fingerprints (freeze reports it)
    return SCHEME, pack_fingerprints(fps)
