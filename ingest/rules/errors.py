"""Typed errors of the rule language; each carries the exit status a CLI maps it to."""
from __future__ import annotations


class RuleError(Exception):
    """Base of every rules error."""

    exit_code = 1


class BadRule(RuleError, ValueError):
    """A rule that does not validate or does not compile into a matcher: exit 2."""

    exit_code = 2


class BadSource(RuleError, ValueError):
    """Source code the rule engine cannot parse: exit 2."""

    exit_code = 2
