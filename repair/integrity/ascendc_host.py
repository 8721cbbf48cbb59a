"""AscendC integrity, the host's link: the operator registers a TilingFunc that fills and saves its tiling struct.

Written from the forms real operators use:
- registration: `this->AICore().SetTiling(fn)` in the `class <Op> : public OpDef`, or
  `IMPL_OP_OPTILING(<Op>).Tiling(fn)` (with `.TilingParse<...>(...)` or not);
- the struct: the one `REGISTER_TILING_DATA_CLASS(<Op>, S)` (or `<Op>_<tiling key>`) registers, its fields from
  `BEGIN_TILING_DATA_DEF(S)`/`TILING_DATA_FIELD_DEF*`; or a plain C++ struct the TilingFunc takes with
  `context->GetTilingData<S>()` (CANN's own samples), its fields from its declaration;
- the TilingFunc and everything it reaches (a helper class it constructs and whose methods it calls:
  `OpTiling tiling(context); return tiling.DoTiling();`) declares S (a variable, or a field of that class), fills a
  field (`set_<field>`, `s.field = ...`, `s->field = ...`, a field handed to a library: `GetTiling(s.cubeTiling)`)
  and writes it out (`SaveToBuffer`, or GetTilingData<S>, which is the raw tiling data itself).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from repair.ascendc import TILING_REGISTER, Program, callee_name, strip_comments, walk

IMPL_OPTILING = re.compile(r"\bIMPL_OP_OPTILING\s*\(\s*(\w+)\s*\)((?:\s*\.\s*\w+\s*(?:<[^<>;]*>)?\s*\([^();]*\))*)")
_TILING_CALL = re.compile(r"\.\s*Tiling\s*\(\s*([\w:]+)\s*\)")
_FIELD_DEF = re.compile(r"TILING_DATA_FIELD_DEF\w*\s*\([^;]*?(\w+)\s*\)\s*;")


@dataclass
class Registration:
    func: str  # the TilingFunc as written
    source: object
    line: int
    how: str


def registration(prog: Program, src_of, op: str) -> tuple[Registration | None, str, object, int | None]:
    """How the operator registers its TilingFunc; else (None, why, source, line)."""
    opdef = None
    for u in prog.units:
        for name, bases, body in u.classes():
            if name == op and "OpDef" in bases:
                opdef = (u, body)
                sets = [c for c in u.calls(body) if c.name == "SetTiling" and c.args]
                if sets:
                    return Registration(sets[0].args[0], src_of(u), sets[0].line, "SetTiling"), "", None, None
    for u in prog.units:
        text = strip_comments(u.text)
        for m in IMPL_OPTILING.finditer(text):
            t = _TILING_CALL.search(m.group(2))
            if m.group(1) == op and t:
                line = text.count("\n", 0, m.start()) + 1
                return Registration(t.group(1), src_of(u), line, "IMPL_OP_OPTILING"), "", None, None
    if opdef is None:
        return None, f"no class {op} : public OpDef defines the operator", src_of(prog.units[0]), None
    u, body = opdef
    return None, f"OpDef {op} registers no TilingFunc (no SetTiling, no IMPL_OP_OPTILING({op}).Tiling)", src_of(u), \
        body.start_point[0] + 1


def registered_structs(sources, op: str) -> list[tuple[str, object, int]]:
    """The structs REGISTER_TILING_DATA_CLASS registers for <Op> and <Op>_<tiling key>, each with where."""
    out = []
    for s in sources:
        text = strip_comments(s.text)
        for m in TILING_REGISTER.finditer(text):
            if (m.group(1) == op or re.fullmatch(re.escape(op) + r"_\w+", m.group(1))) and \
                    m.group(2) not in [o[0] for o in out]:
                out.append((m.group(2), s, text.count("\n", 0, m.start()) + 1))
    return out


def templates(prog: Program, op: str, calls) -> list:
    """The tiling classes `REGISTER_TILING_TEMPLATE("<Op>", Class, priority)` registers, when the TilingFunc hands
    the context to CANN's registry (`TilingRegistry::GetInstance().DoTilingImpl(context)`), which runs them:
    every method of those classes."""
    if not any(c.name == "DoTilingImpl" for _, c in calls):
        return []
    names = {m.group(2) for u in prog.units
             for m in re.finditer(r"\bREGISTER_TILING_TEMPLATE\s*\(\s*\"(\w+)\"\s*,\s*(\w+)", strip_comments(u.text))
             if m.group(1) == op}
    return [f for f in prog.functions() if f.cls and callee_name(f.cls) in names]


def struct_fields(sources, struct: str, prog_units) -> set[str]:
    """A tiling struct's fields: from BEGIN_TILING_DATA_DEF(struct) ... END_TILING_DATA_DEF, or a plain struct."""
    out: set[str] = set()
    for s in sources:
        text = strip_comments(s.text)
        for block in re.finditer(rf"BEGIN_TILING_DATA_DEF\s*\(\s*{re.escape(struct)}\s*\)(.*?)END_TILING_DATA_DEF",
                                 text, re.S):
            out |= set(_FIELD_DEF.findall(block.group(1)))
    for u in prog_units:
        for name, _, body in u.classes():
            if callee_name(name) == struct:
                for n in walk(body):
                    if n.type == "field_declaration":
                        for d in n.children_by_field_name("declarator"):
                            out.add(re.split(r"[\[\s=]", u.node_text(d).strip("*& "))[0])
    return out


def plain_struct(calls) -> tuple[str | None, object]:
    """`context->GetTilingData<S>()`: the plain struct the TilingFunc writes in place."""
    for f, c in calls:
        m = re.search(r"GetTilingData\s*<\s*([\w:]+)\s*>", c.callee)
        if c.name == "GetTilingData" and m:
            return callee_name(m.group(1)), (f, c)
    return None, None


def declares(prog: Program, reached, struct: str) -> bool:
    """The reached functions declare a variable of the struct, use a global one, or belong to a class (or derive
    from one) with a field of it."""
    typed = rf"\b{re.escape(struct)}\b"
    classes = prog.types.with_bases({callee_name(f.cls) for f in reached if f.cls})
    bodies = None
    for u in prog.units:
        for name, line in u.declarations(typed):
            if any(f.unit is u and f.node.start_point[0] + 1 <= line <= f.node.end_point[0] + 1 for f in reached):
                return True
            if not any(f.unit is u and f.node.start_point[0] + 1 <= line <= f.node.end_point[0] + 1
                       for f in u.funcs):  # a global of the struct, which a reached function uses
                bodies = bodies or [f.unit.node_text(f.node) for f in reached]
                if any(re.search(rf"\b{re.escape(name)}\b", b) for b in bodies):
                    return True
        for name, _, body in u.classes():
            if callee_name(name) in classes and any(re.search(typed, u.node_text(n.child_by_field_name("type") or n))
                                                    for n in body.named_children if n.type == "field_declaration"):
                return True
    return False


def fills(reached, calls, fields: set[str]) -> bool:
    if any(c.name.startswith("set_") and c.name[4:] in fields for _, c in calls):
        return True
    for f in reached:
        for n in walk(f.node.child_by_field_name("body") or f.node):
            if n.type == "field_expression" and f.unit.node_text(n.child_by_field_name("field")) in fields:
                return True
    return False


def saves(calls) -> bool:
    return any(c.name in ("SaveToBuffer", "GetTilingData") or any("GetRawTilingData" in a for a in c.args)
               for _, c in calls)
