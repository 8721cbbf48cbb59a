"""C++ facts about reductions across tiles and cores (repair.rules.ascendc_reduce).

`cpp-reset-hoisted` moves an accumulator's reset out of the tile loop (or out of the helper the loop calls) when the
loop only accumulates into it and only the code after the loop reads it; `cpp-partial-to-shared` wraps a copy-out
of a sum's partial result into one GM range that no core offsets in SetAtomicAdd<T>() / SetAtomicNone().
"""
from __future__ import annotations

import re

from ingest.rules.cpp_functions import enclosing_function, function_name, function_params, functions
from ingest.rules.cpp_view import spelling
from ingest.rules.facts import FactContext, Option
from ingest.rules.facts_cpp import _line_span, _named, _statement, _strip_comments, core_index_names, cpp_fact

_LOOPS = {"for_statement", "while_statement", "do_statement", "for_range_loop"}
_API = r"(?:Add|Sub|Mul|Div|Adds|Muls|Exp|Cast|Duplicate|ReduceSum|WholeReduceSum|BlockReduceSum|ReduceMax|DataCopy|" \
       r"DataCopyPad|Max|Min|Maxs|Mins|Abs|Sqrt|Ln)"


def _indent(source: str, at: int) -> str:
    return re.match(r"[ \t]*", source[source.rfind("\n", 0, at) + 1:]).group(0)


_QUALIFIER = re.compile(r"(?:::\s*)?(?:[A-Za-z_]\w*\s*::\s*)+$")


def _begin(source: str, node) -> int:
    """Where the statement starts in the source: before the AscendC qualifier the rules' view blanked."""
    at = node.range().start.index
    m = _QUALIFIER.search(source[max(0, at - 64):at])
    return at - len(m.group(0)) if m else at


def _line_cut(source: str, node) -> tuple[int, int]:
    """The statement's whole line(s), newline included, when it stands alone on them (its qualifier included)."""
    return _line_span(source, _begin(source, node), node.range().end.index)


def _up(node, kinds: set[str]):
    """The nearest ancestor of one of the kinds, stopping at the enclosing function."""
    node = node.parent()
    while node is not None and node.kind() != "function_definition":
        if node.kind() in kinds:
            return node
        node = node.parent()
    return None


def _accumulates(text: str, name: str, helpers: dict[str, str]) -> bool:
    """Does one statement that mentions `name` only add into it (Add(n, n, t, k), n += t, a helper that does)?"""
    n = re.escape(name)
    t = _strip_comments(text).strip()
    if re.fullmatch(rf"(?:[\w:]+::)?Add\s*\(\s*{n}\s*,(?=[^;]*\b{n}\b)[^;]*\)\s*;", t, re.S):
        return True
    if re.fullmatch(rf"(?:this\s*->\s*)?{n}\s*(?:\+=|=\s*(?:this\s*->\s*)?{n}\s*\+)[^;]*;", t, re.S) or \
            re.fullmatch(rf"(?:this\s*->\s*)?{n}\s*=[^;]*\+\s*(?:this\s*->\s*)?{n}\s*;", t, re.S):
        return True
    m = re.fullmatch(rf"(?:this\s*->\s*)?([A-Za-z_]\w*)\s*\((.*)\)\s*;", t, re.S)
    if m and m.group(1) in helpers and not re.fullmatch(_API, m.group(1)):
        args = [a.strip() for a in m.group(2).split(",")]
        if name in args:
            return bool(re.search(r"\bAdd\s*\(\s*(\w+)\s*,\s*\1\s*,", helpers[m.group(1)]))
    return False


def _helpers(ctx: FactContext) -> dict[str, str]:
    """The file's functions by name: their bodies' text, comments blanked."""
    return {name: _strip_comments(body.text()) for name, (_, body, _) in functions(ctx.root, ctx.source).items()}


def _statements(node):
    """The leaf statements under node (a loop's body): expression statements and declarations."""
    return [s for s in node.find_all(kind="expression_statement")] + list(node.find_all(kind="declaration"))


def _only_accumulated(loop, name: str, skip, helpers: dict[str, str]) -> bool:
    """Inside the loop, every statement that mentions `name` (but `skip`) adds into it; the loop's header does not
    read it, nor does the loop declare it (then it is the iteration's own)."""
    uses = re.compile(rf"\b{re.escape(name)}\b")
    found = False
    for s in _statements(loop):
        if skip is not None and s.range().start.index == skip.range().start.index:
            continue
        text = s.text()
        if not uses.search(_strip_comments(text)):
            continue
        if s.kind() == "declaration":
            return False
        if not _accumulates(text, name, helpers):
            return False
        found = True
    return found


def _read_after(func, loop, name: str, source: str) -> bool:
    """Does the function read `name` after the loop ends?"""
    body_end = func.range().end.index
    return bool(re.search(rf"\b{re.escape(name)}\b", _strip_comments(source[loop.range().end.index:body_end])))


def _declared_in(node, name: str) -> bool:
    return any(re.search(rf"\b{re.escape(name)}\s*(?:=|;|\{{|\()", d.text()) and
               not re.search(rf"[.>]\s*{re.escape(name)}\b", d.text()) for d in node.find_all(kind="declaration"))


def _hoist(source: str, stmt, loop, text: str) -> Option:
    at = source.rfind("\n", 0, loop.range().start.index) + 1
    cut = _line_cut(source, stmt)
    return Option(edits=((cut[0], cut[1], ""), (at, at, f"{_indent(source, loop.range().start.index)}{text}\n")))


