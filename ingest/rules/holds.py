"""Whether a flow condition of a rule holds at a match: the value reaches its sinks (through a launch into the kernel
parameter it binds), then its next sinks, and never a forbidden one. Apart from ingest.rules.meaning so that facts
(ingest.rules.facts_mask) can ask it without an import cycle."""
from __future__ import annotations

from ingest.rules.errors import BadRule
from ingest.rules.flow import reaches, scope_of, span
from ingest.rules.model import Flow


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
