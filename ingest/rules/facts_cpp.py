"""Facts about C++ sources (AscendC kernels, their host tiling): what a tensor is declared as, where it is last used.

They read the file's text and its tree-sitter tree (no Python module model): a C++ rule may `derive` only the
facts registered here (CPP_FACTS). Each answers with options as the Python facts do; an edit moves or inserts
whole statements, so a rule that reorders code keeps its pattern as its rewrite and lets the fact edit.
"""
from __future__ import annotations

import re

from ingest.rules.facts import FactContext, Option, fact

CPP_FACTS: set[str] = set()
_STATEMENT_KINDS = {"expression_statement", "declaration", "return_statement", "if_statement", "for_statement",
                    "while_statement", "do_statement", "compound_statement", "switch_statement"}


def cpp_fact(name: str):
    def register(fn):
        CPP_FACTS.add(name)
        return fact(name)(fn)
    return register


def base_name(expr: str) -> str | None:
    """The variable an expression names: `this->xGm[i * n]` -> xGm, `(xLocal)` -> xLocal."""
    m = re.match(r"\s*\(?\s*(?:this\s*->\s*)?([A-Za-z_]\w*)", expr)
    return m.group(1) if m else None


def declared_template_arg(source: str, name: str, template: str) -> str | None:
    """T of the declaration `template<T> name` (a member list, a parameter, a local), or None when name is not one."""
    decl = re.compile(rf"\b(?:\w+::)*{template}\s*<\s*([^<>;]+?)\s*>\s*((?:&?\s*\w+\s*(?:=[^,;()]*(?:\([^;]*?\))?)?"
                      rf"\s*,\s*)*)&?\s*{re.escape(name)}\b")
    m = decl.search(_strip_comments(source))
    return m.group(1).strip() if m else None


def _named(ctx: FactContext, args: dict):
    """The node `of` binds and the variable it names (None, None when unbound)."""
    node = ctx.node(args.get("of"))
    return node, (base_name(node.text()) if node is not None else None)


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


@cpp_fact("cpp-tensor")
def _tensor(ctx: FactContext, args: dict) -> list[Option]:
    """The element type of a tensor declared as args["template"]<T> (LocalTensor, GlobalTensor): `of` names it."""
    _, name = _named(ctx, args)
    if name is None:
        return []
    found = declared_template_arg(ctx.source, name, str(args.get("template", "LocalTensor")))
    return [Option(found)] if found else []


def _statement(node):
    while node is not None and node.kind() not in _STATEMENT_KINDS:
        node = node.parent()
    return node


