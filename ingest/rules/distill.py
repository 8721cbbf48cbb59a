"""Distil rewrite rules from one recorded fix (before -> after), Getafix-style.

1. Diff the two syntax trees top-down to the smallest changed subtrees (a run of statements
   when a block gained or lost statements).
2. Widen each change to an enclosing expression or statement that carries a concrete anchor
   (an API name such as tl.load, a builtin, a keyword argument), never past a statement.
3. Anti-unify before and after: user identifiers become metavariables (the same name the
   same metavariable on both sides); API names, attribute names, keyword names, callees and
   operators stay concrete; numeric literals that survive the fix unchanged are abstracted.
4. Keep the rules only if applying them to `before` reproduces `after` (modulo formatting);
   otherwise retry with less abstraction, and give up (return []) if nothing reproduces it.
"""
from __future__ import annotations

import difflib
import re

from provenance.canonical import sha256_text
from ingest.rules.engine import parses, apply_rule, changed_lines, equivalent
from ingest.rules.errors import BadSource
from ingest.rules.model import Rule, language_of

_API_ROOTS = {"tl", "triton", "torch", "math", "libdevice", "np", "F", "nn", "AscendC", "std"}
_BUILTINS = {"float", "int", "range", "min", "max", "len", "abs", "self", "bool", "str", "print"}
_BLOCKS = {"python": {"block", "module"}, "cpp": {"compound_statement", "translation_unit"}}
_COMPOUND = {
    "python": {"for_statement", "while_statement", "if_statement", "with_statement", "function_definition",
               "decorated_definition", "class_definition", "try_statement", "block", "module"},
    "cpp": {"for_statement", "while_statement", "if_statement", "function_definition", "compound_statement",
            "translation_unit", "namespace_definition", "class_specifier", "struct_specifier"},
}
# nodes too small to be a pattern on their own: widen to the parent
_FRAGMENT = {"argument_list", "keyword_argument", "parameters", "expression_list", "parenthesized_expression",
             "identifier", "integer", "float", "string", "field_identifier", "number_literal", "init_declarator",
             "condition_clause", "subscript_argument_list", "parameter_list", "slice"}
_NUMBERS = {"python": {"integer", "float"}, "cpp": {"number_literal"}}
_KEEP_LITERALS = {"0", "1", "0.0", "1.0", "-1"}


def _children(node) -> list:
    return [c for c in node.children() if c.kind() != "comment"]


def _tokens(node) -> list[str]:
    kids = _children(node)
    if not kids:
        return [] if node.kind() == "comment" else [node.text()]
    return [t for k in kids for t in _tokens(k)]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _docstring(node) -> bool:
    """A lone string statement (or its string): documentation, not part of a fix."""
    stmt = node if node.kind() == "expression_statement" else node.parent()
    if node.kind() not in ("string", "expression_statement") or stmt is None or stmt.kind() != "expression_statement":
        return False
    kids = _children(stmt)
    return len(kids) == 1 and kids[0].kind() == "string"


