"""Integrity gate: static scan of candidate sources and runtime guards around ModelNew.forward."""
from repair.integrity.rules import RULES, make_verdict, merge_verdicts, resolve_rules_off

__all__ = ["RULES", "make_verdict", "merge_verdicts", "resolve_rules_off"]
