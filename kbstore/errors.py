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
