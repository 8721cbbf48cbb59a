"""Benchmark-owned files: an NPUKernelBench task's validation/ belongs to the benchmark, not to the candidate.

The model writes only op_host/ and op_kernel/; `validation/{module.py, pybind.cpp, prepare_inputs.py,
test_cases.csv}` are the task's, fixed. So they are trusted input, not code to scan for cheats, once they are shown
to be the task's own: their sha256 match the VALIDATION_SHA256 that `repair import npukernelbench` recorded in the
problem (a candidate carrying other ones is `static.validation-changed`), or, for a problem that recorded none,
they are the validation/ beside the problem itself (the task directory the problem was written in). Anything
else (a copy the problem cannot vouch for) is scanned like the candidate's own code.
"""
from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from repair.ascendc import AscendCCandidate
from repair.integrity.verdict import IntegrityFinding

RULE = "static.validation-changed"
VALIDATION_FILES = ("module.py", "pybind.cpp", "prepare_inputs.py", "test_cases.csv")


@dataclass
class Trust:
    trusted: bool  # the candidate's model and binding are the benchmark's, unchanged
    how: str  # why (or why not), for the chain's evidence
    findings: list[IntegrityFinding] = field(default_factory=list)


def validation_trust(cand: AscendCCandidate, problem_path: Path) -> Trust:
    if cand.format != "npukernelbench":
        return Trust(False, "the candidate writes its own model and binding")
    binding = next(s for s in cand.sources if s.role == "binding")
    vdir = Path(binding.file).parent
    recorded = recorded_hashes(problem_path)
    if recorded is None:
        own = (Path(problem_path).parent / "validation").resolve()
        if vdir.resolve() == own:
            return Trust(True, "the task's own validation/, beside the problem")
        return Trust(False, f"{problem_path} records no VALIDATION_SHA256 and {vdir} is not beside it: scanned as "
                            "the candidate's code")
    findings = []
    for name in VALIDATION_FILES:
        path = vdir / name
        if not path.is_file():
            continue  # the candidate carries module.py and pybind.cpp (loading needs both); the rest stay the task's
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        if recorded.get(name) != sha:
            was = f"{recorded[name][:12]}..." if name in recorded else "none recorded"
            findings.append(IntegrityFinding(
                rule=RULE, file=str(path), line=1, phase="static", evidence=f"sha256 {sha[:12]}... (imported: {was})",
                message=f"validation/{name} is the benchmark's and differs from the task's as imported "
                        f"({problem_path} VALIDATION_SHA256): a candidate writes only op_host/ and op_kernel/"))
    if findings:
        return Trust(False, "changed", findings)
    return Trust(True, "validation/ as imported (each file's sha256 is the problem's VALIDATION_SHA256)")


def recorded_hashes(problem_path: Path) -> dict[str, str] | None:
    """The problem's VALIDATION_SHA256 literal (read, never run), or None when it has none."""
    try:
        tree = ast.parse(Path(problem_path).read_text(encoding="utf-8"))
    except (SyntaxError, OSError, UnicodeDecodeError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "VALIDATION_SHA256"
                                                for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
                return value
    return None


# Runtime rules that judge the forward's and the binding's own code: with the benchmark's validation files they judge
# the benchmark, not the candidate (its forward may compute an input for the kernel; its binding may return an input
# the operator updates in place). The kernel's own part (no launch, an output no kernel wrote) is judged as ever.
_BENCHMARK_CODE = ("runtime.framework-compute", "runtime.output-alias")


def benchmark_owned(findings: list[IntegrityFinding], trust: Trust) -> list[IntegrityFinding]:
    """The runtime findings, those about the benchmark's own forward and binding made notes when `trust` holds: a
    framework op of its forward, an output its binding returns that is an input, and the mutation of that input (the
    operator's in-place interface, as the benchmark's binding defines it). A mutated input the binding does not
    return stays a finding of the candidate's kernel."""
    if not trust.trusted:
        return findings
    # (case, input) an output of the binding is: the fields the finding was made with, not its words
    returned = {(f.case_id, f.input_index) for f in findings
                if f.rule == "runtime.output-alias" and f.input_index is not None}
    out = []
    for f in findings:
        if f.rule in _BENCHMARK_CODE or (f.rule == "runtime.input-mutated" and (f.case_id, f.input_index) in returned):
            f = f.model_copy(update={"level": "note", "message": f"{f.message} (the benchmark's own forward and "
                                     f"binding, validation/ as imported: not the candidate's code)"})
        out.append(f)
    return out
