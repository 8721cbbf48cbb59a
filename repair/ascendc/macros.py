"""The candidate's own macros expanded in place, so the integrity chain reads the code the compiler would see.

Real operators wrap their kernel entries in macros: object-like (`#define INIT_AND_PROCESS op.Init(...); op.Process()`),
function-like with arguments, template arguments among them (`GENERAL_OP_IMPL(KernelRmsNorm, DTYPE_X, DTYPE_GAMMA)`),
nested, defined inside a function body or under `#if`. Every `#define` of the sources read together is collected
(the first definition of a name wins: under `#if`/`#else` both branches are read and one expansion is kept),
then each invocation outside a directive, a comment or a string is replaced by its expansion, rescanned as the C
preprocessor does (a macro is not expanded inside its own expansion; `#x` and `a ## b` as the standard says).
An invocation's expansion is written on its first line and the newlines it spanned follow it, so every line of the
source keeps its number (findings name the line of the invocation). Work is bounded: an expansion stops growing past
`MAX_GROWTH` times the source, and nesting past `MAX_DEPTH` is left as written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_DEPTH = 32
MAX_GROWTH = 8  # the expanded text may be this many times the source's size (plus MIN_BUDGET)
MIN_BUDGET = 1 << 20

_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n\\]|\\.|\\\n)*", re.M)
_DEFINE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?(.*)", re.S)
# what the scanner steps over whole: comments, string and character literals, identifiers
_TOKEN = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|[A-Za-z_]\w*", re.S)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...] | None  # None: object-like
    variadic: bool
    body: str


def collect(texts) -> dict[str, Macro]:
    """Every `#define` in the texts (the first of each name); include guards and empty macros included."""
    out: dict[str, Macro] = {}
    for text in texts:
        for m in _DIRECTIVE.finditer(text):
            d = _DEFINE.match(m.group(0).strip().replace("\\\n", " "))
            if d is None or d.group(1) in out:
                continue
            name, params, body = d.group(1), d.group(2), _COMMENT.sub(" ", d.group(3)).strip()
            if params is None:
                out[name] = Macro(name, None, False, body)
                continue
            names = [p.strip() for p in params[1:-1].split(",") if p.strip()]
            variadic = bool(names) and names[-1].endswith("...")
            if variadic:
                names[-1] = names[-1][:-3].strip() or "__VA_ARGS__"
            out[name] = Macro(name, tuple(names), variadic, body)
    return out


def expand(text: str, macros: dict[str, Macro]) -> str:
    """`text` with every invocation of `macros` expanded, lines kept (see the module's docstring)."""
    if not macros or not any(name in text for name in macros):
        return text
    budget = [MAX_GROWTH * len(text) + MIN_BUDGET]
    out, pos = [], 0
    spans = [(m.start(), m.end()) for m in _DIRECTIVE.finditer(text)]
    for start, end in spans + [(len(text), len(text))]:
        out.append(_Expander(macros, budget).run(text[pos:start], keep_lines=True))
        out.append(text[start:end])
        pos = end
    return "".join(out)


class _Expander:
    def __init__(self, macros: dict[str, Macro], budget: list[int]):
        self.macros, self.budget = macros, budget

    def run(self, text: str, *, keep_lines: bool, hide: frozenset[str] = frozenset(), depth: int = 0) -> str:
        out, pos = [], 0
        while True:
            m = _TOKEN.search(text, pos)
            if m is None:
                out.append(text[pos:])
                return "".join(out)
            out.append(text[pos:m.start()])
            tok, pos = m.group(0), m.end()
            macro = self.macros.get(tok)
            if macro is None or tok in hide or depth >= MAX_DEPTH or self.budget[0] <= 0:
                out.append(tok)
                continue
            if macro.params is None:
                body, end = macro.body, pos
            else:
                call = _arguments(text, pos)
                if call is None:  # a function-like macro's name without arguments is left alone
                    out.append(tok)
                    continue
                args, end = call
                body = self.substitute(macro, args, hide, depth)
            replaced = self.run(body, keep_lines=False, hide=hide | {tok}, depth=depth + 1)
            replaced = replaced.replace("\n", " ")
            self.budget[0] -= len(replaced)
            out.append(replaced)
            if keep_lines:
                out.append("\n" * text.count("\n", pos, end))
            pos = end

    def substitute(self, macro: Macro, args: list[str], hide: frozenset[str], depth: int) -> str:
        params = list(macro.params or ())
        if macro.variadic:
            fixed = len(params) - 1
            args = args[:fixed] + [",".join(args[fixed:])] if len(args) > fixed else args + [""]
        if len(args) == 1 and not params and not args[0].strip():
            args = []
        values = {p: (args[i].strip() if i < len(args) else "") for i, p in enumerate(params)}
        if not values:
            return macro.body

        def expanded(name: str) -> str:
            return self.run(values[name], keep_lines=False, hide=hide, depth=depth + 1).replace("\n", " ")

        def one(m: re.Match) -> str:
            if m.group("str"):
                return m.group(0)
            if m.group("paste") is not None:  # a ## b: the raw arguments, joined (not expanded first)
                left, right = m.group("left") or "", m.group("right") or ""
                return values.get(left, left) + values.get(right, right)
            if m.group("hash"):  # #a: the raw argument as a string
                name = m.group("hash")
                return '"' + values[name].replace("\\", "\\\\").replace('"', '\\"') + '"' if name in values \
                    else m.group(0)
            return expanded(m.group(0)) if m.group(0) in values else m.group(0)

        return _BODY_TOKEN.sub(one, macro.body)


_BODY_TOKEN = re.compile(r"(?P<str>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
                         r"|(?P<paste>(?P<left>[A-Za-z_]\w*)?\s*##\s*(?P<right>[A-Za-z_]\w*)?)"
                         r"|#\s*(?P<hash>[A-Za-z_]\w*)|[A-Za-z_]\w*")


def _arguments(text: str, pos: int) -> tuple[list[str], int] | None:
    """The arguments of a function-like macro invocation whose name ends at `pos`, and where its `)` ends."""
    i = pos
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    if i >= len(text) or text[i] != "(":
        return None
    depth, args, start, i = 0, [], i + 1, i
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            m = re.compile(rf"{ch}(?:[^{ch}\\\\\n]|\\\\.)*{ch}").match(text, i)
            i = m.end() if m else i + 1
            continue
        if text.startswith(("//", "/*"), i):
            m = _COMMENT.match(text, i)
            i = m.end() if m else len(text)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i])
                return args, i + 1
        elif ch == "," and depth == 1:
            args.append(text[start:i])
            start = i + 1
        i += 1
    return None
