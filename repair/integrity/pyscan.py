"""The Python scan: parse a candidate's source and judge what ModelNew.__init__/forward can reach."""
from __future__ import annotations

import ast
from pathlib import Path

from repair.errors import BadInput, CandidateLoadError
from repair.integrity.checker import Checker
from repair.integrity.kernels import kernel_findings
from repair.integrity.model import ModuleModel
from repair.integrity.reach import KERNEL, reachable
from repair.integrity.rules import resolve_rules_off
from repair.integrity.verdict import IntegrityFinding


def scan_source(source: str, candidate_path: Path, problem_path: Path, rules_off=(),
                tree: ast.Module | None = None) -> list[IntegrityFinding]:
    if tree is None:
        try:
            tree = ast.parse(source, filename=str(candidate_path))
        except SyntaxError as e:
            raise CandidateLoadError(f"{candidate_path}:{e.lineno}: cannot be imported: it does not parse ({e.msg})") from None
    from repair.integrity.loadcheck import undefined_at_import

    missing = undefined_at_import(tree)
    if missing:
        raise CandidateLoadError(f"{candidate_path}:{missing[1]}: cannot be imported: name {missing[0]!r} is not "
                                 "defined (its module-level code runs at import)")
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        raise BadInput(f"{candidate_path}: defines no class ModelNew")
    if set(resolve_rules_off(["static.*"])) <= set(rules_off):
        return []  # every static rule off (an ablation): the file was still checked for bad input
    model = ModuleModel(tree)
    reach = reachable(model)
    host = [k for k, ctx in reach.items() if ctx != KERNEL]
    model.infer_tensors(host)
    model.param_constants(host)
    checker = Checker(model, source, candidate_path, problem_path)
    checker.module_level()
    for key, ctx in reach.items():
        checker.function(model.funcs[key], ctx)
    checker.findings += kernel_findings(model, reach, checker)
    return checker.unique()
