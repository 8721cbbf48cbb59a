"""What a candidate module defines and what ModelNew can reach: names resolved through imports and aliases,
functions and classes, Triton kernels, and which local names hold tensors."""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from repair.integrity.astutil import FuncNode, assignments, fold_str, module_level_stmts, params, walk
from repair.integrity.names import (HOST_METHODS, NN_CONTAINERS, TENSOR_META_ATTRS, TENSOR_VIEW_ATTRS,
                                    TORCH_PLUMBING, TORCH_VALUES, TRITON_KERNEL_DECORATORS)

_BUILTINS = frozenset(dir(builtins))


@dataclass
class Func:
    key: str  # "helper" or "Class.method"
    node: FuncNode
    cls: str | None
    kernel: bool
    tensor_params: set[str] = field(default_factory=set)
    returns_tensor: bool = False
    returns_elts: list[bool] | None = None  # per position, when every return is a tuple of one length
    # parameter -> the constant every call site passes (its default where none passes it); filled by param_constants
    consts: dict[str, object] = field(default_factory=dict)
    params_seen: dict[str, set] = field(default_factory=dict)  # parameter -> the constant strings call sites pass
    assigns: dict[str, list] = field(default_factory=dict)  # local name -> assigned values / ("unpack", value)
    tensors: set[str] = field(default_factory=set)  # local names holding tensors


def decorator_names(node: FuncNode, model: "ModuleModel") -> list[str]:
    out = []
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        out.append(model.resolve(target, None) or "")
    return out


