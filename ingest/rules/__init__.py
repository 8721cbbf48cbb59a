"""The rule language: structural rewrite rules as data, their matcher/applier, and distillation from a fix."""
from ingest.rules.distill import distill
from ingest.rules.engine import RuleApplication, apply_rule, apply_rules, check_rule, equivalent
from ingest.rules.errors import BadRule, BadSource, RuleError
from ingest.rules.model import RULE_SCHEMA, MetaConstraint, Rule, rule_from_dict, rules_of

__all__ = [
    "RULE_SCHEMA", "BadRule", "BadSource", "MetaConstraint", "Rule", "RuleApplication", "RuleError",
    "apply_rule", "apply_rules", "check_rule", "distill", "equivalent", "rule_from_dict", "rules_of",
]
