"""The starter rules: hand-written rewrite rules for common Triton near-miss bug classes, built into records."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {"catalog": ["STARTER", "StarterPattern"]})
