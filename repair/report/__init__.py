"""Campaign reports: Pass@1/Pass@K with Wilson intervals, token costs, gate rejections, paired McNemar tests."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "metrics": ["CampaignMetrics", "Comparison", "Rate", "Report", "build_report", "compare", "load_campaign"],
    "write": ["write_report"],
    "stats": ["mcnemar_exact", "pass_at_k", "wilson_interval"],
})
