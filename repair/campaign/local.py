"""The local executor: one process per run, at most `jobs` at a time, forked from a pre-imported fork server.

A process per run (not a pool) so that a run which dies (a signal, the OOM killer, a hard timeout)
takes only itself down and becomes a `crashed` outcome; the others carry on. Each run process puts
itself in its own process group (so a timeout kills what it started) and holds the read end of a
lifeline pipe whose only writer is the campaign: when the campaign dies, even by SIGKILL, the read
returns EOF and the run kills its own group, so no run keeps writing into DIR behind a resumed campaign.
(The fork server cannot do this for us: every process it forks holds its liveness pipe open.)
Library callers: as with any multiprocessing fork server, a script that runs a campaign must keep its
work under `if __name__ == "__main__":` (the `repair` command does).

A run is an engine: left to itself it would start its own sandbox fork server and import torch and
triton (~1 s) before its first case. With two runs or more the executor starts one shared fork server
(`repair server`) in a private directory for the campaign's runs, and stops it at the end.
"""
from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from repair.campaign.outcome import RunOutcome
from repair.campaign.spec import CampaignConfig, RunSpec
from repair.campaign.summarize import summarize

PRELOAD = ["repair.campaign._preload_private", "repair.campaign.execute", "repair.loop.algorithm",
           "repair.engine.harness"]
TIMEOUT_MARGIN_S = 120.0
SERVER_IDLE_S = 60.0  # the runs' shared fork server, which ends with the campaign, also ends this long after its last run


def run_timeout(config: CampaignConfig) -> float:
    if config.run_timeout_s:
        return config.run_timeout_s
    from repair.loop import Bounds

    wall = Bounds(**config.bounds).wall_s
    return wall * 1.25 + TIMEOUT_MARGIN_S


class LocalExecutor:
    name = "local"

    def __init__(self, jobs: int = 1):
        self.jobs = max(1, int(jobs))

    def run(self, specs: list[RunSpec], config: CampaignConfig, out_dir: Path, *,
            on_start: Callable[[RunSpec], None], on_done: Callable[[RunSpec, RunOutcome], None]) -> None:
        import multiprocessing as mp

        _private_helpers()
        ctx = mp.get_context("forkserver")
        retrieves = (config.kb or config.snapshot) and "no-kb" not in config.ablations
        ctx.set_forkserver_preload(PRELOAD + (["repair.campaign._preload_retrieval"] if retrieves else []))
        pending = deque(specs)
        active: dict[int, _Active] = {}
        limit = run_timeout(config)
        lifeline, lifeline_w = ctx.Pipe(duplex=False)
        try:
            with _runs_fork_server(config.backend, len(specs)) as server_dir:
                while pending or active:
                    while pending and len(active) < self.jobs:
                        spec = pending.popleft()
                        on_start(spec)
                        active_run = _Active.start(ctx, spec, config, out_dir, limit, lifeline, server_dir)
                        active[active_run.proc.sentinel] = active_run
                    self._wait(active, out_dir, config, on_done)
        except BaseException:
            for a in active.values():
                a.kill()
            raise
        finally:
            lifeline_w.close()
            lifeline.close()

    def _wait(self, active: dict, out_dir: Path, config: CampaignConfig, on_done) -> None:
        from multiprocessing.connection import wait

        waitables = [a.conn for a in active.values()] + [a.proc.sentinel for a in active.values()]
        ready = set(wait(waitables, timeout=0.5))
        now = time.monotonic()
        for sentinel, a in list(active.items()):
            if a.conn in ready:
                a.receive()
            if sentinel in ready or now > a.deadline:
                if sentinel not in ready:
                    a.kill()
                    a.reason = f"killed after the run's hard limit of {a.limit:g} s"
                a.finish()
                del active[sentinel]
                on_done(a.spec, a.outcome or _crashed(a, out_dir, config))