def _diff(a, b, lang: str) -> list[tuple]:
    """Changed regions: ("node", a, b) or ("stmts", a_parent_children, i1, i2, b_children, j1, j2)."""
    ta, tb = a.text(), b.text()
    if ta == tb or (_squash(ta) == _squash(tb) and _tokens(a) == _tokens(b)) or (lang == "python" and _docstring(a) and _docstring(b)):
        return []
    ka, kb = _children(a), _children(b)
    if a.kind() == b.kind() and ka and len(ka) == len(kb) and a.kind() not in _BLOCKS[lang] | {"argument_list"}:
        return [r for x, y in zip(ka, kb) for r in _diff(x, y, lang)]
    if a.kind() == b.kind() and a.kind() in _BLOCKS[lang]:
        out: list[tuple] = []
        sm = difflib.SequenceMatcher(a=[_squash(k.text()) for k in ka], b=[_squash(k.text()) for k in kb],
                                     autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "replace" and i2 - i1 == j2 - j1:
                out += [r for x, y in zip(ka[i1:i2], kb[j1:j2]) for r in _diff(x, y, lang)]
            elif tag != "equal":
                out.append(("stmts", ka, i1, i2, kb, j1, j2))
        return out
    return [("node", a, b)]


def _role_is_concrete(node, lang: str) -> bool:
    """Whether an identifier is an API/builtin/keyword name that the rule must keep."""
    text, parent = node.text(), node.parent()
    if text in _API_ROOTS or text in _BUILTINS:
        return True
    if node.kind() != "identifier":  # field_identifier, namespace_identifier, type_identifier, ...
        return True
    if parent is None:
        return False
    pk = parent.kind()
    if pk == "attribute" and parent.field("attribute") == node:
        return True
    if pk == "keyword_argument" and parent.field("name") == node:
        return True
    if pk in ("call", "call_expression") and parent.field("function") == node:
        return True
    return False


def _abstractable(node, lang: str, level: int, shared_literals: set[str]) -> str | None:
    """'id' / 'lit' when this leaf becomes a metavariable at this abstraction level, else None."""
    if level >= 3:
        return None
    if node.kind() == "identifier" and not _role_is_concrete(node, lang):
        return "id"
    if node.kind() in _NUMBERS[lang] and node.text() in shared_literals and node.text() not in _KEEP_LITERALS:
        return "lit"
    return None


def _walk(node):
    yield node
    for c in node.children():
        yield from _walk(c)


_EXPR = {
    "python": {"identifier", "binary_operator", "subscript", "parenthesized_expression", "unary_operator",
               "comparison_operator", "boolean_operator"},
    "cpp": {"identifier", "binary_expression", "subscript_expression", "parenthesized_expression", "unary_expression"},
}


def _key(node) -> str:
    return " ".join(_tokens(node))


def _pure(node, lang: str, shared: set[str]) -> bool:
    """An expression of user names, operators and unchanged numbers only: safe to abstract whole."""
    if node.kind() not in _EXPR[lang]:
        return False
    for leaf in _walk(node):
        if leaf.children():
            if leaf.kind() not in _EXPR[lang]:
                return False
        elif leaf.kind() == "identifier":
            if _role_is_concrete(leaf, lang):
                return False
        elif leaf.kind() in _NUMBERS[lang]:
            if leaf.text() not in shared:
                return False
        elif leaf.is_named():
            return False
    return True


def _render(nodes: list, source: str, names: dict[str, str], lang: str, level: int, shared: set[str],
            other_keys: set[str] = frozenset(), bind_new: bool = True) -> str:
    """Source text of consecutive nodes with abstracted parts replaced by metavariables.

    Level 0 abstracts whole unchanged user expressions (keys also found in other_keys) and single
    identifiers; levels 1-2 single identifiers and unchanged numbers only; level 3 nothing.
    """
    edits: list[tuple[int, int, str]] = []

    def bind(node, key: str) -> bool:
        if key not in names:
            if not bind_new:
                return False  # a name only the fix introduces stays concrete
            names[key] = f"X{len(names)}"
        r = node.range()
        edits.append((r.start.index, r.end.index, "$" + names[key]))
        return True

    def visit(node, root: bool) -> None:
        # the pattern's root stays concrete (a bare $X matches anything); the rewrite's may be a metavariable
        if level == 0 and (not root or not bind_new) and node.children() and _pure(node, lang, shared):
            key = _key(node)
            if (key in names or key in other_keys) and bind(node, key):
                return
        if not node.children():
            if _abstractable(node, lang, level, shared) is not None:
                bind(node, node.text())
            return
        for c in node.children():
            visit(c, False)

    for n in nodes:
        visit(n, True)
    start, end = nodes[0].range().start.index, nodes[-1].range().end.index
    out, pos = [], start
    for s, e, t in sorted(edits):
        out += [source[pos:s], t]
        pos = e
    text = "".join(out + [source[pos:end]])
    indent = nodes[0].range().start.column
    lines = text.split("\n")
    return "\n".join([lines[0], *[ln[indent:] if ln[:indent].strip() == "" else ln for ln in lines[1:]]])


def _specific(node, lang: str) -> bool:
    """Enough concrete structure to be worth a pattern: an API name, or at least three fixed tokens."""
    fixed = 0
    for leaf in _walk(node):
        if leaf.children():
            continue
        if leaf.kind().endswith("identifier"):
            if leaf.kind() != "identifier" or _role_is_concrete(leaf, lang):
                return True
        elif not leaf.is_named() or leaf.kind() in _NUMBERS[lang]:
            fixed += 1
    return fixed >= 3


def _widen(a, b, lang: str, level: int):
    """Climb a and b together to a pattern-sized node, never past a statement."""
    def up(a, b):
        pa, pb = a.parent(), b.parent()
        if pa is None or pb is None or pa.kind() in _COMPOUND[lang] or pb.kind() in _COMPOUND[lang]:
            return None
        return pa, pb

    while a.kind() in _FRAGMENT or not a.is_named() or (a.kind() != b.kind() and not b.is_named()):
        nxt = up(a, b)
        if nxt is None:
            return None
        a, b = nxt
    best = (a, b)  # the largest pattern-sized pair seen so far
    while not _specific(a, lang) or level >= 2 and a.parent() is not None and a.parent().kind() not in _BLOCKS[lang]:
        nxt = up(a, b)
        if nxt is None:
            break
        a, b = nxt
        if a.kind() not in _FRAGMENT:
            best = (a, b)
    return best


def _in_kernel(node, lang: str) -> bool:
    for anc in node.ancestors():
        if lang == "python" and anc.kind() == "decorated_definition":
            return any(c.kind() == "decorator" and re.search(r"\bjit\b", c.text()) for c in anc.children())
        if lang == "cpp" and anc.kind() == "function_definition":
            return bool(re.search(r"__global__|__aicore__", anc.text()))
    return False


def _context(node, lang: str) -> str:
    """kernel inside a kernel; host outside one in a file that has kernels; else any."""
    if _in_kernel(node, lang):
        return "kernel"
    root = node.get_root().root()
    if lang == "python":
        has_kernel = any(re.search(r"\bjit\b", d.text()) for d in root.find_all(kind="decorator"))
    else:
        has_kernel = bool(re.search(r"__global__|__aicore__", root.text()))
    return "host" if has_kernel else "any"


def _region_rule(region, before: str, after: str, lang: str, level: int, meta: dict) -> Rule | None:
    if region[0] == "node":
        widened = _widen(region[1], region[2], lang, level)
        if widened is None:
            return None
        a_nodes, b_nodes = [widened[0]], [widened[1]]
    else:
        _, ka, i1, i2, kb, j1, j2 = region
        if i2 - i1 > 1:
            return None  # a pattern matches one node; several replaced statements are out of reach
        if i2 == i1:  # pure insertion: anchor on the statement before it (or after it)
            if i1 > 0 and j1 > 0:
                a_nodes, b_nodes = [ka[i1 - 1]], kb[j1 - 1:j2]
            elif i1 < len(ka):
                a_nodes, b_nodes = [ka[i1]], kb[j1:j2 + 1]
            else:
                return None
        else:
            a_nodes, b_nodes = ka[i1:i2], kb[j1:j2]
        if not b_nodes:
            return None  # deletion: leave to the text pattern
    a_leaves = [x.text() for n in a_nodes for x in _walk(n) if x.kind() in _NUMBERS[lang]]
    b_leaves = [x.text() for n in b_nodes for x in _walk(n) if x.kind() in _NUMBERS[lang]]
    shared = set(a_leaves) & set(b_leaves)
    b_keys = {_key(x) for n in b_nodes for x in _walk(n) if x.children()}
    names: dict[str, str] = {}
    pattern = _render(a_nodes, before, names, lang, level, shared, b_keys)
    rewrite = "\n".join(_render([n], after, names, lang, level, shared, bind_new=False) for n in b_nodes)
    if pattern.strip() == rewrite.strip():
        return None
    digest = sha256_text(f"{lang}\0{pattern}\0{rewrite}")[:12]
    return Rule(
        id=f"distilled/{meta['slug']}/{digest}",
        language=lang,
        bug_class=meta["bug_class"],
        title=meta["title"] or f"distilled: {pattern.splitlines()[0][:60]}",
        pattern=pattern,
        rewrite=rewrite,
        context=_context(a_nodes[0], lang),
        origin="distilled",
    )


def _meta(bug_class: str, title: str) -> dict:
    """What a distilled rule's id and title are made from: the bug class's slug, the class, the title."""
    slug = re.sub(r"[^a-z0-9]+", "-", bug_class.lower()).strip("-") or "fix"
    return {"slug": slug, "bug_class": bug_class, "title": title}


def _reproduces(rules: list[Rule], before: str, after: str, lang: str) -> bool:
    """Apply the rules in turn, each at the sites that bring the source closest to after."""
    src = before
    for rule in rules:
        apps = apply_rule(rule, src)
        if not apps:
            return False
        src = min(apps, key=lambda a: (changed_lines(a.patched_source, after), a.changed_lines)).patched_source
    return equivalent(src, after, lang)


def distill(before_code: str, after_code: str, language: str = "triton", *, bug_class: str = "",
            title: str = "") -> list[Rule]:
    """Rules that turn before_code into after_code and generalise to other kernels; [] if none does."""
    from ast_grep_py import SgRoot

    lang = language_of(language)
    a_root, b_root = SgRoot(before_code, lang).root(), SgRoot(after_code, lang).root()
    # C++ grammars do not know CUDA/AscendC qualifiers (__global__, __aicore__): only Python is strict
    for name, code in (("before", before_code), ("after", after_code)):
        if lang == "python" and not parses(code, lang):
            raise BadSource(f"distill: the {name} code does not parse as {lang}")
    regions = _diff(a_root, b_root, lang)
    if not regions:
        return []
    meta = _meta(bug_class, title)
    for level in (0, 1, 2, 3):  # most general first; stop at the first that reproduces the fix
        rules, seen = [], set()
        for region in regions:
            rule = _region_rule(region, before_code, after_code, lang, level, meta)
            if rule is None:
                rules = []
                break
            if (rule.pattern, rule.rewrite) not in seen:
                seen.add((rule.pattern, rule.rewrite))
                rules.append(rule)
        if rules and _reproduces(rules, before_code, after_code, lang):
            return rules
    return []

