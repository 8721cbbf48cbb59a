"""The static scan's walk: a visitor over reachable code that judges what it refers to and records findings."""
from __future__ import annotations

import ast
from pathlib import Path

from repair.integrity.astutil import fold_str, is_main_guard, walk
from repair.integrity.branches import known
from repair.integrity.cpp import extension_findings
from repair.integrity.flow import flows_to_return, kernel_outputs
from repair.integrity.kernels import launches
from repair.integrity.model import Func, ModuleModel
from repair.integrity.names import (AMBIGUOUS_METHODS, BUILTIN_REDUCERS, COMPILE_JIT, CONCURRENCY, CTYPES,
                                    DYNAMIC_EXEC, ENV_CHECK, FILE_READ, HOST_METHODS, HOST_NUMPY_ALLOWED,
                                    INTROSPECTION, INTROSPECTION_ATTRS, RANDOM_CREATION, REFERENCE_NAMES,
                                    TENSOR_ALLOWED_METHODS, TENSOR_COMPUTE_METHODS, TENSOR_INIT_METHODS,
                                    TENSOR_META_ATTRS, TENSOR_VIEW_ATTRS, TORCH_PLUMBING, TORCH_PLUMBING_NAMES,
                                    matches, torch_compute)
from repair.integrity.reach import INIT, KERNEL, STRICT
from repair.integrity.prologue import kernel_input_only, kernel_prologue, scalar_use
from repair.integrity.verdict import IntegrityFinding

# exploit tables checked in this order: the first that matches names the rule
_TABLES = [("static.dynamic-exec", DYNAMIC_EXEC), ("static.ctypes", CTYPES), ("static.concurrency", CONCURRENCY),
           ("static.compile-jit", COMPILE_JIT), ("static.introspection", INTROSPECTION),
           ("static.file-read", FILE_READ), ("static.env-check", ENV_CHECK)]
# elementwise arithmetic __init__ may apply to freshly drawn weights (as `torch.randn(n) * 0.1` does)
INIT_ARITHMETIC = frozenset("mul div add sub neg abs clamp clamp_min clamp_max pow sqrt reciprocal".split())
_OPERATOR_COMPUTE = frozenset("add sub mul matmul truediv floordiv pow neg abs iadd isub imul imatmul itruediv "
                              "lt le gt ge eq ne and_ or_ xor mod".split())


