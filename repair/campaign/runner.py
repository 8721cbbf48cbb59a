"""Run a campaign: plan the runs, skip those the ledger has finished, execute the rest, record each as it ends."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from provenance.version import tool_version
from repair.campaign.ledger import CampaignLock, Ledger
from repair.campaign.outcome import RunOutcome
from repair.campaign.progress import ProgressBar, Tally
from repair.campaign.spec import (
    CampaignConfig,
    RunSpec,
    check_scripts,
    load_operators,
    make_config,
    manifest_sha256,
    plan_debug,
)
from repair.campaign.parts import preflight
from repair.campaign.outcome import ENVIRONMENT_MISSING
from repair.errors import BadInput, EnvironmentMissing

EXECUTORS = ("local", "ray")


@dataclass
class CampaignSummary:
    out: str
    kind: str
    runs: int
    skipped: int  # finished by an earlier invocation
    ran: int
    repaired: int
    failed: int
    crashed: int
    tokens: int
    wall_s: float
    operators: int
    executor: str
    jobs: int
    unsupported: int = 0  # near-misses the backend cannot judge (not failures of the worker)
    tool_version: str = field(default_factory=tool_version)

    def as_dict(self) -> dict:
        return dict(vars(self))


def debug_config(manifest: Path, *, worker: str = "scripted", model: str | None = None, script: Path | None = None,
                 kb: Path | None = None, snapshot: str | None = None, ablations=(), bounds: dict | None = None,
                 backend: str | None = None, run_timeout_s: float | None = None,
                 k: int = 5, allow_outside: bool = False, policy: str = "strict") -> tuple[CampaignConfig, list[RunSpec]]:
    """The settings and runs of `repair campaign MANIFEST` (allow_outside: cohort files outside its tree)."""
    manifest = Path(manifest).resolve()
    if not manifest.is_file():
        raise BadInput(f"{manifest}: no such manifest")
    specs = plan_debug(load_operators(manifest, allow_outside=allow_outside))
    if not specs:
        raise BadInput(f"{manifest}: no candidates to repair (every operator lists only its problem.py)")
    from repair.ascendc import is_ascendc_candidate

    if backend is None and all(is_ascendc_candidate(s.candidate) for s in specs):
        from repair.loop import default_ascendc_backend

        backend = default_ascendc_backend()  # as `repair run` does: AscendC numerics need an AscendC backend
    config = make_config("debug", worker=worker, model=model, script=script, kb=kb, snapshot=snapshot,
                         ablations=ablations, k=k, bounds=bounds, backend=backend, run_timeout_s=run_timeout_s,
                         policy=policy, manifest=str(manifest), manifest_sha256=manifest_sha256(manifest, allow_outside=allow_outside))
    check_scripts(specs, worker, script)
    preflight(config, specs)
    return config, specs


def make_executor(name: str, jobs: int, address: str | None = None):
    if name == "local":
        if address:
            raise BadInput("--address is for --executor ray")
        from repair.campaign.local import LocalExecutor

        return LocalExecutor(jobs)
    if name == "ray":
        from repair.campaign.ray_executor import RayExecutor

        return RayExecutor(jobs, address)
    raise BadInput(f"unknown executor {name!r} (known: {', '.join(EXECUTORS)})")


def run_campaign(config: CampaignConfig, specs: list[RunSpec], out_dir: Path, *, executor=None,
                 progress: bool = False, retry_crashed: bool = False) -> CampaignSummary:
    """Resumable: runs the ledger has finished are skipped; a run left `running` by a kill starts again.

    A crashed run is a finished (failed) run unless `retry_crashed`. A run that finds its environment
    missing (EnvironmentMissing: a backend, a package) stops the campaign, unrecorded, so that a rerun
    after fixing the environment does it again.
    """
    out_dir = Path(out_dir)
    executor = executor or make_executor("local", 1)
    t0 = time.monotonic()
    with CampaignLock(out_dir):
        ledger = Ledger(out_dir)
        ledger.open_campaign(config, specs)
        finished = {r.key: r.outcome for r in ledger.runs()
                    if r.outcome is not None and not (retry_crashed and r.outcome.status == "crashed")}
        todo = [s for s in specs if s.key not in finished]
        tally = Tally(specs, {k: o for k, o in finished.items() if k in {s.key for s in specs}})
        ran = 0

        def on_done(spec: RunSpec, outcome: RunOutcome) -> None:
            nonlocal ran
            if outcome.stop_reason == ENVIRONMENT_MISSING:
                raise EnvironmentMissing(f"{spec.key}: {outcome.error}; fix it and rerun to resume")
            ledger.record(outcome)
            tally.finish(spec, outcome)
            ran += 1
            bar.update()

        with ProgressBar(tally, enabled=progress, title=config.kind) as bar:
            if todo:
                executor.run(todo, config, out_dir, on_start=lambda s: ledger.mark_running(s.key), on_done=on_done)
    return CampaignSummary(
        out=str(out_dir), kind=config.kind, runs=len(specs), skipped=len(specs) - len(todo), ran=ran,
        repaired=tally.status["repaired"], failed=tally.status["failed"], crashed=tally.status["crashed"],
        unsupported=tally.status["unsupported"],
        tokens=tally.tokens, wall_s=round(time.monotonic() - t0, 3), operators=len(tally.ops_total),
        executor=getattr(executor, "name", type(executor).__name__), jobs=getattr(executor, "jobs", 1),
    )
