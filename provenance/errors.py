"""Typed errors of the provenance package; each carries the exit status a CLI maps it to."""
from __future__ import annotations


class ProvenanceError(Exception):
    exit_code = 1


class BadInput(ProvenanceError, ValueError):
    """A malformed manifest, an unreadable file, an unknown language: exit 2."""

    exit_code = 2


class StaleFingerprint(ProvenanceError, ValueError):
    """A stored fingerprint was made by another scheme than the one in use: re-fingerprint the KB."""

    exit_code = 2


class OutsideManifestTree(BadInput):
    """A cohort file resolves outside its manifest's tree (the manifest's directory, or its project root): exit 2."""
