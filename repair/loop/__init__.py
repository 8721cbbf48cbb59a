"""The bounded repair loop: forensics, retrieve, propose, gate, evaluate, checkpoint/rollback, accept; its run record."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "algorithm": ["RunConfig", "RunOutcome", "run_repair"],
    "bounds": ["BoundExceeded", "Bounds", "Budget"],
    "judge": ["HarnessJudge", "Judge"],
    "progress": ["ending_lines", "run_progress"],
    "record": ["RECORD", "build_record", "run_and_record"],
    "retrieve": ["FixedRetriever", "NoRetriever", "Retriever", "open_retriever"],
    "run": ["backend_for", "default_ascendc_backend", "repair_run", "summary"],
    "symptom": ["SymptomQuery", "load_eval", "make_eval_result", "symptom_query"],
    "trajectory": ["Trajectory", "read_trajectory"],
})
