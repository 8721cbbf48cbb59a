"""The starter rules: hand-written rewrite rules for common Triton and AscendC near-miss bug classes, as records."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {"catalog": ["ASCENDC_STARTER", "STARTER", "StarterPattern"]})
