"""Campaigns: a repair (or a regeneration trial) for every run of a cohort, in parallel, resumable, in a DuckDB ledger."""
from repair.campaign.ledger import CampaignBusy, Ledger
from repair.campaign.outcome import RunOutcome
from repair.campaign.runner import CampaignSummary, debug_config, make_executor, run_campaign
from repair.campaign.spec import ABLATIONS, CampaignConfig, RunSpec

__all__ = [
    "ABLATIONS", "CampaignBusy", "CampaignConfig", "CampaignSummary", "Ledger", "RunOutcome", "RunSpec",
    "debug_config", "make_executor", "run_campaign",
]
