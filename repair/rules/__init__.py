"""The starter rules: hand-written rewrite rules for common Triton near-miss bug classes, built into records."""
from repair.rules.catalog import STARTER, StarterPattern

__all__ = ["STARTER", "StarterPattern"]
