"""AscendC candidates: three source formats read into one model, their C++ parsed, NPUKernelBench tasks imported."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "candidate": ["CANDIDATE_SCHEMA", "AscendCCandidate", "SourceFile", "CPP_ROLES", "snake"],
    "load": ["detect", "is_ascendc_candidate", "load_candidate", "find_validation", "TILING_REGISTER"],
    "cxx": ["Call", "Func", "Program", "Unit", "callee_name", "strip_comments", "unit", "walk"],
    "task": ["TaskProblem", "read_task"],
    "importer": ["ImportedTask", "import_tasks", "problem_source"],
    "toolchain": ["cann_home", "missing_for", "require_backend"],
    "build": ["BuildFailed", "BuildPlan", "plan_build", "run_build"],
})
