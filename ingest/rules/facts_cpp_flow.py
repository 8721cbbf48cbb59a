"""Facts about values in C++ (AscendC host tiling and kernels): where a count comes from and where it goes.

A host's tiling is arithmetic over the input's shape and the chip (`GetShapeSize()`, `GetCoreNum()`, the UB size);
the kernel reads the fields it sets and the core's index. These facts follow names through the file's assignments
(the last one before the match), and into the candidate's other files where a tiling field crosses from the host
to its header (FactContext.companions), so a rule keys on what a value is, not on what it is called.
"""
from __future__ import annotations

import re

from ingest.rules.facts import FactContext, Option
from ingest.rules.facts_cpp import _named, _strip_comments, core_index_names, cpp_fact

_SHAPE = re.compile(r"\bGet(?:ShapeSize|StorageShape|OriginShape|InputShape|InputTensor|DimNum|Dim|Shape)\s*\(")
_CORES = re.compile(r"\bGetCoreNum(?:Aiv|Aic)?\s*\(")
_ASSIGN = r"(?<![\w.>:])(?:(?:const\s+)?[\w:<>]+\s+)?{name}\s*=(?!=)\s*([^;]+);"


def definitions(text: str, name: str, before: int | None = None) -> list[str]:
    """The right-hand sides assigned to `name` (declarations included), in order, up to `before`."""
    code = _strip_comments(text)[:before]
    return [m.group(1).strip() for m in re.finditer(_ASSIGN.format(name=re.escape(name)), code)]


def last_definition(text: str, name: str, before: int | None = None, *, follow: int = 3) -> str | None:
    """The last value assigned to `name` before `before`, through plain copies (`a = b;`) and self-assignments."""
    defs = definitions(text, name, before)
    while defs:
        rhs = defs.pop()
        plain = re.fullmatch(r"\(?\s*(?:this\s*->\s*)?([A-Za-z_]\w*)\s*\)?", rhs)
        if plain is None:
            return rhs
        if plain.group(1) == name:
            continue  # `q = q;`: what q held before
        if follow <= 0:
            return rhs
        return last_definition(text, plain.group(1), before, follow=follow - 1) or rhs
    return None


def _unwrap(expr: str) -> str:
    e = expr.strip()
    while e.startswith("(") and _closing(e, 0) == len(e) - 1:
        e = e[1:-1].strip()
    return re.sub(r"^static_cast\s*<[^<>]+>\s*", "", e).strip()


