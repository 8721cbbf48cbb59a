"""What the candidate's C++ may make the compiler read: its own files, the emulation's headers, system headers.

g++ reads whatever an `#include` names: `#include "/etc/shadow"` puts root's hash line into the compiler's message
(which reaches records and prompts), `#include "/dev/fifo"` or `"/proc/self/fd/1"` blocks the build for minutes, and
a header outside the tree changes without changing the cache key. So before anything is compiled every source is
read as the preprocessor reads it (continued lines joined, comments gone) and these are refused, naming the file
and line: an `#include`, `#include_next`, `#import` or `#embed` whose name is absolute or has a `..` component,
or is computed from a macro (it could be either), except a quoted `#include "../x.h"` naming, from the including
file's own directory, another of the candidate's files (g++ looks there first, in the file's real directory whatever
its `#line` says, and the build writes every one of them: it never reaches an include directory; GeGluV2's answer
includes its base header so); the same in `__has_include`; `#pragma GCC dependency` and
`pch_preprocess` (they open a named file too); and the assembler's `.incbin`/`.include` in inline asm. What is
left can only name a file beneath the include directories the build passes (the candidate's own files, the
emulation's headers) or the compiler's system directories.
"""
from __future__ import annotations

import posixpath
import re

_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(include_next|include|import|embed)\b[ \t]*(.*)$")
_LITERAL = re.compile(r'"([^"\n]*)"|<([^>\n]*)>')
_HAS_INCLUDE = re.compile(r"\b__has_include(?:_next)?\b\s*\(\s*(.*)")
_PRAGMA = re.compile(r"^[ \t]*(?:#|%:)[ \t]*pragma\b.*\b(dependency|pch_preprocess)\b|\b_Pragma\b.*\b(dependency|pch_preprocess)\b")
_ASM = re.compile(r"\.(incbin|include)\b")


def refused_includes(files: dict[str, str]) -> list[str]:
    """`file:line: why` for every way a source would make the compiler read outside the build's own trees."""
    out = []
    for name, text in files.items():
        for line, logical in _logical_lines(text):
            m = _DIRECTIVE.match(logical)
            if m:
                out += [f"{_where(name, text, line)}: {why}" for why in _check(m.group(1), m.group(2), name, files)]
            for h in _HAS_INCLUDE.finditer(logical):
                lit = _LITERAL.match(h.group(1))
                why = "a computed name" if lit is None else _path_problem(lit.group(1) or lit.group(2))
                if why:
                    out.append(f"{_where(name, text, line)}: __has_include({h.group(1)[:60].rstrip(') ')}): {why}")
            if _PRAGMA.search(logical):
                out.append(f"{_where(name, text, line)}: `{logical.strip()[:80]}` makes the compiler open a file")
            if _ASM.search(logical):
                out.append(f"{_where(name, text, line)}: the assembler's .incbin/.include would read a file")
    return out


def _check(kind: str, rest: str, name: str, files: dict[str, str]) -> list[str]:
    lit = _LITERAL.match(rest)
    if lit is None:
        return [f"#{kind} {rest.strip()[:60]}: a computed name (write the header's name in quotes)"]
    if kind in ("include", "import") and lit.group(1) is not None and _own_file(name, lit.group(1), files):
        return []
    why = _path_problem(lit.group(1) if lit.group(1) is not None else lit.group(2))
    return [f"#{kind} {lit.group(0)}: {why}"] if why else []


def _own_file(name: str, path: str, files: dict[str, str]) -> bool:
    """`path`, from the directory of the build's file `name`, is another file of the build, within its tree."""
    if path.startswith(("/", "\\")) or "\\" in path or "\0" in path or not path.strip():
        return False
    target = posixpath.normpath(posixpath.join(posixpath.dirname(name), path))
    return not target.startswith("../") and target != ".." and target in files


def _path_problem(path: str) -> str | None:
    if not path.strip():
        return "an empty name"
    if path.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", path):
        return "an absolute path, outside the candidate's files and the emulation's headers"
    if ".." in re.split(r"[/\\]+", path):
        return "a `..` component, which may leave the candidate's files and the emulation's headers"
    if "\0" in path:
        return "a NUL in the name"
    return None


def _where(name: str, text: str, line: int) -> str:
    """The candidate's own file and line: a source starts with `#line N "file"` (build.plan_emu_build)."""
    m = re.match(r'#line (\d+) "((?:[^"\\]|\\.)*)"\n', text)
    if m:
        return f"{m.group(2)}:{int(m.group(1)) + line - 2}"
    return f"{name}:{line}"


def _logical_lines(text: str):
    """(first physical line, logical line without comments) per logical line, as translation phases 2-3 see them: backslash-newlines joined, comments replaced by a space."""
    spliced = re.sub(r"\\[ \t]*\r?\n", "\x00", text)
    line = 1
    for logical in _strip(spliced).split("\n"):
        yield line, logical.replace("\x00", "")
        line += 1 + logical.count("\x00")


def _strip(text: str) -> str:
    """Comments replaced by a space (the newlines a block comment held kept as \\x00, so line numbers hold), string
    and character literals as written (inline asm is a string: .incbin lives there)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " + "\x00" * text.count("\x00", i, j))
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + "\x00" * (text.count("\n", i, j) + text.count("\x00", i, j)))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)
