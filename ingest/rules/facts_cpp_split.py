"""C++ facts about a work split into big and small cores and a last core that takes the rest
(repair.rules.ascendc_split).

The split NPUKernelBench's answers and CANN's samples use: the first N blocks take one unit more than the others, so a
block past them starts `big * idx - (big - small) * (idx - N)` in; each block's last tile has its own length; or every
block takes the same share and the last one adds the remainder the host computed. `cpp-cores-from` finds the N a
branch is taken from (`else` of `if (idx < N)`); `cpp-unread-tail` the tail length the last tile's branch should
take (a variable the kernel sets and never reads) where it assigns the full tile's; `cpp-unread-remainder` the
remainder the host hands the kernel (`total % cores`, `total - cores * share`) that the kernel never reads.
"""
from __future__ import annotations

import re

from ingest.rules.cpp_functions import declarator, enclosing_function, function_name, function_params
from ingest.rules.facts import FactContext, Option
from ingest.rules.facts_cpp import _strip_comments, cpp_fact
from ingest.rules.facts_cpp_flow import _read, last_definition

_CAST = r"(?:static_cast\s*<[^<>]+>\s*|\(\s*[\w:]+\s*\)\s*)?"
_IDX_CALL = r"(?:(?:::)?[A-Za-z_]\w*\s*::\s*)*(?:GetBlockIdx|get_block_idx)\s*\(\s*\)"
_INT = r"(?:const\s+)?(?:u?int(?:8|16|32|64)_t|int|unsigned(?:\s+int)?|long|size_t|auto)"
_MEMBER = r"(?:this\s*->\s*)?"


def index_names(source: str) -> set[str]:
    """Variables set from the core's index alone (`uint32_t core = GetBlockIdx();`, through a cast)."""
    code = _strip_comments(source)
    return {m.group(1) for m in re.finditer(
        rf"(?:this\s*->\s*)?\b([A-Za-z_]\w*)\s*=(?!=)\s*{_CAST}\(?\s*{_IDX_CALL}\s*\)?\s*;", code)}


def is_index(expr: str, names: set[str]) -> bool:
    """Is the expression the core's index itself (GetBlockIdx(), a variable set from it), not a function of it?"""
    e = expr.strip()
    while e.startswith("(") and e.endswith(")"):
        e = e[1:-1].strip()
    if re.fullmatch(_CAST + _IDX_CALL, e):
        return True
    m = re.fullmatch(rf"{_MEMBER}([A-Za-z_]\w*)", e)
    return bool(m and m.group(1) in names)


def _top_comparison(cond: str) -> tuple[str, str, str] | None:
    """(left, op, right) of a condition that is one ordering comparison (no && or ||)."""
    c = cond.strip()
    while c.startswith("(") and c.endswith(")"):
        c = c[1:-1].strip()
    if re.search(r"&&|\|\||\?", c):
        return None
    parts = re.split(r"(<=|>=|(?<![<>-])<(?![<=])|(?<![<>-])>(?![>=]))", c)
    if len(parts) != 3:
        return None
    return parts[0].strip(), parts[1], parts[2].strip()


def _branches(match):
    """(if_statement, taken-when-true) for each `if` the match lies inside, innermost first, within its function."""
    child, node = match, match.parent()
    while node is not None and node.kind() != "function_definition":
        if node.kind() == "if_statement":
            cons = node.field("consequence")
            if cons is not None and cons.range().start.index <= child.range().start.index < cons.range().end.index:
                yield node, True
            elif child.kind() == "else_clause":
                yield node, False
        child, node = node, node.parent()


@cpp_fact("cpp-cores-from")
def _cores_from(ctx: FactContext, args: dict) -> list[Option]:
    """N where `of` is the core's index itself and the match lies in a branch only the blocks from N on take (the
    `else` of `if (idx < N)`, the body of `if (idx >= N)`): there a block's offset counts its index from N."""
    node = ctx.node(args.get("of"))
    names = index_names(ctx.source)
    if node is None or not is_index(node.text(), names):
        return []
    for branch, taken in _branches(ctx.match):
        cond = branch.field("condition")
        cmp = _top_comparison(cond.text()) if cond is not None else None
        if cmp is None:
            continue
        left, op, right = cmp
        if is_index(left, names):
            bound, upper = right, (op == ">=") == taken and op in ("<", ">=")
        elif is_index(right, names):
            bound, upper = left, (op == "<=") == taken and op in (">", "<=")
        else:
            continue
        if not upper:
            return []  # the branch of the first N blocks: their index needs no correction
        r = cond.range()
        at = ctx.source.find(bound, r.start.index, r.end.index)
        text = ctx.source[at:at + len(bound)] if at >= 0 else bound
        if args.get("base") and not _counts_big_blocks(ctx.match, branch, taken, _plain(text), names):
            return []
        return [Option(text if re.fullmatch(r"[\w.>\-]+", text) and "-" not in text.replace("->", "")
                       else f"({text})")]
    return []


