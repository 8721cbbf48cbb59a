"""Matched fragments side by side: an overlap match's entry lines next to its cohort lines, shared lines marked.

A match records line spans, not text (provenance.overlap: entry_lines / cohort_lines are the merged
spans of every shared fingerprint, run_entry_lines / run_cohort_lines the longest shared run). Given the
code of both sides this module cuts a window around those spans and lines the two windows up at the
start of the longest run, so a reviewer reads the copied lines next to each other. A side whose code is
unavailable (a cohort file moved or changed since the freeze) is shown as a note, never as other lines.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

CONTEXT = 2  # unshared lines shown around the shared ones
MAX_LINES = 60  # per side; a longer window is cut around the longest run
MARKS = {"run": "»", "shared": "+", "": " "}  # the text rendering's gutter
LEGEND = "» longest shared run, + other shared lines; the two sides are aligned at the longest run's first line"


@dataclass
class Cell:
    """One line of one side: its number in the file, its text (display-safe) and its mark (run, shared or "")."""

    line: int
    text: str
    mark: str = ""


@dataclass
class Fragment:
    """The two sides of one match, row by row (None: nothing on that side in that row)."""

    entry_label: str
    cohort_label: str
    rows: list[tuple[Cell | None, Cell | None]] = field(default_factory=list)
    entry_note: str = ""  # why the entry side is not shown, or which lines are
    cohort_note: str = ""
    entry_shown: bool = True
    cohort_shown: bool = True

    def marked(self, side: str, mark: str = "run") -> list[Cell]:
        """The cells of one side ("entry" or "cohort") carrying a mark."""
        i = 0 if side == "entry" else 1
        return [r[i] for r in self.rows if r[i] is not None and r[i].mark == mark]

    def as_dict(self) -> dict:
        def cell(c: Cell | None):
            return None if c is None else {"line": c.line, "text": c.text, "mark": c.mark}

        return {"entry": self.entry_label, "cohort": self.cohort_label, "entry_note": self.entry_note,
                "cohort_note": self.cohort_note, "entry_shown": self.entry_shown, "cohort_shown": self.cohort_shown,
                "rows": [[cell(a), cell(b)] for a, b in self.rows]}

    def text(self, width: int = 60) -> list[str]:
        """Two columns of fixed width (longer lines cut with an ellipsis); no trailing newline."""
        def col(c: Cell | None) -> str:
            if c is None:
                return " " * (width + 8)
            t = c.text if len(c.text) <= width else c.text[:width - 1] + "…"
            return f"{c.line:>5} {MARKS[c.mark]} {t:<{width}}"

        out = [f"{_cut('entry ' + self.entry_label, width + 8):<{width + 8}} | {_cut('cohort ' + self.cohort_label, width + 8)}"]
        for note, who in ((self.entry_note, "entry"), (self.cohort_note, "cohort")):
            if note:
                out.append(f"  ({who}: {note})")
        out += [f"{col(a)} | {col(b)}".rstrip() for a, b in self.rows]
        return out


def fragment(match: Mapping | object, entry_code: str | None, cohort_code: str | None, *, entry_label: str | None = None,
             cohort_label: str | None = None, entry_note: str = "", cohort_note: str = "",
             context: int = CONTEXT, max_lines: int = MAX_LINES) -> Fragment:
    """The side-by-side view of one match (an OverlapMatch, or its evidence dict as a snapshot stores it).

    entry_code / cohort_code: the code the fingerprints were computed from; None when it is not available,
    with the reason in entry_note / cohort_note.
    """
    m = match.model_dump(mode="json") if hasattr(match, "model_dump") else dict(match)
    unit = f"::{m['cohort_unit']}" if m.get("cohort_unit") else ""
    frag = Fragment(_printable(entry_label or str(m.get("entry_part", ""))),
                    _printable(cohort_label or f"{m['cohort_file']}{unit}"))
    e_run, c_run = _span(m.get("run_entry_lines")), _span(m.get("run_cohort_lines"))
    left, frag.entry_note, frag.entry_shown = _side(entry_code, _spans(m.get("entry_lines")), e_run, entry_note,
                                                    context, max_lines)
    right, frag.cohort_note, frag.cohort_shown = _side(cohort_code, _spans(m.get("cohort_lines")), c_run, cohort_note,
                                                       context, max_lines)
    # line the two windows up at the longest run's first line (else at their first shared line)
    pad = _anchor(left, e_run) - _anchor(right, c_run) if left and right else 0
    left = [None] * max(0, -pad) + left
    right = [None] * max(0, pad) + right
    frag.rows = [(left[i] if i < len(left) else None, right[i] if i < len(right) else None)
                 for i in range(max(len(left), len(right)))]
    return frag


def _side(code: str | None, spans: list[tuple[int, int]], run: tuple[int, int] | None, note: str, context: int,
          max_lines: int) -> tuple[list[Cell], str, bool]:
    """(the window's cells, a note, shown?) of one side."""
    if code is None:
        return [], _printable(note) or "code not available", False
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in code.split("\n")]  # tree-sitter counts "\n" only
    marked = spans + ([run] if run else [])
    if not marked:
        return [], note or "no shared lines recorded", False
    if max(e for _, e in marked) > len(lines) or min(s for s, _ in marked) < 1:
        return [], (f"the recorded lines ({_ranges(marked)}) are not in this code ({len(lines)} lines): "
                    "not the code the match was computed from"), False
    lo = max(1, min(s for s, _ in marked) - context)
    hi = min(len(lines), max(e for _, e in marked) + context)
    if hi - lo + 1 > max_lines:
        lo = max(lo, (run[0] if run else lo + context) - context)
        hi = min(hi, lo + max_lines - 1)
        note = "; ".join(x for x in (note, f"lines {lo}-{hi} of {len(lines)} shown (shared lines {_ranges(spans)})") if x)
    cells = []
    for n in range(lo, hi + 1):
        mark = "run" if run and run[0] <= n <= run[1] else "shared" if any(s <= n <= e for s, e in spans) else ""
        cells.append(Cell(n, _printable(lines[n - 1]), mark))
    return cells, _printable(note), True


def _anchor(cells: list[Cell], run: tuple[int, int] | None) -> int:
    """The row of the longest run's first line in a window (else of its first shared line, else 0)."""
    for i, c in enumerate(cells):
        if (run and c.line == run[0]) or (not run and c.mark):
            return i
    return 0


def _span(v) -> tuple[int, int] | None:
    return (int(v[0]), int(v[1])) if v else None


def _spans(v) -> list[tuple[int, int]]:
    return [(int(s), int(e)) for s, e in (v or [])]


def _ranges(spans: list[tuple[int, int]]) -> str:
    return ", ".join(f"{s}-{e}" if s != e else str(s) for s, e in spans)


def _printable(line: str) -> str:
    """Tabs expanded; control and format characters (terminal escapes, bidi overrides that would reorder what a
    reviewer sees) shown as U+FFFD."""
    return "".join("\ufffd" if unicodedata.category(ch) in ("Cc", "Cf") else ch for ch in line.expandtabs(4))


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"
