"""Progress on stderr for commands that take more than a few seconds (issue 37).

On a terminal: rich (styled lines that fold at the terminal's width, or a live bar). Anywhere else (a pipe, a
log file, a CI job): plain lines, one per step, each complete, so `2> log` keeps every one and not only the
last redraw of a bar. stdout is left to the command's result.
"""
from __future__ import annotations

import sys
import time


WIDTH = 100  # a terminal's columns when the stream is not one (a log read later in one)


def fold(text: str, indent: int = 4, width: int = WIDTH) -> list[str]:
    """text as lines of at most `width` columns, continuation lines indented; nothing is cut."""
    import textwrap

    lead = len(text) - len(text.lstrip(" "))
    return textwrap.wrap(text, width, subsequent_indent=" " * (lead + indent), break_long_words=True,
                         break_on_hyphens=False, drop_whitespace=True) or [""]


def is_terminal(stream=None) -> bool:
    stream = stream or sys.stderr
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def eta(done: int, total: int, elapsed: float) -> float | None:
    """Seconds left at the pace so far (None before the first step is done)."""
    if done <= 0 or elapsed <= 0:
        return None
    return max(0.0, elapsed / done * (total - done))


class Lines:
    """One line per step on stderr, prefixed with the command's name."""

    def __init__(self, prefix: str, *, enabled: bool = True, clock=time.monotonic):
        self.prefix, self.enabled, self._clock = prefix, enabled, clock
        self.t0 = clock()
        self._console = None
        if enabled and is_terminal():
            from rich.console import Console

            self._console = Console(stderr=True, highlight=False)

    def elapsed(self) -> float:
        return self._clock() - self.t0

    def __call__(self, text: str) -> None:
        if not self.enabled:
            return
        stamp = f"[{duration(self.elapsed())}]"
        if self._console is not None:
            from rich.markup import escape

            self._console.print(f"[dim]{self.prefix} {stamp}[/dim] {escape(text)}")
        else:
            print("\n".join(fold(f"{self.prefix} {stamp} {text}")), file=sys.stderr, flush=True)
