"""`repair`: the command line. Each command parses, calls one library function and prints.

Nothing heavy is imported here: `repair --help` must stay instant.
"""
from __future__ import annotations

import sys

import click

from repair.errors import RepairError


class RepairGroup(click.Group):
    """Maps the tool's typed errors to exit codes, in one place (0 ok, 1 check failed, 2 bad input, 3 environment)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except RepairError as e:
            click.echo(f"error: {e}", err=True)
            ctx.exit(e.exit_code)
        except Exception as e:  # errors of sibling packages carry an exit_code too (kbstore.errors)
            code = getattr(e, "exit_code", None)
            if not isinstance(code, int) or type(e).__module__.split(".")[0] not in ("kbstore", "ingest", "provenance"):
                raise
            click.echo(f"error: {e}", err=True)
            ctx.exit(code)


@click.group(cls=RepairGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nearmiss-repair", message="%(version)s")
def cli() -> None:
    """Evaluate and repair near-miss accelerator kernels."""


def _policy_option():
    return click.option("--policy", type=click.Choice(["strict", "epilogue"]), default="strict", show_default=True,
                        help="Integrity policy: strict (the method's protocol) fails policy findings (a framework "
                             "epilogue over kernel outputs, an input updated in place); epilogue reports them. "
                             "Recorded in the verdict and the record.")


def _backend_option():
    from repair.engine import DEFAULT_BACKEND

    return click.option("--backend", envvar="REPAIR_BACKEND", show_envvar=True, default=DEFAULT_BACKEND,
                        show_default=True, help="triton-cpu, cuda, npu or ascendc-cpu.")


class CodeDefault(click.Option):
    """An option whose default is a constant of the code (`value_from="module:NAME.attr"`), read when the command
    runs or its help is shown: help never states a stale default, and `repair --help` imports nothing heavy.
    In `help`, "{default}" is replaced by the value; `as_default=False` only states it (the option's own default
    stays None, e.g. a budget that depends on the backend)."""

    def __init__(self, *args, value_from: str, as_default: bool = True, **kwargs):
        self._value_from, self._as_default = value_from, as_default
        super().__init__(*args, default=None, **kwargs)

    def code_value(self):
        from importlib import import_module

        module, _, path = self._value_from.partition(":")
        value = import_module(module)
        for part in path.split("."):
            value = getattr(value, part)
        return value

    def get_default(self, ctx, call=True):
        return self.code_value() if self._as_default else None

    def get_help_record(self, ctx):
        value = self.code_value()
        text = f"{value:g}" if isinstance(value, float) else str(value)
        if self.help and "{default}" in self.help:
            self.help = self.help.replace("{default}", text)
        elif self._as_default and "[default: " not in (self.help or ""):
            self.help = f"{self.help or ''}  [default: {text}]".strip()
        return super().get_help_record(ctx)


class IsoTime(click.ParamType):
    """An ISO 8601 time with a zone (2026-11-30T00:00:00Z); anything else is a usage error naming the option."""

    name = "TIME"

    def convert(self, value, param, ctx):
        from datetime import datetime

        if not isinstance(value, str):
            return value
        try:
            t = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            self.fail(f"{value!r} is not an ISO 8601 time (2026-11-30T00:00:00Z)", param, ctx)
        if t.tzinfo is None:
            self.fail(f"{value!r} has no time zone (write 2026-11-30T00:00:00Z)", param, ctx)
        return t


_frozen_at_option = click.option(
    "--frozen-at", "frozen_at", type=IsoTime(), default=None,
    help="The cohort manifest's frozen_at: when the cohort really froze [default: now]. kb freeze excludes what "
         "was first ingested after it (the starter patterns shipped with the tool are dated by their records).")


_AUTO_BACKEND_HELP = ("triton-cpu, cuda, npu or ascendc-cpu (default: $REPAIR_BACKEND, else triton-cpu; an AscendC "
                      "candidate: ascendc-cpu, the CPU emulation, unless $REPAIR_BACKEND names an AscendC backend).")


@cli.command("eval")
@click.argument("problem", type=click.Path(dir_okay=False))
@click.argument("candidates", metavar="CANDIDATE...", nargs=-1, required=True, type=click.Path())
@click.option("--tier", type=click.Choice(["compact", "full"]), default="full", show_default=True,
              help="compact: the cases marked compact; full: every case.")
@click.option("--backend", default=None, help=_AUTO_BACKEND_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the EvalResult as JSON.")
@click.option("--seed", type=int, default=None, help="Evaluation seed (default: fresh and random).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds per case before the candidate is killed.")
@click.option("--mem-limit", "mem_limit_mb", type=click.IntRange(min=64), default=4096, show_default=True,
              help="MB the candidate process may allocate.")
@click.option("--rule-off", "rules_off", multiple=True, metavar="NAME",
              help="Switch an integrity rule off (repeatable; `static.*`, `runtime.*` accepted).")
@click.option("--no-integrity", is_flag=True, help="Numerics only: skip the static scan and runtime guards.")
@_policy_option()
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Candidates evaluated at a time (their forwards then share the machine).")
@click.option("--time", "timed", is_flag=True,
              help="cuda, npu: time the tier's largest case as KernelBench does (warm-up, 100 trials with device "
                   "events; the reference and torch.compile too). CPU backends never report timings.")
def eval_cmd(problem, candidates, tier, backend, as_json, seed, timeout_s, mem_limit_mb, rules_off, no_integrity,
             policy, jobs, timed):
    """Evaluate each CANDIDATE (defines ModelNew) against PROBLEM (defines Model, get_inputs).

    Several candidates share one fork server and its warm reference processes: `repair eval p.py out/*.py`
    (PROBLEM among them is skipped); `--jobs N` evaluates N at a time, results still in argument order.
    With --json, one candidate prints one JSON object; several print one object per line (JSON Lines).
    Exit 0 when every case of the tier passes and integrity is clean (for every candidate), 1 when not,
    2 for bad input (any file; nothing is evaluated then), 3 when the backend is missing or cannot run what a
    candidate uses (`unsupported`: an AscendC API ascendc-cpu does not emulate) and nothing else failed.
    """
    from pathlib import Path

    from repair.engine import prestart
    from repair.loop import backend_for

    if backend is None:  # the rule `repair run` and `repair campaign` follow: AscendC candidates run on AscendC
        picked = {backend_for(Path(c)) for c in candidates if Path(c).resolve() != Path(problem).resolve()}
        backend = picked.pop() if len(picked) == 1 else backend_for(Path(problem))
    prestart(backend)  # torch and triton import in the fork server while the engine imports its own modules

    from repair.engine import (check_candidate_file, check_problem_file, evaluate_many, render_summary, render_table,
                               speed_lines)

    check_problem_file(problem)
    same = Path(problem).resolve()  # `repair eval op/problem.py op/*.py`: the glob names the problem too
    candidates = [c for c in candidates if Path(c).resolve() != same] or list(candidates)
    for candidate in candidates:  # every file checked before the first evaluation
        check_candidate_file(candidate)
    results = []
    for result in evaluate_many([(problem, c) for c in candidates], jobs=min(jobs, len(candidates)), tier=tier,
                                backend=backend, seed=seed, timeout_s=timeout_s, mem_limit_mb=mem_limit_mb,
                                rules_off=rules_off, integrity=not no_integrity, policy=policy, timed=timed):
        results.append(result)
        if as_json:
            click.echo(result.to_json() if len(candidates) == 1 else result.model_dump_json(by_alias=True))
        else:
            click.echo(("\n" if len(results) > 1 else "") + render_table(result))
            for line in speed_lines(result) if timed else ():
                click.echo(line)
    if len(candidates) > 1 and not as_json:
        click.echo("\n" + render_summary(results))
    if all(r.passed for r in results):
        sys.exit(0)
    for r in results:
        if r.load_error:
            click.echo(f"error: {r.load_error}", err=True)
    if any(r.load_error for r in results):
        sys.exit(2)
    if all(r.passed or r.unsupported for r in results):  # an AscendC API ascendc-cpu lacks: not judged here
        sys.exit(3)
    limits = [r for r in results if any(c.status == "unsupported-on-interpreter" for c in r.cases)]
    if limits and all(r.integrity.verdict == "clean" and all(c.status in ("pass", "unsupported-on-interpreter")
                                                             for c in r.cases) for r in results):
        click.echo("error: a kernel uses a construct the Triton interpreter cannot run (see the cases); the backend, "
                   "not the kernel, is missing", err=True)
        sys.exit(3)
    sys.exit(1)


@cli.command("check")
@click.argument("problem", type=click.Path(dir_okay=False))
@click.argument("candidate", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the IntegrityVerdict as JSON.")
@click.option("--rule-off", "rules_off", multiple=True, metavar="NAME",
              help="Switch an integrity rule off (repeatable; `static.*` accepted); the verdict records it.")
@_policy_option()
def check_cmd(problem, candidate, as_json, rules_off, policy):
    """Static integrity scan of CANDIDATE against PROBLEM.

    CANDIDATE is a Triton .py, or an AscendC candidate: a MultiKernelBench six-source .py, a direct-launch
    .json or an NPUKernelBench directory (op_host/, op_kernel/); its chain from ModelNew.forward to a kernel
    launch is checked link by link. Exit 0 clean, 1 violation, 2 bad input (unparsable candidate, no ModelNew,
    unknown rule, a malformed AscendC source).
    """
    from repair.integrity import render_verdict, scan

    verdict = scan(problem, candidate, rules_off=rules_off, policy=policy)
    click.echo(verdict.model_dump_json(indent=2) if as_json else render_verdict(verdict, candidate))
    sys.exit(0 if verdict.verdict == "clean" else 1)


@cli.command("run")
@click.argument("problem", type=click.Path(dir_okay=False))
@click.argument("candidate", type=click.Path())
@click.option("--kb", type=click.Path(file_okay=False), default=None, help="Retrieve patterns from this knowledge base.")
@click.option("--snapshot", default=None, metavar="ID", help="Retrieve from a frozen snapshot (id, prefix or name; looked up in --kb, else $KB_PATH).")
@click.option("--eval-mode", is_flag=True, help="Refuse unless the snapshot's excluded cohort contains this operator.")
@click.option("--worker", default="scripted", show_default=True, help="Worker name (scripted, litellm, rules, ...).")
@click.option("--model", default=None, help="Model string for the litellm worker (fakellm/NAME: the scripted model).")
@click.option("--script", type=click.Path(exists=True), default=None,
              help="scripted worker: steps (YAML/JSON file or directory); fakellm/ models: the replies.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write final.py (AscendC: final.bundle and the candidate in its own format), trajectory.jsonl "
                   "and record.json here.")
@click.option("--max-attempts", cls=CodeDefault, value_from="repair.loop.bounds:Bounds.attempts", type=click.IntRange(min=1),
              help="Candidates judged (patch check, gate, evaluation) before the run stops.")
@click.option("--max-turns", cls=CodeDefault, value_from="repair.loop.bounds:Bounds.turns", type=click.IntRange(min=1),
              help="Worker model calls before the run stops.")
@click.option("--max-tokens", cls=CodeDefault, value_from="repair.loop.bounds:Bounds.tokens", type=click.IntRange(min=1),
              help="Prompt + completion tokens before the run stops (checked before each call).")
@click.option("--max-wall", "max_wall_s", cls=CodeDefault, value_from="repair.loop.bounds:Bounds.wall_s",
              type=click.FloatRange(min=0.1),
              help="Seconds of wall clock for the whole run.")
@click.option("--backend", default=None, help=_AUTO_BACKEND_HELP)
@click.option("--seed", type=int, default=None, help="Evaluation seed for the whole run (default: random, recorded).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds per case before the candidate is killed.")
@click.option("--rule-off", "rules_off", multiple=True, metavar="NAME",
              help="Switch an integrity rule off (repeatable); recorded in the integrity history.")
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="Patterns retrieved per query.")
@_policy_option()
@click.option("--keep-speed", "keep_speed", type=click.FloatRange(min=1.0), default=None, metavar="F",
              help="Refuse an attempt more than F times slower than the near-miss (cuda, npu: median device time), "
                   "or, on the CPU backends, one the parallelism guard flags.")
@click.option("--parallelism-factor", type=click.FloatRange(min=1.0), default=4.0, show_default=True,
              help="Flag an attempt that cuts the near-miss's programs, elements per program or warps by more "
                   "than this factor.")
@click.option("--json", "as_json", is_flag=True, help="Print the run summary as JSON.")
def run_cmd(problem, candidate, kb, snapshot, eval_mode, worker, model, script, out, max_attempts, max_turns,
            max_tokens, max_wall_s, backend, seed, timeout_s, rules_off, k, policy, keep_speed, parallelism_factor,
            as_json):
    """Repair CANDIDATE against PROBLEM within hard bounds; the worker proposes, the engine decides.

    Exit 0 repaired, 1 not repaired within the bounds, 2 bad input, 3 environment missing.
    """
    import json
    from pathlib import Path

    from repair.loop import Bounds, backend_for
    from repair.engine import prestart

    backend = backend_for(Path(candidate), backend)
    prestart(backend)
    from repair.loop import SpeedOptions, repair_run, summary
    from repair.loop import ending_lines, run_progress

    with run_progress(enabled=not as_json):  # each step on stderr: the loop is never silent for a minute
        outcome = repair_run(Path(problem), Path(candidate), worker=worker, model=model,
                             script=Path(script) if script else None, kb=Path(kb) if kb else None, snapshot=snapshot,
                             eval_mode=eval_mode, out=Path(out) if out else None,
                             bounds=Bounds(attempts=max_attempts, turns=max_turns, tokens=max_tokens,
                                           wall_s=max_wall_s),
                             backend=backend, seed=seed, k=k, timeout_s=timeout_s, rules_off=rules_off, policy=policy,
                             speed=SpeedOptions(keep=keep_speed, factor=parallelism_factor))
    info = summary(outcome)
    if as_json:
        click.echo(json.dumps(info, indent=2, sort_keys=True))
    else:
        from repair.progress import fold

        head = (f"{info['status']}: {info['attempts']} attempts ({', '.join(info['outcomes']) or 'none'}), "
                f"{info['tokens']['total_tokens']} tokens, best attempt {info['best_attempt']}"
                + (f"; outputs in {info['out']}" if info["out"] else "")
                + (f" [AscendC on {backend}, emulated]" if info["emulated"] else ""))
        for line in [head, *ending_lines(outcome, worker)]:
            click.echo("\n".join(fold(line)))
        for line in info["speed_flags"]:
            click.echo(f"speed: {line}", err=True)
    sys.exit(outcome.exit_code)


# -- campaigns, the regeneration baseline and reports ------------------------------------------------

def _bounds_options(f):
    for opt in reversed([
        click.option("--max-attempts", type=click.IntRange(min=1), default=None, help="Per run (default: the loop's)."),
        click.option("--max-turns", type=click.IntRange(min=1), default=None, help="Per run (default: the loop's)."),
        click.option("--max-tokens", type=click.IntRange(min=1), default=None, help="Per run (default: the loop's)."),
        click.option("--max-wall", "max_wall_s", type=click.FloatRange(min=0.1), default=None,
                     help="Seconds per run (default: the loop's); a run's process is killed at 1.25x this plus 2 min."),
    ]):
        f = opt(f)
    return f


def _executor_options(f):
    for opt in reversed([
        click.option("--out", required=True, type=click.Path(file_okay=False),
                     help="Campaign directory: ledger (campaign.duckdb) and runs/; rerun to resume."),
        click.option("--worker", default="scripted", show_default=True, help="Worker name (scripted, litellm, rules, ...)."),
        click.option("--model", default=None, help="Model string for the litellm worker."),
        click.option("--script", type=click.Path(exists=True), default=None,
                     help="scripted worker: one script for every run, or a directory of <op>/<candidate>.yaml."),
        click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Runs at a time."),
        click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                     help="local: a process per run; ray: a task per operator."),
        click.option("--address", default=None, help="Ray cluster address (default: start a local Ray)."),
        click.option("--backend", default=None,
                     help="triton-cpu, cuda, npu or ascendc-cpu (default: $REPAIR_BACKEND, else triton-cpu; for a "
                          "cohort of AscendC candidates, ascendc-cpu unless $REPAIR_BACKEND is npu)."),
        click.option("--retry-crashed", is_flag=True, help="Run crashed runs again (otherwise they count as failed)."),
        click.option("--json", "as_json", is_flag=True, help="Print the campaign summary as JSON (no progress bar)."),
    ]):
        f = opt(f)
    return f


def _bounds(max_attempts, max_turns, max_tokens, max_wall_s) -> dict:
    given = {"attempts": max_attempts, "turns": max_turns, "tokens": max_tokens, "wall_s": max_wall_s}
    return {k: v for k, v in given.items() if v is not None}


def _run_campaign(config, specs, out, executor, jobs, address, retry_crashed, as_json) -> None:
    import json
    from pathlib import Path

    from repair.campaign import make_executor, run_campaign

    try:
        summary = run_campaign(config, specs, Path(out), executor=make_executor(executor, jobs, address),
                               progress=not as_json, retry_crashed=retry_crashed)
    except KeyboardInterrupt:
        click.echo(f"interrupted: rerun the same command to finish the campaign in {out}", err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps(summary.as_dict(), indent=2, sort_keys=True))
    else:
        click.echo(f"{summary.kind} campaign in {summary.out}: {summary.runs} runs ({summary.skipped} already done), "
                   f"{summary.repaired} repaired, {summary.failed} failed, {summary.crashed} crashed, "
                   + (f"{summary.unsupported} unsupported (not judged here), " if summary.unsupported else "")
                   + f"{summary.tokens:,} tokens, {summary.wall_s:.1f} s; `repair report {summary.out}` for the numbers")


_allow_outside_option = click.option(
    "--allow-outside", is_flag=True,
    help="Accept cohort files that resolve outside the manifest's directory (or its project root).")


@cli.command("campaign")
@click.argument("manifest", type=click.Path(dir_okay=False))
@click.option("--kb", type=click.Path(file_okay=False), default=None, help="Retrieve patterns from this knowledge base.")
@click.option("--snapshot", default=None, metavar="ID", help="Retrieve from a frozen snapshot (id, prefix or name; looked up in --kb, else $KB_PATH).")
@click.option("--ablate", "ablations", multiple=True, metavar="NAME",
              help="Repeatable: no-kb, no-diagnostics, integrity-off, no-full-tier (full tier kept as a shadow).")
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="Patterns retrieved per query.")
@_allow_outside_option
@_policy_option()
@_executor_options
@_bounds_options
def campaign_cmd(manifest, kb, snapshot, ablations, k, allow_outside, policy, out, worker, model, script, jobs, executor,
                 address, backend, retry_crashed, as_json, max_attempts, max_turns, max_tokens, max_wall_s):
    """Repair every near-miss of a cohort MANIFEST (every listed file but problem.py; the files of an NPUKernelBench
    task directory are one candidate), in parallel, resumably.

    Results go to OUT/campaign.duckdb and OUT/runs/<operator>/<candidate>/ (so `kb ingest OUT` takes the
    records). Exit 0 when every run finished (repaired or not), 2 bad input, 3 environment missing.
    """
    from pathlib import Path

    from repair.campaign import debug_config

    config, specs = debug_config(Path(manifest), worker=worker, model=model, script=Path(script) if script else None,
                                 kb=Path(kb) if kb else None, snapshot=snapshot, ablations=ablations, k=k,
                                 bounds=_bounds(max_attempts, max_turns, max_tokens, max_wall_s), backend=backend,
                                 allow_outside=allow_outside, policy=policy)
    _run_campaign(config, specs, out, executor, jobs, address, retry_crashed, as_json)


@cli.command("regenerate")
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--trials", type=click.IntRange(min=1), default=3, show_default=True, help="Independent generations.")
@_allow_outside_option
@_executor_options
@_bounds_options
def regenerate_cmd(problem, trials, allow_outside, out, worker, model, script, jobs, executor, address, backend,
                   retry_crashed, as_json, max_attempts, max_turns, max_tokens, max_wall_s):
    """The baseline: TRIALS fresh generations from PROBLEM (a problem.py, or a cohort manifest for all its operators).

    The worker gets only the problem; each generation is judged like a repair (integrity gate, compact and
    full tier). Resumable like a campaign; `repair report OUT` gives Pass@1 and Pass@K.
    """
    from pathlib import Path

    from repair.campaign import regenerate_config

    config, specs = regenerate_config(Path(problem), trials, worker=worker, model=model,
                                      script=Path(script) if script else None,
                                      bounds=_bounds(max_attempts, max_turns, max_tokens, max_wall_s), backend=backend,
                                      allow_outside=allow_outside)
    _run_campaign(config, specs, out, executor, jobs, address, retry_crashed, as_json)


@cli.command("report")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--html", "html", type=click.Path(dir_okay=False), default=None, help="Also write a self-contained HTML page.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON instead of Markdown.")
def report_cmd(dirs, html, as_json):
    """Pass rates (Wilson 95%), tokens per success, gate rejections of campaign DIRS; each later one paired with the first."""
    from repair.report import write_report

    report, markdown = write_report(dirs, html=html)
    click.echo(report.to_json() if as_json else markdown, nl=not as_json)


@cli.group("import", cls=RepairGroup)
def import_group() -> None:
    """Turn other benchmarks' tasks into problems and candidates of this tool."""


