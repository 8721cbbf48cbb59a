"""The run's trajectory: one JSON object per line, flushed as written, so a killed run still leaves it."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable

from provenance.redact import redact_tree

TRAJECTORY_SCHEMA = "repair.loop.trajectory/v1"
# Called with every event as it is logged (`repair run`'s progress on stderr: repair.loop.progress); a listener's
# failure is its own, never the run's.
LISTENERS: list[Callable[[dict], None]] = []


class Trajectory:
    def __init__(self, path: Path | None, *, clock: Callable[[], float] = time.monotonic):
        self.path = path
        self.events: list[dict] = []
        self._clock = clock
        self._t0 = clock()
        self._fh = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(path, "w", encoding="utf-8")

    def log(self, event: str, **fields: Any) -> dict:
        entry = {"step": len(self.events), "event": event, "t": round(self._clock() - self._t0, 3),
                 **redact_tree(fields)}
        if not self.events:
            entry["schema"] = TRAJECTORY_SCHEMA
        self.events.append(entry)
        if self._fh is not None:
            self._fh.write(json.dumps(entry, sort_keys=True, default=str) + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())
        for listener in list(LISTENERS):
            try:
                listener(entry)
            except Exception:  # noqa: BLE001 - progress output must not end a repair
                pass
        return entry

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def of(self, event: str) -> list[dict]:
        return [e for e in self.events if e["event"] == event]


def read_trajectory(path: Path) -> list[dict]:
    """Every complete line; a line cut short by a kill (even inside a UTF-8 character) ends the list."""
    events = []
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return events
