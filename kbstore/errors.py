"""Typed errors of the knowledge base; each carries the exit status the CLI maps it to."""
from __future__ import annotations


class KBError(Exception):
    exit_code = 1


class BadInput(KBError, ValueError):
    exit_code = 2


class NotFound(KBError, LookupError):
    exit_code = 2


class LockHeld(KBError, RuntimeError):
    """Another process holds the KB's write lock."""

    exit_code = 3


class IntegrityFailure(KBError):
    """A stored object does not match its recorded hash (kb verify)."""

    exit_code = 1


class ForeignSnapshot(IntegrityFailure):
    """A snapshot directory whose bytes check out but that was not cut from this KB (another KB's, or renamed)."""

    exit_code = 1


class EnvironmentMissing(KBError, RuntimeError):
    """A package, model file or other piece of the environment the KB needs is missing."""

    exit_code = 3


class EmbedderMismatch(KBError, ValueError):
    """The chosen embedder differs from the one the KB's vectors were made with."""

    exit_code = 2


class StoreBusy(KBError, RuntimeError):
    """The DuckDB file stayed locked by another process (a reader or a writer) for the whole wait."""

    exit_code = 3