@import_group.command("npukernelbench")
@click.argument("tasks", metavar="TASK_DIR...", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Write DIR/<task>/problem.py, DIR/<task>/candidate/ and DIR/cohort.yaml here.")
@click.option("--candidate", type=click.Path(file_okay=False), default=None,
              help="Another solution (op_host/, op_kernel/) instead of the task's answer/0 (one TASK_DIR only).")
@click.option("--family", default=None, help="Operator family for every task (default: the task's category directory).")
@click.option("--cohort", default="npukernelbench", show_default=True, help="The cohort manifest's name.")
@_frozen_at_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per imported task.")
def import_npukernelbench_cmd(tasks, out, candidate, family, cohort, frozen_at, as_json):
    """Import NPUKernelBench task directories (validation/{module.py, pybind.cpp, prepare_inputs.py,
    test_cases.csv} beside answer/<n>/{op_host,op_kernel}) as problems of this tool.

    Each TASK_DIR becomes OUT/<task>/problem.py (the reference Model without its NPU-only imports, inputs from
    prepare_inputs.py, CASES from test_cases.csv in a compact and a full tier, the task's tolerance) and
    OUT/<task>/candidate/; OUT/cohort.yaml lists them. Exit 0 imported, 2 bad input (nothing written then).
    """
    import json
    from pathlib import Path

    from repair.ascendc import import_tasks

    done, manifest = import_tasks([Path(t) for t in tasks], Path(out), candidate=Path(candidate) if candidate else None,
                                  family=family, cohort=cohort, frozen_at=frozen_at)
    for t in done:
        if as_json:
            click.echo(json.dumps(t.as_dict(), sort_keys=True))
        else:
            click.echo(f"{t.task}: {t.problem} ({t.compact} compact of {t.full} cases), {t.candidate}")
            for note in t.notes:
                click.echo(f"  note: {note}")
    if not as_json:
        click.echo(f"cohort manifest: {manifest}")


@import_group.command("kernelbench")
@click.argument("files", metavar="PROBLEM_FILE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Write DIR/<name>/problem.py, the file's copy, meta.yaml and DIR/cohort.yaml here.")
@click.option("--scale", default="auto", show_default=True,
              help="auto: scale the compact case to the budget; F in (0, 1]: multiply each size constant by F.")
@click.option("--full-cases", type=click.IntRange(min=0), default=8, show_default=True,
              help="At most this many full-tier cases (odd sizes, past a power of two, strided, a size of 1).")
@_backend_option()
@click.option("--budget", "elements", cls=CodeDefault, value_from="repair.kernelbench.model:CPU_BUDGET.elements",
              as_default=False, type=click.IntRange(min=1),
              help="Elements (inputs + outputs) a compact case may have [default: {default} on triton-cpu, "
                   "upstream's shape on cuda/npu].")
@click.option("--flops", cls=CodeDefault, value_from="repair.kernelbench.model:CPU_BUDGET.flops", as_default=False,
              type=click.IntRange(min=1), help="Reference FLOPs a compact case may take [default: {default} on triton-cpu].")
@click.option("--family", default=None, help="Operator family for every problem (default: kernelbench-<level dir>).")
@click.option("--cohort", default="kernelbench", show_default=True, help="The cohort manifest's name.")
@_frozen_at_option
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1), default=300.0, show_default=True,
              help="Seconds to derive and check one problem's cases (its code runs in a probe process).")
