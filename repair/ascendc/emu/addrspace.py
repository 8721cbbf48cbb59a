"""The strict build's address-space check: a GM address cast to a pointer that is not `__gm__` fails the build.

On the NPU `__gm__` is a real address-space qualifier: bisheng checks address spaces as part of the type (CANN's
CCE programming guide, "地址空间限定符": address spaces are type qualifiers "with address-space legality checks"),
and every API that takes global memory (`GlobalTensor::SetGlobalBuffer(__gm__ T *, ...)`, the GM_ADDR entry
parameters) takes a `__gm__` pointer. g++ has no named address spaces in C++, so the emulation defines `__gm__`
away and would accept `xGm.SetGlobalBuffer((float *)x + off, n)`, which an NPU build refuses. This check, run on
the candidate's own sources before g++ (repair.ascendc.emu.build), makes that a compile error here too.

What it flags: a C-style cast, `reinterpret_cast` or `static_cast` whose operand is a GM address (a name declared
`GM_ADDR` or with `__gm__` in its type, in the cast's function, class or file, or arithmetic on one) and whose target
is a pointer type without `__gm__`. Casts to `GM_ADDR`, to `__gm__ T *`, to an integer (`(uint64_t)x`) and every
cast of a non-GM value are left alone. Macro bodies are not read (tree-sitter sees them as text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from provenance.ascendc import blank

_GM_TYPE = re.compile(r"\bGM_ADDR\b|\b__gm__\b")
_LINE = re.compile(r'#line\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')
_CASTS = ("reinterpret_cast", "static_cast")
_DECLS = ("declaration", "field_declaration", "parameter_declaration", "optional_parameter_declaration")


@dataclass(frozen=True)
class AddressSpaceError:
    file: str
    line: int
    column: int
    cast: str  # the cast as written
    operand: str  # the GM address it casts

    def message(self) -> str:
        return (f"{self.file}:{self.line}:{self.column}: error: `{self.cast}` casts the GM address `{self.operand}` "
                f"to a pointer without `__gm__` (a pointer in another address space: bisheng rejects it where global "
                f"memory is expected; write `__gm__` in the cast, as `(__gm__ T *)`)")


def check_sources(files: dict[str, str]) -> list[AddressSpaceError]:
    """The address-space errors of a build's sources (path -> text); each file may start with a `#line N "label"`
    directive, as the emulation's build writes them, and is then reported under that label and line."""
    out: list[AddressSpaceError] = []
    for path, text in files.items():
        if not path.endswith((".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh")) or path.startswith("ascendc_emu_"):
            continue
        label, first = path, 1
        head = text.split("\n", 1)
        m = _LINE.match(head[0]) if head else None
        if m:
            label, first, text = m.group(2).replace('\\"', '"').replace("\\\\", "\\"), int(m.group(1)), \
                (head[1] if len(head) > 1 else "")
        out += [AddressSpaceError(label, e.line + first - 1, e.column, e.cast, e.operand) for e in check_text(text)]
    return out


def strict_message(files: dict[str, str]) -> str:
    """The compile error the strict build reports for these sources ("" when they pass), as a compiler's message."""
    errors = check_sources(files)
    if not errors:
        return ""
    lines = [e.message() for e in errors[:8]]
    return "the strict build (address spaces, as bisheng checks them) refuses the candidate:\n" + "\n".join(lines)


def check_text(text: str) -> list[AddressSpaceError]:
    """The address-space errors of one C++ source (lines from 1)."""
    if "__gm__" not in text and "GM_ADDR" not in text:
        return []
    from provenance.parsing import parse

    raw = text.encode("utf-8")
    blanked, _quals, _launches = blank(text)
    tree = parse(blanked, "cpp")
    reader = _Reader(raw)
    out = []
    for node in _walk(tree.root_node):
        target, operand = _cast_parts(node, reader)
        if target is None or operand is None:
            continue
        # the target as written, qualifiers included: `(__gm__ float *)` up to the operand, or the template argument
        target_text = reader.raw[node.start_byte:operand.start_byte].decode("utf-8", errors="replace") \
            if node.type == "cast_expression" else reader.text(target.parent)
        if "*" not in target_text or _GM_TYPE.search(target_text):
            continue
        if not _is_gm(operand, reader, _scope_names(node, reader)):
            continue
        out.append(AddressSpaceError("", node.start_point[0] + 1, node.start_point[1] + 1,
                                     " ".join(reader.text(node).split()), " ".join(reader.text(operand).split())))
    return out


class _Reader:
    def __init__(self, raw: bytes):
        self.raw = raw
        self._gm_names: dict[int, frozenset[str]] = {}

    def gm_fields(self, node) -> frozenset[str]:
        """Fields any class or struct of the file declares with a GM type."""
        if not hasattr(self, "_fields"):
            root = node
            while root.parent is not None:
                root = root.parent
            self._fields = frozenset(n for c in _walk(root) if c.type in ("class_specifier", "struct_specifier")
                                     for n in _declared_gm(c, self))
        return self._fields

    def text(self, node) -> str:
        return self.raw[node.start_byte:node.end_byte].decode("utf-8", errors="replace")


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _cast_parts(node, reader: _Reader):
    """(target type node, operand node) of a cast expression, or (None, None)."""
    if node.type == "cast_expression":
        return node.child_by_field_name("type"), node.child_by_field_name("value")
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is not None and fn.type == "template_function":
            name = fn.child_by_field_name("name")
            if name is not None and reader.text(name) in _CASTS:
                targs = fn.child_by_field_name("arguments")
                args = node.child_by_field_name("arguments")
                types = [c for c in (targs.named_children if targs else []) if c.type == "type_descriptor"]
                values = [c for c in (args.named_children if args else []) if c.type != "comment"]
                if len(types) == 1 and len(values) == 1:
                    return types[0], values[0]
    return None, None


