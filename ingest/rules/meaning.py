"""A version 2 rule's conditions over meaning at one match: its flows hold, its facts bind, its reference fits.

The engine asks `options_at` for each structural match; each option is one way to fire there (the
metavariables the facts derived, and the edits they need elsewhere in the file).
"""
from __future__ import annotations

import re
from itertools import product

from ingest.rules.errors import BadRule
from ingest.rules import facts_cpp, facts_cpp_flow, facts_program
from ingest.rules.facts import FACTS, FactContext, Option
from ingest.rules.flow import reaches, scope_of, span
from ingest.rules.model import Flow, Rule

assert facts_program.FACTS is FACTS  # importing it registered the launch and constructor facts
assert facts_cpp.CPP_FACTS <= set(FACTS) and "cpp-quotient" in facts_cpp.CPP_FACTS  # and the C++ facts (both modules)
MAX_OPTIONS = 8  # ways one match may fire (the product of its facts' options, first ones kept)


def reference_fits(rule: Rule, reference: str | None) -> bool:
    """The rule's reference regexes hold for the problem's source (always, when the problem is unknown)."""
    ref = rule.reference
    if ref is None or reference is None:
        return True
    if ref.requires_any and not any(re.search(rx, reference) for rx in ref.requires_any):
        return False
    return not any(re.search(rx, reference) for rx in ref.forbids)


def _ends(end, match, scope, *, sink: bool, whole: bool = False) -> list:
    """The nodes an end of a flow stands for (with whole=True, (sink node, whole match) pairs)."""
    if end is None:
        return [(match, match) if whole else match]
    if isinstance(end, str):
        node = match.get_match(end[1:])
        return [(node, node) if whole else node] if node is not None else []
    out = []
    for pattern in end:
        try:
            found = scope.find_all(pattern=pattern)
        except BaseException as exc:  # ast-grep raises a bare Exception for a pattern it cannot use
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            raise BadRule(f"flow pattern {pattern!r}: {str(exc).splitlines()[0] if str(exc) else exc}") from None
        for m in found:
            node = (m.get_match("SINK") or m) if sink else m
            out.append((node, m) if whole else node)
    return out


def flow_holds(flow: Flow, match, module=None) -> bool:
    scope = scope_of(match)
    sources = _ends(flow.source, match, scope, sink=False)
    sinks = _ends(flow.sink, match, scope, sink=True, whole=True)
    reached = reaches(scope, sources, [(n, i) for i, (n, _) in enumerate(sinks)])
    if not reached and module is not None and isinstance(flow.sink, list) and not flow.then:
        return _through_launch(flow, match, scope, sources, module)
    if flow.then:
        nexts = _ends(list(flow.then), match, scope, sink=True)
        targets = [(n, 0) for n in nexts]
        reached = {i for i in reached if reaches(scope, [sinks[i][1]], targets)}
    if not reached:
        return False
    if flow.not_sink:
        bad = _ends(list(flow.not_sink), match, scope, sink=True)
        if reaches(scope, sources, [(n, i) for i, n in enumerate(bad)]):
            return False
    return True


def _through_launch(flow: Flow, match, scope, sources, module) -> bool:
    """A host value reaches a launch argument: follow it into the kernel as the parameter it binds."""
    for launch in module.launches:
        if span(launch.host) != span(scope):
            continue
        for param in launch.kernel.params:
            arg = launch.arg_for(param.name)
            if arg is None or not reaches(scope, sources, [(arg, 0)]):
                continue
            kernel = launch.kernel.node
            sinks = _ends(flow.sink, match, kernel, sink=True)
            if reaches(kernel, [], [(n, i) for i, n in enumerate(sinks)], names=frozenset([param.name])):
                return True
    return False


def options_at(rule: Rule, match, source: str, root, module,
               companions: tuple[str, ...] = ()) -> list[tuple[dict[str, str], tuple]]:
    """(derived metavariables, extra edits) for each way the rule fires at this match; [] where it does not."""
    if not all(flow_holds(f, match, module) for f in rule.flows):
        return []
    if not rule.derive:
        return [({}, ())]
    choices: list[tuple[str, list[Option]]] = []
    env: dict[str, str] = {}
    for name, spec in rule.derive.items():
        fn = FACTS.get(spec.fact)
        if fn is None:
            raise BadRule(f"rule {rule.id}: unknown fact {spec.fact!r} (known: {', '.join(sorted(FACTS))})")
        ctx = FactContext(source, root, module, match, dict(env), companions)
        opts = fn(ctx, {"of": spec.of, **spec.args})
        if not opts:
            return []
        env[name] = opts[0].text  # a later fact sees the first option of an earlier one
        choices.append((name, opts))
    out = []
    for combo in product(*[opts for _, opts in choices]):
        bound = {name: o.text for (name, _), o in zip(choices, combo)}
        edits = tuple(e for o in combo for e in o.edits)
        out.append((bound, edits))
        if len(out) >= MAX_OPTIONS:
            break
    return out

