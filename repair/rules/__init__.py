"""Executable repair patterns: structural rewrite rules, their matcher/applier and distillation."""
from repair.rules.distill import distill
from repair.rules.engine import RuleApplication, apply_rule, apply_rules, check_rule, equivalent
from repair.rules.errors import BadRule, BadSource, RuleError
from repair.rules.model import RULE_SCHEMA, MetaConstraint, Rule, rule_from_dict, rules_of

__all__ = [
    "RULE_SCHEMA", "BadRule", "BadSource", "MetaConstraint", "Rule", "RuleApplication", "RuleError",
    "apply_rule", "apply_rules", "check_rule", "distill", "equivalent", "rule_from_dict", "rules_of",
]
