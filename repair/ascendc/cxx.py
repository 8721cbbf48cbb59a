"""AscendC C++ read with tree-sitter-cpp: functions, calls, macros and `<<<>>>` launches, by byte offset.

Plain C++ grammar does not know AscendC's qualifiers or the launch syntax, so before parsing each
`__aicore__`/`__global__`/`__gm__`/`__ubuf__` becomes spaces of the same length (remembered, so a function
still knows it was `__global__`) and `k<<<grid, l2, stream>>>(args)` becomes `k(  grid, l2, stream)  (args)`:
the parse is clean and every byte offset and line is the source's own (provenance.ascendc.blank, which the
overlap check's fingerprints share).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from provenance.ascendc import blank
from provenance.parsing import parse

_IDENT = re.compile(r"[A-Za-z_]\w*")
# the bisheng compiler's own spellings that plain C++ does not parse: blanked like the qualifiers
_BISHENG = re.compile(r"\[aicore\]|\b__forceinline__\b")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def strip_comments(text: str) -> str:
    """Comments replaced by spaces (newlines kept), for the macro-only tiling header read with patterns."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def callee_name(text: str) -> str:
    """The called name: the last identifier once template arguments are gone (`AscendC::DataCopy`,
    `inQueueX.AllocTensor<T>`, `relu_kernel<float>` -> DataCopy, AllocTensor, relu_kernel)."""
    depth, kept = 0, []
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            kept.append(ch)
    names = _IDENT.findall("".join(kept))
    return names[-1] if names else ""


@dataclass
class Call:
    callee: str  # the call's function as written: "AscendC::DataCopy", "op.Init", "relu_kernel<float>"
    name: str  # its last identifier
    args: list[str]
    line: int  # 1-based line in the source
    launch: bool = False  # a `<<<>>>` launch (then `name` is the kernel launched)
    arg_nodes: list = field(default_factory=list, repr=False)
    fn_node: object = field(default=None, repr=False)


@dataclass
class Func:
    name: str  # last identifier of the declarator: Init, TilingFunc, add_custom, PYBIND11_MODULE
    qualified: str  # as declared: "KernelAdd::Init", "optiling::TilingFunc", "Init" (inside its class)
    cls: str | None  # the class it is defined in, if any
    qualifiers: frozenset[str]  # "__global__", "__aicore__" seen before its body
    params: list[str]  # parameter names
    param_text: str
    line: int
    unit: Unit = field(repr=False)
    node: object = field(repr=False)

    @property
    def is_global(self) -> bool:
        return "__global__" in self.qualifiers