_ATOM = r"(?:\w+\(\)|\w+)"


def _cofactors(text: str, is_factor) -> set[tuple[str, ...]]:
    """For each product chain of plain names in the text (`a*b*c`) with a factor is_factor accepts: the other
    factors."""
    code = re.sub(r"\b\w+::", "", _plain(_strip_comments(text)))
    out = set()
    for m in re.finditer(rf"(?<![\w)*]){_ATOM}(?:\*{_ATOM})+(?![\w(*])", code):
        factors = m.group(0).split("*")
        for i, f in enumerate(factors):
            if is_factor(f):
                out.add(tuple(sorted(factors[:i] + factors[i + 1:])))
    return out


def _counts_big_blocks(match, branch, taken: bool, bound: str, names: set[str]) -> bool:
    """Does the match's statement also add the N big blocks' whole shares (N times the share the other branch scales
    the index by: `big * N` beside `big * idx`), so that the term the match is should count only the blocks past N?
    A small block that adds one unit per big block before it (`small * idx + unit * N`) is right as it is."""
    stmt = match
    while stmt.parent() is not None and stmt.kind() not in ("expression_statement", "declaration"):
        stmt = stmt.parent()
    other = branch.field("alternative" if taken else "consequence")
    if other is None:
        return False
    big = _cofactors(stmt.text(), lambda f: f == bound)
    return bool(big & _cofactors(other.text(), lambda f: is_index(f, names)))


def _assigned(code: str, name: str) -> list[tuple[int, str]]:
    """(where, right-hand side) of each assignment to `name` or `this->name` (declarations with a value included)."""
    return [(m.start(), m.group(1).strip()) for m in re.finditer(
        rf"(?<![\w.:])(?:{_INT}\s+)?{_MEMBER}\b{re.escape(name)}\s*=(?!=)\s*([^;]+);", code)]


def _plain(expr: str) -> str:
    return re.sub(r"\s+", "", re.sub(r"\bthis\s*->\s*", "", expr))


def _last_tile_branch(match) -> bool:
    """Is the match in the body of `if (i == n - 1)` (or `i + 1 == n`) inside a loop over i?"""
    for branch, taken in _branches(match):
        cond = branch.field("condition")
        text = _plain(cond.text()).strip("()") if cond is not None else ""
        m = re.fullmatch(r"(\w+)==(.+)-1|(.+)-1==(\w+)|(\w+)\+1==(.+)|(.+)==(\w+)\+1", text)
        if not taken or m is None:
            continue
        index = next(g for g in (m.group(1), m.group(4), m.group(5), m.group(8)) if g)
        loop = branch.parent()
        while loop is not None and loop.kind() != "function_definition":
            if loop.kind() == "for_statement" and re.search(rf"\b{re.escape(index)}\b",
                                                            _plain(loop.text().split(")")[0])):
                return True
            loop = loop.parent()
    return False


@cpp_fact("cpp-unread-tail")
def _unread_tail(ctx: FactContext, args: dict) -> list[Option]:
    """The variables the kernel sets (an integer, from a value) and reads only as P's value in another branch (first)
    or never, where the match (`P = FULL;`, `of` the FULL) lies in the last tile's branch and assigns P the value it
    already holds: that branch should switch P to the tail's length, which the kernel computes and then drops."""
    node, target = ctx.node(args.get("of")), ctx.node(str(args.get("target", "P")))
    if node is None or target is None or not _last_tile_branch(ctx.match):
        return []
    code = _strip_comments(ctx.source)
    p = _plain(target.text())
    before = [rhs for at, rhs in _assigned(code, p) if at < ctx.match.range().start.index]
    if not before or _plain(before[-1]) != _plain(node.text()):
        return []
    taken, dropped = [], []  # read only as P's value in another branch (the other passes' last tiles); never read
    for name in dict.fromkeys(re.findall(r"\b([A-Za-z_]\w*)\s*=(?!=)", code)):
        if name in (p, _plain(node.text())):
            continue
        elsewhere = re.sub(rf"{_MEMBER}\b{re.escape(p)}\s*=\s*{_MEMBER}{re.escape(name)}\s*;", ";", code)
        if _read(elsewhere, name):
            continue
        values = [rhs for _, rhs in _assigned(code, name)]
        declared = re.search(rf"\b{_INT}\s+(?:\w+\s*(?:=[^,;]*)?,\s*)*{re.escape(name)}\b", code)
        if declared and values and not all(re.fullmatch(r"\d+[uUlL]*", v) for v in values):
            # a member the file sets through `this->` is read the same way; a local bare
            member = re.search(rf"\bthis\s*->\s*{re.escape(name)}\s*=(?!=)", code)
            (taken if elsewhere != code else dropped).append(Option(("this->" if member else "") + name))
    return taken + dropped


