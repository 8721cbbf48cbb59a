"""KernelBench problem files imported as problems of this tool, with case tiers derived from their own sizes."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "importer": ["Options", "import_problems"],
    "model": ["Budget", "CPU_BUDGET", "Derivation", "ImportedProblem", "Refusal", "Refused", "default_budget",
              "resolve_budget"],
    "render": ["upstream_of"],
    "sizes": ["FLOOR", "tidy"],
})
