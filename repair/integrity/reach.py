"""What ModelNew can reach, and in which context each function runs."""
from __future__ import annotations

import ast

from repair.integrity.astutil import forward_tensor_params, is_main_guard, walk
from repair.integrity.model import Func, ModuleModel

# forward-reachable code may allocate, view, copy and launch; __init__-only code may also initialise weights;
# kernel bodies are Triton code
STRICT, INIT, KERNEL = "strict", "init", "kernel"
# methods of a torch.autograd.Function that only autograd calls (after a forward, for gradients): never forward's
AUTOGRAD_ONLY = frozenset({"backward", "jvp", "vjp", "vmap"})


def reachable(model: ModuleModel) -> dict[str, str]:
    """Function key -> context for everything ModelNew.__init__/forward (and dunders) can reach."""
    reach: dict[str, str] = {}
    todo: list[tuple[str, str]] = []
    init = model.method("ModelNew", "__init__")
    if init:
        todo.append((init, INIT))
    for cls in model.mro("ModelNew"):
        for item in model.classes[cls].body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name != "__init__" and (
                    item.name == "forward" or item.name.startswith("__") and item.name.endswith("__")):
                todo.append((f"{cls}.{item.name}", STRICT))
            elif not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):  # forward = _impl
                todo += [(k, STRICT) for k in _refs(model, item, None)]
    for key, ctx in todo:  # forward and every dunder that can stand in for it take the inputs
        if ctx == STRICT and model.funcs[key].cls is not None:
            model.funcs[key].tensor_params |= forward_tensor_params(model.funcs[key].node)
    for stmt in model.tree.body:  # import-time code reaches what it references
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not is_main_guard(stmt):
            todo += [(k, INIT) for k in _refs(model, stmt, None)]
    while todo:
        key, ctx = todo.pop()
        f = model.funcs.get(key)
        if f is None:
            continue
        ctx = KERNEL if f.kernel else ctx
        if reach.get(key) in (ctx, STRICT, KERNEL):
            continue
        reach[key] = ctx
        todo += [(k, ctx) for k in _refs(model, f.node, f)]
    return reach


def _refs(model: ModuleModel, node, func: Func | None) -> list[str]:
    """Local function keys an AST subtree refers to (classes bring their methods; an autograd Function's backward
    is reached by autograd only, so referring to the class brings the rest)."""
    out = []
    for n in walk(node):
        if not isinstance(n, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            continue
        q = model.resolve(n, func)
        if not q or not q.startswith("@"):
            continue
        key = q[1:]
        if key in model.funcs:
            out.append(key)
        elif key in model.classes:
            fn = model.is_function_class(key)
            out += [k for k in model.funcs if model.funcs[k].cls == key
                    and not (fn and model.funcs[k].node.name in AUTOGRAD_ONLY)]
    return out
