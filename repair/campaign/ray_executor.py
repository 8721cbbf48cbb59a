"""The Ray executor: one task per operator, on a cluster (`--address`) or a local Ray started for the campaign.

A task gets its operator's problem and candidate files as data (nodes need not share a filesystem
for them; a scripted worker's script and a --kb path must be readable at the same path on every
node), runs that operator's runs one after another with the local executor (so each run keeps its
own process, its sandboxed evaluations and its crash isolation), and hands back every file it wrote.
The driver writes them under DIR/runs/ exactly where a local campaign would, and records the outcomes.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections import OrderedDict
from pathlib import Path
from typing import Callable

from repair.campaign.outcome import RunOutcome
from repair.campaign.spec import CampaignConfig, RunSpec
from repair.errors import EnvironmentMissing

MAX_RUN_FILES_BYTES = 64 << 20


class RayExecutor:
    name = "ray"

    def __init__(self, jobs: int = 1, address: str | None = None):
        self.jobs = max(1, int(jobs))
        self.address = address

    def run(self, specs: list[RunSpec], config: CampaignConfig, out_dir: Path, *,
            on_start: Callable[[RunSpec], None], on_done: Callable[[RunSpec, RunOutcome], None]) -> None:
        ray = _import_ray()
        started_here = not ray.is_initialized()
        if started_here:
            _init(ray, self.address, self.jobs)
        task = ray.remote(num_cpus=1, max_retries=0)(operator_task)
        groups: OrderedDict[str, list[RunSpec]] = OrderedDict()
        for s in specs:
            groups.setdefault(s.operator_id, []).append(s)
        refs = {}
        try:
            for op_id, group in groups.items():
                for s in group:
                    on_start(s)
                refs[task.remote(_payload(group), config.model_dump_json(by_alias=True))] = op_id
            while refs:
                done, _ = ray.wait(list(refs), num_returns=1, timeout=0.5)
                for ref in done:
                    group = groups[refs.pop(ref)]
                    self._collect(ray, ref, group, out_dir, on_done)
        except BaseException:
            for ref in refs:
                ray.cancel(ref, force=True)
            raise
        finally:
            if started_here:
                ray.shutdown()

    def _collect(self, ray, ref, group: list[RunSpec], out_dir: Path, on_done) -> None:
        by_key = {s.key: s for s in group}
        try:
            results = ray.get(ref)
        except Exception as e:  # noqa: BLE001 - a dead task (node lost, worker killed) fails its runs, not the campaign
            reason = f"the Ray task for operator {group[0].operator_id} failed: {type(e).__name__}: {str(e)[:300]}"
            for s in group:
                on_done(s, RunOutcome(key=s.key, status="crashed", stop_reason=reason, error=reason))
            return
        for key, outcome_json, files in results:
            _write_files(Path(out_dir), by_key[key], files)
            on_done(by_key.pop(key), RunOutcome.model_validate_json(outcome_json))
        for s in by_key.values():
            reason = "the Ray task returned no outcome for this run"
            on_done(s, RunOutcome(key=s.key, status="crashed", stop_reason=reason, error=reason))


def operator_task(payload: list[dict], config_json: str) -> list[tuple[str, str, dict[str, bytes]]]:
    """Runs on a Ray worker: materialise the operator's files, run its runs, return (key, outcome, files)."""
    from provenance.offline import apply_offline_env
    from repair.campaign.local import LocalExecutor

    apply_offline_env()
    config = CampaignConfig.model_validate_json(config_json)
    tmp = Path(tempfile.mkdtemp(prefix="campaign-task-"))
    try:
        specs = [_materialise(p, tmp / "inputs") for p in payload]
        out = tmp / "out"
        results = []

        def done(spec: RunSpec, outcome: RunOutcome) -> None:
            results.append((spec.key, outcome.model_dump_json(), _read_files(out, spec)))

        LocalExecutor(jobs=1).run(specs, config, out, on_start=lambda s: None, on_done=done)
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _payload(group: list[RunSpec]) -> list[dict]:
    out = []
    for s in group:
        out.append({
            "key": s.key, "operator_id": s.operator_id, "family": s.family, "trial": s.trial,
            "problem": (s.problem.name, s.problem.read_bytes()),
            "candidate": (s.candidate.name, s.candidate.read_bytes()) if s.candidate else None,
        })
    return out


def _materialise(p: dict, base: Path) -> RunSpec:
    d = base / p["operator_id"]
    d.mkdir(parents=True, exist_ok=True)
    problem = d / p["problem"][0]
    problem.write_bytes(p["problem"][1])
    candidate = None
    if p["candidate"] is not None:
        candidate = d / p["candidate"][0]
        candidate.write_bytes(p["candidate"][1])
    return RunSpec(p["key"], p["operator_id"], p["family"], problem, candidate, p["trial"])


def _read_files(out: Path, spec: RunSpec) -> dict[str, bytes]:
    from repair.campaign.execute import run_dir_of

    run_dir = run_dir_of(out, spec)
    files, size = {}, 0
    for f in sorted(run_dir.rglob("*")) if run_dir.is_dir() else []:
        if f.is_file() and not f.name.endswith(".tmp"):
            data = f.read_bytes()
            size += len(data)
            if size > MAX_RUN_FILES_BYTES:
                break
            files[str(f.relative_to(out))] = data
    return files


def _write_files(out_dir: Path, spec: RunSpec, files: dict[str, bytes]) -> None:
    from repair.campaign.execute import run_dir_of

    shutil.rmtree(run_dir_of(out_dir, spec), ignore_errors=True)  # leftovers of an interrupted earlier try
    root = out_dir.resolve()
    for rel, data in files.items():
        path = (root / rel).resolve()
        if root not in path.parents:  # a task's file names are data: never write outside DIR
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _import_ray():
    try:
        import ray
    except ImportError:
        raise EnvironmentMissing("--executor ray needs Ray: pip install 'nearmiss-repair[ray]'") from None
    return ray


def _init(ray, address: str | None, jobs: int) -> None:
    env = {k: v for k, v in os.environ.items() if k in ("TRITON_INTERPRET", "HF_HUB_OFFLINE", "KB_PATH", "KB_EMBEDDER")}
    try:
        if address:
            ray.init(address=address, runtime_env={"env_vars": env}, log_to_driver=False)
        else:
            # a local Ray's workers inherit this process's environment
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        raise EnvironmentMissing(f"cannot start or reach {where}: {e}") from None
