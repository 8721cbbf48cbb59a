"""Generalise several recorded fixes of one bug class into one rule, Getafix-style, and give it a meaning.

1. Each fix (before -> after) is cut to its smallest changed region (ingest.rules.distill's tree diff).
2. The regions are anti-unified: walked in lockstep, parts all fixes share stay concrete, parts that
   differ become metavariables (the same tuple of differing texts, the same metavariable, in the pattern
   and in the rewrite); user names become metavariables even where the fixes agree. A rewrite part no
   pattern part explains makes the group ungeneralisable.
3. The rule learns what the fixed code means: the flow categories (ingest.rules.vocab.CATEGORIES: reaches
   a max, a loop stop, a grid, a mask, ...) that every fixed site reaches become its flow conditions, and
   the context (kernel or host) they share becomes its context.
4. It is kept only if it reproduces every fix of its group and fires on no kernel of the correct corpus;
   otherwise the regions are widened one level and tried again. Fixes that do not generalise together are
   grouped greedily (hierarchical clustering by anti-unification, as Getafix does).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from provenance.canonical import sha256_text
from ingest.rules.distill import _COMPOUND, _FRAGMENT, _children, _context, _diff, _docstring, _meta, _role_is_concrete
from ingest.rules.engine import apply_rule, equivalent
from ingest.rules.errors import RuleError
from ingest.rules.flow import span
from ingest.rules.model import Flow, Rule, language_of

MAX_WIDEN = 2  # levels of enclosing syntax a group's regions may take on


@dataclass
class _Fix:
    before: str
    after: str
    a: list  # the region's nodes in before (one node)
    b: list  # the region's nodes in after (one or more, for an insertion)


def _region(before: str, after: str, lang: str) -> _Fix | None:
    """The single smallest changed region of a fix (identical repeated regions count once); None otherwise."""
    from ast_grep_py import SgRoot

    a_root, b_root = SgRoot(before, lang).root(), SgRoot(after, lang).root()
    regions = _diff(a_root, b_root, lang)
    seen, picked = set(), []
    for r in regions:
        if r[0] == "node":
            a_nodes, b_nodes = [r[1]], [r[2]]
        else:
            _, ka, i1, i2, kb, j1, j2 = r
            if i2 == i1 and i1 > 0 and j1 > 0:  # an insertion, anchored on the statement before it
                a_nodes, b_nodes = [ka[i1 - 1]], kb[j1 - 1:j2]
            elif i2 - i1 == 1 and j2 > j1:
                a_nodes, b_nodes = [ka[i1]], kb[j1:j2]
            else:
                return None
        if lang == "python" and all(_docstring(n) for n in a_nodes + b_nodes):
            continue
        key = (a_nodes[0].text(), "\n".join(n.text() for n in b_nodes))
        if key not in seen:
            seen.add(key)
            picked.append((a_nodes, b_nodes))
    if not picked:
        return None
    if len(picked) > 1:  # several edits inside one statement: their common ancestor is the region
        if any(len(a) != 1 or len(b) != 1 for a, b in picked):
            return None
        a_nodes, b_nodes = [_common([a[0] for a, _ in picked])], [_common([b[0] for _, b in picked])]
        if a_nodes[0] is None or b_nodes[0] is None or a_nodes[0].kind() != b_nodes[0].kind() or \
                a_nodes[0].kind() in _COMPOUND[lang]:
            return None
    else:
        a_nodes, b_nodes = picked[0]
    if len(b_nodes) == 1:
        a_nodes, b_nodes = [_narrow(a_nodes[0], b_nodes[0])[0]], [_narrow(a_nodes[0], b_nodes[0])[1]]
    while a_nodes[0].kind() in _FRAGMENT or not a_nodes[0].is_named():  # never a bare keyword or argument list
        pa, pb = a_nodes[0].parent(), b_nodes[0].parent() if len(b_nodes) == 1 else None
        if pa is None or pb is None or pa.kind() in _COMPOUND[lang]:
            return None
        a_nodes, b_nodes = [pa], [pb]
    return _Fix(before, after, a_nodes, b_nodes)


def _common(nodes: list):
    """The lowest common ancestor of nodes (itself, for one)."""
    def chain(n):
        return [n, *n.ancestors()]

    spans = [[span(x) for x in chain(n)] for n in nodes]
    for anc, where in zip(chain(nodes[0]), spans[0]):
        if all(where in s for s in spans[1:]):
            return anc
    return None


def _narrow(a, b):
    """Descend a and b together while exactly one child pair differs (argument lists included)."""
    while True:
        ka, kb = _children(a), _children(b)
        if a.kind() != b.kind() or len(ka) != len(kb) or not ka:
            return a, b
        differing = [(x, y) for x, y in zip(ka, kb) if x.text() != y.text()]
        if len(differing) != 1:
            return a, b
        a, b = differing[0]


def _widen(fix: _Fix, lang: str) -> _Fix | None:
    """The region one enclosing expression or statement up (a single-node rewrite only)."""
    if len(fix.b) != 1:
        return None
    pa, pb = fix.a[0].parent(), fix.b[0].parent()
    while pa is not None and pb is not None and pa.kind() in _FRAGMENT:
        pa, pb = pa.parent(), pb.parent()
    if pa is None or pb is None or pa.kind() in _COMPOUND[lang] or pb.kind() in _COMPOUND[lang]:
        return None
    return _Fix(fix.before, fix.after, [pa], [pb])


class _AU:
    """Anti-unification of several fixes' regions into one pattern and one rewrite."""

    def __init__(self, lang: str):
        self.lang = lang
        self.names: dict[tuple[str, ...], str] = {}

    def var(self, texts: tuple[str, ...], bind: bool) -> str | None:
        if texts not in self.names:
            if not bind:
                return None
            self.names[texts] = f"G{len(self.names)}"
        return "$" + self.names[texts]

    def unify(self, nodes: list, bind: bool, root: bool = True) -> str | None:
        texts = tuple(n.text() for n in nodes)
        if not bind and texts in self.names:
            return "$" + self.names[texts]
        if bind and not root and all(_pure(n, self.lang) for n in nodes):
            return self.var(texts, bind)  # a user expression (names, operators, numbers): one metavariable
        kids = [_children(n) for n in nodes]
        leaf = not kids[0]
        if leaf:
            if nodes[0].kind() == "identifier" and all(n.kind() == "identifier" for n in nodes) and not any(
                    _role_is_concrete(n, self.lang) for n in nodes):
                return self.var(texts, bind) or (texts[0] if len(set(texts)) == 1 else None)
            if len(set(texts)) == 1:
                return texts[0]
            return self.var(texts, bind) if all(n.is_named() for n in nodes) else None
        same_shape = (len({n.kind() for n in nodes}) == 1 and len({len(k) for k in kids}) == 1
                      and all(len({k[i].text() for k in kids}) == 1 for i in range(len(kids[0]))
                              if not kids[0][i].is_named()))
        if not same_shape:
            if len(set(texts)) == 1 and not bind:
                return texts[0]
            return self.var(texts, bind) if all(n.is_named() for n in nodes) else None
        parts = []
        for i in range(len(kids[0])):
            part = self.unify([k[i] for k in kids], bind, root=False)
            if part is None:
                return None
            parts.append(part)
        return _splice(nodes[0], kids[0], parts)


