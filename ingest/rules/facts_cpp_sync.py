"""C++ facts about synchronisation between an AscendC kernel's pipes (repair.rules.ascendc_sync uses them).

`cpp-pipe-handover` finds, at a call of a kernel function, a hand-over from one pipe to another that nothing orders
(ingest.rules.pipe_trace traces the file) and inserts the SetFlag/WaitFlag pair it lacks before the statement, in
the file's own spelling: its wait macro where it has one (`WAIT_PIPE(pipe, MTE2_V)`), else its event-id idiom (the
type and the FetchEventID receiver it writes), qualified as it qualifies AscendC's names.

A kernel written for `--cce-auto-sync` (the compiler inserts every flag) flags nothing by hand: its unflagged
hand-overs are not bugs. So the fact fires only where the file orders the same two pipes by hand elsewhere (in
either direction): its author flags that hand-over, and missed one. A kernel whose only hand-over of a pair lost
its flag is not told from one written for auto-sync here (the evaluation's fault message tells them apart, and a
fact does not see it).
"""
from __future__ import annotations

import re

from ingest.rules.facts import FactContext, Option
from ingest.rules.facts_cpp import cpp_fact

def _insertion_point(source: str, start: int) -> tuple[int, str]:
    """Where a statement's flags go (its line's start when it begins the line, else right before it) and the
    indent."""
    line_start = source.rfind("\n", 0, start) + 1
    indent = re.match(r"[ \t]*", source[line_start:]).group(0)
    return (line_start if not source[line_start:start].strip() else start), indent


def _event_var(text: str, src: str, dst: str, line: int | None = None) -> str:
    base = f"eventId{src}To{dst}" + (f"_{line}" if line else "")
    name, n = base, 1
    while re.search(rf"\b{name}\b", text):
        n += 1
        name = f"{base}_{n}"
    return name


def flag_text(source: str, companions: tuple[str, ...], src: str, dst: str, indent: str,
              line: int | None = None) -> str:
    """The lines that order pipe `src` before `dst`, spelt as the file spells its own flags (`line`: a suffix that
    keeps the event's variable apart from another site's, which the every-site rewrite may put in the same block)."""
    from ingest.rules.cpp_view import qualify_literal, spelling
    from ingest.rules.pipe_trace import _origins, _strip

    code = _strip(source)
    event = f"{src}_{dst}"
    for name, index in _origins(code).event_macros.items():
        call = re.search(rf"(?m)^[ \t]*{name}\s*\(([^;]*)\)\s*;", code)
        if call:
            args = [a.strip() for a in call.group(1).split(",")]
            if index < len(args):
                args[index] = event
                return f"{indent}{name}({', '.join(args)});\n"
    idiom = re.search(r"\b(event_t|int32_t|int|TEventID|uint32_t)\s+\w+\s*=\s*static_cast<\s*\1\s*>\s*\(\s*"
                      r"((?:[\w:]+\s*\(\s*\)\s*->\s*|(?:this\s*->\s*)?\w+\s*(?:\.|->)\s*)?)FetchEventID\s*\(", source)
    kind, receiver = (idiom.group(1), idiom.group(2)) if idiom else ("event_t", "GetTPipePtr()->")
    var = _event_var("\n".join((source, *companions)), src, dst, line)
    lines = (f"{kind} {var} = static_cast<{kind}>({receiver}FetchEventID(HardEvent::{event}));",
             f"SetFlag<HardEvent::{event}>({var});", f"WaitFlag<HardEvent::{event}>({var});")
    spell = spelling(source)
    return "".join(f"{indent}{qualify_literal(ln, spell)}\n" for ln in lines)


@cpp_fact("cpp-pipe-handover")
def _pipe_handover(ctx: FactContext, args: dict) -> list[Option]:
    """At the first call of a statement that takes a buffer from another pipe with nothing ordering the two (a
    vector result read by GetValue with no V_S flag, a TBuf filled by a GM -> UB copy and read by a vector
    instruction with no MTE2_V, a vector or scalar result copied out with no V_MTE3 or S_MTE3), the flag pairs it
    lacks inserted before the statement. Only pairs of pipes the file (or its bundle) flags by hand elsewhere."""
    from ingest.rules.cpp_view import view
    from ingest.rules.pipe_trace import flagged_pairs, unordered_handovers

    if "FetchEventID" not in ctx.source and "Flag" not in ctx.source:
        return []  # flags nothing by hand: written for auto-sync
    r = ctx.match.range()
    hazards = unordered_handovers(view(ctx.source))
    mine = [h for h in hazards if h.call[0] == r.start.index]
    if not mine:
        return []
    stmt = mine[0].stmt  # the statement (of the traced function's own parse) it is part of
    here = [h for h in hazards if h.stmt == stmt]
    if min(h.call[0] for h in here) != r.start.index:
        return []  # not the statement's first call taking a buffer over (the statement is rewritten once)
    flagged = flagged_pairs("\n".join((ctx.source, *ctx.companions)))
    events = list(dict.fromkeys((h.src, h.dst) for h in here if frozenset((h.src, h.dst)) in flagged))
    if not events:
        return []
    code = view(ctx.source)  # a qualifier blanked before the statement's first name is still its line's start
    at, indent = _insertion_point(code, stmt[0])
    line = ctx.source.count("\n", 0, stmt[0]) + 1
    repeated = {(h.src, h.dst) for h in hazards if h.stmt != stmt}
    text = "".join(flag_text(ctx.source, ctx.companions, s, d, indent, line if (s, d) in repeated else None)
                   for s, d in events)
    if at == stmt[0] and code[code.rfind("\n", 0, at) + 1:at].strip():  # the statement shares its line with code before it
        text = "\n" + text + indent
    return [Option(edits=((at, at, text),))]
