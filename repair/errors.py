"""Typed errors of the repair package; each carries the exit status the CLI maps it to."""
from __future__ import annotations


class RepairError(Exception):
    exit_code = 1


class BadInput(RepairError, ValueError):
    """Unreadable or malformed problem/candidate/arguments: exit 2."""

    exit_code = 2


class CandidateLoadError(BadInput):
    """A candidate that cannot be imported (a syntax error, a name its import-time code uses that nothing defines,
    an import that fails): exit 2, naming the file and the line."""


class EnvironmentMissing(RepairError, RuntimeError):
    """Hardware or package for the asked backend is missing: exit 3."""

    exit_code = 3
