"""Op stream of C/C++ (CUDA, AscendC) kernels (see provenance.opstream for the vocabulary and the rules)."""
from __future__ import annotations

import re

from provenance.optables import ASCENDC_CALLS, BINOPS, C_CALLS, CMPS
from provenance.opwalker import Walker, node_text, select_reduce, strip_parens

_LOOPS = frozenset({"for_statement", "while_statement", "do_statement", "for_range_loop"})
_CONTAINERS = frozenset({
    "translation_unit", "compound_statement", "namespace_definition", "declaration_list", "class_specifier",
    "struct_specifier", "field_declaration_list", "template_declaration", "linkage_specification",
    "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "else_clause", "labeled_statement",
})
_GM_HINTS = ("gm", "global")


def _declared_name(decl) -> str | None:
    while decl is not None and decl.type not in ("identifier", "field_identifier"):
        decl = decl.child_by_field_name("declarator")
    return node_text(decl) if decl is not None else None


def _call_name(fn) -> str:
    if fn is None:
        return ""
    if fn.type in ("qualified_identifier", "template_function"):
        return _call_name(fn.child_by_field_name("name"))
    if fn.type == "field_expression":
        return node_text(fn.child_by_field_name("field"))
    return node_text(fn)


def _args(call) -> list:
    a = call.child_by_field_name("arguments")
    return [x for x in a.named_children if x.type != "comment"] if a is not None else []


def _is_gm(node) -> bool:
    return any(h in node_text(node).lower() for h in _GM_HINTS)


def _assigned(body) -> set[str]:
    out, stack = set(), [body]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        if n.type == "assignment_expression":
            left = strip_parens(n.child_by_field_name("left"))
            if left is not None and left.type == "identifier":
                out.add(node_text(left))
        elif n.type == "update_expression":
            out.add(node_text(n.child_by_field_name("argument")))
        stack.extend(n.named_children)
    return out


def _loop_vars(node) -> set[str]:
    init = node.child_by_field_name("initializer")
    if init is not None and init.type == "declaration":
        return {n for n in (_declared_name(d) for d in init.named_children) if n}
    if init is not None and init.type == "assignment_expression":
        return {node_text(init.child_by_field_name("left"))}
    return set()


def _function_declarator(fn):
    """The function_declarator of a function_definition (under pointers, references, ...), or None."""
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl


def function_name(fn) -> str:
    """The name a function_definition declares (`static inline float gelu(float x)` -> gelu)."""
    decl = _function_declarator(fn)
    return _declared_name(decl.child_by_field_name("declarator")) or "" if decl is not None else ""


def functions(root) -> dict[str, tuple[list[str], object]]:
    """name -> (parameters, body) of the C/C++ functions defined in a file (any depth of namespaces)."""
    out: dict[str, tuple[list[str], object]] = {}
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "function_definition":
            decl = _function_declarator(n)
            plist = decl.child_by_field_name("parameters") if decl is not None else None
            params = [_declared_name(p.child_by_field_name("declarator")) or ""
                      for p in (plist.named_children if plist is not None else []) if p.type == "parameter_declaration"]
            name = function_name(n)
            if name and name not in out:
                out[name] = (params, n.child_by_field_name("body"))
        elif n.type in _CONTAINERS:
            stack.extend(n.named_children)
    return out