@click.option("--mem-limit", "mem_limit_mb", type=click.IntRange(min=512), default=8192, show_default=True,
              help="MB of address space the probe process may take.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Problems probed at a time.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per problem (imported or refused).")
def import_kernelbench_cmd(files, out, scale, full_cases, backend, elements, flops, family, cohort, frozen_at,
                           timeout_s, mem_limit_mb, jobs, as_json):
    """Import KernelBench problem files (Model, get_inputs, get_init_inputs, size constants) with derived tiers.

    Each file becomes OUT/<name>/problem.py: the file unchanged, then CASES that set its size constants, found by
    re-running its get_inputs with each constant changed: a compact case at its shape scaled down to the budget
    (upstream's own on cuda/npu) and full cases with odd sizes, sizes just past a power of two, strided inputs and
    a size of 1, each checked against the reference. Beside it: the file's copy (kb freeze matches records made
    against it by hash) and meta.yaml; OUT/cohort.yaml lists them. Exit 0 all imported, 1 some refused (one line
    each; the rest written), 2 bad input (nothing written).
    """
    from pathlib import Path

    from repair.errors import BadInput
    from repair.kernelbench import Options, import_problems

    try:
        factor = None if scale == "auto" else float(scale)
    except ValueError:
        raise BadInput(f"--scale must be auto or a number, got {scale!r}") from None
    options = Options(backend=backend, scale=factor, elements=elements, flops=flops, full_cases=full_cases,
                      family=family, cohort=cohort, timeout_s=timeout_s, mem_limit_mb=mem_limit_mb, jobs=jobs,
                      frozen_at=frozen_at)
    from repair.progress import Lines

    done, refused, manifest = import_problems([Path(f) for f in files], Path(out), options,
                                              progress=None if as_json else Lines("repair import"))
    from repair.progress import fold

    for p in done:
        click.echo(p.to_json() if as_json else "\n".join(fold(p.line())))
    for r in refused:
        click.echo(r.to_json() if as_json else "\n".join(fold(r.line())))
    if not as_json:
        click.echo("\n".join(fold(f"imported {len(done)}, refused {len(refused)}"
                                   + (f"; cohort manifest: {manifest}" if manifest else ""))))
    if refused:
        sys.exit(1)


