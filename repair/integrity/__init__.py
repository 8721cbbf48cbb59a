"""The integrity gate: a static scan of the candidate's sources and runtime guards around ModelNew.forward."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "rules": ["RULES", "check_policy", "make_verdict", "merge_verdicts", "resolve_rules_off"],
    "verdict": ["POLICIES", "IntegrityFinding", "IntegrityVerdict", "render_verdict"],
    "static": ["scan"],
    "runtime": ["RuntimeGuard", "foreign_launch", "insensitivity_findings", "snapshot"],
    "ascendc_trust": ["benchmark_owned", "validation_trust"],
    "launchshape": ["add_shape", "launch_shape"],
})