class _Active:
    def __init__(self, spec, proc, conn, limit):
        self.spec, self.proc, self.conn, self.limit = spec, proc, conn, limit
        self.deadline = time.monotonic() + limit
        self.outcome: RunOutcome | None = None
        self.reason: str | None = None

    @classmethod
    def start(cls, ctx, spec, config, out_dir, limit, lifeline, server_dir: str | None) -> _Active:
        reader, writer = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(spec, config, str(out_dir), writer, lifeline, server_dir),
                           name=f"run:{spec.key}", daemon=False)
        proc.start()
        writer.close()
        return cls(spec, proc, reader, limit)

    def receive(self) -> None:
        try:
            self.outcome = RunOutcome.model_validate_json(self.conn.recv_bytes())
        except (EOFError, OSError):
            pass
        except ValueError as e:
            self.reason = f"the run process sent an unreadable outcome ({e})"

    def finish(self) -> None:
        if self.outcome is None and self.conn.poll():
            self.receive()
        self.proc.join(timeout=5)
        self.conn.close()
        if self.outcome is None and self.reason is None:
            code = self.proc.exitcode
            self.reason = (f"the run process died of signal {signal.Signals(-code).name}" if code is not None and code < 0
                           else f"the run process exited with status {code} without an outcome")

    def kill(self) -> None:
        pid = self.proc.pid
        if pid is None:
            return
        try:
            os.killpg(pid, signal.SIGKILL)  # the run and everything it started
        except ProcessLookupError:
            pass
        except PermissionError:
            self.proc.kill()


def _crashed(a: _Active, out_dir: Path, config: CampaignConfig) -> RunOutcome:
    from repair.campaign.execute import run_dir_of

    return summarize(a.spec.key, run_dir_of(out_dir, a.spec), Path(out_dir),
                     full_shadow="no-full-tier" in config.ablations, crashed=a.reason)


@contextmanager
def _runs_fork_server(backend: str, runs: int):
    """A shared fork server for the runs, in a fresh private directory (yielded; the runs look there), stopped and
    removed at the end. None for a single run (it would gain nothing) or when the server cannot start: each run
    then starts its own, and reports what is missing itself."""
    if runs < 2:
        yield None
        return
    from repair.engine import shared_server
    from repair.errors import BadInput, EnvironmentMissing

    # short: a Unix socket path has 107 bytes, and the socket's name takes ~40 beneath this directory's ~22;
    # a long TMPDIR (a test runner's, macOS's /var/folders/...) gives way to /tmp
    base = tempfile.gettempdir()
    if len(os.fsencode(base)) > shared_server.SOCKET_PATH_MAX - 64 and os.path.isdir("/tmp"):
        base = "/tmp"
    d = tempfile.mkdtemp(prefix="repair-runs-", dir=base)
    try:
        try:
            shared_server.start(backend, idle_s=SERVER_IDLE_S, directory=d, with_caller=True)
            started = True
        except (BadInput, EnvironmentMissing):
            started = False
        yield d if started else None
    finally:
        shared_server.stop(directory=d)
        shutil.rmtree(d, ignore_errors=True)


def _private_helpers() -> None:
    """This process, and multiprocessing's resource tracker, hold no key anyone else of this user can read: this
    process is made not dumpable (provenance.runtime.hide_environment; the fork server does the same for itself,
    _preload_private), and the tracker, which needs no key, starts without the secret-named variables (an exec'd
    helper is dumpable again, so it must not hold them at all)."""
    from multiprocessing import resource_tracker

    from provenance.redact import is_secret_name
    from provenance.runtime import hide_environment

    hide_environment()
    held = {k: v for k, v in os.environ.items() if is_secret_name(k)}
    try:
        for k in held:
            del os.environ[k]
        resource_tracker.ensure_running()
    finally:
        os.environ.update(held)


def _child(spec: RunSpec, config: CampaignConfig, out_dir: str, conn, lifeline, server_dir: str | None) -> None:
    from provenance.offline import apply_offline_env

    os.setpgid(0, 0)
    if server_dir is not None:
        os.environ["REPAIR_SERVER_DIR"] = server_dir  # the campaign's shared fork server
    _watch(lifeline)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the campaign decides what an interrupt means
    apply_offline_env()
    from repair.campaign.execute import execute_run

    outcome = execute_run(spec, config, Path(out_dir))
    conn.send_bytes(outcome.model_dump_json().encode())
    conn.close()


def _watch(lifeline) -> None:
    """Kill this run's process group once the campaign is gone (EOF on the lifeline: no writer left)."""
    import threading

    def wait() -> None:
        try:
            lifeline.recv_bytes()
        except (EOFError, OSError):
            pass
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=wait, name="campaign-lifeline", daemon=True).start()
