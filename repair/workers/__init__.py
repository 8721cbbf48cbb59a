"""Workers propose kernel changes (the loop decides); chosen by name from WORKERS."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "base": ["AttemptNote", "CaseView", "Pattern", "Proposal", "Usage", "Worker", "WorkerContext", "WorkerExhausted",
             "WorkerFailed", "WorkerInfo"],
    "registry": ["WORKERS", "WorkerOptions", "make_worker"],
    "rules_worker": ["RulesWorker"],
})
