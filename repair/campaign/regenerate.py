"""The regeneration baseline: K independent fresh generations per problem, with the repair loop's gates and accounting.

A trial gives the worker the problem and nothing else (no near-miss, no forensics, no patterns), takes
one full candidate back, and judges it as the loop would: the static integrity gate, the compact tier,
then the full tier; it succeeds when every full case passes with a clean integrity verdict. Bounds
(tokens, turns, wall clock) are checked before the worker call as in the loop. Trials run as a
campaign (ledger, resume, executors), so `repair report` gives Pass@1 and Pass@K next to debugging.

A scripted worker's script for a regeneration is either one per trial (<op>/trial-<t>.yaml) or one per
operator whose step t+1 is trial t's generation.
"""
from __future__ import annotations

import ast
from pathlib import Path

from repair.campaign.parts import make_bounds, preflight
from repair.campaign.spec import (CampaignConfig, Operator, RunSpec, check_scripts, load_operators, make_config,
                                  manifest_sha256, plan_regenerate, script_for)
from repair.errors import BadInput

REGENERATED = "regenerated.py"


def regenerate_config(target: Path, trials: int, *, worker: str = "scripted", model: str | None = None,
                      script: Path | None = None, bounds: dict | None = None, backend: str | None = None,
                      run_timeout_s: float | None = None,
                      allow_outside: bool = False) -> tuple[CampaignConfig, list[RunSpec]]:
    """`target` is a problem file or a cohort manifest (every operator's problem, candidates ignored)."""
    from provenance.canonical import sha256_text

    target = Path(target).resolve()
    if not target.is_file():
        raise BadInput(f"{target}: no such problem or manifest")
    if target.suffix in (".yaml", ".yml"):
        operators = load_operators(target, allow_outside=allow_outside)
        where = dict(manifest=str(target), manifest_sha256=manifest_sha256(target, allow_outside=allow_outside))
    else:
        operators = [problem_operator(target)]
        where = dict(problem=str(target), manifest_sha256=sha256_text(target.read_bytes()))
    specs = plan_regenerate(operators, trials)
    config = make_config("regenerate", worker=worker, model=model, script=script, kb=None, snapshot=None,
                         ablations=(), bounds=bounds, backend=backend, run_timeout_s=run_timeout_s, trials=trials,
                         **where)
    check_scripts(specs, worker, Path(config.script) if config.script else None)
    preflight(config, specs)
    return config, specs


def problem_operator(problem: Path) -> Operator:
    """The operator a problem file declares in its OPERATOR literal (read, not imported), else its directory's name."""
    try:
        tree = ast.parse(problem.read_text(encoding="utf-8"), filename=str(problem))
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{problem}: cannot read ({e})") from None
    except SyntaxError as e:
        raise BadInput(f"{problem}: does not parse (line {e.lineno}: {e.msg})") from None
    declared: dict = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "OPERATOR" for t in node.targets):
            try:
                declared = ast.literal_eval(node.value)
            except ValueError:
                declared = {}
    declared = declared if isinstance(declared, dict) else {}
    return Operator(str(declared.get("id") or problem.parent.name), declared.get("family"), problem, ())


def run_trial(spec: RunSpec, config: CampaignConfig, run_dir: Path, judge, worker) -> str:
    """One fresh generation into run_dir (trajectory.jsonl, regenerated.py); returns the trial's status."""
    from repair.loop import BoundExceeded, Budget, Trajectory
    from repair.workers import WorkerContext, WorkerExhausted, WorkerFailed

    _skip_to_trial(worker, spec, config)
    budget = Budget(make_bounds(config))
    traj = Trajectory(run_dir / "trajectory.jsonl")
    traj.log("start", mode="regenerate", problem=str(spec.problem), trial=spec.trial,
             bounds=budget.bounds.as_dict(), worker=vars(worker.info))
    status, why = "failed", ""
    try:
        budget.check()
        ctx = WorkerContext(attempt=1, problem_text=spec.problem.read_text(encoding="utf-8"), candidate_text="",
                            forensics="", patterns=(), history=(), tokens_left=budget.tokens_left())
        proposal = worker.propose(ctx)
        budget.charge(proposal.turns, proposal.usage)
        budget.attempts = 1
        traj.log("propose", attempt=1, kind="diff" if proposal.diff is not None else "file", cited=[],
                 usage=proposal.usage.as_dict(), turns=proposal.turns, note=proposal.note)
        status, why = _judge(proposal, run_dir, judge, traj, budget)
    except BoundExceeded as e:
        status, why = e.bound, str(e)
    except WorkerExhausted as e:
        status, why = "worker-exhausted", str(e)
    except WorkerFailed as e:
        status, why = "worker-failed", str(e)
    finally:
        spent = budget.spent()
        spent["wall_s"] = round(spent["wall_s"], 3)
        traj.log("end", status=status, why=why, spent=spent, usage=budget.usage.as_dict())
        traj.close()
    return status


def _judge(proposal, run_dir: Path, judge, traj, budget) -> tuple[str, str]:
    reason = _check_generation(proposal)
    if reason:
        traj.log("patch", attempt=1, ok=False, reason="generation", message=reason)
        return "patch-rejected", reason
    path = run_dir / REGENERATED
    path.write_text(proposal.candidate, encoding="utf-8")
    traj.log("patch", attempt=1, ok=True, file=path.name)
    gate = judge.gate(path)
    traj.log("gate", attempt=1, verdict=gate.verdict, rules=sorted({f.rule for f in gate.findings}))
    if gate.verdict != "clean":
        return "integrity-violation", ", ".join(sorted({f.rule for f in gate.findings}))
    budget.check_wall()
    compact = _evaluate(judge, path, "compact", traj)
    if not (compact.numerics_passed and compact.integrity.verdict == "clean"):
        return ("integrity-violation" if compact.integrity.verdict != "clean" else "compact-failed"), ""
    budget.check_wall()
    full = _evaluate(judge, path, "full", traj)
    if full.passed and full.cases and not full.failing_cases():
        traj.log("accept", attempt=1)
        return "repaired", ""
    return ("integrity-violation" if full.integrity.verdict != "clean" else "full-failed"), ""


def _evaluate(judge, path: Path, tier: str, traj):
    result = judge.evaluate(path, tier)
    traj.log("evaluate", attempt=1, tier=tier, passed=result.passed,
             summary={t: s.model_dump() for t, s in result.summary.items()}, integrity=result.integrity.verdict,
             seconds=round(result.wall_seconds, 3))
    return result


def _check_generation(proposal) -> str:
    if proposal.candidate is None:
        return "a regeneration must be a full candidate file, not a diff (there is nothing to patch)"
    try:
        tree = ast.parse(proposal.candidate)
    except SyntaxError as e:
        return f"the generated candidate does not parse (line {e.lineno}: {e.msg})"
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        return "the generated candidate defines no class ModelNew"
    return ""


def _skip_to_trial(worker, spec: RunSpec, config: CampaignConfig) -> None:
    """An operator-level script replays step t+1 for trial t; a per-trial script starts at its first step."""
    if config.worker != "scripted" or not config.script or not hasattr(worker, "position"):
        return
    script = script_for(spec, Path(config.script))
    if script is not None and script.stem != spec.label and script.name != spec.label:
        worker.position = spec.trial
