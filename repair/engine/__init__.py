"""The evaluation engine: runs a candidate against a problem's reference in sandboxed processes and judges it."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "harness": ["evaluate", "evaluate_many"],
    "result": ["CaseResult", "EvalResult", "TierSummary", "Tier", "EVAL_SCHEMA"],
    "diagnose": ["Diagnostics", "TensorStats"],
    "problem": ["TIERS", "ProblemSpec", "CaseSpec", "check_problem_file", "check_candidate_file"],
    "processes": ["load_problem_spec"],
    "backends": ["BACKENDS", "DEFAULT_BACKEND", "Backend", "default_backend", "get_backend"],
    "sandbox": ["prestart", "hide_own_environment"],
    "launch": ["sandbox_environ"],
    "confine.limits": ["apply_limits", "set_parent_death_signal", "prctl"],
    "confine.apply": ["confine_self"],
    "table": ["render_summary", "render_table"],
}, modules=("shared_server",))
