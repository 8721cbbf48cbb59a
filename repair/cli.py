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


@click.group(cls=RepairGroup)
@click.version_option(package_name="nearmiss-repair", message="%(version)s")
def cli() -> None:
    """Evaluate and repair near-miss accelerator kernels."""


@cli.command("eval")
@click.argument("problem", type=click.Path(dir_okay=False))
@click.argument("candidate", type=click.Path(dir_okay=False))
@click.option("--tier", type=click.Choice(["compact", "full"]), default="full", show_default=True,
              help="compact: the cases marked compact; full: every case.")
@click.option("--backend", default="triton-cpu", show_default=True, help="triton-cpu, cuda or npu.")
@click.option("--json", "as_json", is_flag=True, help="Print the EvalResult as JSON.")
@click.option("--seed", type=int, default=None, help="Evaluation seed (default: fresh and random).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds per case before the candidate is killed.")
@click.option("--mem-limit", "mem_limit_mb", type=click.IntRange(min=64), default=4096, show_default=True,
              help="MB the candidate process may allocate.")
@click.option("--rule-off", "rules_off", multiple=True, metavar="NAME",
              help="Switch an integrity rule off (repeatable; `static.*`, `runtime.*` accepted).")
@click.option("--no-integrity", is_flag=True, help="Numerics only: skip the static scan and runtime guards.")
def eval_cmd(problem, candidate, tier, backend, as_json, seed, timeout_s, mem_limit_mb, rules_off, no_integrity):
    """Evaluate CANDIDATE (defines ModelNew) against PROBLEM (defines Model, get_inputs).

    Exit 0 when every case of the tier passes and integrity is clean, 1 when not,
    2 for bad input, 3 when the backend is missing.
    """
    from repair.harness import evaluate

    result = evaluate(problem, candidate, tier=tier, backend=backend, seed=seed, timeout_s=timeout_s,
                      mem_limit_mb=mem_limit_mb, rules_off=rules_off, integrity=not no_integrity)
    if as_json:
        click.echo(result.to_json())
    else:
        from repair.evaltable import render_table

        click.echo(render_table(result))
    sys.exit(0 if result.passed else 1)


@cli.command("check")
@click.argument("problem", type=click.Path(dir_okay=False))
@click.argument("candidate", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the IntegrityVerdict as JSON.")
@click.option("--rule-off", "rules_off", multiple=True, metavar="NAME",
              help="Switch an integrity rule off (repeatable; `static.*` accepted); the verdict records it.")
def check_cmd(problem, candidate, as_json, rules_off):
    """Static integrity scan of CANDIDATE against PROBLEM.

    Exit 0 clean, 1 violation, 2 bad input (unparsable candidate, no ModelNew, unknown rule).
    """
    from repair.integrity.report import render_verdict
    from repair.integrity.static import scan

    verdict = scan(problem, candidate, rules_off=rules_off)
    click.echo(verdict.model_dump_json(indent=2) if as_json else render_verdict(verdict, candidate))
    sys.exit(0 if verdict.verdict == "clean" else 1)


def main() -> None:
    from provenance.offline import apply_offline_env

    apply_offline_env()
    cli()