@cli.group("server", cls=RepairGroup)
def server_group() -> None:
    """A fork server shared by engine processes: torch and triton imported once, not once per command.

    While one runs, `repair eval`, `repair run` and single-run campaigns connect to it, each to a session
    process of its own (a campaign of several runs starts a private one for them). It exits after --idle
    seconds without an engine.
    """


@server_group.command("start")
@_backend_option()
@click.option("--idle", "idle_s", cls=CodeDefault, value_from="repair.engine.shared_server:DEFAULT_IDLE_S",
              type=click.FloatRange(min=1),
              help="Seconds without an engine before it exits.")
def server_start_cmd(backend, idle_s):
    """Start a shared fork server (or report the one running); returns once it accepts engines."""
    from repair.engine import shared_server

    info = shared_server.start(backend, idle_s)
    click.echo(f"shared fork server for {info.backend}: pid {info.pid}, {info.socket}")


@server_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def server_status_cmd(as_json):
    """List shared fork servers; `current` ones are used by engines started here now."""
    import json

    from repair.engine import shared_server

    infos = shared_server.status()
    if as_json:
        click.echo(json.dumps([i.as_dict() for i in infos], indent=2))
        return
    if not infos:
        click.echo("no shared fork server")
    for i in infos:
        state = "running" if i.pid else "gone"
        click.echo(f"{i.backend:<11} {state:<8} pid {i.pid or '-':<8} {'current' if i.current else 'stale'}  {i.socket}")