class Unit:
    """One C++ source, parsed."""

    def __init__(self, text: str, name: str = ""):
        self.name, self.text = name, text
        parsed, self._quals, self._launches = blank(_BISHENG.sub(lambda m: " " * len(m.group(0)), text))
        self.tree = parse(parsed, "cpp")
        self.funcs = [self._func(n) for n in walk(self.tree.root_node) if n.type == "function_definition"]
        self.funcs = [f for f in self.funcs if f is not None]
        self.macros = self._macros()

    # -- reading ------------------------------------------------------------------------------------
    def node_text(self, node) -> str:
        return node.text.decode("utf-8", errors="replace")

    def errors(self) -> list[int]:
        """Lines with parse errors (the format's macros aside, a clean source has none)."""
        return sorted({n.start_point[0] + 1 for n in walk(self.tree.root_node) if n.type == "ERROR" or n.is_missing})

    def calls(self, root=None) -> list[Call]:
        """Every call under `root` (default: the whole source), launches marked."""
        out = []
        for n in walk(root if root is not None else self.tree.root_node):
            if n.type != "call_expression":
                continue
            fn, args = n.child_by_field_name("function"), n.child_by_field_name("arguments")
            if fn is None or fn.type == "call_expression":  # the (args) half of a launch
                continue
            nodes = [a for a in args.named_children if a.type != "comment"] if args else []
            launch = args is not None and args.start_byte in self._launches
            out.append(Call(self.node_text(fn), callee_name(self.node_text(fn)), [self.node_text(a) for a in nodes],
                            n.start_point[0] + 1, launch, nodes, fn))
        return out

    def declarations(self, type_pattern: str) -> list[tuple[str, int]]:
        """(name, line) of variables, fields and parameters whose type matches `type_pattern` (a regex)."""
        rx = re.compile(type_pattern)
        out = []
        for n in walk(self.tree.root_node):
            if n.type not in ("declaration", "field_declaration", "parameter_declaration"):
                continue
            t = n.child_by_field_name("type")
            if t is None or not rx.search(self.node_text(t)):
                continue
            for d in n.children_by_field_name("declarator"):
                name = _declared_name(d)
                if name:
                    out.append((name, n.start_point[0] + 1))
        return out

    def field_reads(self, root, var: str) -> list[str]:
        """Fields read as `var.field` under root."""
        out = []
        for n in walk(root):
            if n.type == "field_expression":
                arg, f = n.child_by_field_name("argument"), n.child_by_field_name("field")
                if arg is not None and f is not None and self.node_text(arg) == var:
                    out.append(self.node_text(f))
        return out

    def classes(self) -> Iterator[tuple[str, str, object]]:
        """(name, base clause text, body node) of each class or struct defined."""
        for n in walk(self.tree.root_node):
            if n.type in ("class_specifier", "struct_specifier") and n.child_by_field_name("body") is not None:
                name = n.child_by_field_name("name")
                bases = next((c for c in n.children if c.type == "base_class_clause"), None)
                yield (self.node_text(name) if name else "", self.node_text(bases) if bases else "",
                       n.child_by_field_name("body"))

    # -- building -----------------------------------------------------------------------------------
    def _func(self, node) -> Func | None:
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.type in ("pointer_declarator", "reference_declarator"):
            decl = decl.child_by_field_name("declarator") or (decl.named_children[-1] if decl.named_children else None)
        if decl is None or decl.type != "function_declarator":
            return None
        inner, params = decl.child_by_field_name("declarator"), decl.child_by_field_name("parameters")
        qualified = self.node_text(inner) if inner is not None else ""
        names = [_declared_name(p.child_by_field_name("declarator")) if p.child_by_field_name("declarator")
                 else self.node_text(p) for p in (params.named_children if params else [])
                 if p.type in ("parameter_declaration", "optional_parameter_declaration")]
        body = node.child_by_field_name("body")
        start = node.prev_sibling.end_byte if node.prev_sibling is not None else (
            node.parent.start_byte if node.parent is not None else 0)
        end = body.start_byte if body is not None else node.end_byte
        quals = frozenset(q for off, q in self._quals.items() if start <= off < end)
        cls = None
        p = node.parent
        while p is not None:
            if p.type in ("class_specifier", "struct_specifier"):
                nm = p.child_by_field_name("name")
                cls = self.node_text(nm) if nm else None
                break
            p = p.parent
        if cls is None and "::" in qualified:
            cls = callee_name(qualified.rsplit("::", 1)[0].split("::")[-1]) or None
        return Func(callee_name(qualified), qualified, cls, quals, [n for n in names if n],
                    self.node_text(params) if params else "", node.start_point[0] + 1, self, node)

    def _macros(self) -> dict[str, list[str]]:
        """Function-like and object-like macros: name -> the names their body calls (their text: `macro_bodies`)."""
        out, self.macro_bodies = {}, {}
        for n in walk(self.tree.root_node):
            if n.type in ("preproc_function_def", "preproc_def"):
                name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
                if name is not None and value is not None:
                    self.macro_bodies[self.node_text(name)] = self.node_text(value)
                    out[self.node_text(name)] = [callee_name(m) for m in
                                                 re.findall(r"([\w:<>]+)\s*\(", self.node_text(value))]
        return out


def _declared_name(d) -> str | None:
    while d is not None and d.type not in ("identifier", "field_identifier"):
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type in ("identifier", "field_identifier")), None)
        d = nxt
    return d.text.decode() if d is not None else None


def walk(node) -> Iterator:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


@lru_cache(maxsize=512)
def unit(text: str) -> Unit:
    """The parsed source (parsed once per text: loading and the integrity scan read the same sources)."""
    return Unit(text)


def read_together(texts: Iterable[str]) -> list[Unit]:
    """Sources compiled together (a kernel and its headers), each parsed with the macros all of them define
    expanded in place (repair.ascendc.macros; lines kept), so calls inside macros are calls."""
    from repair.ascendc.macros import collect, expand

    texts = list(texts)
    table = collect(texts)
    return [unit(expand(t, table)) for t in texts]


class Program:
    """Several units read together: functions by name, macros, types, and what a function reaches."""

    def __init__(self, units: Iterable[Unit]):
        self.units = list(units)
        self.by_name: dict[str, list[Func]] = {}
        for u in self.units:
            for f in u.funcs:
                self.by_name.setdefault(f.name, []).append(f)
        self.macros = {k: v for u in self.units for k, v in u.macros.items()}
        self.macro_bodies = {k: v for u in self.units for k, v in u.macro_bodies.items()}
        self._types: _Types | None = None

    @property
    def types(self) -> _Types:
        if self._types is None:
            self._types = _Types(self)
        return self._types

    def functions(self) -> list[Func]:
        return [f for u in self.units for f in u.funcs]

    def reach(self, start: Iterable[Func], *, through_launches: bool = False) -> tuple[list[Func], list[tuple[Func, Call]]]:
        """Functions reachable from `start` by name (methods and overloads alike; macros expanded), through the
        objects they call (a functor's `operator()`, by its declared type and the aliases naming it) and construct
        (its class's constructors), and every call they make, each with its caller. A launch's kernel is followed
        only with `through_launches`."""
        seen: list[Func] = []
        ids: set[int] = set()
        calls: list[tuple[Func, Call]] = []
        todo = list(start)
        while todo:
            f = todo.pop(0)
            if id(f) in ids:
                continue
            ids.add(id(f))
            seen.append(f)
            body = f.node.child_by_field_name("body") or f.node
            for c in f.unit.calls(body):
                calls.append((f, c))
                if c.launch and not through_launches:
                    continue
                todo += self._targets(c.name, set()) + self.types.operators_of(c.name)
            todo += self.types.constructed(f.unit, body)
        return seen, calls

    def _targets(self, name: str, expanding: set[str]) -> list[Func]:
        if name in self.by_name:
            return self.by_name[name]
        if name in self.macros and name not in expanding:
            expanding.add(name)
            return [f for n in self.macros[name] for f in self._targets(n, expanding)]
        return []

    def expand(self, name: str) -> set[str]:
        """A called name and, when it is a macro, every name its expansion calls (transitively)."""
        out, todo = set(), [name]
        while todo:
            n = todo.pop()
            if n in out:
                continue
            out.add(n)
            todo += self.macros.get(n, [])
        return out


