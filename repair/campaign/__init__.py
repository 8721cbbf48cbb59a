"""Campaigns: a repair (or a regeneration trial) for every run of a cohort, in parallel, resumable, in a DuckDB ledger."""
from repair._lazy import exports

__all__, __getattr__ = exports(__name__, {
    "ledger": ["CampaignBusy", "Ledger"],
    "outcome": ["FINISHED", "RunOutcome", "integrity_level"],
    "runner": ["CampaignSummary", "debug_config", "make_executor", "run_campaign"],
    "spec": ["ABLATIONS", "RUNS", "CampaignConfig", "RunSpec"],
    "regenerate": ["regenerate_config"],
})
