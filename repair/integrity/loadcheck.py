"""Whether a candidate module can be imported at all: a name its import-time code uses that nothing defines.

Import-time code is every module-level statement (an `if __name__ == "__main__":` block excepted), decorators,
default values, base classes, class bodies and, without `from __future__ import annotations`, the annotations of
functions. A name bound anywhere at module level counts as defined (order is not checked); a star import or a
module-level `try` with handlers leaves its names alone. What this misses, importing the candidate finds.
"""
from __future__ import annotations

import ast
import builtins

from repair.integrity.astutil import is_main_guard

_KNOWN = frozenset(dir(builtins)) | {"__name__", "__file__", "__builtins__", "__doc__", "__spec__", "__loader__",
                                     "__package__", "__path__", "__annotations__", "__dict__", "__module__",
                                     "__qualname__"}


def undefined_at_import(tree: ast.Module) -> tuple[str, int] | None:
    """(name, line) of the first name import-time code uses that no module-level binding defines, else None."""
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.walk(tree)):
        return None
    lazy = any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations" for a in n.names)
               for n in tree.body)
    defined = set(_KNOWN) | _bound(tree.body)
    for n in ast.walk(tree):
        if isinstance(n, ast.Global):
            defined.update(n.names)
    used: list[ast.Name] = []
    _collect(tree.body, used, lazy)
    for name in sorted(used, key=lambda n: (n.lineno, n.col_offset)):
        if name.id not in defined:
            return name.id, name.lineno
    return None


def _bound(stmts) -> set[str]:
    """Names a block binds in its own scope (function and class bodies are scopes of their own)."""
    out: set[str] = set()
    todo = list(stmts)
    while todo:
        s = todo.pop()
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
            todo += s.decorator_list
            continue
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in s.names)
            continue
        if isinstance(s, ast.Name) and isinstance(s.ctx, (ast.Store, ast.Del)):
            out.add(s.id)
        elif isinstance(s, ast.ExceptHandler) and s.name:
            out.add(s.name)
        elif isinstance(s, (ast.MatchAs, ast.MatchStar)) and s.name:
            out.add(s.name)
        if isinstance(s, ast.Lambda):
            continue
        todo += list(ast.iter_child_nodes(s))
    return out


def _collect(stmts, used: list, lazy: bool, local: frozenset = frozenset()) -> None:
    for s in stmts:
        if is_main_guard(s):
            continue
        if isinstance(s, ast.Try) and s.handlers:
            continue  # import-time code that expects to fail and handles it
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = s.args
            exprs = s.decorator_list + a.defaults + [d for d in a.kw_defaults if d is not None]
            if not lazy:
                exprs += [p.annotation for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                          if p is not None and p.annotation is not None]
                exprs += [s.returns] if s.returns is not None else []
            _names(exprs, used, local)
        elif isinstance(s, ast.ClassDef):
            _names(s.bases + [k.value for k in s.keywords] + s.decorator_list, used, local)
            _collect(s.body, used, lazy, local | _bound(s.body))
        else:
            _names([s], used, local)


def _names(nodes, used: list, local: frozenset) -> None:
    todo = list(nodes)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Lambda):
            todo += [d for d in n.args.defaults + n.args.kw_defaults if d is not None]
            continue
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            bound = {t.id for g in n.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
            inner: list[ast.Name] = []
            _names([c for c in ast.iter_child_nodes(n)], inner, local)
            used += [x for x in inner if x.id not in bound]
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local:
            used.append(n)
        todo += list(ast.iter_child_nodes(n))
