"""Run one RunSpec in this process: the repair loop (debug) or one fresh generation (regenerate), into DIR/runs/KEY."""
from __future__ import annotations

import shutil
import traceback
from pathlib import Path

from repair.campaign.outcome import ENVIRONMENT_MISSING, RunOutcome
from repair.campaign.spec import CampaignConfig, RunSpec, script_for
from repair.campaign.summarize import GATE_LOG, RECORD, summarize
from repair.errors import BadInput, EnvironmentMissing, RepairError

RUNS = "runs"


def run_dir_of(out_dir: Path, spec: RunSpec) -> Path:
    return Path(out_dir) / RUNS / spec.key


def execute_run(spec: RunSpec, config: CampaignConfig, out_dir: Path) -> RunOutcome:
    """Never raises for a run's own failure: an exception inside the run is a `crashed` outcome with its reason."""
    out_dir = Path(out_dir)
    run_dir = run_dir_of(out_dir, spec)
    if run_dir.exists():  # a run cut short by a kill starts again from nothing
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    crashed = None
    environment = None
    try:
        if spec.candidate is None:
            from repair.campaign.regenerate import run_trial

            run_trial(spec, config, run_dir, make_judge(spec, config, run_dir), make_worker_for(spec, config))
        else:
            _run_debug(spec, config, run_dir)
    except EnvironmentMissing as e:
        environment = str(e)
    except RepairError as e:
        crashed = f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - one run's bug must not stop the campaign; it is recorded
        tail = traceback.format_exc().strip().splitlines()[-3:]
        crashed = f"{type(e).__name__}: {e} | " + " / ".join(tail)
    if environment is not None:
        return RunOutcome(key=spec.key, status="crashed", stop_reason=ENVIRONMENT_MISSING, error=environment)
    return summarize(spec.key, run_dir, out_dir, full_shadow="no-full-tier" in config.ablations, crashed=crashed)


def _run_debug(spec: RunSpec, config: CampaignConfig, run_dir: Path) -> None:
    from repair.loop import RunConfig, build_record, run_repair

    worker = make_worker_for(spec, config)
    judge = make_judge(spec, config, run_dir)
    outcome = run_repair(
        RunConfig(problem=spec.problem, candidate=spec.candidate, bounds=make_bounds(config), k=config.k, out=run_dir),
        worker, make_retriever(spec, config), judge,
    )
    if outcome.source is not None:
        record = build_record(outcome, worker.info, backend=config.backend, rules_off=judge.rules_off,
                              problem_name=spec.problem.name, candidate_name=spec.candidate.name)
        _write_atomic(run_dir / RECORD, record.to_json() + "\n")


def make_bounds(config: CampaignConfig):
    from repair.loop import Bounds

    return Bounds(**config.bounds)


def make_worker_for(spec: RunSpec, config: CampaignConfig):
    from repair.workers import WorkerOptions, make_worker

    script = script_for(spec, Path(config.script)) if config.script else None
    if config.worker == "scripted" and config.script and script is None:
        raise BadInput(f"{config.script}: no script for {spec.key}")
    return make_worker(config.worker, WorkerOptions(model=config.model, script=script))


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
    from repair.loop import NoRetriever, open_retriever

    if "no-kb" in config.ablations:
        return NoRetriever()
    return open_retriever(Path(config.kb) if config.kb else None, config.snapshot, operator_id=spec.operator_id)


def make_judge(spec: RunSpec, config: CampaignConfig, run_dir: Path):
    from repair.campaign.judge import AccountingJudge
    from repair.loop import HarnessJudge

    rules_off: tuple[str, ...] = ()
    if "integrity-off" in config.ablations:
        from repair.integrity import resolve_rules_off

        rules_off = resolve_rules_off(["*"])
    inner = HarnessJudge(problem=spec.problem, backend=config.backend, rules_off=rules_off)
    return AccountingJudge(inner, run_dir / GATE_LOG, diagnostics="no-diagnostics" not in config.ablations,
                           full_tier="no-full-tier" not in config.ablations)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
