"""The starter rules' vocabulary (ingest.rules.vocab: what code means, as sink patterns) and the helpers that name rules."""
from __future__ import annotations

from ingest.rules.model import Flow, Rule
from ingest.rules.vocab import (ACC_SUM, DIVIDED, EXP, GRID, LOOP_STOP, MASK, MAX, MIN, NEG_INF, POINTER, POS_INF, PROD,
                                SQUARES, SUM, WHILE)

__all__ = ["ACC_SUM", "DIVIDED", "EXP", "GRID", "LOOP_STOP", "MASK", "MAX", "MIN", "NEG_INF", "POINTER", "POS_INF",
           "PROD", "SQUARES", "SUM", "WHILE", "flow", "rule"]


def rule(id: str, bug_class: str, pattern: str, rewrite: str, **kw):
    """A starter rule, named starter/<bug class>/<id>."""
    return Rule(id=f"starter/{bug_class}/{id}", bug_class=bug_class, pattern=pattern, rewrite=rewrite, **kw)


def flow(source=None, sink=None, not_sink=(), then=()):
    return Flow(source=list(source) if isinstance(source, (list, tuple)) else source,
                sink=list(sink) if isinstance(sink, (list, tuple)) else sink, not_sink=list(not_sink), then=list(then))
