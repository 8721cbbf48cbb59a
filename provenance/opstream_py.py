"""Op stream of Triton Python (see provenance.opstream for the vocabulary and the rules)."""
from __future__ import annotations

from provenance.optables import BINOPS, CMPS, TRITON_CALLS, TRITON_DATA_ARGS
from provenance.opwalker import Walker, node_text, select_reduce, strip_parens

_PASS = frozenset({"parenthesized_expression", "expression_list", "tuple", "list", "boolean_operator", "not_operator"})
_BLOCKS = frozenset({"module", "block", "else_clause", "elif_clause", "with_statement", "class_definition",
                     "decorated_definition", "try_statement", "except_clause", "finally_clause"})


def _op_token(node) -> str:
    return next((c.type for c in node.children if not c.is_named), "")


def _assigned(body) -> set[str]:
    """Names assigned anywhere in a loop body."""
    out, stack = set(), [body]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        if n.type in ("assignment", "augmented_assignment"):
            out.update(node_text(i) for i in _identifiers(n.child_by_field_name("left")))
        stack.extend(n.named_children)
    return out


def functions(root) -> dict[str, tuple[list[str], object]]:
    """name -> (parameters, body) of the functions defined at module level (decorated or not)."""
    out = {}
    for n in root.named_children:
        if n.type == "decorated_definition":
            n = n.child_by_field_name("definition")
        if n is not None and n.type == "function_definition":
            params = []
            for p in n.child_by_field_name("parameters").named_children:
                ident = p if p.type == "identifier" else (p.child_by_field_name("name") if p.type in (
                    "default_parameter", "typed_default_parameter") else next(
                    (c for c in p.named_children if c.type == "identifier"), None) if p.type == "typed_parameter" else None)
                params.append(node_text(ident) if ident is not None else "")
            out[node_text(n.child_by_field_name("name"))] = (params, n.child_by_field_name("body"))
    return out