class ModuleModel:
    """One parsed candidate module."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.imports: dict[str, str] = {}
        self.globals: dict[str, list] = {}  # module-level name -> assigned values
        self.consts: dict[str, str] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.funcs: dict[str, Func] = {}
        self.self_attrs: dict[str, dict[str, list]] = {}  # class -> attr -> assigned values
        self._collect()

    # ---- collection -------------------------------------------------------------------------------------
    def _collect(self) -> None:
        for node in walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.imports[a.asname] = a.name
                    else:
                        self.imports.setdefault(a.name.split(".")[0], a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    self.imports[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.funcs[node.name] = Func(node.name, node, None, False)
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.funcs[f"{node.name}.{item.name}"] = Func(f"{node.name}.{item.name}", item, node.name, False)
        for stmt in module_level_stmts(self.tree):
            for name, value in assignments(stmt):
                self.globals.setdefault(name, []).append(value)
        for _ in range(3):  # NAME = "re" + "lu" and friends, folded in a few passes
            for name, values in self.globals.items():
                if len(values) == 1 and not isinstance(values[0], tuple):
                    s = fold_str(values[0], self.consts)
                    if s is not None:
                        self.consts[name] = s
        for f in self.funcs.values():
            f.kernel = any(d in TRITON_KERNEL_DECORATORS for d in decorator_names(f.node, self))
            for stmt in walk(f.node):
                for name, value in assignments(stmt):
                    f.assigns.setdefault(name, []).append(value)
                if f.cls and isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    for t in targets:
                        if _is_self_attr(t, f):
                            self.self_attrs.setdefault(f.cls, {}).setdefault(t.attr, []).append(stmt.value)
                if f.cls and isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) \
                        and stmt.func.attr in ("register_buffer", "register_parameter") and len(stmt.args) >= 2:
                    name = fold_str(stmt.args[0], self.consts)
                    if name:
                        self.self_attrs.setdefault(f.cls, {}).setdefault(name, []).append(stmt.args[1])

    @property
    def kernels(self) -> set[str]:
        return {k for k, f in self.funcs.items() if f.kernel}

    def is_function_class(self, cls: str | None, depth: int = 0) -> bool:
        """A torch.autograd.Function subclass: `apply` runs its forward; backward runs only under autograd."""
        node = self.classes.get(cls or "")
        if node is None or depth > 8:
            return False
        for b in node.bases:
            q = self.resolve(b, None) or ""
            if q in ("torch.autograd.Function", "torch.autograd.function.Function", "torch.autograd.function.once_differentiable") \
                    or q.startswith("@") and self.is_function_class(q[1:], depth + 1):
                return True
        return False

    def mro(self, cls: str | None) -> list[str]:
        """The class and its bases defined in this module, in lookup order."""
        out, todo = [], [cls] if cls else []
        while todo:
            c = todo.pop(0)
            if c in self.classes and c not in out:
                out.append(c)
                todo += [b.id for b in self.classes[c].bases if isinstance(b, ast.Name)]
        return out

    def method(self, cls: str | None, name: str) -> str | None:
        for c in self.mro(cls):
            if f"{c}.{name}" in self.funcs:
                return f"{c}.{name}"
        return None

    # ---- resolution -------------------------------------------------------------------------------------
    def resolve(self, node, func: Func | None, depth: int = 0) -> str | None:
        """Dotted name an expression refers to ("torch.nn.functional.softmax"), "@key" for local defs."""
        if depth > 8 or node is None:
            return None
        if isinstance(node, ast.Name):
            return self._resolve_name(node.id, func, depth)
        if isinstance(node, ast.Attribute):
            if func is not None and _is_self(node.value, func):
                m = self.method(func.cls, node.attr)
                if m:
                    return "@" + m
                for value in self._self_values(func.cls, node.attr):
                    r = self.resolve(value, self.funcs.get(_owner(value, self, func.cls)), depth + 1)
                    if r:
                        return r
                return None
            if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                    and node.value.func.id == "super" and func is not None:
                for c in self.mro(func.cls)[1:]:
                    if f"{c}.{node.attr}" in self.funcs:
                        return f"@{c}.{node.attr}"
                return f"torch.nn.Module.{node.attr}"
            base = self.resolve(node.value, func, depth + 1)
            if base is None:
                return None
            if base.startswith("@") and base[1:] in self.classes:
                if node.attr == "apply" and self.is_function_class(base[1:]):
                    m = self.method(base[1:], "forward")
                    return "@" + m if m else f"{base}.apply"
                m = self.method(base[1:], node.attr)
                return "@" + m if m else f"{base}.{node.attr}"
            if node.attr == "__dict__":
                return base
            return f"{base}.{node.attr}"
        if isinstance(node, ast.Call):
            callee = self.resolve(node.func, func, depth + 1)
            if callee == "builtins.getattr" and len(node.args) >= 2:
                name = fold_str(node.args[1], self._consts(func))
                base = self.resolve(node.args[0], func, depth + 1)
                return f"{base}.{name}" if base and name else None
            if callee in ("builtins.__import__", "importlib.import_module") and node.args:
                return fold_str(node.args[0], self._consts(func))
            if callee == "functools.partial" and node.args:
                return self.resolve(node.args[0], func, depth + 1)
            if callee in ("builtins.vars",) and node.args:
                return self.resolve(node.args[0], func, depth + 1)
            return None
        if isinstance(node, ast.Subscript):
            key = fold_str(node.slice, self._consts(func))
            v = node.value
            if key is None:  # TABLE[var]: any entry of a literal table (the table itself is judged where built)
                for table in self._literal_tables(v, func):
                    for val in (table.values if isinstance(table, ast.Dict) else table.elts):
                        r = self.resolve(val, func, depth + 1)
                        if r:
                            return r
                return None
            if isinstance(v, ast.Attribute) and v.attr == "__dict__" or isinstance(v, ast.Call):
                base = self.resolve(v, func, depth + 1)
                if base in ("builtins.globals", "builtins.locals"):
                    return self._resolve_name(key, None, depth + 1)
                if base == "sys.modules":
                    return key
                return f"{base}.{key}" if base else None
            if isinstance(v, ast.Attribute) and self.resolve(v, func, depth + 1) == "sys.modules":
                return key
            for d in self._literal_tables(v, func):  # a dict literal of callables: OPS["act"]
                if isinstance(d, ast.Dict):
                    for k, val in zip(d.keys, d.values):
                        if k is not None and fold_str(k, self._consts(func)) == key:
                            return self.resolve(val, func, depth + 1)
            return None
        return None

    def _literal_tables(self, node, func: Func | None) -> list:
        if not isinstance(node, ast.Name):
            return []
        values = (func.assigns.get(node.id) if func is not None else None) or self.globals.get(node.id, [])
        return [d for d in values if isinstance(d, (ast.Dict, ast.List, ast.Tuple))]

    def _consts(self, func: Func | None) -> dict[str, str]:
        if func is None:
            return self.consts
        local = {n: v.value for n, vs in func.assigns.items() for v in vs
                 if isinstance(v, ast.Constant) and isinstance(v.value, str)}
        return {**self.consts, **local}

    def _resolve_name(self, name: str, func: Func | None, depth: int) -> str | None:
        if func is not None and name in func.assigns:
            for value in func.assigns[name]:
                if not isinstance(value, tuple):
                    r = self.resolve(value, func, depth + 1)
                    if r:
                        return r
            return None
        if func is not None and name in params(func.node):
            return None
        if name in self.imports:
            return self.imports[name]
        if name in self.funcs or name in self.classes:
            return "@" + name
        if name in self.globals:
            for value in self.globals[name]:
                if not isinstance(value, tuple):
                    r = self.resolve(value, None, depth + 1)
                    if r:
                        return r
            return None
        if name in _BUILTINS or name == "__builtins__":
            return "builtins" if name == "__builtins__" else f"builtins.{name}"
        return None

    def _self_values(self, cls: str | None, attr: str) -> list:
        return [v for c in self.mro(cls) for v in self.self_attrs.get(c, {}).get(attr, [])]

    # ---- tensors ----------------------------------------------------------------------------------------
    def nn_module_attr(self, node, func: Func | None) -> str | None:
        """`self.act` assigned an nn module instance (nn.ReLU(), nn.Linear(..)): its class name."""
        if func is None or not isinstance(node, ast.Attribute) or not _is_self(node.value, func):
            return None
        for value in self._self_values(func.cls, node.attr):
            if isinstance(value, ast.Call):
                q = self.resolve(value.func, self.funcs.get(_owner(value, self, func.cls)))
                if q and q.startswith("torch.nn.") and q.split(".")[-1] not in NN_CONTAINERS \
                        and not q.startswith(("torch.nn.functional", "torch.nn.init")):
                    return q
        return None

    def is_tensor(self, node, func: Func | None, depth: int = 0) -> bool:
        if depth > 12 or node is None:
            return False
        if isinstance(node, ast.Name):
            return func is not None and node.id in func.tensors
        if isinstance(node, ast.Attribute):
            if node.attr in TENSOR_META_ATTRS:
                return False
            if node.attr in TENSOR_VIEW_ATTRS:
                return self.is_tensor(node.value, func, depth + 1)
            if func is not None and _is_self(node.value, func):
                return any(self.is_tensor(v, self.funcs.get(_owner(v, self, func.cls)), depth + 1)
                           for v in self._self_values(func.cls, node.attr))
            if node.attr in ("weight", "bias", "running_mean", "running_var"):
                return self.nn_module_attr(node.value, func) is not None
            return False
        if isinstance(node, ast.Subscript):
            return self.is_tensor(node.value, func, depth + 1)
        if isinstance(node, ast.Call):
            q = self.resolve(node.func, func)
            if q and q.startswith("@"):
                f = self.funcs.get(q[1:])
                return bool(f and f.returns_tensor)
            if q and q.startswith(("torch.utils.", "torch.cuda.", "torch.npu.", "torch.backends.", "torch.testing.")):
                return False
            if q and q.startswith("torch."):
                last = q.split(".")[-1]
                if q.startswith(TORCH_PLUMBING) or last in TORCH_VALUES or last in (
                        "numel", "is_tensor", "is_floating_point", "result_type", "promote_types",
                        "get_default_dtype", "finfo", "iinfo", "broadcast_shapes", "Size", "device", "dtype",
                        "no_grad", "inference_mode", "manual_seed", "Generator"):
                    return False
                return not (q.startswith("torch.nn.") and last[:1].isupper() and last not in ("Parameter", "Buffer"))
            if isinstance(node.func, ast.Attribute):
                if node.func.attr in TENSOR_META_ATTRS or node.func.attr in HOST_METHODS:
                    return False  # metadata, or a host value (`.item()`, `.tolist()`): a Python number or list
                if self.nn_module_attr(node.func, func):
                    return True
                return self.is_tensor(node.func.value, func, depth + 1)
            return self.nn_module_attr(node.func, func) is not None
        if isinstance(node, ast.BinOp):
            return self.is_tensor(node.left, func, depth + 1) or self.is_tensor(node.right, func, depth + 1)
        if isinstance(node, ast.UnaryOp):
            return self.is_tensor(node.operand, func, depth + 1)
        if isinstance(node, ast.IfExp):
            return self.is_tensor(node.body, func, depth + 1) or self.is_tensor(node.orelse, func, depth + 1)
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self.is_tensor(e, func, depth + 1) for e in node.elts)
        return False

    def infer_tensors(self, keys) -> None:
        """Fixpoint over the given functions: tensor locals, tensor params from call sites, tensor returns."""
        for _ in range(6):
            changed = False
            for key in keys:
                f = self.funcs[key]
                if f.kernel:
                    continue
                new = set(f.tensor_params)
                for _ in range(4):
                    for name, values in f.assigns.items():
                        if name in new:
                            continue
                        for v in values:
                            if isinstance(v, tuple) and v[2] is not None:  # a, b = helper(...): per position
                                elt = self._returned_elt(v[1], v[2], _with_tensors(f, new))
                                if elt is not None:
                                    if elt:
                                        new.add(name)
                                        break
                                    continue
                            inner = v[1] if isinstance(v, tuple) else v
                            if self.is_tensor(inner, _with_tensors(f, new)):
                                new.add(name)
                                break
                if new != f.tensors:
                    f.tensors, changed = new, True
                rets = [n.value for n in walk(f.node) if isinstance(n, ast.Return) and n.value is not None]
                rt = any(self.is_tensor(r, f) for r in rets)
                if rt != f.returns_tensor:
                    f.returns_tensor, changed = rt, True
                tuples = [r for r in rets if isinstance(r, ast.Tuple)]
                elts = None
                if rets and len(tuples) == len(rets) and len({len(t.elts) for t in tuples}) == 1:
                    elts = [any(self.is_tensor(t.elts[i], f) for t in tuples) for i in range(len(tuples[0].elts))]
                if elts != f.returns_elts:
                    f.returns_elts, changed = elts, True
                changed |= self._propagate_params(f)
            if not changed:
                return

    def _returned_elt(self, value, index: int, func: Func) -> bool | None:
        """Whether position `index` of what a local function returns is a tensor (None: not known per position)."""
        if not isinstance(value, ast.Call):
            return None
        q = self.resolve(value.func, func)
        target = self.funcs.get(q[1:]) if q and q.startswith("@") else None
        if target is None or target.returns_elts is None or index >= len(target.returns_elts):
            return None
        return target.returns_elts[index]

    def call_params(self, target: Func) -> list[str]:
        """The parameters a call fills: without self/cls, and without ctx for an autograd Function's forward."""
        names = params(target.node)
        a = target.node.args
        names = [p.arg for p in a.posonlyargs + a.args]
        if names and (names[0] in ("self", "cls") or target.cls and self.is_function_class(target.cls)
                      and target.node.name in ("forward", "backward")):
            names = names[1:]
        return names

    def param_constants(self, keys=()) -> None:
        """Parameters every call site (in functions and at module level) fills with one constant."""
        sites: dict[str, list[tuple[ast.Call, Func | None]]] = {}
        # every call site in the module counts, reachable or not (a constant must hold wherever it is called from)
        scopes = [(f.node, f) for f in self.funcs.values() if not f.kernel]
        scopes += [(stmt, None) for stmt in self.tree.body  # import-time calls
                   if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        for root, f in scopes:
            for call in (n for n in walk(root) if isinstance(n, ast.Call)):
                q = self.resolve(call.func, f)
                if q and q.startswith("@") and q[1:] in self.funcs:
                    sites.setdefault(q[1:], []).append((call, f))
        refs: dict[str, int] = {}
        for n in walk(self.tree):  # a function also used as a value (a callback, partial, a table) is not followed
            name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else None
            if name is not None and isinstance(n.ctx, ast.Load):
                refs[name] = refs.get(name, 0) + 1
        for _ in range(4):
            for key, calls in sites.items():
                target = self.funcs[key]
                name = target.node.name
                uses = refs.get(name, 0) + (refs.get("apply", 0) if name == "forward" else 0)
                if target.kernel or uses > len(calls) + (refs.get("apply", 0) if name == "forward" else 0) \
                        or any(not isinstance(c.func, (ast.Name, ast.Attribute)) for c, _ in calls):
                    continue
                names = self.call_params(target)
                a = target.node.args
                positional = a.posonlyargs + a.args
                defaults = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):], a.defaults))
                defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
                consts = {}
                for name in names + [p.arg for p in a.kwonlyargs]:
                    values = set()
                    for call, caller in calls:
                        if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
                            values.add(_UNKNOWN)
                            break
                        idx = names.index(name) if name in names else None
                        given = next((k.value for k in call.keywords if k.arg == name), None)
                        if given is None and idx is not None and idx < len(call.args):
                            given = call.args[idx]
                        given = given if given is not None else defaults.get(name)
                        values.add(_constant(given, caller))
                    if values and all(isinstance(v, str) for v in values):
                        target.params_seen[name] = set(values)
                    if len(values) == 1 and _UNKNOWN not in values:
                        consts[name] = values.pop()
                target.consts = consts

    def _propagate_params(self, f: Func) -> bool:
        changed = False
        for call in (n for n in walk(f.node) if isinstance(n, ast.Call)):
            q = self.resolve(call.func, f)
            if not q or not q.startswith("@"):
                continue
            target = self.funcs.get(q[1:]) or self.funcs.get(q[1:] + ".__init__")
            if target is None or target.kernel:
                continue
            names = self.call_params(target) + [p.arg for p in target.node.args.kwonlyargs]
            for i, a in enumerate(call.args):
                if i < len(names) and names[i] not in target.tensor_params and self.is_tensor(a, f):
                    target.tensor_params.add(names[i])
                    changed = True
            for kw in call.keywords:
                if kw.arg in names and kw.arg not in target.tensor_params and self.is_tensor(kw.value, f):
                    target.tensor_params.add(kw.arg)
                    changed = True
        return changed


_UNKNOWN = object()


def _constant(node, caller: Func | None):
    """The Python constant an argument always is (a literal, or a parameter of the caller known constant)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value if isinstance(node.operand.value, (int, float)) else _UNKNOWN
    if isinstance(node, ast.Name) and caller is not None and node.id in caller.consts \
            and node.id not in caller.assigns:
        return caller.consts[node.id]
    return _UNKNOWN


def _with_tensors(f: Func, names: set[str]) -> Func:
    return Func(f.key, f.node, f.cls, f.kernel, f.tensor_params, f.returns_tensor, f.returns_elts, f.consts,
                f.params_seen, f.assigns, names)


def _is_self(node, func: Func) -> bool:
    names = params(func.node)
    return isinstance(node, ast.Name) and bool(names) and node.id == names[0] and func.cls is not None


def _is_self_attr(node, func: Func) -> bool:
    return isinstance(node, ast.Attribute) and _is_self(node.value, func)


def _owner(value, model: ModuleModel, cls: str | None) -> str | None:
    """Key of the method of `cls` (or a base) whose body contains the node."""
    for c in model.mro(cls):
        for item in model.classes[c].body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(n is value for n in walk(item)):
                return f"{c}.{item.name}"
    return None
