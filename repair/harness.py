"""`repair.harness.evaluate` and `evaluate_many`, the engine's entry points under the names the README documents."""
from repair.engine import evaluate, evaluate_many

__all__ = ["evaluate", "evaluate_many"]