class PythonWalker(Walker):
    INLINE = True
    INLINE_POINTERS = True

    def prepare(self, root) -> None:
        self.functions = functions(root) if root.type == "module" else {}

    def stmt(self, node) -> None:
        t = node.type
        if t == "function_definition":
            if node_text(node.child_by_field_name("name")) in self.skip:
                return
            saved = self.new_scope()
            self.stmt(node.child_by_field_name("body"))
            self.restore(saved)
        elif t in ("for_statement", "while_statement"):
            left, body = node.child_by_field_name("left"), node.child_by_field_name("body")
            self.loops.append(({node_text(i) for i in _identifiers(left)} if left is not None else set(), _assigned(body)))
            self.stmt(body)
            self.loops.pop()
        elif t == "if_statement":
            self.if_stmt(node)
        elif t == "expression_statement":
            for c in node.named_children:
                self.statement_expr(c)
        elif t == "return_statement":
            self.returned(any([self.expr(c) for c in node.named_children]))
        elif t in _BLOCKS:
            for c in node.named_children:
                if c.type != "comment":
                    self.stmt(c)

    def if_stmt(self, node) -> None:
        cond, then = node.child_by_field_name("condition"), node.child_by_field_name("consequence")
        body = [c for c in then.named_children if c.type != "comment"] if then is not None else []
        if len(body) == 1 and body[0].type == "expression_statement" and body[0].named_children[0].type == "assignment":
            a = body[0].named_children[0]
            target, right = a.child_by_field_name("left"), a.child_by_field_name("right")
            if target.type == "identifier" and self.is_accumulator(node_text(target)):
                hit = select_reduce(cond, right, None, node_text(target))
                if hit and self.expr(hit[1]):
                    self.emit((hit[0],), node)
                    self.assign(node_text(target), True, None)
                    return
        self.expr(cond)
        for c in node.named_children:
            if c.type in ("block", "elif_clause", "else_clause"):
                self.stmt(c)

    def statement_expr(self, node) -> None:
        if node.type == "assignment":
            self.assignment(node)
        elif node.type == "augmented_assignment":
            self.augmented(node)
        else:
            self.expr(node)

    def assignment(self, node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if right is None:
            return
        if right.type == "assignment":  # a = b = expr
            self.assignment(right)
            right = right.child_by_field_name("left")
        if left.type == "identifier":
            name = node_text(left)
            load = self.plain_load(right)
            if load is not None:
                self.assign(name, True, None, loaded_from=self.root_of(load))
                return
        v = self.expr(right)
        names = [node_text(i) for i in _identifiers(left)] if left.type in ("pattern_list", "tuple_pattern") else \
            [node_text(left)] if left.type == "identifier" else []
        for name in names:
            self.assign(name, v, None if v else self.root_of(right))

    def plain_load(self, node):
        """The pointer argument if node is just `tl.load(p, ...)` (maybe cast with .to): the load is deferred."""
        node = strip_parens(node)
        while node.type == "call" and node.child_by_field_name("function").type == "attribute" \
                and self.call_name(node) is None:  # tl.load(...).to(tl.float32)
            node = strip_parens(node.child_by_field_name("function").child_by_field_name("object"))
        if node.type == "call" and self.call_name(node) == "load":
            args = _positional(node)
            return args[0] if args else None
        return None

    def augmented(self, node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = _op_token(node)[:-1]
        if not self.expr(right):
            return  # pointer bumps and counters
        name = node_text(left) if left.type == "identifier" else None
        if name and op == "+" and self.is_accumulator(name):
            self.emit(("REDUCE_SUM",), node, (right,))
        elif op in BINOPS:
            self.emit((BINOPS[op],), node, (right,))
        if name:
            self.assign(name, True, None)

    def root_of(self, node) -> str | None:
        """The array a pointer expression addresses: its first name that is not a module or a keyword."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n is None:
                continue
            if n.type == "identifier":
                return self.resolve(node_text(n))
            if n.type == "call":
                stack.append(n.child_by_field_name("arguments"))
            elif n.type == "attribute":
                stack.append(n.child_by_field_name("object"))
            elif n.type == "keyword_argument":
                stack.append(n.child_by_field_name("value"))
            else:
                stack.extend(reversed(n.named_children))
        return None

    def call_name(self, node) -> str | None:
        """The library function called (tl.exp -> exp), or None for a method of a value (x.to(...))."""
        fn = node.child_by_field_name("function")
        if fn.type == "attribute":
            return node_text(fn.child_by_field_name("attribute")) if self.is_module(fn.child_by_field_name("object")) else None
        return node_text(fn) if fn.type == "identifier" else None

    def is_module(self, node) -> bool:
        """tl, tl.math, libdevice: a dotted name whose root holds no data."""
        while node is not None and node.type == "attribute":
            node = node.child_by_field_name("object")
        return node is not None and node.type == "identifier" and node_text(node) not in self.values

    def call(self, node) -> bool:
        name, args = self.call_name(node), _positional(node)
        fn = node.child_by_field_name("function")
        if fn.type == "identifier" and self.can_inline(name):
            params = self.functions[name][0]
            bindings = list(zip(params, args))
            args_node = node.child_by_field_name("arguments")
            for a in args_node.named_children if args_node is not None else []:
                if a.type == "keyword_argument" and node_text(a.child_by_field_name("name")) in params:
                    bindings.append((node_text(a.child_by_field_name("name")), a.child_by_field_name("value")))
            followed, data = self.inline(name, node, bindings)
            if followed:
                return data
            return any([self.expr(a) for a in args])
        if name == "load" and args:
            self.access("READ", self.root_of(args[0]), node)
            return True
        if name == "store" and args:
            val = args[1] if len(args) > 1 else _keyword(node, "value")
            if val is not None:
                self.expr(val)
            self.access("WRITE", self.root_of(args[0]), node)
            return False
        if name is None:  # method on a value: pass the value through
            v = self.expr(node.child_by_field_name("function").child_by_field_name("object"))
            return any([self.expr(a) for a in args]) or v
        if name == "where" and len(args) == 3:
            hit = self.running_select(*args)
            if hit:
                self.expr(hit[1])
                self.emit((hit[0],), node)
                return True
            if not self.expr(args[0]):
                return any([self.expr(a) for a in args[1:]])  # a bounds mask, not a data select
            self.expr(args[1])
            self.expr(args[2])
            self.emit(("SELECT",), node, args[1:])
            return True
        ops = TRITON_CALLS.get(name)
        data = args[:TRITON_DATA_ARGS.get(name, len(args))]
        v = any([self.expr(a) for a in data])  # a list, not a generator: every operand is walked
        if ops and v:
            self.emit(self.reduce_of(ops, data), node, data)
        return v

    CSE_TYPES = frozenset({"binary_operator", "call", "unary_operator", "conditional_expression"})

    def _expr(self, node) -> bool:
        if node is None:
            return False
        t = node.type
        if t == "identifier":
            return self.use(node)
        if t == "call":
            return self.call(node)
        if t == "binary_operator":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            a, b = self.expr(left), self.expr(right)
            op = BINOPS.get(_op_token(node))
            if (a or b) and op:
                if op == "ADD" and self.loops and (self.carries(left) or self.carries(right)):
                    op = "REDUCE_SUM"  # s * alpha + v with s loop-carried: a running sum
                self.emit(("MUL", "REDUCE_SUM") if op == "DOT" else (op,), node, (left, right))
            return a or b
        if t == "unary_operator":
            v = self.expr(node.named_children[0]) if node.named_children else False
            if v and _op_token(node) == "-":
                self.emit(("NEG",), node)
            return v
        if t == "comparison_operator":
            v = any([self.expr(c) for c in node.named_children])
            if v and _op_token(node) in CMPS:
                self.emit(("CMP",), node, node.named_children)
            return v
        if t == "conditional_expression":
            parts = node.named_children  # then, condition, else
            if len(parts) == 3 and not self.expr(parts[1]):
                return any([self.expr(parts[0]), self.expr(parts[2])])
            self.expr(parts[0])
            self.expr(parts[2])
            self.emit(("SELECT",), node, (parts[0], parts[2]))
            return True
        if t == "subscript":
            return self.expr(node.child_by_field_name("value"))
        if t == "attribute":
            return self.expr(node.child_by_field_name("object")) and node_text(node.child_by_field_name("attribute")) == "T"
        if t == "keyword_argument":
            return self.expr(node.child_by_field_name("value"))
        if t in _PASS:
            return any([self.expr(c) for c in node.named_children])
        return False


def _identifiers(node):
    if node is None:
        return []
    if node.type == "identifier":
        return [node]
    return [i for c in node.named_children for i in _identifiers(c)]


def _positional(call) -> list:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type not in ("keyword_argument", "comment")] if args is not None else []


def _keyword(call, name: str):
    args = call.child_by_field_name("arguments")
    for a in args.named_children if args is not None else []:
        if a.type == "keyword_argument" and node_text(a.child_by_field_name("name")) == name:
            return a.child_by_field_name("value")
    return None
