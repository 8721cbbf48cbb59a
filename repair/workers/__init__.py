"""Workers propose kernel changes; the engine (repair.loop.algorithm) decides. Chosen by name from WORKERS."""
from repair.workers.base import (
    AttemptNote,
    Pattern,
    Proposal,
    Usage,
    Worker,
    WorkerContext,
    WorkerExhausted,
    WorkerFailed,
    WorkerInfo,
)
from repair.workers.registry import WORKERS, WorkerOptions, make_worker

__all__ = [
    "AttemptNote",
    "Pattern",
    "Proposal",
    "Usage",
    "Worker",
    "WorkerContext",
    "WorkerExhausted",
    "WorkerFailed",
    "WorkerInfo",
    "WORKERS",
    "WorkerOptions",
    "make_worker",
]