class CWalker(Walker):
    INLINE = True

    def prepare(self, root) -> None:
        self.functions = functions(root)

    def stmt(self, node) -> None:
        if node is None:  # a part tree-sitter could not recover (an unknown macro before a body, say)
            return
        t = node.type
        if t == "function_definition":
            if self.skip and function_name(node) in self.skip:
                return
            saved = self.new_scope()
            self.stmt(node.child_by_field_name("body"))
            self.restore(saved)
        elif t in _LOOPS:
            body = node.child_by_field_name("body")
            self.loops.append((_loop_vars(node), _assigned(body)))
            self.stmt(body)
            self.loops.pop()
        elif t == "if_statement":
            self.if_stmt(node)
        elif t == "declaration":
            for d in node.named_children:
                if d.type == "init_declarator":
                    self.bind(_declared_name(d.child_by_field_name("declarator")), d.child_by_field_name("value"))
                elif d.type in ("identifier", "pointer_declarator", "array_declarator"):
                    name = _declared_name(d)
                    if name:
                        self.defined_at.setdefault(name, self.depth)
        elif t == "expression_statement":
            for c in node.named_children:
                self.expr(c)
        elif t == "return_statement":
            self.returned(any([self.expr(c) for c in node.named_children]))
        elif t in _CONTAINERS:
            for c in node.named_children:
                if c.type != "comment":
                    self.stmt(c)

    def bind(self, name: str | None, value) -> bool:
        """name = value: a plain array read is deferred to the name's first use."""
        if not name or value is None:
            return False
        inner = strip_parens(value)
        while inner is not None and inner.type == "cast_expression":
            inner = strip_parens(inner.child_by_field_name("value"))
        if inner is not None and (inner.type == "subscript_expression" or
                                  (inner.type == "pointer_expression" and node_text(inner.child_by_field_name("operator")) == "*")):
            self.assign(name, True, None, loaded_from=self.root_of(inner))
            return True
        v = self.expr(value)
        self.assign(name, v, None if v else self.root_of(value))
        return v

    def if_stmt(self, node) -> None:
        cond = node.child_by_field_name("condition")
        if cond is not None and cond.type == "condition_clause":
            cond = cond.child_by_field_name("value") or (cond.named_children[0] if cond.named_children else None)
        then = node.child_by_field_name("consequence")
        while then is not None and then.type == "compound_statement" and then.named_child_count == 1:
            then = then.named_children[0]
        if then is not None and then.type == "expression_statement" and then.named_child_count == 1:
            a = then.named_children[0]
            if a.type == "assignment_expression" and node_text(a.child_by_field_name("operator")) == "=":
                target = a.child_by_field_name("left")
                if target.type == "identifier" and self.is_accumulator(node_text(target)):
                    hit = select_reduce(cond, a.child_by_field_name("right"), None, node_text(target))
                    if hit and self.expr(hit[1]):
                        self.emit((hit[0],), node)
                        self.assign(node_text(target), True, None)
                        return
        self.expr(cond)
        for field in ("consequence", "alternative"):
            c = node.child_by_field_name(field)
            if c is not None:
                self.stmt(c)

    def root_of(self, node) -> str | None:
        node = strip_parens(node)
        while node is not None and node.type in ("cast_expression", "pointer_expression", "subscript_expression",
                                                 "field_expression", "binary_expression", "unary_expression"):
            if node.type == "cast_expression":
                node = node.child_by_field_name("value")
            elif node.type == "binary_expression":
                node = node.child_by_field_name("left")
            else:
                node = node.child_by_field_name("argument")
            node = strip_parens(node)
        return self.resolve(node_text(node)) if node is not None and node.type == "identifier" else None

    def assignment(self, node) -> bool:
        left, right = strip_parens(node.child_by_field_name("left")), node.child_by_field_name("right")
        op = node_text(node.child_by_field_name("operator"))
        if left.type == "identifier":
            name = node_text(left)
            if op == "=":
                return self.bind(name, right)
            if not self.expr(right):
                return False  # counters, pointer bumps
            self.emit(("REDUCE_SUM",) if op == "+=" and self.is_accumulator(name) else (BINOPS.get(op[:-1], "ADD"),),
                      node, (right,))
            self.assign(name, True, None)
            return True
        if left.type in ("subscript_expression", "pointer_expression"):
            root = self.root_of(left)
            if op != "=":
                self.access("READ", root, left)
            self.expr(right)
            if op != "=":
                self.emit(("REDUCE_SUM",) if op == "+=" and self._reduced_over(left)
                          else (BINOPS.get(op[:-1], "ADD"),), node, (right,))
            self.access("WRITE", root, node)
            return False
        return self.expr(right)

    def _reduced_over(self, target) -> bool:
        """`a[i] += v` is a running sum when some enclosing loop's variable does not index a: the loop the sum runs
        over may be the inner one (`acc[i] += x[i][k]`, k inner) or an outer one, as when a port interchanges its
        loops for the memory layout (`acc[m] += w[m][k] * x[k]` with k outer, m inner)."""
        idx = re.findall(r"[A-Za-z_]\w*", node_text(target.child_by_field_name("indices")
                                                    or target.child_by_field_name("argument")))
        return any(vars_ and not vars_ & set(idx) for vars_, _ in self.loops)

    def call(self, node) -> bool:
        name, args = _call_name(node.child_by_field_name("function")), _args(node)
        if name == "DataCopy" and len(args) >= 2:
            if _is_gm(args[1]) and not _is_gm(args[0]):
                self.access("READ", self.root_of(args[1]), node)
                self.assign(node_text(strip_parens(args[0])), True, None)
            elif _is_gm(args[0]):
                self.access("WRITE", self.root_of(args[0]), node)
            return False
        if name == "DeQue":
            return True
        if name in ASCENDC_CALLS and args:
            ops = ASCENDC_CALLS[name]
            scalar = strip_parens(args[2]) if len(args) > 2 else None
            if name == "Adds" and scalar is not None and scalar.type == "unary_expression" and node_text(scalar)[:1] == "-":
                ops = ("SUB",)  # Adds(x, x, -m): x - m
            elif name == "Muls" and scalar is not None and scalar.type == "binary_expression" \
                    and node_text(scalar.child_by_field_name("operator")) == "/":
                ops = ("DIV",)  # Muls(y, y, 1 / s): y / s
            self.emit(ops, node)
            dst = strip_parens(args[0])
            if dst.type == "identifier":
                self.assign(node_text(dst), True, None)
            return False
        if self.can_inline(name) and node.child_by_field_name("function").type == "identifier":
            followed, data = self.inline(name, node, list(zip(self.functions[name][0], args)))
            if followed:
                return data
        v = any([self.expr(a) for a in args])
        ops = C_CALLS.get(name)
        if ops and v:
            self.emit(self.reduce_of(ops, args), node, args)
        return v

    CSE_TYPES = frozenset({"binary_expression", "call_expression", "unary_expression", "conditional_expression"})

    def _expr(self, node) -> bool:
        if node is None:
            return False
        t = node.type
        if t == "identifier":
            return self.use(node)
        if t == "assignment_expression":
            return self.assignment(node)
        if t == "call_expression":
            return self.call(node)
        if t in ("subscript_expression", "pointer_expression"):
            if t == "pointer_expression" and node_text(node.child_by_field_name("operator")) != "*":
                return False
            self.access("READ", self.root_of(node), node)
            return True
        if t == "binary_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            a, b = self.expr(left), self.expr(right)
            op = node_text(node.child_by_field_name("operator"))
            if a or b:
                if op in BINOPS:
                    bop = BINOPS[op]
                    if bop == "ADD" and self.loops and (self.carries(left) or self.carries(right)):
                        bop = "REDUCE_SUM"  # s * alpha + v with s loop-carried: a running sum
                    self.emit((bop,), node, (left, right))
                elif op in CMPS:
                    self.emit(("CMP",), node, (left, right))
            return a or b
        if t == "unary_expression":
            v = self.expr(node.child_by_field_name("argument"))
            if v and node_text(node.child_by_field_name("operator")) == "-":
                self.emit(("NEG",), node)
            return v
        if t == "conditional_expression":
            cond = node.child_by_field_name("condition")
            then, other = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
            hit = self.running_select(cond, then, other)
            if hit:
                self.expr(hit[1])
                self.emit((hit[0],), node)
                return True
            if not self.expr(cond):
                return any([self.expr(then), self.expr(other)])  # a bounds guard, not a data select
            self.expr(then)
            self.expr(other)
            self.emit(("SELECT",), node, (then, other))
            return True
        if t == "cast_expression":
            return self.expr(node.child_by_field_name("value"))
        if t in ("parenthesized_expression", "comma_expression", "initializer_list", "argument_list"):
            return any([self.expr(c) for c in node.named_children])
        return False
