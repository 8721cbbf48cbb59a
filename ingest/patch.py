"""Unified diffs for one file: make them, apply them exactly, and cut the changed hunks out as snippets.

The gate trusts a record only if its diff, applied to its source, gives back its repaired code, so the
applier is strict: every hunk must sit at its stated line with its context and removed lines intact
(no offsets, no fuzz). Lines without a final newline follow the `\\ No newline at end of file` marker.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_EOL = "\\ No newline at end of file"


class DiffError(ValueError):
    """The diff is malformed or does not apply to the text."""


@dataclass
class Hunk:
    src_start: int  # 1-based; for an empty side, the line before which it applies (0 = start)
    src_len: int
    dst_start: int
    dst_len: int
    lines: list[tuple[str, str]] = field(default_factory=list)  # (tag ' ', '-', '+'; line text with its newline)

    def side(self, keep: str) -> str:
        return "".join(text for tag, text in self.lines if tag in (" ", keep))


def unified_diff(before: str, after: str, *, path: str = "kernel.py", context: int = 3) -> str:
    """A unified diff that `apply_unified_diff` round-trips, also when a side lacks its final newline."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out: list[str] = []
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}", n=context):
        if line.startswith(("---", "+++")):
            out.append(line.rstrip("\n") + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n" + _NO_EOL + "\n")
    return "".join(out)


def parse_hunks(diff: str) -> list[Hunk]:
    hunks: list[Hunk] = []
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _HUNK.match(line)
        if not m:
            if not line.strip():
                i += 1
                continue
            if line.startswith(("--- ", "+++ ", "diff ", "index ")):
                if hunks:
                    raise DiffError(f"diff line {i + 1}: a second file header; a record's diff covers one file")
                i += 1
                continue
            raise DiffError(f"diff line {i + 1}: unexpected text outside a hunk: {line.rstrip()[:60]!r}")
        hunk = Hunk(int(m[1]), int(m[2] if m[2] is not None else 1), int(m[3]), int(m[4] if m[4] is not None else 1))
        i = _read_hunk_body(lines, i + 1, hunk)
        hunks.append(hunk)
    return hunks


def _read_hunk_body(lines: list[str], i: int, hunk: Hunk) -> int:
    need_src, need_dst = hunk.src_len, hunk.dst_len
    while need_src > 0 or need_dst > 0:
        if i >= len(lines):
            raise DiffError(f"hunk @@ -{hunk.src_start} +{hunk.dst_start} @@ is truncated")
        raw = lines[i]
        tag, text = raw[:1], raw[1:]
        if raw.rstrip("\n") == "":  # a blank context line whose leading space was stripped by an editor
            tag, text = " ", "\n"
        if tag not in (" ", "-", "+"):
            raise DiffError(f"diff line {i + 1}: bad hunk line {raw.rstrip()[:60]!r}")
        if i + 1 < len(lines) and lines[i + 1].rstrip("\n") == _NO_EOL:
            text = text[:-1] if text.endswith("\n") else text
            i += 1
        hunk.lines.append((tag, text))
        need_src -= tag in (" ", "-")
        need_dst -= tag in (" ", "+")
        if need_src < 0 or need_dst < 0:
            raise DiffError(f"hunk @@ -{hunk.src_start} +{hunk.dst_start} @@ has more lines than its header says")
        i += 1
    return i


def apply_unified_diff(text: str, diff: str) -> str:
    """Apply a one-file unified diff exactly; raises DiffError when any hunk does not match."""
    hunks = parse_hunks(diff)
    if not hunks:
        raise DiffError("the diff has no hunks")
    src = text.splitlines(keepends=True)
    out: list[str] = []
    pos = 0  # index into src of the next line not yet copied
    for h in hunks:
        start = h.src_start - 1 if h.src_len > 0 else h.src_start
        if start < pos:
            raise DiffError(f"hunk @@ -{h.src_start} @@ overlaps or precedes the previous hunk")
        old = [t for tag, t in h.lines if tag in (" ", "-")]
        if src[start:start + len(old)] != old:
            raise DiffError(f"hunk @@ -{h.src_start},{h.src_len} @@ does not match the source at line {h.src_start}")
        out.extend(src[pos:start])
        out.extend(t for tag, t in h.lines if tag in (" ", "+"))
        pos = start + len(old)
    out.extend(src[pos:])
    return "".join(out)


def snippets(diff: str) -> tuple[str, str]:
    """The before/after sides of the changed hunks (with their context), hunks separated by '...'."""
    hunks = parse_hunks(diff)
    before = "...\n".join(_ensure_eol(h.side("-")) for h in hunks)
    after = "...\n".join(_ensure_eol(h.side("+")) for h in hunks)
    return before, after


def _ensure_eol(s: str) -> str:
    return s if s.endswith("\n") or not s else s + "\n"
