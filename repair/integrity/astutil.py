"""Small AST helpers of the static scan: constant strings, bindings, parameters, import-time statements."""
from __future__ import annotations

import ast

FuncNode = ast.FunctionDef | ast.AsyncFunctionDef


def fold_str(node, consts: dict[str, str] | None = None) -> str | None:
    """The string an expression always evaluates to ("soft" + "max", f-strings, joins, [::-1]), else None."""
    consts = consts or {}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in consts:
        return consts[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = fold_str(node.left, consts), fold_str(node.right, consts)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [fold_str(v.value if isinstance(v, ast.FormattedValue) else v, consts) for v in node.values]
        return "".join(parts) if all(p is not None for p in parts) else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        s = fold_str(node.value, consts)
        sl = node.slice
        bounds = [None if b is None else (b.value if isinstance(b, ast.Constant) else ast.literal_eval(b))
                  for b in (sl.lower, sl.upper, sl.step)] if s is not None else None
        try:
            return s[slice(*bounds)] if s is not None else None
        except Exception:
            return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
        base = fold_str(node.func.value, consts)
        if base is not None and node.func.attr == "join" and len(node.args) == 1 \
                and isinstance(node.args[0], (ast.List, ast.Tuple)):
            parts = [fold_str(e, consts) for e in node.args[0].elts]
            return base.join(parts) if all(p is not None for p in parts) else None
        if base is not None and node.func.attr in ("lower", "upper", "strip") and not node.args:
            return getattr(base, node.func.attr)()
        if base is not None and node.func.attr == "format":
            args = [fold_str(a, consts) for a in node.args]
            return base.format(*args) if all(a is not None for a in args) else None
    return None


def params(node: FuncNode) -> list[str]:
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs] + \
        [p.arg for p in (a.vararg, a.kwarg) if p is not None]


def forward_tensor_params(node: FuncNode) -> set[str]:
    """Parameters of a forward that carry inputs: all but self, int/float/bool-annotated and scalar defaults."""
    a = node.args
    positional = a.posonlyargs + a.args
    defaults = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):], a.defaults))
    out = set()
    for p in positional[1:] + a.kwonlyargs:
        ann = p.annotation
        if isinstance(ann, ast.Name) and ann.id in ("int", "float", "bool", "str"):
            continue
        d = defaults.get(p.arg)
        if isinstance(d, ast.Constant):
            continue
        out.add(p.arg)
    if a.vararg:
        out.add(a.vararg.arg)
    return out


def assignments(stmt):
    """(name, value) pairs a statement binds; tuple targets give ("unpack", value, index) (index None: unknown)."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.comprehension)):
        targets, value = [stmt.target], ("unpack", stmt.iter, None)
    elif isinstance(stmt, ast.withitem) and stmt.optional_vars is not None:
        targets, value = [stmt.optional_vars], stmt.context_expr
    else:
        return []
    out = []
    for t in targets:
        if isinstance(t, ast.Name):
            out.append((t.id, value))
        elif isinstance(t, (ast.Tuple, ast.List)):
            if not isinstance(value, tuple) and isinstance(value, (ast.Tuple, ast.List)) \
                    and len(value.elts) == len(t.elts):
                out += [(e.id, v) for e, v in zip(t.elts, value.elts) if isinstance(e, ast.Name)]
            else:
                starred = any(isinstance(e, ast.Starred) for e in t.elts)
                inner = value[1] if isinstance(value, tuple) else value
                out += [(e.id, ("unpack", inner, None if starred or isinstance(value, tuple) else i))
                        for i, e in enumerate(t.elts) if isinstance(e, ast.Name)]
    return out


def walk(node: ast.AST) -> tuple:
    """ast.walk(node) as a tuple, made once per node: the scan walks the same functions again and again (the
    tree is never changed after parsing)."""
    nodes = node.__dict__.get("_repair_walk")
    if nodes is None:
        nodes = node._repair_walk = tuple(ast.walk(node))
    return nodes


def module_level_stmts(tree: ast.Module):
    """Statements that run at import (def/class bodies excluded, `if __name__ == "__main__":` skipped)."""
    for stmt in tree.body:
        if is_main_guard(stmt):
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield from walk(stmt)


def is_main_guard(stmt) -> bool:
    if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
        return False
    t = stmt.test
    sides = [t.left] + t.comparators
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
        any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)
