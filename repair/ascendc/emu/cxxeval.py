"""A small C++ evaluator for a binding's statements over real tensors' metadata (ascendc-cpu's mapping).

It runs declarations, shape and dtype queries (`numel`, `size`, `sizes().slice`, `dim`, `options().dtype`),
allocations (`at::empty*`, `at::zeros*`, `at::full*`, `new_empty`), casts and arithmetic with C++'s integer rules,
checks (ignored), the operator call (handed to a callback) and the return. A tensor's `data_ptr()` is a Ptr, resolved
to its GM address when the operator runs; a stream or device is Opaque. Anything else is a MappingError naming the
line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from repair.ascendc.emu.binding import BindingPlan
from repair.ascendc.emu.forward import MappingError

_CHECKS = {"TORCH_CHECK", "TORCH_INTERNAL_ASSERT", "AT_ASSERT", "TORCH_WARN", "C10_LOG", "AT_ASSERTM", "static_assert"}


@dataclass
class Ptr:
    """`t.data_ptr()`: the GM address of tensor t, resolved when the operator runs."""

    tensor: Any


@dataclass
class Options:
    dtype: Any = None  # a torch dtype, or None (the tensor's own / float32)


@dataclass
class Opaque:
    """A value ascendc-cpu does not model (a stream, a device): fine to pass to a void* parameter, nothing else."""

    text: str


_DTYPES = {
    "kFloat": "float32", "kFloat32": "float32", "Float": "float32", "kHalf": "float16", "kFloat16": "float16",
    "Half": "float16", "kBFloat16": "bfloat16", "BFloat16": "bfloat16", "kInt": "int32", "kInt32": "int32",
    "Int": "int32", "kLong": "int64", "kInt64": "int64", "Long": "int64", "kShort": "int16", "kInt16": "int16",
    "Short": "int16", "kChar": "int8", "kInt8": "int8", "Char": "int8", "kByte": "uint8", "kUInt8": "uint8",
    "Byte": "uint8", "kBool": "bool", "Bool": "bool", "kDouble": "float64", "kFloat64": "float64", "Double": "float64",
}
_INT_BITS = {"int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True), "uint16_t": (16, False),
             "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True), "uint64_t": (64, False),
             "int": (32, True), "unsigned": (32, False), "unsigned int": (32, False), "long": (64, True),
             "long long": (64, True), "unsigned long": (64, False), "size_t": (64, False), "char": (8, True),
             "short": (16, True)}
_ALLOCATE = {"empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "new_empty",
             "new_zeros", "empty_strided"}


def convert(type_text: str, value: Any) -> Any:
    """A value converted as a C++ cast or declaration of `type_text` would."""
    t = re.sub(r"\b(const|volatile|static|std::|__gm__)\b|[&]", " ", type_text).strip()
    t = " ".join(t.split())
    if re.search(r"\b(unordered_)?map\s*<", t) and isinstance(value, list) and \
            all(isinstance(p, list) and len(p) == 2 for p in value):
        return {k: v for k, v in value}  # std::map<K, V> m = {{k, v}, ...}
    if "*" in t or t in ("GM_ADDR", "void *", "void*"):
        return value
    if isinstance(value, (Ptr, Opaque)) or not isinstance(value, (int, float, bool)):
        return value
    if t in ("float",):
        import numpy as np

        return float(np.float32(value))
    if t in ("double", "long double"):
        return float(value)
    if t == "bool":
        return bool(value)
    if t in _INT_BITS:
        bits, signed = _INT_BITS[t]
        v = int(value)  # float -> integer truncates toward zero, as C++ does
        v &= (1 << bits) - 1
        return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v
    return value


class BindingCheckFailed(RuntimeError):
    """A TORCH_CHECK of the binding failed: the extension raises before the kernel runs, as c10::Error reaches
    Python as a RuntimeError (forward may catch it, as on the NPU; uncaught, the case errors)."""

    case_status = "error"


class BindingOutOfRange(IndexError):
    """`.at(k)` of a table or vector that does not hold k: std::out_of_range, which pybind11 raises in Python as an
    IndexError (forward may catch it; uncaught, the case errors)."""

    case_status = "error"


class _Flow(Exception):
    """`return`, `break` or `continue` leaving the statements that run it."""

    def __init__(self, kind: str, value: Any = None):
        super().__init__(kind)
        self.kind, self.value = kind, value


_LOOP_LIMIT = 1 << 16  # iterations of one loop in a binding (they loop over dimensions, not elements)


class Evaluator:
    """Runs a bound function's statements (and its helpers') over real tensors' metadata; each call that runs the
    operator (EXEC_NPU_CMD, a direct launch's host function) goes to `on_call(kind, name, values, texts, where)`."""

    def __init__(self, plan: BindingPlan, allocate: Callable[[tuple, Any, str, Any], Any]):
        self.plan, self.allocate = plan, allocate
        self.binding = plan.binding
        self.unit = plan.unit
        self._globals: dict[str, Any] = {}
        self._depth = 0

    def text(self, node) -> str:
        return self.unit.node_text(node)

    def where(self, node) -> str:
        return self.binding.where(self.unit, node)

    def fail(self, node, what: str):
        raise MappingError(f"{self.where(node)}: ascendc-cpu cannot evaluate `{self.text(node)[:80]}` in the "
                           f"binding ({what})")

    def run(self, args: list, on_call: Callable) -> Any:
        self.on_call = on_call
        return self.invoke(self.plan.func, self.plan.params, args)

    def invoke(self, func, params: list[tuple[str, str]], args: list) -> Any:
        """A binding function called with `args` (by value; tensors are handles, as at::Tensor is)."""
        if len(args) != len(params):
            raise MappingError(f"{self.where(func.node)}: {func.name} takes {len(params)} arguments, it is given "
                               f"{len(args)}")
        self._depth += 1
        if self._depth > 16:
            self.fail(func.node, "calls nested more than 16 deep")
        saved, self.unit = self.unit, func.unit
        try:
            env = {name: convert(t, v) if not _is_tensor(v) else v for (t, name), v in zip(params, args)}
            body = func.node.child_by_field_name("body")
            self.block([s for s in body.named_children if s.type != "comment"], env)
            return None
        except _Flow as f:
            if f.kind != "return":
                self.fail(func.node, f"a {f.kind} outside a loop")
            return f.value
        finally:
            self.unit = saved
            self._depth -= 1

    def block(self, statements, env: dict) -> None:
        for st in statements:
            self.statement(st, env)

    def statement(self, st, env: dict) -> None:
        t = st.type
        if t == "compound_statement":
            self.block(st.named_children, env)
        elif t == "if_statement":
            cond = st.child_by_field_name("condition")
            cond = cond.named_children[-1] if cond.type == "condition_clause" else cond
            branch = st.child_by_field_name("consequence") if self.truth(self.eval(cond, env), cond) else \
                st.child_by_field_name("alternative")
            if branch is not None and branch.type == "else_clause":
                branch = branch.named_children[0] if branch.named_children else None
            if branch is not None:
                self.statement(branch, env)
        elif t == "for_statement":
            self.loop(st, env)
        elif t == "while_statement":
            self.loop(st, env, init=None)
        elif t == "declaration":
            self.declare(st, env)
        elif t == "expression_statement":
            self.expression_statement(st, env)
        elif t == "return_statement":
            raise _Flow("return", self.eval(st.named_children[0], env) if st.named_children else None)
        elif t in ("break_statement", "continue_statement"):
            raise _Flow(t.split("_")[0])
        elif t in ("comment", "empty_statement"):
            return
        else:
            self.fail(st, f"a {t.replace('_', ' ')}; ascendc-cpu reads declarations, expressions, if, for, while "
                          "and return")

    def loop(self, st, env: dict, init="initializer") -> None:
        first = st.child_by_field_name("initializer") if init else None
        if first is not None:
            self.statement(first, env) if first.type == "declaration" else self.eval(first, env)
        cond = st.child_by_field_name("condition")
        if cond is not None and cond.type == "condition_clause":
            cond = cond.named_children[-1]
        update, body = st.child_by_field_name("update"), st.child_by_field_name("body")
        for _ in range(_LOOP_LIMIT):
            if cond is not None and not self.truth(self.eval(cond, env), cond):
                return
            try:
                self.statement(body, env)
            except _Flow as f:
                if f.kind == "break":
                    return
                if f.kind != "continue":
                    raise
            if update is not None:
                self.eval(update, env)
        self.fail(st, f"a loop of more than {_LOOP_LIMIT} iterations")

    def truth(self, v: Any, node) -> bool:
        if isinstance(v, (Opaque, Ptr)):
            self.fail(node, "a condition on a value it does not model")
        if _is_tensor(v):
            return True  # a defined at::Tensor
        return bool(v)

    def declare(self, st, env: dict) -> None:
        type_node = st.child_by_field_name("type")
        type_text = self.text(type_node) if type_node is not None else "auto"
        for d in st.children_by_field_name("declarator"):
            if d.type != "init_declarator":
                name = re.findall(r"[A-Za-z_]\w*", self.text(d))
                if not name:
                    continue
                if re.search(r"\b(vector|SmallVector)\s*<", type_text):
                    env[name[-1]] = []  # `std::vector<at::Tensor> out;` an empty vector
                elif re.search(r"\b(unordered_)?map\s*<", type_text):
                    env[name[-1]] = {}
                else:  # `at::Tensor out;` is an undefined tensor; a stream or handle is opaque
                    env[name[-1]] = None if re.search(r"\bTensor\b", type_text) else Opaque(self.text(d))
                continue
            name = re.findall(r"[A-Za-z_]\w*", self.text(d.child_by_field_name("declarator")))[-1]
            value = d.child_by_field_name("value")
            if value.type == "argument_list":  # at::Tensor y(at::empty_like(x)); std::vector<int64_t> v(a, b);
                if len(value.named_children) == 1:
                    value = value.named_children[0]
                else:
                    env[name] = self.construct(type_text, [self.eval(a, env) for a in value.named_children], value)
                    continue
            try:
                v = self.eval(value, env)
            except MappingError:
                if self.calls_operator(value):
                    raise
                v = Opaque(self.text(value))  # unused (a stream), or an error where it is used
            env[name] = convert(type_text, v)

    def construct(self, type_text: str, args: list, node) -> Any:
        """`std::vector<int64_t> v(begin, end)` / `v(n, value)`."""
        if re.search(r"vector|SmallVector", type_text):
            if len(args) == 2 and isinstance(args[0], _Iter) and isinstance(args[1], _Iter):
                return list(args[0].seq[args[0].at:args[1].at])
            if len(args) == 2 and isinstance(args[0], int):
                return [args[1]] * args[0]
        self.fail(node, f"a construction of {type_text}")

    def check(self, macro: str, e, env: dict) -> None:
        """TORCH_CHECK(cond, message...): raises as the extension would where the condition evaluates false here
        (one this evaluator cannot read is skipped: the kernel's own checks still run)."""
        if macro not in ("TORCH_CHECK", "TORCH_INTERNAL_ASSERT", "AT_ASSERT", "AT_ASSERTM"):
            return
        args = [a for a in e.child_by_field_name("arguments").named_children if a.type != "comment"]
        if not args:
            return
        try:
            ok = self.truth(self.eval(args[0], env), args[0])
        except MappingError:
            return
        if not ok:
            words = "".join(str(self._message_part(a, env)) for a in args[1:])
            raise BindingCheckFailed(f"{self.where(e)}: {macro}({self.text(args[0])}) failed in the binding"
                                     f"{': ' + words if words else ''}")

    def _message_part(self, a, env: dict) -> Any:
        """One argument of a check's message as c10::str prints it: a literal as written, a value as it is."""
        if a.type == "string_literal":
            return self.eval(a, env)
        try:
            v = self.eval(a, env)
        except MappingError:
            return self.text(a)
        return v if isinstance(v, (int, float, str)) else self.text(a)

    def calls_operator(self, node) -> bool:
        return any(self.binding.operator_call(self.unit, c) is not None for c in _calls_under(node))

    def expression_statement(self, st, env: dict) -> None:
        e = st.named_children[0] if st.named_children else None
        if e is None:
            return
        if e.type == "call_expression":
            fn = e.child_by_field_name("function")
            name = re.findall(r"[A-Za-z_]\w*", self.text(fn))
            if name and name[0] in _CHECKS:
                self.check(name[0], e, env)
                return
            hit = self.binding.operator_call(self.unit, e)
            helper = self.binding.function(name[-1]) if name and fn.type != "field_expression" else None
            if hit is None and helper is None and fn.type != "field_expression" and name:
                return  # another call (a print, a log): not one that runs the candidate's kernel
        self.eval(e, env)

    # -- expressions ----------------------------------------------------------------------------------------
    def eval(self, n, env: dict) -> Any:
        t = n.type
        if t == "number_literal":
            return _number(self.text(n))
        if t in ("true", "false"):
            return t == "true"
        if t in ("nullptr", "null"):
            return Opaque("nullptr")
        if t == "string_literal":
            return self.text(n).strip('"')
        if t == "char_literal":
            return ord(self.text(n).strip("'")[:1] or "\0")
        if t == "identifier":
            return self.name(n, env)
        if t == "qualified_identifier":
            last = self.text(n).split("::")[-1]
            if last in _DTYPES:
                return _dtype(_DTYPES[last])
            return self.name(n, env, last)
        if t == "parenthesized_expression":
            return self.eval(n.named_children[-1], env)
        if t == "comma_expression":
            self.eval(n.child_by_field_name("left"), env)
            return self.eval(n.child_by_field_name("right"), env)
        if t == "binary_expression":
            op = self.text(n.child_by_field_name("operator"))
            left = self.eval(n.child_by_field_name("left"), env)
            if op in ("&&", "||") and not _is_tensor(left) and bool(left) == (op == "||"):
                return bool(left)  # short-circuit, as C++
            return self.binary(op, left, self.eval(n.child_by_field_name("right"), env), n)
        if t == "unary_expression":
            v = self.eval(n.child_by_field_name("argument"), env)
            op = self.text(n.child_by_field_name("operator"))
            return {"-": lambda: -v, "+": lambda: v, "!": lambda: not v, "~": lambda: ~v}[op]()
        if t == "update_expression":
            return self.update(n, env)
        if t == "assignment_expression":
            return self.assign(n, env)
        if t == "conditional_expression":
            c = self.truth(self.eval(n.child_by_field_name("condition"), env), n)
            return self.eval(n.child_by_field_name("consequence" if c else "alternative"), env)
        if t == "cast_expression":
            return convert(self.text(n.child_by_field_name("type")), self.eval(n.child_by_field_name("value"), env))
        if t == "initializer_list":
            return [self.eval(c, env) for c in n.named_children]
        if t == "compound_literal_expression":
            return self.eval(n.child_by_field_name("value"), env)
        if t == "subscript_expression":
            seq = self.eval(n.child_by_field_name("argument"), env)
            key = self.index(n, env)
            try:
                return seq[key]
            except (KeyError, IndexError, TypeError):
                self.fail(n, f"an index {key!r} the value does not have")
        if t == "field_expression":
            return self.method(n, self.text(n.child_by_field_name("field")), [], env)
        if t == "call_expression":
            return self.call(n, env)
        self.fail(n, f"a {t.replace('_', ' ')}")

    def name(self, n, env: dict, last: str | None = None) -> Any:
        name = last or self.text(n)
        if name in env:
            return env[name]
        if name not in self._globals:
            node = self._global_declaration(name)
            if node is None:
                self.fail(n, "an unknown name")
            genv: dict = {}
            self.declare(node, genv)  # a table the binding defines at namespace scope (a dtype map)
            self._globals[name] = genv.get(name)
        return self._globals[name]

    def _global_declaration(self, name: str):
        for u in self.binding.program.units:
            if id(u) not in self.binding.sources:
                continue
            for d in u.tree.root_node.named_children:
                if d.type != "declaration":
                    continue
                for decl in d.children_by_field_name("declarator"):
                    target = decl.child_by_field_name("declarator") if decl.type == "init_declarator" else decl
                    if target is not None and re.findall(r"[A-Za-z_]\w*", u.node_text(target))[-1:] == [name]:
                        if u is not self.unit:
                            self.fail(d, "a global of another source")
                        return d
        return None

    def update(self, n, env: dict) -> Any:
        target = n.child_by_field_name("argument")
        old = self.eval(target, env)
        new = old + 1 if "++" in self.text(n) else old - 1
        self.store(target, new, env, n)
        return new if self.text(n).lstrip().startswith(("++", "--")) else old

    def assign(self, e, env: dict) -> Any:
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        op = self.text(e.child_by_field_name("operator"))
        value = self.eval(right, env)
        if op != "=":
            value = self.binary(op[:-1], self.eval(left, env), value, e)
        self.store(left, value, env, e)
        return value

    def store(self, left, value, env: dict, e) -> None:
        if left.type == "identifier":
            env[self.text(left)] = value
        elif left.type == "subscript_expression":
            seq = self.eval(left.child_by_field_name("argument"), env)
            if not isinstance(seq, (list, dict)):
                self.fail(e, "an assignment into a value that is not a local vector or map")
            seq[self.index(left, env)] = value
        else:
            self.fail(e, "an assignment to something other than a local")

    def index(self, n, env: dict) -> Any:
        idx = n.child_by_field_name("index") or n.child_by_field_name("indices")
        if idx is not None and idx.type == "subscript_argument_list":
            idx = idx.named_children[0]
        key = self.eval(idx, env)
        return int(key) if isinstance(key, (int, float)) and not isinstance(key, bool) else key

    def binary(self, op: str, a, b, n):
        if isinstance(a, (Opaque, Ptr)) or isinstance(b, (Opaque, Ptr)) or (a is None) != (b is None) and \
                op not in ("==", "!="):
            self.fail(n, "arithmetic on a value it does not model")
        if op == "/" and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
            if b == 0:
                self.fail(n, "a division by zero")
            q = abs(a) // abs(b)
            return q if (a >= 0) == (b >= 0) else -q
        if op == "%" and isinstance(a, int) and isinstance(b, int):
            if b == 0:
                self.fail(n, "a division by zero")
            r = abs(a) % abs(b)
            return r if a >= 0 else -r
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b, "<": lambda: a < b,
               ">": lambda: a > b, "<=": lambda: a <= b, ">=": lambda: a >= b, "==": lambda: a == b,
               "!=": lambda: a != b, "&&": lambda: bool(a) and bool(b), "||": lambda: bool(a) or bool(b),
               "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b, "<<": lambda: a << b, ">>": lambda: a >> b}
        if op not in ops:
            self.fail(n, f"the operator {op}")
        try:
            return ops[op]()
        except TypeError:
            self.fail(n, f"{op} between {type(a).__name__} and {type(b).__name__}")

    def call(self, n, env: dict) -> Any:
        fn, args_node = n.child_by_field_name("function"), n.child_by_field_name("arguments")
        arg_nodes = [a for a in args_node.named_children if a.type != "comment"] if args_node is not None else []
        hit = self.binding.operator_call(self.unit, n)
        if hit is not None:  # EXEC_NPU_CMD(aclnn<Op>, ...) or the direct launch's host function: the kernel runs
            kind, name = hit
            nodes = arg_nodes[1:] if kind == "aclnn" else arg_nodes
            return self.on_call(kind, name, [self.eval(a, env) for a in nodes], [self.text(a) for a in nodes],
                                self.where(n))
        if fn.type == "template_function":  # static_cast<T>(v), reinterpret_cast<T>(v)
            name = self.text(fn.child_by_field_name("name"))
            if name in ("static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"):
                type_text = self.text(fn.child_by_field_name("arguments"))[1:-1]
                return convert(type_text, self.eval(arg_nodes[0], env))
            if name.split("::")[-1] in ("vector", "IntArrayRef", "SmallVector"):
                return [self.eval(a, env) for a in arg_nodes]
            if name.split("::")[-1] in ("optional", "make_optional") and arg_nodes:
                return self.eval(arg_nodes[0], env)
            self.fail(n, "a template call")
        if fn.type == "field_expression":
            field_node = fn.child_by_field_name("field")
            method = self.text(field_node.child_by_field_name("name") if field_node.type == "template_method"
                               else field_node)
            return self.method(fn, method, arg_nodes, env)
        name = self.text(fn)
        last = name.split("::")[-1]
        helper = self.binding.function(last) if fn.type == "identifier" else None
        args = [self.eval(a, env) for a in arg_nodes]
        if helper is not None:  # a function of the binding's own: its statements run
            from repair.ascendc.emu.binding import _params

            return self.invoke(helper, _params(helper), args)
        if last in _ALLOCATE:
            return self.alloc(last, args, n)
        if last == "Tensor" and not args:
            return None  # at::Tensor(): an undefined tensor (an absent optional input)
        if last in ("min", "max") and len(args) == 2:
            return min(args) if last == "min" else max(args)
        if last in ("ceil", "floor") and len(args) == 1:
            import math

            return float(getattr(math, last)(args[0]))
        if last in ("TensorOptions",):
            return Options(args[0] if args and not isinstance(args[0], Opaque) else None)
        if last in ("IntArrayRef", "vector", "SmallVector", "make_tuple", "tuple", "forward_as_tuple"):
            return list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
        if last in ("dtype",) and args:
            return Options(args[0])
        if last in ("ConvertTensorToAclScaler", "ConvertTensorToAclScalar") and len(args) == 1 and \
                _is_tensor(args[0]):
            return args[0]  # an OpDef input declared .Scalar(): aclnn hands the kernel the value as a tensor
        if last == "ConvertType" and len(args) == 1:
            return args[0]  # aclnn's conversion of an IntArrayRef, a scalar or a tensor: the same value
        if last in ("string", "to_string") and len(args) == 1:
            return str(args[0])
        self.fail(n, f"a call of {name}")

    def method(self, n, method: str, arg_nodes, env: dict) -> Any:
        obj = self.eval(n.child_by_field_name("argument"), env)
        args = [self.eval(a, env) for a in arg_nodes]
        if method in ("has_value", "defined") and (obj is None or _is_tensor(obj)):
            return obj is not None  # c10::optional<at::Tensor>, at::Tensor::defined
        if method in ("value", "value_or") and (obj is None or _is_tensor(obj)):
            if obj is None and method == "value":
                self.fail(n, "the value of an empty optional")
            return obj if obj is not None else args[0]
        if _is_tensor(obj):
            return self.tensor_method(obj, method, args, n)
        if isinstance(obj, Options):
            if method == "dtype" and args:
                return Options(args[0])
            if method in ("device", "layout", "requires_grad", "memory_format", "pinned_memory"):
                return obj
        if isinstance(obj, str):
            if method in ("c_str", "data"):
                return obj
            if method in ("size", "length"):
                return len(obj)
            if method == "empty":
                return not obj
        if isinstance(obj, dict):
            if method == "at" and args:
                if args[0] not in obj:
                    raise BindingOutOfRange(f"{self.where(n)}: `{self.text(n)[:80]}` in the binding looks up a key "
                                            f"{args[0]!r} the table does not hold (std::out_of_range)")
                return obj[args[0]]
            if method in ("count", "contains") and args:
                return int(args[0] in obj)
            if method in ("size",):
                return len(obj)
        if isinstance(obj, (list, tuple)):
            seq = list(obj)
            if method == "slice":  # ArrayRef::slice(N, M): drop N, keep M
                return seq[args[0]:] if len(args) == 1 else seq[args[0]:args[0] + args[1]]
            if method == "vec":
                return seq
            if method == "size":
                return len(seq)
            if method == "empty":
                return not seq
            if method == "back":
                return seq[-1]
            if method == "front":
                return seq[0]
            if method == "at":
                if not 0 <= args[0] < len(seq):
                    raise BindingOutOfRange(f"{self.where(n)}: `{self.text(n)[:80]}` in the binding reads element "
                                            f"{args[0]} of {len(seq)} (std::out_of_range)")
                return seq[args[0]]
            if method == "data":
                return seq
            if method in ("begin", "end"):
                return _Iter(seq, 0 if method == "begin" else len(seq))
            if isinstance(obj, list) and method in ("pop_back", "push_back", "emplace_back", "clear"):
                if method == "pop_back":
                    obj.pop()
                elif method == "clear":
                    obj.clear()
                else:
                    obj.append(args[0])
                return None
        if isinstance(obj, Opaque):
            return Opaque(f"{obj.text}.{method}()")
        self.fail(n, f"the method {method}")

    def tensor_method(self, t, method: str, args: list, n) -> Any:
        if method == "numel":
            return int(t.numel())
        if method in ("size", "sizes"):
            if method == "sizes" or not args:
                return list(t.shape)
            return int(t.shape[args[0]])
        if method in ("dim", "ndimension"):
            return t.dim()
        if method == "stride":
            return int(t.stride(args[0])) if args else list(t.stride())
        if method in ("strides",):
            return list(t.stride())
        if method in ("data_ptr", "const_data_ptr", "mutable_data_ptr"):
            return Ptr(t)
        if method == "options":
            return Options(t.dtype)
        if method in ("dtype", "scalar_type"):
            return t.dtype
        if method in ("is_contiguous",):
            return bool(t.is_contiguous())
        if method in ("contiguous",):
            return t.contiguous()
        if method in ("element_size", "itemsize"):
            return t.element_size()
        if method == "nbytes":
            return t.numel() * t.element_size()
        if method in ("view", "reshape"):
            return t.reshape([int(v) for v in (args[0] if isinstance(args[0], (list, tuple)) else args)])
        if method in ("new_empty", "new_zeros"):
            return self.alloc("empty" if method == "new_empty" else "zeros", [args[0], Options(t.dtype)], n)
        if method in ("device", "is_npu", "is_cuda"):
            return Opaque(method)
        self.fail(n, f"the tensor method {method}")

    def alloc(self, how: str, args: list, n) -> Any:
        opts = next((a for a in args[1:] if isinstance(a, Options)), None)
        dtype = opts.dtype if opts is not None else next((a for a in args[1:] if _is_dtype(a)), None)
        if how.endswith("_like"):
            like = args[0]
            if not _is_tensor(like):
                self.fail(n, f"{how} of something that is not a tensor")
            shape, dtype = list(like.shape), dtype or like.dtype
        else:
            shape = args[0]
            if isinstance(shape, (int, float)):
                shape = [shape]
            if not isinstance(shape, (list, tuple)):
                self.fail(n, "an allocation whose shape it cannot read")
            dtype = dtype or _dtype("float32")
        fill = {"zeros": 0, "zeros_like": 0, "new_zeros": 0, "ones": 1, "ones_like": 1}.get(how)
        if how in ("full", "full_like"):
            fill = args[1]
        return self.allocate(tuple(int(s) for s in shape), dtype, how, fill)


def _number(text: str) -> int | float:
    s = text.replace("'", "").rstrip("uUlLfF") if not text.lower().startswith("0x") else text.rstrip("uUlL")
    if s.lower().startswith("0x"):
        return int(s, 16)
    if re.fullmatch(r"[+-]?\d+", s):
        return int(s)
    return float(s)


def _is_tensor(v) -> bool:
    return type(v).__name__ in ("Tensor", "Parameter") and hasattr(v, "shape")


@dataclass
class _Iter:
    """`v.begin()` / `v.end()` of a local vector or shape: a position in it."""

    seq: list
    at: int


def _calls_under(node) -> list:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            out.append(n)
        stack.extend(n.children)
    return out


def _is_dtype(v) -> bool:
    return type(v).__name__ == "dtype"


def _dtype(name: str):
    import torch

    return getattr(torch, name)
