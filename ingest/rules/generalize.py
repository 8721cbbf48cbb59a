"""Generalise several recorded fixes of one bug class into one rule, Getafix-style, and give it a meaning.

1. Each fix (before -> after) is cut to its smallest changed region (ingest.rules.distill's tree diff); a fix
   whose regions lie apart offers each region alone, for a fact to make the other edits.
2. The regions are anti-unified: walked in lockstep, parts all fixes share stay concrete, parts that differ
   become metavariables (the same tuple of texts, the same metavariable, in the pattern and in the rewrite);
   user names become metavariables even where the fixes agree, and so do numbers the fix does away with.
   Three skeletons: an operator's operands whole (shallow), user expressions whole (eager), single names
   (structural); then the replaced literal alone ($L), and the region left as it is for a fact that edits.
3. What the rewrite adds that no pattern part explains (a name already in the file, an expression of such
   names) is explained by a fact about the program (ingest.rules.facts: the bound a mask compares against, a
   constructor parameter, an unused stride or program id, ...): the facts that, asked at every fix's site,
   offer the text that fix wrote become the rule's `derive`. A rewrite nothing explains is no rule.
4. The rule learns what the fixed code means: the flow categories (ingest.rules.vocab.CATEGORIES: reaches a
   max, a loop stop, a grid, a mask, ...) every fixed site reaches become a flow to any of them, or each alone,
   or all; a shallow pattern may instead say where an operand comes from (a sum, a load, a program id, a
   block size). The context (kernel or host) the fixes share becomes its context.
5. Of the candidates that reproduce every fix of the group and fire on no kernel of the correct corpus, at
   the smallest region that has one, the one whose pattern fixes the fewest tokens wins (most general);
   otherwise the regions are widened one level and tried again. Fixes that do not generalise together are
   grouped greedily (hierarchical clustering by anti-unification, as Getafix does).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from provenance.canonical import canonical_json, sha256_text
from ingest.rules.distill import (_COMPOUND, _FRAGMENT, _children, _context, _diff, _docstring, _meta, _role_is_concrete,
                                  _walk)
from ingest.rules.engine import apply_rule, equivalent
from ingest.rules.errors import RuleError
from ingest.rules.explain import Skeleton, explain, filters, reproduces_all
from ingest.rules.flow import span
from ingest.rules.model import Fact, Flow, MetaConstraint, Rule, language_of

MAX_WIDEN = 2  # levels of enclosing syntax a group's regions may take on


@dataclass
class _Fix:
    before: str
    after: str
    a: list  # the region's nodes in before (one node)
    b: list  # the region's nodes in after (one or more, for an insertion)


def _region(before: str, after: str, lang: str) -> _Fix | None:
    """The single smallest changed region of a fix (identical repeated regions count once); None otherwise."""
    picked = _picked(before, after, lang)
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
    return _settle(before, after, a_nodes, b_nodes, lang)


def _parts(before: str, after: str, lang: str) -> list[_Fix]:
    """Each changed region of a fix on its own: for a fix a fact completes (a parameter threaded through
    signature and launch), one of them may carry the rule and the fact the rest."""
    out = []
    for a_nodes, b_nodes in _picked(before, after, lang):
        fix = _settle(before, after, a_nodes, b_nodes, lang)
        if fix is not None:
            out.append(fix)
    return out


def _picked(before: str, after: str, lang: str) -> list[tuple[list, list]]:
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
                return []
        if lang == "python" and all(_docstring(n) for n in a_nodes + b_nodes):
            continue
        key = (a_nodes[0].text(), "\n".join(n.text() for n in b_nodes))
        if key not in seen:
            seen.add(key)
            picked.append((a_nodes, b_nodes))
    return picked


def _settle(before: str, after: str, a_nodes: list, b_nodes: list, lang: str) -> _Fix | None:
    """Narrow a one-node region to its single differing part, then widen it to a pattern-sized node."""
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
    """Anti-unification of several fixes' regions into one pattern and one rewrite.

    mode "shallow" abstracts an operator's operands whatever they are; "eager" whole user expressions (names,
    numbers, arithmetic); "structural" keeps their shape and abstracts single names. Every mode abstracts the
    numbers the fix does away with (a metavariable that binds a number). In the rewrite, a user name or
    expression no pattern part explains becomes a derived metavariable ($D0, ...) for a fact about the
    program to bind (ingest.rules.explain); names only the fix introduces stay as written.
    """

    def __init__(self, lang: str, fixes: list[_Fix] = (), mode: str = "eager"):
        self.lang, self.mode = lang, mode
        self.names: dict[tuple[str, ...], str] = {}
        self.derived: dict[tuple[str, ...], str] = {}
        self.numbers: set[str] = set()  # metavariables that stand for a number
        self.before_ids = [_identifiers(f.before) for f in fixes]
        self.after_numbers = [{x.text() for n in f.b for x in _walk(n) if x.kind() in ("integer", "float")}
                              for f in fixes]

    def var(self, texts: tuple[str, ...], bind: bool) -> str | None:
        if texts not in self.names:
            if not bind:
                return None
            self.names[texts] = f"G{len(self.names)}"
        return "$" + self.names[texts]

    def derive(self, texts: tuple[str, ...]) -> str:
        if texts not in self.derived:
            self.derived[texts] = f"D{len(self.derived)}"
        return "$" + self.derived[texts]

    def _known(self, texts: tuple[str, ...]) -> bool:
        """Some fix's before already has this name (so the fix did not introduce it)."""
        return any(t in ids for t, ids in zip(texts, self.before_ids))

    def _bound_inside(self, node) -> bool:
        firsts = {k[0] for k in self.names}
        return any(x.text() in firsts for x in _walk(node) if x.kind() == "identifier")

    def unify(self, nodes: list, bind: bool, root: bool = True) -> str | None:
        texts = tuple(n.text() for n in nodes)
        if not bind and texts in self.names and not any(_role_is_concrete(n, self.lang) for n in nodes
                                                         if n.kind() == "identifier"):
            return "$" + self.names[texts]
        if bind and not root and self.mode in ("shallow", "eager") and all(
                n.kind() in ("integer", "float") for n in nodes):
            self.numbers.add(self.var(texts, bind)[1:])  # a number stands for a number
            return "$" + self.names[texts]
        if bind and not root and self.mode == "shallow" and all(n.is_named() for n in nodes):
            return self.var(texts, bind)  # an operator's operands, whatever they are
        if bind and not root and self.mode == "eager" and all(_pure(n, self.lang) for n in nodes):
            return self.var(texts, bind)  # a user expression (names, operators, numbers): one metavariable
        if not bind and not root and nodes[0].children() and all(_pure(n, self.lang) for n in nodes) and \
                not self._bound_inside(nodes[0]) and any(
                    x.kind() == "identifier" and self._known((x.text(),)) for x in _walk(nodes[0])):
            return self.derive(texts)  # a user expression of names the pattern does not bind: a fact's to bind
        kids = [_children(n) for n in nodes]
        leaf = not kids[0]
        if leaf:
            if nodes[0].kind() == "identifier" and all(n.kind() == "identifier" for n in nodes) and not any(
                    _role_is_concrete(n, self.lang) for n in nodes):
                if bind:
                    return self.var(texts, bind)
                if self._known(texts):
                    return self.derive(texts)
                return texts[0] if len(set(texts)) == 1 else None
            if bind and all(n.kind() in ("integer", "float") for n in nodes) and all(
                    t not in nums for t, nums in zip(texts, self.after_numbers)):
                self.numbers.add(self.var(texts, bind)[1:])  # a number the fix does away with
                return "$" + self.names[texts]
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


