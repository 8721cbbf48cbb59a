"""C++ facts about buffers, queues and clamps (the rules of repair.rules.ascendc_buffers use them).

`cpp-enque-after-last-use` inserts the EnQue a filled tensor lacks after the last statement that uses it;
`cpp-ub-size` and `cpp-buffer-num` tell the UB's size variable and the buffer count the kernel gives each queue;
`cpp-clamp-swap` swaps a clamp's two bounds where the file's own names say each sits where the other belongs.
"""
from __future__ import annotations

import re

from ingest.rules.cpp_functions import functions
from ingest.rules.facts import FactContext, Option
from ingest.rules.facts_cpp import _named, _statement, _strip_comments, cpp_fact, last_later_use

_RETURN = re.compile(r"^\s*return\b")  # the block's end for a scan of later uses


@cpp_fact("cpp-enque-after-last-use")
def _enque_after_last_use(ctx: FactContext, args: dict) -> list[Option]:
    """`Q.EnQue(X);` inserted after the last later statement of the block that uses `of` (the tensor), Q the
    metavariable args["queue"] binds. No option when nothing after the allocation uses the tensor."""
    _, name = _named(ctx, args)
    queue = ctx.node(str(args.get("queue", "Q")))
    stmt = _statement(ctx.match)
    if name is None or queue is None or stmt is None or stmt.parent() is None \
            or stmt.parent().kind() != "compound_statement":
        return []
    last = last_later_use(stmt, name, _RETURN)
    if last is None:
        return []
    src = ctx.source
    start = stmt.range().start.index
    indent = re.match(r"[ \t]*", src[src.rfind("\n", 0, start) + 1:]).group(0)
    at = last.range().end.index
    return [Option(edits=((at, at, f"\n{indent}{queue.text().strip()}.EnQue({name});"),))]


@cpp_fact("cpp-ub-size")
def _ub_size(ctx: FactContext, args: dict) -> list[Option]:
    """Filter: `of` holds the unified buffer's size (GetCoreMemSize(CoreMemType::UB, v), or set from a UB size)."""
    _, name = _named(ctx, args)
    if name is None:
        return []
    code = _strip_comments(ctx.source)
    n = re.escape(name)
    if re.search(rf"GetCoreMemSize\s*\([^;]*\bUB\b[^;]*\b{n}\s*\)", code) or \
            re.search(rf"\b{n}\s*=[^;=]*(?:\bUB_SIZE\b|GetUbSize|GetUBSize|\bUB\b)", code):
        return [Option()]
    return []


_CONST = r"(?:constexpr|const|#define)\s+(?:(?:static\s+)?[\w:]+\s+)?{name}\s*(?:=\s*)?\(?\s*(\d+)[uUlL]*\s*\)?"


def _constant(code: str, name: str) -> int | None:
    m = re.search(_CONST.format(name=re.escape(name)), code)
    return int(m.group(1)) if m else None


@cpp_fact("cpp-buffer-num")
def _buffer_num(ctx: FactContext, args: dict) -> list[Option]:
    """The buffer count each queue gets (the second argument of a kernel's `InitBuffer(q, n, bytes)`, a constant of
    at least 2), as a number, where `of` (a constant of this file: the number of queues) is not already multiplied
    by it in the matched statement."""
    node, name = _named(ctx, args)
    if name is None:
        return []
    code = _strip_comments(ctx.source)
    if _constant(code, name) is None:
        return []  # the divisor is not a constant count of queues
    counts: dict[str, int] = {}
    for text in (ctx.source, *ctx.companions):
        kcode = _strip_comments(text)
        for m in re.finditer(r"\bInitBuffer\s*\(\s*[\w.>\-]+\s*,\s*([A-Za-z_]\w*|\d+)\s*,", kcode):
            arg = m.group(1)
            value = int(arg) if arg.isdigit() else _constant(kcode, arg)
            if value is not None and value >= 2:
                counts.setdefault(arg, value)
    stmt = _statement(ctx.match)
    stmt_text = _strip_comments(stmt.text()) if stmt is not None else ""
    for arg, value in counts.items():
        # the number, not the kernel's constant: a host may not define that name (and a record's replay reads the
        # candidate's files as one text, where the kernel's definition would seem in scope)
        spelt, n = str(value), re.escape(name)
        if re.search(rf"\b{n}\s*\*\s*(?:{re.escape(arg)}|{spelt})\b|\b(?:{re.escape(arg)}|{spelt})\s*\*\s*{n}\b",
                     stmt_text):
            continue  # already split over both
        return [Option(spelt)]
    return []


_UPPER = {"max", "hi", "high", "upper", "top", "ceil", "ceiling"}
_LOWER = {"min", "lo", "low", "lower", "bottom", "floor"}


