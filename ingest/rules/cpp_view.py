"""C++ as a rule reads it: AscendC's API whatever its qualification, and rewrites spelled the way the file spells it.

A kernel may write `DataCopy(...)` (under `using namespace AscendC`), `AscendC::DataCopy(...)`, or `AC::DataCopy(...)`
through `namespace AC = AscendC;`. Rules are written once, unqualified: they match a *view* of the source in which
each AscendC qualifier (`AscendC::`, `::AscendC::`, an alias's `AC::`) is blanked to spaces of the same length, so
every offset and line is the source's own, and a match's text is read back from the source (qualifiers kept). A
match never starts inside a blanked qualifier, so rewriting `DataCopy(...)` keeps the `AscendC::` before it.

A rewrite that brings in an AscendC name the match did not have (`DataCopyExtParams`, `Duplicate`, `HardEvent`)
qualifies it as the file does: nothing where the file reaches the namespace unqualified (`using namespace`, or its
own bare AscendC names), else the file's most used prefix (`AscendC::` or an alias).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

# AscendC names a rewrite may introduce (the namespace's public API; `event_t`, `PIPE_*` are global on the NPU)
ASCENDC_NAMES = frozenset("""
DataCopy DataCopyPad DataCopyParams DataCopyExtParams DataCopyPadParams DataCopyPadExtParams Duplicate ReduceMax ReduceSum
ReduceMin WholeReduceSum WholeReduceMax SetFlag WaitFlag HardEvent GetTPipePtr PipeBarrier Adds Muls Maxs Mins Add Sub Mul
Div Max Min Exp Ln Abs Sqrt Cast RoundMode GetBlockIdx GetBlockNum LocalTensor GlobalTensor TPipe TQue TBuf QuePosition
TPosition SetAtomicAdd SetAtomicNone ToFloat
""".split())
# the names only the namespace declares: a file that writes one of them bare reaches the namespace unqualified
_TELLTALE = ("LocalTensor", "GlobalTensor", "TPipe", "TQue", "TBuf", "DataCopy", "DataCopyPad", "QuePosition",
             "TPosition", "GetBlockIdx", "DataCopyExtParams", "DataCopyParams")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_ALIAS = re.compile(r"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*(?:::)?\s*AscendC\s*;")


def _code(text: str) -> str:
    """Comments and string literals blanked (newlines kept): what the namespace scan reads."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731
    return _STRING.sub(blank, _COMMENT.sub(blank, text))


def namespaces(text: str) -> tuple[str, ...]:
    """AscendC and the aliases the file declares for it."""
    return ("AscendC", *dict.fromkeys(_ALIAS.findall(_code(text))))


def _qualifier_rx(names: tuple[str, ...]) -> re.Pattern:
    alt = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?<![\w:])(?:::\s*)?(?:{alt})\s*::\s*(?=[A-Za-z_])")


def view(text: str) -> str:
    """The source with every AscendC qualifier before a name blanked to spaces (same length, same lines); `using`
    and `namespace` declarations are left as they are."""
    if "::" not in text:
        return text
    code = _code(text)
    rx = _qualifier_rx(namespaces(text))
    out = list(text)
    for m in rx.finditer(code):
        line_start = code.rfind("\n", 0, m.start()) + 1
        before = code[line_start:m.start()]
        if re.search(r"\b(using|namespace)\b", before):
            continue
        for i in range(m.start(), m.end()):
            if out[i] != "\n":
                out[i] = " "
    return "".join(out)


@dataclass(frozen=True)
class Spelling:
    """How the file reaches AscendC names: `prefix` for a name it does not import ("" when all are reachable)."""

    prefix: str = ""
    imported: frozenset[str] = frozenset()  # names made bare by `using AscendC::Name;`

    def qualify(self, name: str) -> str:
        return name if not self.prefix or name in self.imported else f"{self.prefix}{name}"


def spelling(text: str) -> Spelling:
    """The file's own way of naming AscendC's API."""
    code = _code(text)
    names = namespaces(text)
    if re.search(rf"\busing\s+namespace\s+(?:::)?\s*(?:{'|'.join(map(re.escape, names))})\s*;", code):
        return Spelling("")
    imported = frozenset(re.findall(r"\busing\s+(?:::)?\s*AscendC\s*::\s*([A-Za-z_]\w*)\s*;", code))
    bare = _qualifier_rx(names).sub(lambda m: "\0" * len(m.group(0)), code)
    for name in _TELLTALE:
        if name in imported:
            continue
        if re.search(rf"(?<![\w:\0.>]){name}\b\s*[<(:{{]", bare):  # a bare use the file's build accepts
            return Spelling("", imported)
    used = Counter(m.group(1) for m in re.finditer(rf"(?<![\w:])((?:::)?(?:{'|'.join(map(re.escape, names))}))\s*::"
                                                    r"\s*[A-Za-z_]", code))
    prefix = (used.most_common(1)[0][0] if used else "AscendC") + "::"
    return Spelling(prefix, imported)


_NAME = re.compile(r"(?<![\w:.>$])([A-Za-z_]\w*)\b")


def qualify_literal(piece: str, spell: Spelling, *, first_is_qualified: bool = False) -> str:
    """A rewrite template's literal text with each AscendC name it introduces qualified as the file does; with
    first_is_qualified, a name at the very start is left bare (the source already qualifies the match)."""
    if not spell.prefix:
        return piece

    def repl(m: re.Match) -> str:
        name = m.group(1)
        if name not in ASCENDC_NAMES or (first_is_qualified and m.start() == 0):
            return name
        after = piece[m.end():m.end() + 40].lstrip()
        if not after[:1] or after[:1] not in "<({:":
            return name  # a variable or member called like an API name, not the API
        return spell.qualify(name)

    return _NAME.sub(repl, piece)


def qualified_before(source: str, start: int) -> bool:
    """Does a qualifier (`X::`) end right where a match starts?"""
    return bool(re.search(r"::\s*$", source[max(0, start - 64):start]))