def _identifiers(source: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source))


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

    from ingest.rules.holds import flow_holds
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


def _flows(categories: list[str], not_sink: list[str] = ()) -> list[Flow]:
    from ingest.rules.vocab import CATEGORIES

    return [Flow(sink=list(CATEGORIES[c][0]), then=list(CATEGORIES[c][1]), not_sink=list(not_sink))
            for c in categories]


# a value selected by tl.where on its way: padding re-masked there (a fill the fix need not change)
_WHERE = ["tl.where($_, $SINK, $$$)", "tl.where($_, $_, $SINK)"]


def _unmasked(fixes: list[_Fix], lang: str) -> bool:
    """No fixed site's value passes through a tl.where: a meaning may say so (then it skips re-masked values)."""
    from ast_grep_py import SgRoot

    from ingest.rules.holds import flow_holds
    from ingest.rules.program import parse_module

    for fix in fixes:
        root = SgRoot(fix.before, lang).root()
        site = _find_span(root, fix.a[0])
        if site is None or flow_holds(Flow(sink=list(_WHERE)), site, parse_module(root)):
            return False
    return True


def _find_span(root, node):
    where = span(node)
    return next((n for n in root.find_all(kind=node.kind()) if span(n) == where), None)


def _candidates(fixes: list[_Fix], lang: str, meta: dict, first: bool = True):
    """The group's anti-unified rules, most general first: for each skeleton (shallow, eager, structural
    anti-unification, then the changed literal alone, then an edit fact), each way facts explain what the
    rewrite adds, under each meaning (any learned category, each alone, all together, each not through a
    tl.where, none; a shallow pattern also with one fact saying where an operand comes from). A rewrite with a name no pattern
    part and no fact explains is no rule: it could not carry over to another kernel."""
    learned = _learned_categories(fixes, lang) if lang == "python" else []
    meanings = [*([[_any_flow(learned)]] if len([c for c in learned if c in _NO_THEN]) > 1 else []),
                *(_flows([c]) for c in learned), *([_flows(learned)] if len(learned) > 1 else []),
                *([_flows([c], not_sink=_WHERE) for c in learned] if learned and _unmasked(fixes, lang) else []), []]
    for sk in _skeletons(fixes, lang, first):
        explained = explain(sk, fixes, lang, lambda d, sk=sk: _candidate(fixes, lang, meta, sk, d, [])) \
            if sk.derived else [{}]
        for derive in explained:
            for flows in meanings:
                yield _candidate(fixes, lang, meta, sk, derive, flows)
            if sk.mode == "shallow":  # operands of any shape: say where they come from
                for name, fact in filters(sk):
                    yield _candidate(fixes, lang, meta, sk, {**derive, name: fact}, [])


