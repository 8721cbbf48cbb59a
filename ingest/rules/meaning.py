"""A version 2 rule's conditions over meaning at one match: its flows hold, its facts bind, its reference fits.

The engine asks `options_at` for each structural match; each option is one way to fire there (the
metavariables the facts derived, and the edits they need elsewhere in the file).
"""
from __future__ import annotations

import re
from itertools import product

from ingest.rules.errors import BadRule
from ingest.rules import (facts_cpp, facts_cpp_buffers, facts_cpp_flow, facts_cpp_reduce, facts_cpp_split,
                          facts_cpp_sync, facts_mask, facts_program)
from ingest.rules.facts import FACTS, FactContext, Option
from ingest.rules.holds import flow_holds
from ingest.rules.model import Rule

assert facts_program.FACTS is FACTS  # importing it registered the launch and constructor facts
assert facts_cpp.CPP_FACTS <= set(FACTS) and "cpp-quotient" in facts_cpp.CPP_FACTS  # and the C++ facts (both modules)
assert "access-mask" in FACTS  # and the mask facts (ingest.rules.facts_mask)
MAX_OPTIONS = 8  # ways one match may fire (the product of its facts' options, first ones kept)


def reference_fits(rule: Rule, reference: str | None) -> bool:
    """The rule's reference regexes hold for the problem's source (always, when the problem is unknown)."""
    ref = rule.reference
    if ref is None or reference is None:
        return True
    if ref.requires_any and not any(re.search(rx, reference) for rx in ref.requires_any):
        return False
    return not any(re.search(rx, reference) for rx in ref.forbids)


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