_PURE = {"identifier", "integer", "float", "binary_operator", "parenthesized_expression", "unary_operator", "subscript",
         "slice", "none"}


def _pure(node, lang: str) -> bool:
    """An expression of user names, numbers and arithmetic only (no call, no API name): abstractable whole."""
    if not node.children():
        if node.kind() == "identifier":
            return not _role_is_concrete(node, lang)
        return node.kind() in ("integer", "float")
    if node.kind() not in _PURE:
        return False
    return all(_pure(c, lang) if c.is_named() else c.text() in "+-*/%()[]:,//" for c in _children(node))


def _splice(node, kids: list, parts: list[str]) -> str:
    """node's text with each child's text replaced by its part (the spacing between children kept)."""
    text, start = node.text(), node.range().start.index
    out, pos = [], 0
    for kid, part in zip(kids, parts):
        r = kid.range()
        out += [text[pos:r.start.index - start], part]
        pos = r.end.index - start
    return "".join(out + [text[pos:]])


def _dedent(node, text: str) -> str:
    indent = node.range().start.column
    lines = text.split("\n")
    return "\n".join([lines[0], *[ln[indent:] if ln[:indent].strip() == "" else ln for ln in lines[1:]]])


def _learned_categories(fixes: list[_Fix], lang: str) -> list[str]:
    """The categories of the vocabulary every fixed site's value reaches, the most telling first."""
    from ast_grep_py import SgRoot

    from ingest.rules.meaning import flow_holds
    from ingest.rules.program import parse_module
    from ingest.rules.vocab import CATEGORIES

    common: set[str] | None = None
    for fix in fixes:
        root = SgRoot(fix.before, lang).root()
        site = _find_span(root, fix.a[0])
        if site is None:
            return []
        module = parse_module(root)
        reached = {name for name, (sinks, then) in CATEGORIES.items()
                   if flow_holds(Flow(sink=list(sinks), then=list(then)), site, module)}
        common = reached if common is None else common & reached
    return [c for c in CATEGORIES if c in (common or ())]  # CATEGORIES is ordered most telling first