_NO_THEN = {"loop-stop", "grid", "max", "min", "divided", "mask", "sum", "pointer"}


def _any_flow(categories: list[str]) -> Flow:
    """One flow to any of the categories' sinks (those without a `then`): the most general meaning learned."""
    from ingest.rules.vocab import CATEGORIES

    return Flow(sink=[p for c in categories if c in _NO_THEN for p in CATEGORIES[c][0]])


def _skeletons(fixes: list[_Fix], lang: str, first: bool = True):
    """Pattern and rewrite by eager and by structural anti-unification (distinct ones only), then the
    literal the fix replaces alone, then the whole region left as it is for a fact that edits elsewhere."""
    seen = set()
    operator = all(f.a[0].kind() in _OPERATORS for f in fixes)
    for mode in ("shallow", "eager", "structural") if operator else ("eager", "structural"):
        au = _AU(lang, fixes, mode)
        pattern = au.unify([f.a[0] for f in fixes], bind=True)
        if pattern is None or re.fullmatch(r"\$G\d+", pattern.strip()):
            continue  # a bare metavariable would match anything
        if len({len(f.b) for f in fixes}) != 1:
            return
        parts = []
        for i in range(len(fixes[0].b)):
            part = au.unify([f.b[i] for f in fixes], bind=False)
            if part is None:
                break
            parts.append(_dedent(fixes[0].b[i], part))
        else:
            sk = Skeleton(_dedent(fixes[0].a[0], pattern), "\n".join(parts), dict(au.derived), set(au.numbers), {},
                           mode)
            if (sk.pattern, sk.rewrite) not in seen:
                seen.add((sk.pattern, sk.rewrite))
                yield sk
    if lang != "python" or not first:
        return
    core = [_core(f) for f in fixes]
    if all(c is not None for c in core):  # a literal replaced by a name or attribute: "$L" -> a fact's value
        texts = tuple(b.text() for _, b in core)
        yield Skeleton("$L", "$D0", {texts: "D0"}, {"L"}, {})
    kinds = {f.a[0].kind() for f in fixes}
    if kinds == {"call"} and all(len(f.b) == 1 for f in fixes):
        launch = all(f.a[0].field("function") is not None and f.a[0].field("function").kind() == "subscript"
                     for f in fixes)
        pattern = "$K[$G]($$$A)" if launch else "$F($$$A)"
        for name in _EDIT_FACTS:
            yield Skeleton(pattern, pattern, {}, set(), {"_E": Fact(fact=name)})


