"""Named points where a test can SIGKILL the process (KB_TEST_KILL_AT=name) to prove crash safety."""
from __future__ import annotations

import os
import signal

KILL_POINTS = ("after-validate", "during-embed-pool", "after-embed", "after-duckdb-insert", "before-commit",
               "after-commit", "during-index", "after-index", "during-reindex")


def kill_point(name: str) -> None:
    if os.environ.get("KB_TEST_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