@cpp_fact("cpp-reset-hoisted")
def _reset_hoisted(ctx: FactContext, args: dict) -> list[Option]:
    """The matched reset of the accumulator `of` moved before the tile loop it sits in (or, in a helper the loop
    calls, before that loop in the caller, spelt with the caller's argument), where the loop only adds into the
    accumulator and only the code after the loop reads it. A loop that reads it (writes each row's sum out) resets
    it rightly."""
    _, name = _named(ctx, args)
    stmt = _statement(ctx.match)
    if name is None or stmt is None or stmt.kind() != "expression_statement":
        return []
    src = ctx.source
    helpers = _helpers(ctx)
    func = enclosing_function(stmt)
    if func is None:
        return []
    text = src[_begin(src, stmt):stmt.range().end.index]
    loop = _up(stmt, _LOOPS)
    if loop is not None:
        if _declared_in(loop, name) or not _only_accumulated(loop, name, stmt, helpers) \
                or not _read_after(func, loop, name, src):
            return []
        return [_hoist(src, stmt, loop, text)]
    # a helper the loop calls: its accumulations must follow the reset and be all it does with the tensor
    params, fname = function_params(func), function_name(func)
    if not fname or _declared_in(func, name):
        return []
    body = func.field("body")
    if body is None or not _only_accumulated(body, name, stmt, helpers):
        return []
    root = ctx.root
    calls = [c for c in root.find_all(kind="call_expression")
             if re.sub(r"^(this\s*->\s*)", "", c.field("function").text() if c.field("function") else "") == fname]
    if len(calls) != 1:
        return []
    call = calls[0]
    loop, caller = _up(call, _LOOPS), enclosing_function(call)
    argl = call.field("arguments")
    given = [a.text().strip() for a in argl.children() if a.is_named()] if argl is not None else []
    if loop is None or caller is None or len(given) != len(params):
        return []
    bound = dict(zip(params, given))
    outer = bound.get(name, name)
    if not re.fullmatch(r"(this\s*->\s*)?[A-Za-z_]\w*", outer):
        return []
    outer_name = re.sub(r"^this\s*->\s*", "", outer)
    if not _only_accumulated(loop, outer_name, None, helpers) or not _read_after(caller, loop, outer_name, src):
        return []
    moved = _rename(text, bound)
    return [_hoist(src, stmt, loop, moved)]


def _rename(text: str, bound: dict[str, str]) -> str:
    """A helper's statement spelt in its caller: each parameter replaced by the argument the call passes (a member
    reached through `this->` or `.` is not a parameter)."""
    def repl(m: re.Match) -> str:
        before = text[max(0, m.start() - 2):m.start()]
        if before.endswith(".") or before.endswith("->") or before.endswith("::"):
            return m.group(0)
        return bound.get(m.group(0), m.group(0))
    return re.sub(r"\b[A-Za-z_]\w*\b", repl, text)


_SUM_INTO = r"\b(?:ReduceSum|WholeReduceSum|BlockReduceSum)\s*(?:<[^;]*?>)?\s*\(\s*{n}\s*[,\[]"


@cpp_fact("cpp-partial-to-shared")
def _partial_to_shared(ctx: FactContext, args: dict) -> list[Option]:
    """SetAtomicAdd<T>() before the matched copy-out and SetAtomicNone() after it, where the copy moves a sum's
    partial result (the destination of a ReduceSum, or a tensor dequeued from the queue one was enqueued on) into
    the GlobalTensor `of`, set on its output without any core offset, in a kernel split over cores (it reads the
    core index) that sets no atomic mode. T is the GlobalTensor's element type; names spelt as the file spells
    AscendC."""
    from ingest.rules.facts_cpp import declared_template_arg

    _, gm = _named(ctx, args)
    local = ctx.node(str(args.get("local", "L")))
    stmt = _statement(ctx.match)
    if gm is None or local is None or stmt is None or stmt.kind() != "expression_statement":
        return []
    src, code = ctx.source, _strip_comments(ctx.source)
    if re.search(r"\bSetAtomic(?:Add|Max|Min|Type)\b", code):
        return []
    if not (re.search(r"\bGetBlockIdx\s*\(\s*\)", code) or core_index_names(src)):
        return []
    t = declared_template_arg(src, gm, "GlobalTensor")
    sets = re.findall(rf"\b{re.escape(gm)}\s*\.\s*SetGlobalBuffer\s*\(([^;]*)\)\s*;", code)
    if t is None or not any("+" not in s.split(",")[0] for s in sets):
        return []
    lname = re.sub(r"^\(?\s*(?:this\s*->\s*)?", "", local.text()).split("[")[0].strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", lname) or not _holds_partial_sum(code, lname):
        return []
    spell = spelling(src)
    begin, stop = _begin(src, stmt), stmt.range().end.index
    ind = _indent(src, begin)
    return [Option(edits=((begin, begin, f"{spell.qualify('SetAtomicAdd')}<{t}>();\n{ind}"),
                          (stop, stop, f"\n{ind}{spell.qualify('SetAtomicNone')}();")))]


def _holds_partial_sum(code: str, name: str) -> bool:
    n = re.escape(name)
    if re.search(_SUM_INTO.format(n=n), code):
        return True
    # dequeued from a queue that a summed tensor was enqueued on (Compute sums, CopyOut dequeues)
    for q in re.findall(rf"\b{n}\s*=\s*(?:this\s*->\s*)?(\w+)\s*\.\s*DeQue\b", code):
        for enq in re.findall(rf"\b{re.escape(q)}\s*\.\s*EnQue\s*(?:<[^;]*?>)?\s*\(\s*(\w+)\s*\)", code):
            if re.search(_SUM_INTO.format(n=re.escape(enq)), code):
                return True
    return False