_OPERATORS = {"binary_operator", "comparison_operator", "boolean_operator", "unary_operator"}
_EDIT_FACTS = ("swapped-launch-args", "unpassed-default", "contiguous-inputs")


def _core(fix: _Fix):
    """(literal, replacement) when the fix replaces one number by a name or an attribute; None otherwise."""
    if len(fix.b) != 1:
        return None
    a, b = _narrow(fix.a[0], fix.b[0])
    if a.kind() not in ("integer", "float") or b.kind() not in ("identifier", "attribute"):
        return None
    return a, b


def _candidate(fixes: list[_Fix], lang: str, meta: dict, sk: Skeleton, derive: dict, learned: list[Flow]):
    pattern, rewrite = sk.pattern, sk.rewrite
    if pattern.strip() == rewrite.strip() and not sk.extra:
        return None
    contexts = {_context(f.a[0], lang) for f in fixes}
    facts = {**sk.extra, **derive}
    where = {v: MetaConstraint(kind="number") for v in sorted(sk.numbers)}
    key = canonical_json({"p": pattern, "r": rewrite, "f": [f.model_dump() for f in learned],
                          "d": {k: v.model_dump() for k, v in facts.items()}, "w": sorted(where)})
    digest = sha256_text(f"{lang}\0{key}")[:12]
    try:
        return Rule(id=f"distilled/{meta['slug']}/au-{digest}", language=lang, bug_class=meta["bug_class"],
                    title=meta["title"] or f"generalised from {len(fixes)} fixes: {pattern.splitlines()[0][:50]}",
                    pattern=pattern, rewrite=rewrite, context=contexts.pop() if len(contexts) == 1 else "any",
                    origin="distilled", flows=learned, derive=facts, where=where)
    except ValueError:
        return None


def _valid(rule: Rule | None, fixes: list[_Fix], corpus: list[str]) -> bool:
    """Reproduces every fix of the group (some application of it is the fix), fires on no correct kernel."""
    if rule is None or not reproduces_all(rule, fixes):
        return False
    try:
        return not any(not equivalent(a.patched_source, text, rule.language)
                       for text in corpus for a in apply_rule(rule, text))
    except RuleError:
        return False


def _generalise_group(fixes: list[_Fix], lang: str, meta: dict, corpus: list[str]) -> Rule | None:
    """The most general valid rule for the group: at the smallest regions that give one, the valid candidate
    with the fewest concrete tokens in its pattern (the first such, so with the most general meaning)."""
    level = fixes
    for depth in range(MAX_WIDEN + 1):
        valid = [r for r in _candidates(level, lang, meta, first=depth == 0) if _valid(r, fixes, corpus)]
        if valid:
            return min(enumerate(valid), key=lambda ir: (_concrete_tokens(ir[1].pattern), ir[0]))[1]
        wider = [_widen(f, lang) for f in level]
        if any(w is None for w in wider):
            return None
        level = wider
    return None


_TOKENS = re.compile(r"\$\$\$[A-Z_][A-Z0-9_]*|\$[A-Z_][A-Z0-9_]*|[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|\"[^\"]*\"|'[^']*'|"
                     r"[-+*/%<>=!&|^~]+")


def _concrete_tokens(pattern: str) -> int:
    """Names, numbers, strings and operators a pattern fixes (brackets and commas do not count)."""
    return sum(1 for t in _TOKENS.findall(pattern) if not t.startswith("$"))


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
    for b, a in fixes:  # several regions apart: one of them may carry a rule whose fact makes the others
        if _region(b, a, lang) is None:
            rule = next((r for part in _parts(b, a, lang) if (r := _generalise_group([part], lang, meta,
                                                                                      list(corpus)))), None)
            if rule is not None:
                out.append((1, rule))
    rules, seen = [], set()
    for _, rule in sorted(out, key=lambda nr: -nr[0]):
        if rule.id not in seen:  # the id hashes everything the rule does
            seen.add(rule.id)
            rules.append(rule)
    return rules
