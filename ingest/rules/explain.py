"""Conditions over meaning for a generalised rule: which facts explain what a fix's rewrite adds, and which
facts say where a pattern's operand comes from.

A skeleton (pattern and rewrite from anti-unification, ingest.rules.generalize) may leave derived
metavariables in its rewrite: text the fix wrote that no pattern part binds. Each is paired with the binding
facts (ingest.rules.facts) that, asked at every fix's site, offer exactly that text; the combinations are
then checked on the whole fixes through the engine.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice, product
from typing import Callable

from ingest.rules.engine import apply_rule, equivalent
from ingest.rules.errors import RuleError
from ingest.rules.flow import span
from ingest.rules.model import Fact, MetaConstraint, Rule, metavariables

@dataclass
class Skeleton:
    pattern: str
    rewrite: str
    derived: dict  # texts per fix -> derived metavariable name (D0, ...)
    numbers: set  # metavariables that stand for a number
    extra: dict  # fixed derive (edit facts) that comes with the skeleton
    mode: str = ""  # the anti-unification that made it (shallow, eager, structural), "" for the others


# where an operand's value may come from (facts that only filter): a reduction, a load, a program id, ...
SOURCES = {"sum": ["tl.sum($$$)"], "max": ["tl.max($$$)", "tl.maximum($$$)"], "min": ["tl.min($$$)", "tl.minimum($$$)"],
           "load": ["tl.load($$$)"], "program-id": ["tl.program_id($$$)"], "arange": ["tl.arange($$$)"],
           "exp": ["tl.exp($$$)"]}


def filters(sk: Skeleton):
    """(name, fact) conditions on one operand of the pattern: where its value comes from, or what it is."""
    for v in sorted(metavariables(sk.pattern)):
        for src, patterns in SOURCES.items():
            yield f"_{v}_{src.replace('-', '_').upper()}", Fact(fact="reached-by", of=v, args={"patterns": patterns})
        yield f"_{v}_CONSTEXPR", Fact(fact="constexpr", of=v)
        yield f"_{v}_PARAM", Fact(fact="kernel-parameter", of=v)


# facts that bind a metavariable to text, and the arguments they take besides `of`
BINDING = (("mask-bound", ("unless",)), ("load-mask", ()), ("constructor-parameter", ()),
           ("constructor-attribute", ()), ("stride-for", ()), ("row-offset", ("offset",)),
           ("unused-program-id", None), ("unused-parameter", None))


def fact_specs(variables: list[str]):
    """Every way a binding fact could be asked about the pattern's metavariables."""
    for name, extra in BINDING:
        if extra is None:  # about the match, no `of`
            yield Fact(fact=name, args={"like": "."} if name == "unused-parameter" else {})
            continue
        for v in variables:
            if not extra or name == "mask-bound":
                yield Fact(fact=name, of=v)
            for arg in extra:
                for w in variables:
                    if w != v:
                        yield Fact(fact=name, of=v, args={arg: w})


MAX_EXPLAIN = 64  # fact combinations tried for one skeleton


def explain(sk: Skeleton, fixes: list, lang: str, build: Callable[[dict], Rule | None]) -> list[dict]:
    """Derive dicts (metavariable -> fact) under which the skeleton reproduces every fix, best first.

    Each derived metavariable is first paired with the facts that, asked at each fix's site, offer the text
    that fix wrote there; the combinations of those are then checked on the whole fixes."""
    if lang != "python":
        return []  # the facts read Python (Triton) sources
    variables = sorted(v for v in metavariables(sk.pattern) if not sk.pattern.count("$$$" + v))
    specs = list(fact_specs(variables))
    sites = _sites(sk, fixes, lang)
    if sites is None:
        return []
    per_var = []
    for texts, name in sk.derived.items():
        good = [spec for spec in specs if all(_offers(spec, site_list, text)
                                              for site_list, text in zip(sites, texts))]
        if not good:
            return []
        per_var.append((name, good))
    out = []
    for combo in islice(product(*[g for _, g in per_var]), MAX_EXPLAIN):
        derive = {name: spec for (name, _), spec in zip(per_var, combo)}
        rule = build(derive)
        if rule is not None and reproduces_all(rule, fixes):
            out.append(derive)
            if len(out) >= 4:
                break
    return out


def _sites(sk: Skeleton, fixes: list, lang: str):
    """Per fix: (source root, module, the pattern's matches inside the fix's region); None if one has none."""
    from ast_grep_py import SgRoot

    from ingest.rules.engine import compile_rule
    from ingest.rules.program import parse_module

    where = {v: MetaConstraint(kind="number") for v in sorted(sk.numbers)}
    try:
        probe = Rule(id="distilled/probe", language=lang, pattern=sk.pattern, rewrite="0", where=where)
        config = compile_rule(probe)
    except (ValueError, RuleError):
        return None
    out = []
    for fix in fixes:
        root = SgRoot(fix.before, lang).root()
        lo, hi = span(fix.a[0])
        try:
            found = [m for m in root.find_all(config) if lo <= span(m)[0] and span(m)[1] <= hi]
        except BaseException as exc:  # ast-grep raises a bare Exception for a pattern it cannot use
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return None
        if not found:
            return None
        out.append((fix.before, root, parse_module(root), found))
    return out


def _offers(spec: Fact, site, text: str) -> bool:
    """The fact, asked at one of the fix's sites, offers `text` (modulo spacing)."""
    from ingest.rules.facts import FACTS, FactContext

    source, root, module, matches = site
    want = re.sub(r"\s+", "", text)
    for m in matches:
        try:
            options = FACTS[spec.fact](FactContext(source, root, module, m), {"of": spec.of, **spec.args})
        except RuleError:
            continue
        if any(re.sub(r"\s+", "", o.text) == want for o in options):
            return True
    return False


def reproduces_all(rule: Rule, fixes: list) -> bool:
    """Some application of the rule to each fix's before is its after (modulo formatting)."""
    try:
        return all(any(equivalent(a.patched_source, f.after, rule.language) for a in apply_rule(rule, f.before))
                   for f in fixes)
    except RuleError:
        return False