def _param_decls(func) -> list[tuple[str, str]]:
    """(type text, name) of each parameter of a function definition."""
    decl = declarator(func)
    plist = decl.field("parameters") if decl is not None else None
    if plist is None:
        return []
    out = []
    for p, name in zip([p for p in plist.children() if p.kind() == "parameter_declaration"], function_params(func)):
        out.append((p.text()[:p.text().rfind(name)].strip() if name else p.text(), name))
    return out


def _field_passed(code: str, func_name: str, index: int) -> str | None:
    """The tiling field a call of the function passes at `index` (`op.Init(x, y, tiling.rest)` -> rest)."""
    for m in re.finditer(rf"[.>]\s*{re.escape(func_name)}\s*\(", code):
        depth, args, cur = 0, [], ""
        for ch in code[m.end():]:
            if ch == ")" and depth == 0:
                break
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                args.append(cur)
                cur = ""
            else:
                cur += ch
        args.append(cur)
        if index < len(args):
            f = re.fullmatch(r"\s*\w+\s*(?:\.|->)\s*(\w+)\s*", args[index])
            if f:
                return f.group(1)
    return None


def _remainder(expr: str, field: str) -> bool:
    """Is the value a division's remainder: `a % b`, or `a - b * c` / `a - c * b` (what a split leaves over)?"""
    e = _plain(expr)
    return "%" in e or bool(re.search(r"-\(?\w+\*\w+\)?$|-\w+\*\w+", e)) and field not in e


def _host_remainder(texts: tuple[str, ...], field: str) -> bool:
    """Does the host set the tiling field from a remainder (`set_rest(total % cores)`, through a variable)?"""
    for text in texts:
        code = _strip_comments(text)
        for m in re.finditer(rf"\bset_{re.escape(field)}\s*\(\s*([^;]+?)\s*\)\s*;", code):
            value = m.group(1)
            if _remainder(value, field):
                return True
            name = re.fullmatch(r"\(?\s*([A-Za-z_]\w*)\s*\)?", value)
            rhs = last_definition(text, name.group(1), m.start()) if name else None
            if rhs and _remainder(rhs, field):
                return True
    return False


@cpp_fact("cpp-unread-remainder")
def _unread_remainder(ctx: FactContext, args: dict) -> list[Option]:
    """Integer parameters of the match's function that it never reads and the host sets from a remainder, where the
    match sets a length to `of`, the share each block's offset scales by the core's index: the last block should
    add that remainder to its share."""
    node = ctx.node(args.get("of"))
    func = enclosing_function(ctx.match)
    if node is None or func is None:
        return []
    code = _strip_comments(ctx.source)
    share = _plain(node.text())
    idx = [_IDX_CALL] + [rf"{_MEMBER}\b{re.escape(n)}\b" for n in index_names(ctx.source)]
    alt = "|".join(f"(?:{i})" for i in idx)
    if not re.search(rf"{_MEMBER}\b{re.escape(share)}\s*\*\s*(?:{alt})|(?:{alt})\s*\*\s*{_MEMBER}{re.escape(share)}\b",
                     code):
        return []
    body = func.field("body")
    body_text = _strip_comments(body.text()) if body is not None else ""
    fname = function_name(func) or ""
    out = []
    for i, (ty, name) in enumerate(_param_decls(func)):
        if not name or name == share or not re.fullmatch(_INT, ty) or re.search(rf"\b{name}\b", body_text):
            continue
        field = _field_passed(code, fname, i) or name
        if _host_remainder((ctx.source, *ctx.companions), field):
            out.append(Option(name))
    return out
