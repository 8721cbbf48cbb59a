"""Kernel-level static rules: decoy kernels never launched, no kernel at all, kernels that never store."""
from __future__ import annotations

import ast

from repair.integrity.astutil import walk
from repair.integrity.model import Func, ModuleModel
from repair.integrity.names import TRITON_STORE
from repair.integrity.verdict import IntegrityFinding

_STORE_METHODS = ("store", "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas", "atomic_and",
                  "atomic_or", "atomic_xor")


def _kernel_refs(model: ModuleModel, nodes, func: Func | None) -> set[str]:
    out = set()
    for root in nodes:
        for n in walk(root):
            if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)):
                q = model.resolve(n, func)
                if q and q.startswith("@") and q[1:] in model.funcs and model.funcs[q[1:]].kernel:
                    out.add(q[1:])
    return out


def launches(model: ModuleModel, stmts, func: Func | None, _seen: set | None = None) -> bool:
    """Whether these statements launch a kernel (directly, `x[grid](...)`, or through local helpers)."""
    seen = _seen if _seen is not None else set()
    for root in stmts:
        for n in walk(root):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript):
                return True
            if isinstance(n, ast.Call):
                q = model.resolve(n.func, func)
                if q and q.startswith("@"):
                    key = q[1:] if q[1:] in model.funcs else model.method(q[1:], "__init__") or ""
                    f = model.funcs.get(key)
                    if f is None or key in seen:
                        continue
                    if f.kernel and isinstance(n.func, ast.Attribute) and n.func.attr == "run":
                        return True
                    seen.add(key)
                    if not f.kernel and launches(model, f.node.body, f, seen):
                        return True
                elif isinstance(n.func, ast.Attribute) and n.func.attr == "run" and \
                        _kernel_refs(model, [n.func.value], func):
                    return True
    return False


def _device_closure(model: ModuleModel, start: set[str]) -> set[str]:
    done, todo = set(), list(start)
    while todo:
        k = todo.pop()
        if k in done:
            continue
        done.add(k)
        todo += _kernel_refs(model, model.funcs[k].node.body, model.funcs[k])
    return done


def _stores(model: ModuleModel, f: Func) -> bool:
    for n in walk(f.node):
        if isinstance(n, ast.Call):
            q = model.resolve(n.func, f) or ""
            if q in TRITON_STORE or q.startswith("triton.language.atomic_"):
                return True
            if isinstance(n.func, ast.Attribute) and n.func.attr in _STORE_METHODS:
                return True
    return False


def kernel_findings(model: ModuleModel, reach: dict[str, str], checker) -> list[IntegrityFinding]:
    host = [model.funcs[k] for k, ctx in reach.items() if ctx != "kernel"]
    from_host: set[str] = set()
    extension = False
    for f in host:
        from_host |= _kernel_refs(model, f.node.body, f)
        extension |= any(isinstance(n, ast.Call) and (model.resolve(n.func, f) or "").startswith(
            "torch.utils.cpp_extension.load") for n in walk(f.node))
    for stmt in model.tree.body:  # extensions are usually built at import
        extension |= any(isinstance(n, ast.Call) and (model.resolve(n.func, None) or "").startswith(
            "torch.utils.cpp_extension.load") for n in walk(stmt))
    used = _device_closure(model, from_host)
    out = []

    def finding(rule, node, message):
        ev = checker.lines[node.lineno - 1].strip()[:160]
        out.append(IntegrityFinding(rule=rule, message=message, line=node.lineno, evidence=ev, phase="static"))

    for k in sorted(model.kernels - used):
        finding("static.kernel-not-launched", model.funcs[k].node, f"kernel {k} is defined but never launched")
    if not from_host and not extension:
        finding("static.no-kernel", model.classes["ModelNew"], "ModelNew launches no kernel")
    for k in sorted(from_host):
        if not any(_stores(model, model.funcs[d]) for d in _device_closure(model, {k})):
            finding("static.kernel-no-store", model.funcs[k].node, f"kernel {k} never stores a result")
    return out
