"""AscendC candidates: three source formats read into one model, their C++ parsed, NPUKernelBench tasks imported, ascendc-cpu emulation."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "candidate": ["CANDIDATE_SCHEMA", "AscendCCandidate", "SourceFile", "CPP_ROLES", "snake"],
    "load": ["detect", "is_ascendc_candidate", "load_candidate", "find_validation", "TILING_REGISTER"],
    "cxx": ["Call", "Func", "Program", "Unit", "callee_name", "read_together", "strip_comments", "unit", "walk"],
    "bundle": ["Bundle", "BundleError", "BundleFile", "apply_diff", "is_bundle", "parse_bundle", "resolve_name",
               "split_diff", "to_bundle", "write_candidate"],
    "task": ["TaskProblem", "read_task"],
    "importer": ["ImportedTask", "import_tasks", "problem_source"],
    "toolchain": ["cann_home", "missing_for", "require_backend"],
    "build": ["BuildFailed", "BuildPlan", "plan_build", "run_build"],
    "npu": ["NpuLoader"],
    "emu.loader": ["EmulatedLoader", "emulate"],
    "emu.build": ["CompileError", "UnsupportedApi", "compiler", "plan_emu_build", "build_library", "cache_root",
                  "prepare_pch"],
    "emu.cache": ["CacheRefused", "checked_root", "cache_info", "prune_cache", "render_cache_info", "parse_size"],
    "emu.runner": ["KernelFault", "auto_sync", "platform_config"],
    "emu.forward": ["MappingError"],
    "emu.api": ["API", "Api", "Unsupported", "calls_in", "confirm_unsupported", "render_markdown", "unsupported_in"],
})