def _is_gm(operand, reader: _Reader, names: frozenset[str]) -> bool:
    """Is the operand a GM address: a GM name, `this->name`, or + / - arithmetic (or parentheses) around one."""
    node = operand
    while node is not None:
        if node.type == "parenthesized_expression":
            kids = [c for c in node.named_children if c.type != "comment"]
            node = kids[0] if len(kids) == 1 else None
        elif node.type == "binary_expression" and reader.text(node.child_by_field_name("operator")) in ("+", "-"):
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            return _is_gm(left, reader, names) or (reader.text(node.child_by_field_name("operator")) == "+"
                                                   and _is_gm(right, reader, names))
        elif node.type == "identifier":
            return reader.text(node) in names
        elif node.type == "field_expression":  # this->x, or p.x / p->x with x a GM field of a struct of the file
            arg, field = node.child_by_field_name("argument"), node.child_by_field_name("field")
            if arg is None or field is None:
                return False
            return reader.text(field) in (names if reader.text(arg) == "this" else reader.gm_fields(node))
        else:
            return False
    return False


def _scope_names(node, reader: _Reader) -> frozenset[str]:
    """Names declared as GM addresses where `node` is: in its function (parameters and locals), the classes around
    it and the file."""
    names: set[str] = set()
    p = node.parent
    while p is not None:
        if p.type in ("function_definition", "class_specifier", "struct_specifier", "translation_unit",
                      "lambda_expression"):
            key = p.start_byte * 31 + p.end_byte
            if key not in reader._gm_names:
                reader._gm_names[key] = frozenset(_declared_gm(p, reader))
            names |= reader._gm_names[key]
        p = p.parent
    return frozenset(names)


_CONTAINERS = ("declaration_list", "template_declaration", "namespace_definition", "linkage_specification",
               "preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif")


def _declared_gm(scope, reader: _Reader) -> set[str]:
    """Names a scope declares with a GM type: a function's parameters and locals, a class's fields, the file's
    top-level declarations (through namespaces, templates and `extern "C"`); nested functions and classes are
    scopes of their own."""
    if scope.type in ("function_definition", "lambda_expression"):
        roots = [c for c in scope.children if c.type not in ("class_specifier", "struct_specifier")]
        descend = lambda n: n.type not in ("class_specifier", "struct_specifier")  # noqa: E731
    elif scope.type in ("class_specifier", "struct_specifier"):
        body = scope.child_by_field_name("body")
        roots = list(body.children) if body is not None else []
        descend = lambda n: n.type in _CONTAINERS  # noqa: E731
    else:
        roots = list(scope.children)
        descend = lambda n: n.type in _CONTAINERS  # noqa: E731
    out: set[str] = set()
    stack = roots
    while stack:
        n = stack.pop()
        if n.type in _DECLS:
            out |= _gm_declared(n, reader)
        elif descend(n):
            stack.extend(n.children)
    return out


def _gm_declared(decl, reader: _Reader) -> set[str]:
    """The names a declaration declares when its type (or, for `auto`, its initialiser's cast) is a GM address."""
    type_node = decl.child_by_field_name("type")
    out = set()
    for d in decl.children_by_field_name("declarator"):
        name = _declared_name(d, reader)
        if name is None:
            continue
        upto = reader.raw[_leading_qualifiers(reader.raw, decl.start_byte):_name_end(d)].decode("utf-8", "replace")
        if _GM_TYPE.search(upto):
            out.add(name)
        elif type_node is not None and reader.text(type_node) == "auto" and d.type == "init_declarator":
            value = d.child_by_field_name("value")
            if value is not None and value.type == "cast_expression" and _GM_TYPE.search(
                    reader.text(value.child_by_field_name("type"))):
                out.add(name)
    return out


_BEFORE = re.compile(rb"(?:\b__gm__\s+|\bconst\s+|\bvolatile\s+)+$")


def _leading_qualifiers(raw: bytes, start: int) -> int:
    """Where a declaration starts once the qualifiers blanked before its node (`__gm__ float *p`: the node starts at
    `float`) are counted in."""
    m = _BEFORE.search(raw[max(0, start - 64):start])
    return start - (len(m.group(0)) if m else 0)


def _name_end(d) -> int:
    while d is not None and d.type not in ("identifier", "field_identifier"):
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type in ("identifier", "field_identifier")), None)
        d = nxt
    return d.end_byte if d is not None else 0


def _declared_name(d, reader: _Reader) -> str | None:
    while d is not None and d.type not in ("identifier", "field_identifier"):
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type in ("identifier", "field_identifier")), None)
        d = nxt
    return reader.text(d) if d is not None else None