def _closing(text: str, at: int) -> int:
    depth = 0
    for i in range(at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return -1


def floor_quotient(expr: str) -> tuple[str, str] | None:
    """(dividend, divisor) of an expression that is an integer division rounding down at its top level."""
    e = _unwrap(expr)
    e = e.replace("->", "\x01\x02")  # member access is not arithmetic
    depth, cut = 0, -1
    for i, ch in enumerate(e):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in "+-?:<>=&|%" and i > 0:
            return None  # the division is an operand of something looser
        elif depth == 0 and ch == "/":
            cut = i
    e = e.replace("\x01\x02", "->")
    if cut < 0:
        return None
    a, b = e[:cut].strip(), e[cut + 1:].strip()
    if not a or not b or re.search(rf"\+\s*\(?\s*{re.escape(b)}\s*\)?\s*-\s*1\s*\)?\s*$", a):
        return None  # already rounds up
    return a, b


@cpp_fact("cpp-quotient")
def _quotient(ctx: FactContext, args: dict) -> list[Option]:
    """The dividend (args["part"] = "dividend") or divisor of the floor division `of` holds: its last value before the
    match, through plain copies (a count copied from `n / d`)."""
    node, name = _named(ctx, args)
    if node is None:
        return []
    text = node.text().strip()
    value = text if not re.fullmatch(r"(?:this\s*->\s*)?\w+", text) else \
        last_definition(ctx.source, name, ctx.match.range().start.index)
    q = floor_quotient(value) if value else None
    if q is None:
        return []
    return [Option(q[0] if args.get("part", "dividend") == "dividend" else q[1])]


def reads_shape(text: str, expr: str, before: int | None = None, depth: int = 6) -> bool:
    """Does `expr` derive from the input's shape, directly or through the assignments of the names it reads?"""
    seen: set[str] = set()
    todo = [expr]
    while todo and depth >= 0:
        depth -= 1
        nxt = []
        for e in todo:
            if _SHAPE.search(e):
                return True
            for name in set(re.findall(r"(?<![\w.>])([A-Za-z_]\w*)\b(?!\s*\()", e)) - seen:
                seen.add(name)
                nxt += definitions(text, name, before)
        todo = nxt
    return False


@cpp_fact("cpp-data-derived")
def _data_derived(ctx: FactContext, args: dict) -> list[Option]:
    """Filter: `of` is computed from the input's shape (GetShapeSize, GetStorageShape, ...), not from the chip or a
    constant (with args["negate"], it is not)."""
    of = str(args.get("of") or "").lstrip("$")
    node = ctx.node(of) if of else ctx.match
    text = node.text() if node is not None else ctx.env.get(of)  # a metavariable a fact derived before this one
    if text is None:
        return []
    found = reads_shape(ctx.source, text, ctx.match.range().start.index)
    return [Option()] if found != bool(args.get("negate")) else []


@cpp_fact("cpp-rounds-down")
def _rounds_down(ctx: FactContext, args: dict) -> list[Option]:
    """Filter: `of` divided by args["by"] (a metavariable) rounds down: `of` is not already `x + by - 1` (nor
    `x + 7` for a divisor 8)."""
    node, by = ctx.node(args.get("of")), ctx.node(str(args.get("by", "")))
    if node is None or by is None:
        return []
    n, b = _unwrap(node.text()), " ".join(by.text().split())
    m = re.fullmatch(r"(.+?)\s*\+\s*(.+)", n, re.S)
    if m:
        add = " ".join(m.group(2).split())
        if re.fullmatch(rf"\(?\s*{re.escape(b)}\s*-\s*1\s*\)?", add) or (
                b.isdigit() and add.isdigit() and int(add) == int(b) - 1):
            return []
    return [Option()]


@cpp_fact("cpp-core-count")
def _core_count(ctx: FactContext, args: dict) -> list[Option]:
    """The variables the host sets from the chip's core count (`auto cores = platform.GetCoreNumAiv();`), each an
    option: first those narrowed from it (`blockDim = min(cores, ...)`, `cores = min(cores, ...)`, a later
    assignment), the count the work was split over; the chip's own count last."""
    code = _strip_comments(ctx.source)
    chip = list(dict.fromkeys(m.group(1) for m in re.finditer(r"\b([A-Za-z_]\w*)\s*=\s*[^;]*" + _CORES.pattern, code)))
    skip = ctx.node(args.get("of")).text().strip() if args.get("of") else None
    derived = []  # names assigned from an expression that reads a chip count (besides a plain copy of it)
    for m in re.finditer(r"(?<![\w.>:])([A-Za-z_]\w*)\s*=(?!=)\s*([^;]+);", code):
        name, rhs = m.group(1), m.group(2)
        if name in chip or re.fullmatch(r"\s*\w+\s*", rhs) or _CORES.search(rhs):
            continue
        if any(re.search(rf"\b{re.escape(c)}\b", rhs) for c in chip) and re.search(r"\b(?:min|max)\s*[<(]", rhs):
            derived.append(name)
    narrowed = [n for n in chip if len(definitions(ctx.source, n)) > 1]
    return [Option(n) for n in dict.fromkeys(derived + narrowed + chip) if n != skip]


_GM_OFFSET = r"\bSetGlobalBuffer\s*\(\s*(?:\([^()]*\)|reinterpret_cast\s*<[^<>]*>\s*\([^()]*\))\s*\w+\s*\+"


@cpp_fact("cpp-core-offset")
def _core_offset(ctx: FactContext, args: dict) -> list[Option]:
    """Offsets the kernel computes from the core's index that no global buffer or GM index uses (`uint32_t off =
    blockLength * GetBlockIdx();` left dead, then one only a length's clamp reads), then args["len"] times the core
    index: where this core's share starts.

    Only in a kernel that adds no offset to any SetGlobalBuffer and indexes no global tensor by the core's index."""
    code = _strip_comments(ctx.source)
    if re.search(_GM_OFFSET, code):
        return []
    cores = core_index_names(ctx.source)
    idx_rx = r"\b(?:GetBlockIdx|get_block_idx)\s*\(\s*\)" + "".join(f"|\\b{re.escape(n)}\\b" for n in cores)
    if re.search(rf"\w+Gm\s*\[[^\]]*(?:{idx_rx})", code):
        return []
    out, used = [], []
    product = re.compile(rf"^\s*(?:[\w.>\-]+\s*\*\s*(?:{idx_rx})|(?:{idx_rx})\s*\*\s*[\w.>\-]+)\s*$")
    for m in re.finditer(r"(?:this\s*->\s*)?\b([A-Za-z_]\w*)\s*=(?!=)\s*([^;]+);", code):
        name, rhs = m.group(1), m.group(2)
        if not re.search(idx_rx, rhs) or not re.search(r"[*+]", rhs):
            continue  # not computed from the core index (a bare `core = GetBlockIdx()` has no * or +)
        if not _read(code, name):
            out.append(Option(name))
        elif product.match(rhs):
            used.append(Option(name))  # read (a share's length clamped by it) but by no global buffer
    out += used
    length = args.get("len")
    node = ctx.node(length) if isinstance(length, str) else None
    if node is not None:
        from ingest.rules.cpp_view import spelling

        out.append(Option(f"{_wrapped(node.text())} * {spelling(ctx.source).qualify('GetBlockIdx')}()"))
    return list(dict.fromkeys(out))


def _read(code: str, name: str) -> bool:
    """Is `name` read anywhere (not only assigned or declared)?"""
    n = re.escape(name)
    for m in re.finditer(rf"(?<![\w.])(?:this\s*->\s*)?\b{n}\b", code):
        after = code[m.end():m.end() + 3]
        before = code[max(0, m.start() - 80):m.start()]
        if re.match(r"\s*=(?!=)", after):
            continue  # assigned
        if re.match(r"\s*[;,]", after) and re.search(r"(?:^|[;{}(])\s*(?:const\s+)?[\w:<>]+\s+(?:\w+\s*,\s*)*$", before):
            continue  # declared without a value
        return True
    return False


def _wrapped(expr: str) -> str:
    e = expr.strip()
    return e if re.fullmatch(r"[\w.>\-]+|\(.*\)", e) and "-" not in e.replace("->", "") else f"({e})"


_FLOAT_DECL = r"\b(?:const\s+)?(?:float|double|float32_t)\s*\*?\s*(?:const\s+)?{name}\b"


@cpp_fact("cpp-set-from-float")
def _set_from_float(ctx: FactContext, args: dict) -> list[Option]:
    """Filter: the tiling field `of` names is set (`set_<field>(v)`, in this file or a companion) from a float: a
    float attribute, a float variable, a floating literal."""
    node = ctx.node(args.get("of"))
    if node is None:
        return []
    field = node.text().strip()
    for text in (ctx.source, *ctx.companions):
        code = _strip_comments(text)
        for m in re.finditer(rf"\bset_{re.escape(field)}\s*\(\s*([^;]+?)\s*\)\s*;", code):
            value = m.group(1)
            if re.search(r"GetAttrPointer\s*<\s*(?:float|double)\s*>|\bGetFloat\b|\d\.\d*f?\b|\(\s*float\s*\)", value):
                return [Option()]
            name = re.fullmatch(r"\*?\s*\(?\s*([A-Za-z_]\w*)\s*\)?(?:\s*\[\s*0\s*\])?", value)
            if name and re.search(_FLOAT_DECL.format(name=re.escape(name.group(1))), code):
                return [Option()]
            if name:
                rhs = last_definition(text, name.group(1), m.start())
                if rhs and re.search(r"GetAttrPointer\s*<\s*(?:float|double)\s*>|\bGetFloat\b", rhs):
                    return [Option()]
    return []


_CALL = re.compile(r"(?<![\w.>:])([A-Za-z_]\w*)\s*(?:<[^<>;()]*>)?\s*\(")
_NOT_TILE = {"for", "if", "while", "switch", "return", "sizeof", "static_cast", "reinterpret_cast", "min", "max"}


@cpp_fact("cpp-loop-bound")
def _loop_bound(ctx: FactContext, args: dict) -> list[Option]:
    """The bound a tile loop (the match, `for (...; i OP n; ...)`) should have: the index the code after it processes
    (the loop calls CopyIn(i * len) and, after it, CopyIn(m * len): the loop stops before m), else, with nothing after
    it, `n` for `i <= n` and `m` for `i < m - 1`. No option when the bound is already that one."""
    node = ctx.node(args.get("of"))
    loop = ctx.match
    index = ctx.node("I")
    if node is None or index is None or loop.kind() != "for_statement":
        return []
    bound, op, i = " ".join(node.text().split()), str(args.get("op", "<")), index.text().strip()
    body = loop.field("body")
    # the body's calls whose first argument reads the index: name -> that argument
    shapes = {}
    for m in _CALL.finditer(_strip_comments(body.text()) if body else ""):
        first = _first_arg(m.string, m.end() - 1)
        if m.group(1) not in _NOT_TILE and first is not None and re.search(rf"\b{re.escape(i)}\b", first):
            shapes.setdefault(m.group(1), first)
    tail = None
    for sib in loop.next_all():
        if not sib.is_named() or sib.kind() == "comment":
            continue
        text = _strip_comments(sib.text())
        for m in _CALL.finditer(text):
            arg = _first_arg(text, m.end() - 1) if m.group(1) in shapes else None
            if arg is not None:
                tail = _solve(shapes[m.group(1)], i, arg)
                break
        if tail is not None or any(m.group(1) in shapes for m in _CALL.finditer(text)):
            break
    if tail is not None:
        tail = " ".join(_unwrap(tail).split())  # `(n - 1) * len` after the loop: the bound n - 1
        return [Option(tail)] if (tail != bound or op == "<=") else []
    if op == "<=":
        return [Option(bound)]
    m = re.fullmatch(r"(.*\S)\s*-\s*1", bound)
    return [Option(m.group(1))] if m else []


def _first_arg(text: str, open_at: int) -> str | None:
    end = _closing(text, open_at)
    if end <= open_at:
        return None
    depth, out = 0, []
    for ch in text[open_at + 1:end]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            break
        out.append(ch)
    arg = " ".join("".join(out).split())
    return arg or None


def _solve(shape: str, index: str, value: str) -> str | None:
    """E such that `shape` with the index replaced by E reads `value` (`i * len`, `t * len` -> t), or None."""
    parts = re.split(rf"\b{re.escape(index)}\b", shape)
    if len(parts) != 2:
        return None
    pre, post = parts
    if value.startswith(pre) and value.endswith(post) and len(value) > len(pre) + len(post):
        e = value[len(pre):len(value) - len(post)].strip()
        return e or None
    return None
