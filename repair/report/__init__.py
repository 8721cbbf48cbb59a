"""Campaign reports: task-level pass rates with Wilson intervals, end-to-end token costs, paired McNemar tests."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "metrics": ["CampaignMetrics", "Rate", "Task", "load_campaign"],
    "pairing": ["Comparison", "compare"],
    "build": ["Report", "build_report"],
    "write": ["write_report"],
    "stats": ["mcnemar_exact", "pass_at_k", "wilson_interval"],
})
