"""Where values go inside one function: what a kernel launch wrote, and what reaches a return."""
from __future__ import annotations

import ast

from repair.integrity.astutil import params, walk
from repair.integrity.kernels import launches
from repair.integrity.model import Func, ModuleModel


def kernel_outputs(model: ModuleModel, f: Func) -> dict[str, int]:
    """Local names a kernel launch (or a local function that launches) wrote, with the line it happened on."""
    out: dict[str, int] = {}
    inputs = set(params(f.node)) - set(f.assigns)  # what the caller handed in is an input, not a kernel's output
    for n in walk(f.node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript):  # k[grid](a, b, out, ...)
            for a in list(n.args) + [k.value for k in n.keywords]:
                if isinstance(a, ast.Name) and a.id not in inputs:
                    out.setdefault(a.id, n.lineno)
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and launches(model, [n.value], f):
            for t in n.targets:
                for e in walk(t):
                    if isinstance(e, ast.Name) and e.id not in inputs:
                        out.setdefault(e.id, n.lineno)
    return out


def flows_to_return(f: Func) -> set[str]:
    """Names whose values reach a return of the function (through assignments)."""
    todo = [n.id for r in walk(f.node) if isinstance(r, ast.Return) and r.value is not None
            for n in walk(r.value) if isinstance(n, ast.Name)]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for v in f.assigns.get(name, []):
            v = v[1] if isinstance(v, tuple) else v
            todo += [n.id for n in walk(v) if isinstance(n, ast.Name)]
    return seen
