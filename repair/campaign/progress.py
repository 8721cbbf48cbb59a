"""The live progress bar on stderr: runs and operators done, repaired, failed, tokens so far."""
from __future__ import annotations

from collections import Counter

from repair.campaign.outcome import RunOutcome
from repair.campaign.spec import RunSpec


class Tally:
    """Counts that the progress bar shows and the campaign summary returns."""

    def __init__(self, specs: list[RunSpec], finished: dict[str, RunOutcome]):
        self.ops_total = Counter(s.operator_id for s in specs)
        self.ops_left = Counter(s.operator_id for s in specs if s.key not in finished)
        self.runs_total = len(specs)
        self.done = 0
        self.status = Counter()
        self.tokens = 0
        for o in finished.values():
            self.add(o)

    def add(self, outcome: RunOutcome) -> None:
        self.done += 1
        self.status[outcome.status] += 1
        self.tokens += outcome.total_tokens

    def finish(self, spec: RunSpec, outcome: RunOutcome) -> None:
        self.add(outcome)
        self.ops_left[spec.operator_id] -= 1

    @property
    def ops_done(self) -> int:
        return sum(1 for op in self.ops_total if self.ops_left[op] <= 0)

    def line(self) -> str:
        failed = self.status["failed"] + self.status["crashed"]
        unjudged = f"  unsupported {self.status['unsupported']}" if self.status["unsupported"] else ""
        return (f"operators {self.ops_done}/{len(self.ops_total)}  repaired {self.status['repaired']}  "
                f"failed {failed}{unjudged}  tokens {self.tokens:,}")


class ProgressBar:
    """rich.progress on stderr when it is a terminal (with the time left); plain lines otherwise, one per finished
    run with its ETA, so a log keeps each (repair.progress); a no-op when disabled (--json)."""

    def __init__(self, tally: Tally, *, enabled: bool, title: str = "campaign"):
        from repair.progress import Lines, is_terminal

        self.tally = tally
        self._progress = None
        self._lines = None
        self._start_done = tally.done  # runs finished before this session (a resumed campaign)
        if enabled and not is_terminal():
            self._lines = Lines("repair campaign" if title == "debug" else f"repair {title}")
        elif enabled:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("runs"),
                TextColumn("{task.fields[line]}"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                console=Console(stderr=True), transient=False,
            )
            self._task = self._progress.add_task(title, total=tally.runs_total, completed=tally.done, line=tally.line())

    def __enter__(self) -> ProgressBar:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()

    def update(self) -> None:
        if self._lines is not None:
            from repair.progress import duration, eta

            t = self.tally
            left = eta(t.done - self._start_done, t.runs_total - self._start_done, self._lines.elapsed())
            self._lines(f"{t.done}/{t.runs_total} runs  {t.line()}  eta {duration(left)}")
        if self._progress is not None:
            self._progress.update(self._task, completed=self.tally.done, line=self.tally.line())
