"""Run one RunSpec in this process: the repair loop (debug) or one fresh generation (regenerate), into DIR/runs/KEY."""
from __future__ import annotations

import shutil
import traceback
from pathlib import Path

from repair.campaign.outcome import ENVIRONMENT_MISSING, RunOutcome
from repair.campaign.parts import make_bounds, make_judge, make_retriever, make_worker_for
from repair.campaign.regenerate import run_trial
from repair.campaign.spec import RUNS, CampaignConfig, RunSpec
from repair.campaign.summarize import summarize
from repair.errors import EnvironmentMissing, RepairError



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
            run_trial(spec, config, run_dir, make_judge(spec, config, run_dir), make_worker_for(spec, config, run_dir))
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
    from repair.loop import RunConfig, run_and_record

    worker = make_worker_for(spec, config, run_dir)
    judge = make_judge(spec, config, run_dir)
    run_and_record(
        RunConfig(problem=spec.problem, candidate=spec.candidate, bounds=make_bounds(config), k=config.k, out=run_dir),
        worker, make_retriever(spec, config), judge, backend=config.backend,
    )