_TYPE_WORDS = frozenset("typename const volatile struct class unsigned signed auto static constexpr inline".split())


class _Types:
    """The classes a program defines, the aliases naming them (`using X = ...;`, `typedef ... X;`) and the declared
    types of its variables and fields, by name: enough to follow `obj(args)` to `operator()` and `T obj(args)` to
    T's constructors. Names are not scoped (a name declared twice has both types): generous, never fewer paths."""

    def __init__(self, program: Program):
        self.classes: set[str] = set()
        self.aliases: dict[str, list[str]] = {}
        self.declared: dict[str, list[str]] = {}
        self.operators: dict[str, list[Func]] = {}
        self.constructors: dict[str, list[Func]] = {}
        self.bases: dict[str, set[str]] = {}
        for u in program.units:
            for name, bases, _ in u.classes():
                if name:
                    self.classes.add(callee_name(name))
                    self.bases.setdefault(callee_name(name), set()).update(
                        callee_name(b) for b in re.split(r",(?![^<]*>)", bases.lstrip(": ")) if b.strip())
            for n in walk(u.tree.root_node):
                if n.type == "alias_declaration":
                    name, value = n.child_by_field_name("name"), n.child_by_field_name("type")
                    if name is not None and value is not None:
                        self.aliases.setdefault(u.node_text(name), []).append(u.node_text(value))
                elif n.type == "type_definition":
                    t = n.child_by_field_name("type")
                    for d in n.children_by_field_name("declarator"):
                        if t is not None:
                            self.aliases.setdefault(_declared_name(d) or u.node_text(d), []).append(u.node_text(t))
                elif n.type in ("declaration", "field_declaration", "parameter_declaration"):
                    t = n.child_by_field_name("type")
                    for d in n.children_by_field_name("declarator") if t is not None else ():
                        name = _declared_name(d)
                        if name:
                            self.declared.setdefault(name, []).append(u.node_text(t))
            for f in u.funcs:
                cls = callee_name(f.cls) if f.cls else None
                if f.qualified.replace(" ", "").endswith("operator()") and cls:
                    self.operators.setdefault(cls, []).append(f)
                elif cls and f.name == cls:
                    self.constructors.setdefault(cls, []).append(f)

    def classes_of(self, type_text: str) -> set[str]:
        """The classes a type names, through aliases; a template parameter `Foo_` stands for class Foo."""
        out: set[str] = set()
        todo, seen = [type_text], set()
        while todo and len(seen) < 64:
            t = todo.pop()
            if t in seen:
                continue
            seen.add(t)
            for ident in _IDENT.findall(t):
                if ident in _TYPE_WORDS:
                    continue
                if ident in self.classes:
                    out.add(ident)
                if ident in self.aliases:
                    todo += self.aliases[ident]
                elif ident.endswith("_") and ident.rstrip("_") in self.classes:
                    out.add(ident.rstrip("_"))
        return out

    def with_bases(self, classes: set[str]) -> set[str]:
        """The classes and every class they derive from that the program defines."""
        out, todo = set(), list(classes)
        while todo:
            c = todo.pop()
            if c not in out:
                out.add(c)
                todo += [b for b in self.bases.get(c, ()) if b in self.classes]
        return out

    def operators_of(self, name: str) -> list[Func]:
        """`operator()` of every class a variable or field called `name` is declared with."""
        return [f for t in self.declared.get(name, ()) for c in sorted(self.classes_of(t))
                for f in self.operators.get(c, [])]

    def constructed(self, u: Unit, body) -> list[Func]:
        """Constructors of the classes of the objects declared under `body`."""
        out = []
        for n in walk(body):
            if n.type == "declaration":
                t = n.child_by_field_name("type")
                if t is not None:
                    out += [f for c in sorted(self.classes_of(u.node_text(t))) for f in self.constructors.get(c, [])]
        return out
