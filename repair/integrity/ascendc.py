"""AscendC integrity: ModelNew's Python under the usual rules, then the chain to a real kernel launch.

The chain, each link named in its finding (rule `static.ascendc-chain`):
  forward->extension   ModelNew.forward calls a function of the extension module the binding builds
  extension->binding   the binding `m.def`s that name to a C++ function it defines
  binding->launch      that function calls EXEC_NPU_CMD(aclnn<Op>, ...) or reaches a `<<<>>>` launch
  op-name              <Op> is the operator the host registers with OP_ADD (and the JSON names)
  host->tiling         the operator registers a TilingFunc (SetTiling, IMPL_OP_OPTILING) that, with what it
                       reaches, fills and saves the registered (or GetTilingData<>) tiling struct
  kernel<-tiling       the kernel entry's tiling parameter is read: GET_TILING_DATA*, or wherever it is handed
  kernel->copy         the kernel reaches a copy between a GlobalTensor and local memory (DataCopy*, GetValue/
                       SetValue on one, a library routine handed one)
  kernel->compute      the kernel reaches a compute instruction (vector, cube or scalar SetValue), or only moves
                       data: nothing it copies in is dropped
(the three tiling links are msopgen's; a direct launch passes its tiling as kernel arguments). Framework compute
on the path is `static.cpp-framework-compute` (ATen in the C++: the binding may allocate outputs, read shapes and
scalars, nothing else) or the Python rules' findings; a __global__ kernel nothing launches is
`static.kernel-not-launched`; a benchmark's validation file the candidate changed is `static.validation-changed`.
"""
from __future__ import annotations

import ast
from pathlib import Path

from repair.ascendc import AscendCCandidate, SourceFile
from repair.integrity.ascendc_chain import check_chain
from repair.integrity.ascendc_cpp import framework_compute
from repair.integrity.ascendc_trust import validation_trust
from repair.integrity.pyscan import scan_source
from repair.integrity.verdict import IntegrityFinding

_BOOTSTRAP_NAMES = {"sys", "os", "Path", "pathlib", "__file__", "str"}


def scan_ascendc(cand: AscendCCandidate, problem_path: Path, rules_off=()) -> list[IntegrityFinding]:
    """Every static finding for an AscendC candidate (BadInput when its ModelNew cannot be read).

    An NPUKernelBench task's validation files are the benchmark's (ascendc_trust.py): shown unchanged, they are not
    scanned as the candidate's code; changed, that is a finding of its own and they are scanned like the rest."""
    tree = _python_tree(cand.model)
    trust = validation_trust(cand, problem_path)
    out = list(trust.findings)
    if not trust.trusted:
        out += _python_findings(cand, tree, problem_path, rules_off)
    out += check_chain(cand, tree, trusted=trust.how if trust.trusted else None)
    out += framework_compute(cand, skip=("binding", "model") if trust.trusted else ())
    return out


# -- ModelNew's Python ------------------------------------------------------------------------------

def _python_tree(model: SourceFile) -> ast.Module:
    from repair.errors import BadInput

    try:
        tree = ast.parse(model.text)
    except SyntaxError as e:
        file, line = model.where(e.lineno)
        raise BadInput(f"{file}:{line}: {model.name} does not parse ({e.msg})") from None
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        raise BadInput(f"{model.label()}: defines no class ModelNew")
    tree.body = _without_build_bootstrap(tree.body)
    return tree


def _without_build_bootstrap(body: list[ast.stmt]) -> list[ast.stmt]:
    """Drop the direct-launch prompt's module-level lines that put `<this file's dir>/kernel/build` on sys.path.

    Only assignments computed from `__file__`, `Path`/`os.path` and constants, and `sys.path.insert/append`
    (bare or under an `if` of such names) qualify, and only when nothing else reads what they assign; the
    imports of sys, os and pathlib go too when nothing else uses them. Anything else is left to the rules."""
    assigned: set[str] = set()
    dropped, kept = [], []
    for stmt in body:
        allowed = _BOOTSTRAP_NAMES | assigned
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets) \
                and _names(stmt.value) <= allowed and _names(stmt.value) & ({"__file__"} | assigned):
            assigned |= {t.id for t in stmt.targets}
            dropped.append(stmt)
        elif isinstance(stmt, ast.If) and not stmt.orelse and all(_is_path_insert(s) for s in stmt.body) \
                and _names(stmt) <= allowed:
            dropped.append(stmt)
        elif _is_path_insert(stmt) and _names(stmt) <= allowed:
            dropped.append(stmt)
        else:
            kept.append(stmt)
    used = set().union(*(_names(s) for s in kept if not isinstance(s, (ast.Import, ast.ImportFrom))))
    if not dropped or assigned & used:
        return body
    out = []
    for stmt in kept:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names = {(a.asname or a.name).split(".")[0] for a in stmt.names}
            mod = stmt.module if isinstance(stmt, ast.ImportFrom) else stmt.names[0].name
            if (mod or "").split(".")[0] in ("sys", "os", "pathlib") and not names & used:
                continue
        out.append(stmt)
    return out


def _names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_path_insert(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
        and stmt.value.func.attr in ("insert", "append") and ast.unparse(stmt.value.func.value) == "sys.path"


def _python_findings(cand: AscendCCandidate, tree: ast.Module, problem: Path, rules_off) -> list[IntegrityFinding]:
    model = cand.model
    found = scan_source(model.text, Path(model.file), problem, rules_off, tree=tree)
    out = []
    for f in found:
        if f.rule == "static.no-kernel":  # Triton's: ModelNew launches no Triton kernel; the chain below decides
            continue
        file, line = model.where(f.line)
        out.append(f.model_copy(update={"file": file, "line": line}))
    return out
