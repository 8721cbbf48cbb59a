"""What a KernelBench problem file says about its sizes, read from its source without running it.

KernelBench writes a problem's sizes as module constants (`batch_size = 4096`, `D, H, W = (16, 32, 32)`,
`height = width = 128`) that `get_inputs()` and `get_init_inputs()` read as globals; a few are computed from
others (`input_shape = (num_classes,)`, `bias_shape = (out_channels, 1, 1)`). A constant whose value names no
other name is *free*: a case may set it. One that names another is *derived*: re-run after a case sets the free
ones, so the file stays consistent with itself.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from repair.errors import BadInput

INPUT_BUILDERS = ("get_inputs", "get_init_inputs")


@dataclass(frozen=True)
class Assignment:
    """One top-level assignment of the problem file."""

    names: tuple[str, ...]  # the names it binds, in order
    source: str  # the statement as written (ast.unparse)
    reads: frozenset[str]  # the names its value reads
    line: int


@dataclass(frozen=True)
class SourceFacts:
    """The parts of a problem file that deriving its cases needs."""

    assignments: tuple[Assignment, ...]
    free: tuple[str, ...]  # constants bound once by a value that reads no name, in source order
    model_reads: frozenset[str]  # module constants read as globals by Model or any function but the input builders
    top_level: frozenset[str]  # every name the file binds at top level
    has_get_init_inputs: bool

    def recompute_after(self, names: set[str]) -> tuple[Assignment, ...]:
        """The derived assignments to re-run, in order, once `names` are set: those reading them, transitively."""
        changed, out = set(names), []
        for a in self.assignments:
            if a.reads & changed and not set(a.names) <= set(self.free):
                out.append(a)
                changed.update(a.names)
        return tuple(out)


def read_facts(text: str, path: str) -> SourceFacts:
    """Parse a KernelBench problem; BadInput naming the file when it is not one (no parse, no Model/get_inputs)."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        raise BadInput(f"{path}: does not parse: {e.msg} (line {e.lineno})") from None
    assignments, bound, functions, top = [], {}, [], set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            functions.append(node)
            top.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            top.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and getattr(node, "value", None) is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = tuple(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            reads = frozenset(n.id for n in ast.walk(node.value) if isinstance(n, ast.Name))
            if isinstance(node, ast.AugAssign):
                reads |= set(names)
            assignments.append(Assignment(names, ast.unparse(node), reads, node.lineno))
            for n in names:
                bound[n] = bound.get(n, 0) + 1
            top.update(names)
    for need in ("Model", "get_inputs"):
        if need not in top:
            raise BadInput(f"{path}: defines no {need}: not a KernelBench problem")
    free = tuple(n for a in assignments if not a.reads and _simple_targets(a) for n in a.names if bound[n] == 1)
    constants = set(bound)
    model_reads: set[str] = set()
    for fn in functions:
        if fn.name not in INPUT_BUILDERS:
            model_reads |= _global_reads(fn) & constants
    return SourceFacts(tuple(assignments), free, frozenset(model_reads), frozenset(top),
                       "get_init_inputs" in top)


def _simple_targets(a: Assignment) -> bool:
    """`x = ...`, `a = b = ...` and `a, b = (..., ...)`: targets that are names (no attribute, no subscript)."""
    tree = ast.parse(a.source).body[0]
    targets = tree.targets if isinstance(tree, ast.Assign) else [tree.target]
    return isinstance(tree, (ast.Assign, ast.AnnAssign)) and all(
        isinstance(t, ast.Name)
        or (isinstance(t, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in t.elts))
        for t in targets)


def _global_reads(node: ast.AST) -> set[str]:
    """Names a function or class reads from module scope: loaded names that none of its scopes binds."""
    out: set[str] = set()
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

    def visit(scope: ast.AST, outer: frozenset[str]) -> None:
        if isinstance(scope, ast.ClassDef):  # its methods do not see its names
            local, body, inner = set(outer), scope.body, outer
        else:
            a = scope.args
            params = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}
            body = scope.body if isinstance(scope.body, list) else [scope.body]
            stores = {x.id for s in body for x in _shallow(s)
                      if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)}
            declared = {n for s in body for x in _shallow(s) if isinstance(x, ast.Global) for n in x.names}
            local = set(outer) | params | (stores - declared)
            inner = frozenset(local)
        for s in body:
            for x in _shallow(s):
                if isinstance(x, scopes):
                    visit(x, inner)
                elif isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load) and x.id not in local:
                    out.add(x.id)

    visit(node, frozenset())
    return out


def _shallow(node: ast.AST):
    """The nodes of a statement, not entering a nested function, lambda or class (which is yielded itself)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