def _flows(categories: list[str]) -> list[Flow]:
    from ingest.rules.vocab import CATEGORIES

    return [Flow(sink=list(CATEGORIES[c][0]), then=list(CATEGORIES[c][1])) for c in categories]


def _find_span(root, node):
    where = span(node)
    return next((n for n in root.find_all(kind=node.kind()) if span(n) == where), None)


def _candidates(fixes: list[_Fix], lang: str, meta: dict):
    """The group's anti-unified rule under each meaning, most general first: each learned category alone,
    then all of them together, then none (syntax alone)."""
    base = _candidate(fixes, lang, meta, [])
    if base is None:
        return
    learned = _learned_categories(fixes, lang) if lang == "python" else []
    for cats in [*([c] for c in learned), *([learned] if len(learned) > 1 else [])]:
        rule = _candidate(fixes, lang, meta, _flows(cats))
        if rule is not None:
            yield rule
    yield base


def _candidate(fixes: list[_Fix], lang: str, meta: dict, learned: list[Flow]) -> Rule | None:
    au = _AU(lang)
    pattern = au.unify([f.a[0] for f in fixes], bind=True)
    if pattern is None or re.fullmatch(r"\$G\d+", pattern.strip()):
        return None  # a bare metavariable would match anything
    if len({len(f.b) for f in fixes}) != 1:
        return None
    rewrite_parts = []
    for i in range(len(fixes[0].b)):
        part = au.unify([f.b[i] for f in fixes], bind=False)
        if part is None:
            return None
        rewrite_parts.append(_dedent(fixes[0].b[i], part))
    pattern, rewrite = _dedent(fixes[0].a[0], pattern), "\n".join(rewrite_parts)
    if pattern.strip() == rewrite.strip():
        return None
    contexts = {_context(f.a[0], lang) for f in fixes}
    digest = sha256_text(f"{lang}\0{pattern}\0{rewrite}\0{len(learned)}")[:12]
    try:
        return Rule(id=f"distilled/{meta['slug']}/au-{digest}", language=lang, bug_class=meta["bug_class"],
                    title=meta["title"] or f"generalised from {len(fixes)} fixes: {pattern.splitlines()[0][:50]}",
                    pattern=pattern, rewrite=rewrite, context=contexts.pop() if len(contexts) == 1 else "any",
                    origin="distilled", flows=learned)
    except ValueError:
        return None


def _valid(rule: Rule, fixes: list[_Fix], corpus: list[str]) -> bool:
    """Reproduces every fix of the group (some application of it is the fix), fires on no correct kernel."""
    try:
        for fix in fixes:
            if not any(equivalent(a.patched_source, fix.after, rule.language) for a in apply_rule(rule, fix.before)):
                return False
        return not any(not equivalent(a.patched_source, text, rule.language)
                       for text in corpus for a in apply_rule(rule, text))
    except RuleError:
        return False


def _generalise_group(fixes: list[_Fix], lang: str, meta: dict, corpus: list[str]) -> Rule | None:
    """The most general valid rule for the group: smallest regions first, with meaning, then wider."""
    level = fixes
    for _ in range(MAX_WIDEN + 1):
        for rule in _candidates(level, lang, meta):
            if _valid(rule, fixes, corpus):
                return rule
        wider = [_widen(f, lang) for f in level]
        if any(w is None for w in wider):
            return None
        level = wider
    return None


def generalize(fixes: list[tuple[str, str]], language: str = "triton", *, bug_class: str = "", title: str = "",
               corpus: list[str] | tuple[str, ...] = ()) -> list[Rule]:
    """Rules generalising several (before, after) fixes of one bug class: one per group of fixes that
    anti-unify, most general first, each reproducing all its fixes and firing on no `corpus` kernel.
    A fix that generalises with no other gets its own most general rule the same way."""
    lang = language_of(language)
    meta = _meta(bug_class, title)
    regions = [r for r in (_region(b, a, lang) for b, a in fixes) if r is not None]
    groups: list[tuple[list[_Fix], Rule | None]] = [([r], None) for r in regions]
    merged = True
    while merged and len(groups) > 1:  # greedy agglomeration: merge the first pair that still generalises
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                members = groups[i][0] + groups[j][0]
                rule = _generalise_group(members, lang, meta, list(corpus))
                if rule is not None:
                    groups = [g for k, g in enumerate(groups) if k not in (i, j)] + [(members, rule)]
                    merged = True
                    break
            if merged:
                break
    for k, (members, rule) in enumerate(groups):  # a fix alone: its own most general rule with a meaning
        if rule is None:
            groups[k] = (members, _generalise_group(members, lang, meta, list(corpus)))
    out = [(len(members), rule) for members, rule in groups if rule is not None]
    return [rule for _, rule in sorted(out, key=lambda nr: -nr[0])]