@server_group.command("stop")
def server_stop_cmd():
    """Stop every shared fork server (an engine connected to one loses its session)."""
    from repair.engine import shared_server

    stopped = shared_server.stop()
    click.echo(f"stopped {sum(1 for i in stopped if i.pid)} shared fork server(s)")


@cli.group("cache", cls=RepairGroup)
def cache_group() -> None:
    """The ascendc-cpu build cache: where it is, what it holds, and pruning it.

    It lives in $REPAIR_ASCENDC_CACHE, else $XDG_CACHE_HOME/nearmiss/ascendc-cpu, else ~/.cache/nearmiss/ascendc-cpu,
    must be yours alone (mode 700; refused otherwise, exit 3) and is kept under $REPAIR_ASCENDC_CACHE_MAX_MB (2048)
    by removing the least recently used builds.
    """


@cache_group.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cache_info_cmd(as_json):
    """Where the cache is, its entries, size and cap, and temporaries of builds that were killed."""
    import json

    from repair.ascendc import cache_info, render_cache_info

    i = cache_info()
    click.echo(json.dumps(i, indent=2) if as_json else render_cache_info(i))


@cache_group.command("prune")
@click.option("--max-size", "max_size", metavar="SIZE", default=None,
              help="Keep at most this much (e.g. 500M, 2G; a bare number is MB); default the cache's cap.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cache_prune_cmd(max_size, as_json):
    """Remove temporaries of killed builds, then the least recently used builds past the size."""
    import json

    from repair.ascendc import parse_size, prune_cache, render_cache_info

    r = prune_cache(limit=None if max_size is None else parse_size(max_size))
    if as_json:
        click.echo(json.dumps(r, indent=2))
        return
    click.echo(f"removed {len(r['removed'])} build(s) or header cache(s), {r['freed_bytes'] / 2**20:.1f} MB, and "
               f"{len(r['removed_temporary'])} temporary director{'y' if len(r['removed_temporary']) == 1 else 'ies'}")
    click.echo(render_cache_info(r))


def main() -> None:
    from provenance.offline import apply_offline_env

    apply_offline_env()
    cli()