def _line_span(source: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to whole lines when the statement is alone on its line."""
    line_start = source.rfind("\n", 0, start) + 1
    line_end = source.find("\n", end)
    line_end = len(source) if line_end < 0 else line_end
    if source[line_start:start].strip() or source[end:line_end].strip():
        return start, end
    return line_start, min(line_end + 1, len(source))


def last_later_use(stmt, name: str, stop: re.Pattern | None):
    """The last statement after `stmt` in its block that uses `name`, scanning until one matches `stop`."""
    uses = re.compile(rf"\b{re.escape(name)}\b")
    last = None
    for sib in stmt.next_all():
        if not sib.is_named() or sib.kind() == "comment":
            continue
        text = _strip_comments(sib.text())
        if stop is not None and stop.search(text):
            break
        if uses.search(text):
            last = sib
    return last


@cpp_fact("cpp-last-use")
def _last_use(ctx: FactContext, args: dict) -> list[Option]:
    """The matched statement moved after the last later statement of its block that uses `of`.

    The scan stops at a statement matching args["until"] (a regex; `$NAME` stands for the variable), such as the
    DeQue that hands a queued tensor back or an assignment that makes the name another tensor.
    """
    _, name = _named(ctx, args)
    stmt = _statement(ctx.match)
    if name is None or stmt is None or stmt.parent() is None or stmt.parent().kind() != "compound_statement":
        return []
    until = args.get("until")
    last = last_later_use(stmt, name, re.compile(str(until).replace("$NAME", re.escape(name))) if until else None)
    if last is None:
        return []
    src = ctx.source
    r, lr = stmt.range(), last.range()
    line_start = src.rfind("\n", 0, r.start.index) + 1
    indent = re.match(r"[ \t]*", src[line_start:]).group(0)
    cut = _line_span(src, r.start.index, r.end.index)
    moved = src[r.start.index:r.end.index]
    return [Option(edits=((cut[0], cut[1], ""), (lr.end.index, lr.end.index, f"\n{indent}{moved}")))]


@cpp_fact("cpp-queue-type")
def _queue_type(ctx: FactContext, args: dict) -> list[Option]:
    """The element type of the tensors a queue or buffer `of` hands out (Q.AllocTensor<T>, Q.DeQue<T>, B.Get<T>)."""
    _, name = _named(ctx, args)
    if name is None:
        return []
    m = re.search(rf"\b{re.escape(name)}\s*\.\s*(?:AllocTensor|DeQue|Get)\s*<\s*([\w:]+)\s*>",
                  _strip_comments(ctx.source))
    return [Option(m.group(1))] if m else []


@cpp_fact("cpp-split-factor")
def _split_factor(ctx: FactContext, args: dict) -> list[Option]:
    """F where the file divides a length by `of` and then by F (tileLength = blockLength / tileNum / BUFFER_NUM):
    the number of tiles is `of` * F."""
    node, name = _named(ctx, args)
    if name is None or not re.fullmatch(r"\s*(this\s*->\s*)?\w+\s*", node.text()):
        return []
    text = _strip_comments(ctx.source)
    m = re.search(rf"/\s*(?:this\s*->\s*)?{re.escape(name)}\s*/\s*([A-Za-z_]\w*|\d+)\b(?!\s*[\[(])", text) or \
        re.search(rf"/\s*\(\s*(?:this\s*->\s*)?{re.escape(name)}\s*\*\s*([A-Za-z_]\w*|\d+)\s*\)", text)
    if not m:
        return []
    factor = m.group(1)
    # a loop that already counts name * factor tiles is right
    if re.search(rf"\b{re.escape(name)}\s*\*\s*{re.escape(factor)}\b|\b{re.escape(factor)}\s*\*\s*"
                 rf"(?:this\s*->\s*)?{re.escape(name)}\b", text):
        return []
    return [Option(factor)]


_CORE_INDEX = r"\b(GetBlockIdx|GetBlockNum|get_block_idx|get_block_num)\s*\(\s*\)"


def core_index_names(source: str) -> set[str]:
    """Variables the file sets from the core's index or the block count (uint32_t core = GetBlockIdx();)."""
    text = _strip_comments(source)
    return {m.group(1) for m in re.finditer(rf"(?:this\s*->\s*)?\b([A-Za-z_]\w*)\s*=\s*[^;=]*{_CORE_INDEX}", text)}


@cpp_fact("cpp-core-index")
def _core_index(ctx: FactContext, args: dict) -> list[Option]:
    """Filter: `of` reads the core's index or the block count, directly or through a variable set from them (with
    args["negate"], it does not)."""
    node = ctx.node(args.get("of"))
    if node is None:
        return []
    text = _strip_comments(node.text())
    names = core_index_names(ctx.source)
    reads = bool(re.search(_CORE_INDEX, text)) or any(re.search(rf"\b{re.escape(n)}\b", text) for n in names)
    return [Option()] if reads != bool(args.get("negate")) else []


@cpp_fact("cpp-element-count")
def _element_count(ctx: FactContext, args: dict) -> list[Option]:
    """Filter: `of` counts elements, not bytes: neither it nor the definitions of the names it reads (one level)
    take a sizeof."""
    node = ctx.node(args.get("of"))
    if node is None:
        return []
    text = _strip_comments(ctx.source)
    expr = _strip_comments(node.text())
    if "sizeof" in expr:
        return []
    for name in set(re.findall(r"\b[A-Za-z_]\w*\b", expr)) - {"this"}:
        for m in re.finditer(rf"(?<![\w.>]){re.escape(name)}\s*=\s*([^;]+);|(?<=->){re.escape(name)}\s*=\s*([^;]+);",
                             text):
            if "sizeof" in (m.group(1) or m.group(2) or ""):
                return []
    return [Option()]
