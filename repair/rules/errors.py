"""Typed errors of the rules package."""
from __future__ import annotations

from repair.errors import BadInput, RepairError


class RuleError(RepairError):
    """Base of every rules error."""


class BadRule(RuleError, BadInput):
    """A rule that does not validate or does not compile into a matcher: exit 2."""


class BadSource(RuleError, BadInput):
    """Source code the rule engine cannot parse: exit 2."""