class Checker:
    """Walks reachable code and records findings."""

    def __init__(self, model: ModuleModel, source: str, path: Path, problem_path: Path):
        self.model, self.path, self.problem = model, path, problem_path
        self.lines = source.splitlines()
        self.findings: list[IntegrityFinding] = []
        self.func: Func | None = None
        self.ctx = INIT
        self.kernel_outs: dict[str, int] = {}  # local name -> line of the launch (or launching call) that wrote it
        self.to_output: set[str] = set()  # local names whose values flow into what the function returns
        self._calls: list[ast.Call] = []

    def add(self, rule: str, node, message: str) -> None:
        line = getattr(node, "lineno", None)
        ev = self.lines[line - 1].strip()[:160] if line and line <= len(self.lines) else ""
        level = None
        if rule in ("static.framework-compute", "static.host-compute") and self.ctx == STRICT and line:
            call = next((c for c in reversed(self._calls) if any(n is node for n in walk(c.func))), node)
            over = sorted({n.id for n in walk(call) if isinstance(n, ast.Name)
                           and self.kernel_outs.get(n.id, line) < line})
            judged = self.func is not None and rule == "static.framework-compute"
            scalar = scalar_use(self.model, self.func, node) if judged else None
            if over:  # whether it is a small epilogue or the answer, the runtime guard measures
                level = "policy"
                message += (f" over {', '.join(over)}, written by a kernel launch earlier in "
                            f"{self.func.key if self.func else 'the module'}: a framework epilogue (policy)")
            elif scalar:  # host-side setup: the runtime guard measures its share beside the kernels'
                level = "policy"
                message += (f" whose value ends in {scalar}, never in a tensor returned or launched: a scalar "
                            "prologue (policy)")
            elif judged and kernel_prologue(self.model, self.func, node):
                level = "policy"
                message += (" whose tensor goes only to a launch that also reads an input this op does not: a "
                            "framework prologue (policy; the runtime guard measures its share)")
        if self.func is not None and self.ctx != KERNEL:
            message += f" [reached from ModelNew as {self.func.key}, {self.ctx}]"
        self.findings.append(IntegrityFinding(rule=rule, message=message, line=line, evidence=ev, phase="static",
                                              level=level))

    def unique(self) -> list[IntegrityFinding]:
        seen, out = set(), []
        for f in self.findings:
            if (f.rule, f.line) not in seen:
                seen.add((f.rule, f.line))
                out.append(f)
        return out

    # ---- entry points -----------------------------------------------------------------------------------
    def module_level(self) -> None:
        self.func, self.ctx = None, INIT
        for stmt in self.model.tree.body:
            if is_main_guard(stmt):
                continue
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._visit_all(stmt.decorator_list + _defaults(stmt))
            elif isinstance(stmt, ast.ClassDef):
                self._visit_all(stmt.bases + stmt.keywords + stmt.decorator_list)
                if stmt.name == "ModelNew":
                    self._check_bases(stmt)
                for item in stmt.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self._visit_all(item.decorator_list + _defaults(item))
                    else:
                        self._visit_all([item])
            else:
                self._visit_all([stmt])

    def function(self, f: Func, ctx: str) -> None:
        self.func, self.ctx = f, ctx
        self.kernel_outs = kernel_outputs(self.model, f) if ctx == STRICT else {}
        self.to_output = flows_to_return(f)
        self._visit_all(f.node.body)
        self.kernel_outs, self.to_output = {}, set()

    def visit_If(self, node):
        v = known(node.test, self.func)
        if v is None:
            return None
        self._visit_all(node.body if v else node.orelse)
        return False

    def visit_IfExp(self, node):
        v = known(node.test, self.func)
        if v is None:
            return None
        self.visit(node.body if v else node.orelse)
        return False

    def _visit_all(self, nodes) -> None:
        for node in nodes:
            self.visit(node)

    def _check_bases(self, cls: ast.ClassDef) -> None:
        for b in cls.bases:
            q = self.model.resolve(b, None) or ""
            if q.split(".")[-1] in REFERENCE_NAMES or q.startswith("@") and q[1:] == "Model":
                self.add("static.reference-import", b, f"ModelNew subclasses {q.lstrip('@')}")

    # ---- the walk ---------------------------------------------------------------------------------------
    def visit(self, node) -> None:
        handler = getattr(self, "visit_" + type(node).__name__, None)
        call = isinstance(node, ast.Call)
        if call:
            self._calls.append(node)  # a finding on `torch.sum` names the call's arguments (an epilogue's input?)
        try:
            if handler is None or handler(node) is not False:
                for child in ast.iter_child_nodes(node):
                    self.visit(child)
        finally:
            if call:
                self._calls.pop()

    def visit_FunctionDef(self, node):
        if node is not (self.func.node if self.func else None):  # nested def: part of its parent...
            self._visit_all(node.decorator_list + _defaults(node))
            self._deferred(node.body)
        return False

    def visit_Lambda(self, node):
        self._visit_all(_defaults(node))
        self._deferred([node.body])
        return False

    def _deferred(self, body) -> None:
        """...whose body runs later, typically from forward: judged strictly even when built in __init__."""
        ctx = self.ctx
        self.ctx = STRICT if ctx == INIT else ctx
        try:
            self._visit_all(body)
        finally:
            self.ctx = ctx

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._visit_all(node.bases + node.body)
        return False

    def visit_Expr(self, node):  # docstrings and bare strings are not code
        return not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))

    def visit_Import(self, node):
        for a in node.names:
            self.classify(a.name, node, called=False, imported=True)

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level or mod == self.problem.stem or mod.split(".")[-1] == self.problem.stem:
            self.add("static.reference-import", node, f"imports from {'.' * node.level}{mod}")
            return
        for a in node.names:
            if a.name in REFERENCE_NAMES and mod.split(".")[0] not in ("torch", "triton"):
                self.add("static.reference-import", node, f"imports {a.name} from {mod}")
            self.classify(f"{mod}.{a.name}", node, called=False, imported=True)

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load):
            return
        if node.id in REFERENCE_NAMES and node.id not in self.model.classes and node.id not in self.model.funcs \
                and node.id not in self.model.globals and node.id not in self.model.imports \
                and not (self.func and node.id in self.func.assigns):
            self.add("static.reference-import", node, f"uses the reference's {node.id}")
        q = self.model.resolve(node, self.func)
        if q:
            self.classify(q, node, called=False)

    def visit_Attribute(self, node):
        q = self.model.resolve(node, self.func)
        if node.attr in INTROSPECTION_ATTRS:
            self.add("static.introspection", node, f"introspection through .{node.attr}")
        if q and isinstance(node.ctx, ast.Load):
            self.classify(q, node, called=False)
            return _visit_chain_calls(self, node)
        if self.ctx != KERNEL and isinstance(node.ctx, ast.Load):
            self.tensor_attribute(node)

    def visit_Subscript(self, node):
        q = self.model.resolve(node, self.func)
        if q and isinstance(node.ctx, ast.Load):
            self.classify(q, node, called=False)

    def visit_Call(self, node):
        m = self.model
        callee = m.resolve(node.func, self.func)
        names = self._constant_packages(node.args[0]) if callee == "importlib.import_module" and node.args else None
        if names:  # a constant top-level name (a version check): judged as the import statement it amounts to
            for name in sorted(names):
                self.classify(name, node, called=False, imported=True)
            self._visit_all(node.args[1:] + [k.value for k in node.keywords])
            return False
        if callee == "builtins.getattr" and len(node.args) >= 2:
            q = m.resolve(node, self.func)
            target = node.args[0].func if isinstance(node.args[0], ast.Call) else node.args[0]
            base = m.resolve(target, self.func) or ""  # a device-properties call counts as its namespace
            if q:
                self.classify(q, node, called=True)
            elif base == "torch" and isinstance(node.args[1], ast.Attribute) and node.args[1].attr == "type" \
                    or base.startswith(TORCH_PLUMBING) or base in TORCH_PLUMBING_NAMES:
                pass  # torch's backend module for a device's type (torch.cuda, torch.npu), or a device property
            elif self._is_target(node.args[0]) and self.ctx != KERNEL:
                self.add("static.framework-compute", node, "getattr with a computed name on a module or tensor")
        elif callee in ("builtins.setattr", "builtins.delattr", "object.__setattr__") and node.args \
                and not (self.func and _is_param0(node.args[0], self.func)):
            self.add("static.monkey-patch", node, f"{callee.split('.')[-1]} on another object")
        elif callee and callee.startswith("operator.") and callee.split(".")[-1] in _OPERATOR_COMPUTE \
                and any(m.is_tensor(a, self.func) for a in node.args):
            self.add("static.framework-compute", node, f"{callee} on tensors")
        elif callee and callee.startswith("builtins.") and callee.split(".")[-1] in BUILTIN_REDUCERS \
                and any(m.is_tensor(a, self.func) for a in node.args) and self.ctx == STRICT:
            self.add("static.framework-compute", node, f"builtin {callee.split('.')[-1]}() over a tensor")
        elif callee and callee.startswith("torch.utils.cpp_extension.load"):
            self.findings += extension_findings(self.model, node, self.func, self.path)
        nn_cls = m.nn_module_attr(node.func, self.func)
        if nn_cls and self.ctx == STRICT:
            self.add("static.framework-compute", node, f"calls an {nn_cls} module")

    def visit_BinOp(self, node):
        if self.ctx == KERNEL:
            return
        if isinstance(node.op, ast.MatMult):
            self.add("static.framework-compute", node, "the @ operator outside a kernel")
        elif self.ctx == STRICT and (self.model.is_tensor(node.left, self.func)
                                     or self.model.is_tensor(node.right, self.func)):
            self.add("static.framework-compute", node, "tensor arithmetic outside a kernel")

    def visit_UnaryOp(self, node):
        if self.ctx == STRICT and not isinstance(node.op, ast.Not) and self.model.is_tensor(node.operand, self.func):
            self.add("static.framework-compute", node, "tensor arithmetic outside a kernel")

    def visit_Compare(self, node):
        if self.ctx == STRICT and any(not isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops) \
                and any(self.model.is_tensor(x, self.func) for x in [node.left] + node.comparators):
            self.add("static.framework-compute", node, "tensor comparison outside a kernel")

    def visit_AugAssign(self, node):
        if self.ctx != KERNEL and (isinstance(node.op, ast.MatMult) or self.ctx == STRICT
                                   and self.model.is_tensor(node.target, self.func)):
            self.add("static.framework-compute", node, "in-place tensor arithmetic outside a kernel")
        self._check_store_target(node.target)

    def visit_Assign(self, node):
        for t in node.targets:
            self._check_store_target(t)

    def visit_Delete(self, node):
        for t in node.targets:
            self._check_store_target(t)

    def visit_Global(self, node):
        if self.func is not None:
            self.add("static.monkey-patch", node, "rebinds module globals from a function")

    def visit_Try(self, node):
        # a def or class inside the try (an optional import's subclass) launches nothing when the try runs
        body = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        if self.ctx == KERNEL or not launches(self.model, body, self.func):
            return
        for h in node.handlers:
            if not _ends_in_raise(h.body):
                self.add("static.fallback-except", h, "except clause around a kernel launch does not re-raise")

    visit_TryStar = visit_Try

    def visit_With(self, node):
        for item in node.items:
            q = self.model.resolve(item.context_expr.func if isinstance(item.context_expr, ast.Call)
                                   else item.context_expr, self.func) or ""
            if q == "contextlib.suppress" and launches(self.model, node.body, self.func):
                self.add("static.fallback-except", node, "contextlib.suppress around a kernel launch")

    def visit_Constant(self, node):
        if isinstance(node.value, str) and self.ctx != KERNEL and self.problem.name in node.value:
            self.add("static.reference-import", node, f"names the problem file {self.problem.name}")

    # ---- judgements -------------------------------------------------------------------------------------
    def classify(self, q: str, node, called: bool, imported: bool = False) -> None:
        """Judge a resolved dotted name the code refers to."""
        if q.startswith("@"):
            return
        if q.split(".")[0] == self.problem.stem:
            self.add("static.reference-import", node, f"imports the problem module {q}")
            return
        for rule, table in _TABLES:
            if matches(q, table):
                self.add(rule, node, f"uses {q}")
                return
        if q.startswith("numpy.") and q not in HOST_NUMPY_ALLOWED and not imported:
            self.add("static.host-compute", node, f"host computation with {q}")
        elif q.startswith("torch") and not imported:
            why = torch_compute(q, self.ctx)
            if why and q.split(".")[-1] in RANDOM_CREATION and self.func is not None \
                    and kernel_input_only(self.model, self.func, node):
                return
            if why:
                self.add("static.framework-compute", node, why)

    def tensor_attribute(self, node: ast.Attribute) -> None:
        """x.method on an unresolved receiver: tensor methods beyond views/copies are compute."""
        attr, recv = node.attr, node.value
        m = self.model
        if attr in HOST_METHODS and (attr in ("numpy", "tolist", "__array__") or m.is_tensor(recv, self.func)):
            if attr == "item" and self.func is not None and not self._item_flows(node):
                return  # a host sync whose number feeds a launch or a branch, not the output
            self.add("static.host-compute", node, f"host computation through .{attr}()")
            return
        if isinstance(recv, (ast.Constant, ast.JoinedStr, ast.Dict, ast.List, ast.Set)) or \
                (self.func and _is_param0(recv, self.func)):
            return
        if m.is_tensor(recv, self.func):
            allowed = TENSOR_ALLOWED_METHODS | TENSOR_META_ATTRS | TENSOR_VIEW_ATTRS | {"storage", "grad"}
            if self.ctx == INIT:
                allowed = allowed | TENSOR_INIT_METHODS | INIT_ARITHMETIC
            if attr not in allowed and not (self.ctx == INIT and attr.endswith("_")):
                self.add("static.framework-compute", node, f"tensor method .{attr}")
        elif attr in TENSOR_COMPUTE_METHODS and attr not in AMBIGUOUS_METHODS and self.ctx == STRICT:
            self.add("static.framework-compute", node, f"tensor method .{attr}")

    def _item_flows(self, node) -> bool:
        """Whether the statement holding this `.item()` is a return, or assigns a name whose value is returned."""
        for stmt in walk(self.func.node):
            if isinstance(stmt, (ast.Return, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)) and \
                    any(n is node for n in walk(stmt)):
                if isinstance(stmt, ast.Return):
                    return True
                if isinstance(stmt, ast.Expr):
                    continue
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                names = {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name)}
                if names & self.to_output or any(not isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in targets):
                    return True
        return False

    def _constant_packages(self, arg) -> set[str] | None:
        """The top-level package names import_module's argument always is (a constant, or a parameter every call
        site fills with a constant), else None. A dotted name (`torch.nn.functional`) is a way round the scan's
        view of imports, not a version check: None."""
        names = set()
        s = fold_str(arg, self.model._consts(self.func))
        if s is not None:
            names.add(s)
        elif isinstance(arg, ast.Name) and self.func is not None and arg.id in self.func.params_seen:
            names |= self.func.params_seen[arg.id]
        if not names or any(not n or "." in n or n == self.problem.stem for n in names):
            return None
        return names

    def _is_target(self, node) -> bool:
        q = self.model.resolve(node, self.func)
        return bool(q and not q.startswith("@")) or self.model.is_tensor(node, self.func) or \
            not (self.func and _is_param0(node, self.func))

    def _check_store_target(self, t) -> None:
        if isinstance(t, ast.Attribute):
            if self.func and _is_param0(t.value, self.func):
                return
            q = self.model.resolve(t.value, self.func)
            if q:
                self.add("static.monkey-patch", t, f"assigns {q}.{t.attr}")
        elif isinstance(t, ast.Subscript):
            v = t.value
            q = self.model.resolve(v.value if isinstance(v, ast.Attribute) and v.attr == "__dict__" else v,
                                   self.func) or ""
            if isinstance(v, ast.Attribute) and v.attr == "__dict__" or q in ("sys.modules", "builtins.globals",
                                                                               "builtins.vars", "builtins.locals"):
                self.add("static.monkey-patch", t, "writes into a namespace dict")
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                self._check_store_target(e)


def _visit_chain_calls(checker: Checker, node) -> bool:
    """Inside a resolved attribute chain only calls and subscripts (getattr(...), x[...]) need a visit."""
    v = node
    while isinstance(v, ast.Attribute):
        v = v.value
    if isinstance(v, (ast.Call, ast.Subscript)):
        checker.visit(v)
    return False


def _defaults(node) -> list:
    return [d for d in node.args.defaults + node.args.kw_defaults if d is not None]


def _is_param0(node, func: Func) -> bool:
    a = func.node.args
    params = a.posonlyargs + a.args
    return isinstance(node, ast.Name) and func.cls is not None and bool(params) and node.id == params[0].arg


def _ends_in_raise(body: list) -> bool:
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Raise):
        return True
    if isinstance(last, ast.If):
        return _ends_in_raise(last.body) and _ends_in_raise(last.orelse)
    return False