def _words(expr: str) -> set[str]:
    """The words of the names an expression reads (camelCase and snake_case split, `this->` aside)."""
    out: set[str] = set()
    for ident in re.findall(r"[A-Za-z_]\w*", expr.replace("this->", " ")):
        out.update(w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", ident))
    return out


def _bound_kind(code: str, expr: str) -> str | None:
    """`upper` or `lower`, as the expression's names (or the value a member of that name is set from) say."""
    for text in (expr, *_definitions(code, expr)):
        words = _words(text)
        up, low = bool(words & _UPPER), bool(words & _LOWER)
        if up != low:
            return "upper" if up else "lower"
    return None


def _definitions(code: str, expr: str) -> list[str]:
    m = re.fullmatch(r"\s*(?:this\s*->\s*)?([A-Za-z_]\w*)\s*", expr)
    if not m:
        return []
    return [d.group(1) for d in re.finditer(rf"(?:this\s*->\s*)?\b{re.escape(m.group(1))}\s*=(?!=)\s*([^;]+);", code)]


def _call_args(text: str, open_at: int) -> list[tuple[int, int]]:
    """[start, end) of each top-level argument of the call whose `(` is at open_at."""
    spans, depth, start = [], 0, open_at + 1
    for i in range(open_at + 1, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                spans.append((start, i))
                return spans
            depth -= 1
        elif ch == "," and depth == 0:
            spans.append((start, i))
            start = i + 1
    return []


@cpp_fact("cpp-clamp-swap")
def _clamp_swap(ctx: FactContext, args: dict) -> list[Option]:
    """The match `Op(y, x, a, n)` and the later `peer(z, y, b, m)` of its block (Maxs then Mins, or Mins then Maxs)
    with `a` and `b` swapped, where the names say the bound in the Maxs is the upper one and the bound in the Mins
    the lower one (a clamp needs the lower bound in the Maxs)."""
    peer = str(args.get("peer", "Mins"))
    op_is_max = peer == "Mins"
    y, a = ctx.node("Y"), ctx.node("A")
    stmt = _statement(ctx.match)
    if y is None or a is None or stmt is None:
        return []
    code = _strip_comments(ctx.source)
    y_text = " ".join(y.text().split())
    for sib in stmt.next_all():
        if not sib.is_named() or sib.kind() == "comment":
            continue
        raw = sib.text()
        m = re.search(rf"(?:\b\w+\s*::\s*)?\b{peer}\s*(?:<[^<>()]*>)?\s*\(", raw)
        if not m:
            if re.search(rf"\b{re.escape(y_text)}\b\s*[,)]", raw) and not re.search(r"\b(EnQue|FreeTensor)\b", raw):
                return []  # y is used by something else before the peer
            continue
        spans = _call_args(raw, m.end() - 1)
        if len(spans) != 4 or " ".join(raw[spans[1][0]:spans[1][1]].split()) != y_text:
            return []
        b_start, b_end = spans[2]
        b_text = raw[b_start:b_end].strip()
        a_text = a.text().strip()
        kind_a, kind_b = _bound_kind(code, a_text), _bound_kind(code, b_text)
        wrong = ("upper", "lower") if op_is_max else ("lower", "upper")
        if (kind_a, kind_b) != wrong:
            return []
        base = sib.range().start.index
        lead = len(raw[b_start:b_end]) - len(raw[b_start:b_end].lstrip())
        ar = a.range()
        return [Option(edits=((ar.start.index, ar.end.index, b_text),
                              (base + b_start + lead, base + b_start + lead + len(b_text), a_text)))]
    return []


@cpp_fact("cpp-share-length")
def _share_length(ctx: FactContext, args: dict) -> list[Option]:
    """The length each core's share is clamped to where the code bounds the share by the offset the match defines
    (`len = total - off < blockLen ? total - off : blockLen`, `min(total - off, blockLen)`): options for the stride
    the offset should multiply the core index by, other than `of` (the one it does), each as the edit of `of`."""
    _, stride = _named(ctx, args)
    decl = ctx.node(str(args.get("offset", "O")))
    if stride is None or decl is None:
        return []
    off = re.escape(decl.text().strip())
    code = _strip_comments(ctx.source)
    found = []
    for m in re.finditer(rf"[^;{{}}]*\b{off}\b[^;?]*<\s*(?:this\s*->\s*)?([A-Za-z_]\w*)\s*\?[^:;]*:\s*"
                         rf"(?:this\s*->\s*)?\1\b", code):
        found.append(m.group(1))
    for m in re.finditer(rf"\bmin\s*(?:<[^<>]*>)?\s*\([^;]*\b{off}\b[^;,]*,\s*(?:this\s*->\s*)?([A-Za-z_]\w*)\s*\)",
                         code):
        found.append(m.group(1))
    node = ctx.node(args.get("of"))
    r = node.range()
    # an edit of the stride alone: the rest of the statement keeps the file's spelling (`AscendC::GetBlockIdx()`)
    return [Option(n, edits=((r.start.index, r.end.index, n),)) for n in dict.fromkeys(found)
            if n != stride and n != decl.text().strip()]


@cpp_fact("cpp-accumulated-by-call")
def _accumulated_by_call(ctx: FactContext, args: dict) -> list[Option]:
    """Filter: the tensor `of` names is passed to a function of the file whose parameter in that place is summed
    into itself (`Add(p, p, t, n)`): a running sum kept across calls. A function that also fills that parameter
    (`Duplicate(p, ...)`) does not count: the sum is filled, in the wrong place (accumulator-reset-per-tile's
    bug, not a missing fill)."""
    _, name = _named(ctx, args)
    if name is None:
        return []
    code, funcs = _strip_comments(ctx.source), functions(ctx.root, ctx.source)
    for call in re.finditer(rf"(?<![\w.>:])([A-Za-z_]\w*)\s*\(([^;()]*\b{re.escape(name)}\b[^;()]*)\)\s*;", code):
        given = [a.strip() for a in call.group(2).split(",")]
        params, body, _ = funcs.get(call.group(1), ([], None, 0))
        if name not in given or given.index(name) >= len(params) or not params[given.index(name)]:
            continue
        p, text = re.escape(params[given.index(name)]), _strip_comments(body.text())
        if re.search(rf"(?:\w+::)?\bAdd\s*\(\s*{p}\s*,\s*{p}\s*,", text) and \
                not re.search(rf"\bDuplicate\s*(?:<[^<>;]*>)?\s*\(\s*{p}\s*,", text):
            return [Option()]
    return []


@cpp_fact("cpp-buffer-elements")
def _buffer_elements(ctx: FactContext, args: dict) -> list[Option]:
    """The element count a TBuf `of` holds: `n` of its `InitBuffer(buf, n * sizeof(T))`."""
    _, name = _named(ctx, args)
    if name is None:
        return []
    code = _strip_comments(ctx.source)
    m = re.search(rf"\bInitBuffer\s*\(\s*{re.escape(name)}\s*,\s*(.+?)\s*\*\s*sizeof\s*\([\w:]+\)\s*\)\s*;", code) or \
        re.search(rf"\bInitBuffer\s*\(\s*{re.escape(name)}\s*,\s*sizeof\s*\([\w:]+\)\s*\*\s*(.+?)\s*\)\s*;", code)
    return [Option(m.group(1).strip())] if m else []


_SHAPE_READ = re.compile(r"\b(?:GetShapeSize|GetDim|numel)\s*\(")  # a count of elements the shape gives


def _assignments(text: str, name: str) -> list[str]:
    n = re.escape(name)
    return [m.group(1) for m in re.finditer(rf"(?<![\w.])(?:this\s*->\s*)?\b{n}\s*=(?!=)\s*([^;]+);", text)]


@cpp_fact("cpp-whole-length")
def _whole_length(ctx: FactContext, args: dict) -> list[Option]:
    """Where `of` (a mean's divisor) is a length derived from the data by a split or an alignment (`perCore =
    (n + d - 1) / d`, `aligned = (n + 7) / 8 * 8`): the lengths read from the shape as they are (`n =
    shape.GetShapeSize()`), in this file or a companion and named in this one, each as the edit of `of`."""
    node, name = _named(ctx, args)
    if name is None:
        return []
    files = [_strip_comments(t) for t in (ctx.source, *ctx.companions)]
    own = [d for f in files for d in _assignments(f, name)]
    if not own or _SHAPE_READ.search(" ".join(own)) and not re.search(r"[/*]", " ".join(own)):
        return []  # `of` is itself the shape's length, or nothing says where it comes from
    if not any(re.search(r"[/*]", d) for d in own):
        return []
    here = files[0]
    sources, todo = set(), list(own)  # every name `of` is computed from, through the assignments (a few levels)
    for _ in range(4):
        names = {n for d in todo for n in re.findall(r"(?<![\w.>])([A-Za-z_]\w*)\b(?!\s*\()", d)} - sources
        sources |= names
        todo = [d for f in files for n in names for d in _assignments(f, n)]
    found = []
    for f in files:
        for m in re.finditer(r"(?<![\w.])(?:this\s*->\s*)?\b([A-Za-z_]\w*)\s*=(?!=)\s*([^;]+);", f):
            other, rhs = m.group(1), m.group(2)
            if other == name or other not in sources or not _SHAPE_READ.search(rhs) or "/" in rhs:
                continue
            if re.search(rf"\b{re.escape(other)}\b", here):
                found.append(other)  # the split length is computed from it: the whole it was split from
    r = node.range()
    start = r.start.index + (node.text().find(name) if node.text().find(name) >= 0 else 0)
    return [Option(o, edits=((start, start + len(name), o),)) for o in dict.fromkeys(found)][:3]
