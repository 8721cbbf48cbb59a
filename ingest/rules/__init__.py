"""The rule language: structural rewrite rules as data (with conditions over meaning), their matcher/applier, and distillation from fixes."""
from ingest.rules.distill import distill
from ingest.rules.engine import RuleApplication, apply_rule, apply_rules, check_rule, equivalent
from ingest.rules.errors import BadRule, BadSource, RuleError
from ingest.rules.generalize import generalize
from ingest.rules.model import RULE_SCHEMA, Fact, Flow, MetaConstraint, Reference, Rule, rule_from_dict, rules_of

__all__ = [
    "RULE_SCHEMA", "BadRule", "BadSource", "Fact", "Flow", "MetaConstraint", "Reference", "Rule", "RuleApplication",
    "RuleError", "apply_rule", "apply_rules", "check_rule", "distill", "equivalent", "generalize", "rule_from_dict",
    "rules_of",
]
