"""Branches that cannot run: a test that depends only on parameters every call site fills with one constant."""
from __future__ import annotations

import ast

from repair.integrity.model import Func

_NOT_KNOWN = object()
_CONVERSIONS = {"float": float, "int": int, "bool": bool}
_COMPARE = {ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b, ast.Eq: lambda a, b: a == b,
            ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b, ast.Gt: lambda a, b: a > b,
            ast.LtE: lambda a, b: a <= b, ast.GtE: lambda a, b: a >= b}


def _const(node, f: Func | None):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and f is not None and node.id in f.consts:
        value = f.consts[node.id]
        for v in f.assigns.get(node.id, []):  # `p = float(p)` keeps it known; anything else does not
            if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in _CONVERSIONS
                    and len(v.args) == 1 and isinstance(v.args[0], ast.Name) and v.args[0].id == node.id):
                return _NOT_KNOWN
            try:
                value = _CONVERSIONS[v.func.id](value)
            except (TypeError, ValueError):
                return _NOT_KNOWN
        return value
    return _NOT_KNOWN


def known(test, f: Func | None) -> bool | None:
    """A branch test's value inside `f` when it depends only on such constants, else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        v = known(test.operand, f)
        return None if v is None else not v
    if isinstance(test, ast.BoolOp):
        vals = [known(v, f) for v in test.values]
        stop = isinstance(test.op, ast.Or)  # or: any True decides; and: any False decides
        if stop in vals:
            return stop
        return None if None in vals else not stop
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        a, b = _const(test.left, f), _const(test.comparators[0], f)
        if a is _NOT_KNOWN or b is _NOT_KNOWN:
            return None
        try:
            return bool(_COMPARE[type(test.ops[0])](a, b))
        except (KeyError, TypeError):
            return None
    v = _const(test, f)
    return None if v is _NOT_KNOWN else bool(v)
