"""Static integrity scan: parse the candidate and judge everything ModelNew.__init__/forward can reach.

Forward-reachable code ("strict") may allocate, view, copy and launch kernels; __init__-only code ("init")
may also initialise weights like the reference (random, nn.init, nn modules, arithmetic on them).
Module-level statements run at import and are judged too; `if __name__ == "__main__":` never runs.
"""
from __future__ import annotations

import ast
from pathlib import Path

from repair.errors import BadInput
from repair.integrity.checker import Checker
from repair.integrity.kernels import kernel_findings
from repair.integrity.model import ModuleModel
from repair.integrity.reach import KERNEL, reachable
from repair.integrity.rules import make_verdict, resolve_rules_off
from repair.integrity.verdict import IntegrityFinding, IntegrityVerdict


def scan(problem_path, candidate_path, rules_off=(), *, source: str | None = None,
         tree: ast.Module | None = None) -> IntegrityVerdict:
    """Static verdict for a candidate file against its problem file.

    A caller that has read and parsed the candidate already (the engine) passes its text and tree.
    """
    off = resolve_rules_off(rules_off)
    problem_path, candidate_path = Path(problem_path), Path(candidate_path)
    try:
        problem_path.read_text(encoding="utf-8")
        if source is None:
            source = candidate_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{e.filename or candidate_path}: cannot read ({e.__class__.__name__})") from None
    return make_verdict(scan_source(source, candidate_path, problem_path, off, tree=tree), off)


def scan_source(source: str, candidate_path: Path, problem_path: Path, rules_off=(),
                tree: ast.Module | None = None) -> list[IntegrityFinding]:
    if tree is None:
        try:
            tree = ast.parse(source, filename=str(candidate_path))
        except SyntaxError as e:
            raise BadInput(f"{candidate_path}: does not parse (line {e.lineno}: {e.msg})") from None
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        raise BadInput(f"{candidate_path}: defines no class ModelNew")
    if set(resolve_rules_off(["static.*"])) <= set(rules_off):
        return []  # every static rule off (an ablation): the file was still checked for bad input
    model = ModuleModel(tree)
    reach = reachable(model)
    model.infer_tensors([k for k, ctx in reach.items() if ctx != KERNEL])
    checker = Checker(model, source, candidate_path, problem_path)
    checker.module_level()
    for key, ctx in reach.items():
        checker.function(model.funcs[key], ctx)
    checker.findings += kernel_findings(model, reach, checker)
    return checker.unique()
