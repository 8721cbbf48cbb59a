"""Prologues: framework compute before a launch whose values end as host scalars or as a kernel's input.

Production wrappers check and measure their inputs on the host before a launch: `assert (target * mask).max() < V`,
`n = (target != ignore).sum().item()` handed to the kernel as a count, `if x.abs().max() > limit:`. Such an
expression is framework compute, but what it yields is a Python number (an assert's truth, a branch test, an
`.item()`/`int()`/`float()` host sync), and no tensor of it is returned or launched: a **scalar prologue**, reported
at the policy level whether or not the number later scales an output (a count that normalises a loss).

LLM-written wrappers often run one step in torch and the rest in a kernel (`p = torch.softmax(x)`, then a kernel
reducing `p` against a second input). Where the value goes only into launches and such a launch also reads a tensor
parameter of the wrapper that the framework op does not read, it is a **framework prologue** the kernel combines
with data of its own: policy too. A framework result a launch reads with nothing else of the inputs (a kernel that
only moves what torch computed) stays a cheat.

Both are the static view; the runtime guard measures the framework's share of the forward's elements beside the
kernels' (a host scalar that is the answer, `s = x.sum().item(); fill[grid](out, s)`, is a cheat there).
"""
from __future__ import annotations

import ast

from repair.integrity.astutil import params, walk
from repair.integrity.kernels import launches
from repair.integrity.model import Func, ModuleModel

_SCALAR_CALLS = frozenset({"int", "float", "bool"})
_DEPTH = 4  # names assigned from names assigned from ...: how far a value's uses are followed
_VIEWS = frozenset("contiguous view reshape flatten unsqueeze squeeze permute transpose expand to float half "
                   "bfloat16 detach clone".split())
SYNC, ASSERT, BRANCH = "a host sync (.item())", "an assert", "a branch test"


def scalar_use(model: ModuleModel, func: Func, node) -> str | None:
    """How the value of `node` (an expression inside func) ends as a host scalar, or None."""
    ends = _ends(model, func, node, 0)
    if not ends or any(isinstance(e, ast.Call) for e in ends):
        return None
    return sorted(ends)[0]


def kernel_prologue(model: ModuleModel, func: Func, node) -> bool:
    """Whether the value of `node` goes only into launches (and host scalars), one of which also reads a tensor
    parameter of func that the framework op itself does not read."""
    ends = _ends(model, func, node, 0)
    calls = [e for e in ends or () if isinstance(e, ast.Call)]
    if not calls:
        return False
    read = {n.id for n in walk(_statement_expr(func, node)) if isinstance(n, ast.Name)}
    own = (set(params(func.node)) & func.tensor_params) - read
    return any(_root(func, a) in own for c in calls for a in list(c.args) + [k.value for k in c.keywords])


def kernel_input_only(model: ModuleModel, func: Func, node) -> bool:
    """Whether the value of `node` goes only into launches."""
    ends = _ends(model, func, node, 0)
    return bool(ends) and all(isinstance(e, ast.Call) for e in ends)


def _parents(func: Func) -> dict[int, ast.AST]:
    par = func.node.__dict__.get("_repair_parents")
    if par is None:
        par = {}
        for n in walk(func.node):
            for c in ast.iter_child_nodes(n):
                par[id(c)] = n
        func.node._repair_parents = par
    return par


def _statement_expr(func: Func, node):
    """The innermost call holding node (the framework op with its arguments), else node."""
    par = _parents(func)
    cur = par.get(id(node))
    while cur is not None and not isinstance(cur, ast.stmt):
        if isinstance(cur, ast.Call):
            return cur
        cur = par.get(id(cur))
    return node


def _root(func: Func, arg, depth: int = 0):
    """The parameter a launch argument is (through views and copies: `d = distmap.flatten(2).contiguous()`)."""
    if depth > _DEPTH:
        return None
    while isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr in _VIEWS:
        arg = arg.func.value
    if not isinstance(arg, ast.Name):
        return None
    values = func.assigns.get(arg.id, [])
    if not values:
        return arg.id
    if len(values) == 1 and not isinstance(values[0], tuple):
        return _root(func, values[0], depth + 1)
    return None


def _mutates(node) -> bool:
    """An in-place method (`out.add_(x)`) or an `out=` argument: a value written, not only a scalar made."""
    return any(isinstance(n, ast.Call) and (isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_")
                                            and not n.func.attr.startswith("_")
                                            or any(k.arg == "out" for k in n.keywords)) for n in walk(node))


def _ends(model: ModuleModel, func: Func, node, depth: int) -> set | None:
    """Where the value of node ends: host-scalar kinds and launch calls; None when anywhere else (returned,
    stored, handed to another function, ...)."""
    if depth > _DEPTH:
        return None
    par = _parents(func)
    child, cur = node, par.get(id(node))
    while cur is not None:
        if isinstance(cur, ast.Call) and child is not cur.func and launches(model, [cur], func):
            return None if _mutates(child) else {cur}  # an argument of a launch: the kernel's input
        if isinstance(cur, ast.Call) and (
                isinstance(cur.func, ast.Attribute) and cur.func.attr == "item" and child is cur.func
                or isinstance(cur.func, ast.Name) and cur.func.id in _SCALAR_CALLS and child in cur.args):
            return None if _mutates(cur) else {SYNC}
        if isinstance(cur, ast.Assert):
            return None if _mutates(cur) else {ASSERT}
        if isinstance(cur, (ast.If, ast.While)) and child is cur.test:
            return None if _mutates(cur.test) else {BRANCH}
        if isinstance(cur, ast.Assign) and child is cur.value:
            return _names_end(model, func, cur, depth)
        if isinstance(cur, ast.stmt):
            return None
        child, cur = cur, par.get(id(cur))
    return None


def _names_end(model: ModuleModel, func: Func, stmt: ast.Assign, depth: int) -> set | None:
    """`t = <compute>`: where every later use of t ends (a use in a return, or anywhere else: None)."""
    if not all(isinstance(t, ast.Name) for t in stmt.targets):
        return None
    names = {t.id for t in stmt.targets}
    uses = [n for n in walk(func.node) if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)]
    if not uses:
        return None
    out: set = set()
    for u in uses:
        e = _ends(model, func, u, depth + 1)
        if e is None:
            return None
        out |= e
    return out
