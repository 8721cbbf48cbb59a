"""The loop's parts for one run (bounds, worker, retriever, judge), built from the campaign's config; their preflight."""
from __future__ import annotations

from pathlib import Path

from repair.campaign.spec import CampaignConfig, RunSpec, script_for
from repair.campaign.summarize import GATE_LOG
from repair.errors import BadInput


def make_bounds(config: CampaignConfig):
    from repair.loop import Bounds

    return Bounds(**config.bounds)


def make_worker_for(spec: RunSpec, config: CampaignConfig, run_dir: Path | None = None):
    """run_dir: a model's exchanges are kept in run_dir/exchanges (as `repair run --out` keeps them)."""
    from repair.workers import WorkerOptions, make_worker

    script = script_for(spec, Path(config.script)) if config.script else None
    if config.worker == "scripted" and config.script and script is None:
        raise BadInput(f"{config.script}: no script for {spec.key}")
    extra = {"exchanges_dir": Path(run_dir) / "exchanges"} if run_dir is not None else {}
    return make_worker(config.worker, WorkerOptions(model=config.model, script=script, extra=extra))


def preflight(config: CampaignConfig, specs: list[RunSpec]) -> None:
    """Build each distinct worker, and the retriever, once before the campaign starts: a malformed script or a
    missing KB (exit 2), a missing provider key (exit 3) is reported now, not as one crashed run per candidate."""
    if specs and (config.kb or config.snapshot):
        make_retriever(specs[0], config)
    seen = set()
    for spec in specs:
        script = script_for(spec, Path(config.script)) if config.script else None
        if script in seen:
            continue
        seen.add(script)
        make_worker_for(spec, config)


def make_retriever(spec: RunSpec, config: CampaignConfig):
    from repair.ascendc import is_ascendc_candidate
    from repair.loop import NoRetriever, open_retriever

    if "no-kb" in config.ablations:
        return NoRetriever()
    ascendc = spec.candidate is not None and is_ascendc_candidate(spec.candidate)
    return open_retriever(Path(config.kb) if config.kb else None, config.snapshot, operator_id=spec.operator_id,
                          language="ascendc" if ascendc else None)


def make_judge(spec: RunSpec, config: CampaignConfig, run_dir: Path):
    from repair.campaign.judge import AccountingJudge
    from repair.loop import HarnessJudge

    rules_off: tuple[str, ...] = ()
    if "integrity-off" in config.ablations:
        from repair.integrity import resolve_rules_off

        rules_off = resolve_rules_off(["*"])
    inner = HarnessJudge(problem=spec.problem, backend=config.backend, rules_off=rules_off, policy=config.policy)
    return AccountingJudge(inner, run_dir / GATE_LOG, diagnostics="no-diagnostics" not in config.ablations,
                           full_tier="no-full-tier" not in config.ablations)
