"""Workers by short name. Entries are "module:factory" strings so choosing one imports only it."""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from repair.errors import BadInput
from repair.workers.base import Worker

# A factory takes WorkerOptions and returns a Worker. Later workers (rules, rules+litellm) add a line here.
WORKERS: dict[str, str] = {
    "scripted": "repair.workers.scripted:from_options",
    "litellm": "repair.workers.litellm_worker:from_options",
    "rules": "repair.workers.rules_worker:from_options",
    "rules+litellm": "repair.workers.rules_worker:rules_then_litellm",
}


@dataclass(frozen=True)
class WorkerOptions:
    model: str | None = None
    script: Path | None = None  # scripted: the script; litellm with a fakellm/ model: the replies
    temperature: float = 0.0
    max_retries: int = 3
    timeout_s: float = 600.0
    extra: dict = field(default_factory=dict)


def make_worker(name: str, options: WorkerOptions | None = None) -> Worker:
    try:
        target = WORKERS[name]
    except KeyError:
        raise BadInput(f"unknown worker {name!r} (known: {', '.join(sorted(WORKERS))})") from None
    module, _, attr = target.partition(":")
    return getattr(import_module(module), attr)(options or WorkerOptions())
