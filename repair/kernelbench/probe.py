"""The probe process (`python -m repair.kernelbench.probe`): derives and checks one problem's cases, answers JSON.

It runs the problem's own code, so it is started by `repair.kernelbench.isolate` in a scratch directory with a
scrubbed environment, as a supervisor that forks the worker (limits and confinement set before the problem is read)
and kills whatever the worker leaves (isolate.supervise). The request comes on stdin; the answer goes to stdout;
anything the problem prints goes to the worker's log.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from repair.kernelbench.derive import Deriver, Upstream, one_line
from repair.kernelbench.isolate import apply_limits, confine_worker, supervise
from repair.kernelbench.model import Derivation, ProbeRequest, Refused
from repair.kernelbench.render import render_problem
from repair.kernelbench.source import read_facts
from repair.kernelbench.verify import check_cases, load_problem


def summary(sizes: list[str], compact: dict[str, Any], factor: float, upstream: dict[str, Any],
            variants: list[str]) -> str:
    """One paragraph for problem.py's docstring: what the compact case is and what the full tier adds."""
    if factor >= 1 or not sizes:
        head = "Compact: upstream's own shape."
    else:
        head = "Compact: " + ", ".join(f"{n}={upstream[n]} -> {compact[n]}" for n in sizes) + "."
    return head + (f" Full: {', '.join(variants)}." if variants else " No full-tier case.")


def derive(request: ProbeRequest) -> tuple[Derivation, str]:
    """The derivation and the problem.py text of its cases (the text the cases were checked in)."""
    import torch

    torch.set_num_threads(1)
    facts = read_facts(request.text, request.path)
    up = Upstream(request.path, request.text, facts)
    d = Deriver(up).derive(budget=request.budget, full_budget=request.full_budget, fixed=request.scale,
                           full_cases=request.full_cases)
    compact_name = "upstream" if d.factor >= 1 else "scaled"
    cases = [{"tier": "compact", "variant": compact_name, **d.compact}]
    cases += [{"tier": "full", "variant": name, **values, **({"layout": layout} if layout != "contiguous" else {})}
              for name, values, layout, _ in d.variants]
    predicted = {compact_name: d.compact_size, **{name: size for name, _, _, size in d.variants}}

    def render(kept_cases: list[dict]) -> str:
        return render_problem(
            upstream_text=request.text, file=Path(request.path).name, sha256=request.sha256,
            operator_id=request.operator_id, family=request.family, sizes={n: up.values[n] for n in d.sizes},
            kept=d.kept, recompute=facts.recompute_after(set(d.sizes)), cases=kept_cases,
            summary=summary(d.sizes, d.compact, d.factor, up.values, [c["variant"] for c in kept_cases[1:]]),
            has_get_init_inputs=facts.has_get_init_inputs)

    path = str(Path.cwd() / "problem.py")
    checked = check_cases(load_problem(path, render(cases)), cases, predicted, request.check_on_cpu)
    if not checked.cases or checked.cases[0]["tier"] != "compact":
        why = checked.dropped[0].reason
        raise Refused(why.replace("the reference rejects it", "the reference rejects the compact case"))
    derivation = Derivation(
        constants={n: list(v) if isinstance(v, tuple) else v for n, v in up.values.items()}, sizes=d.sizes,
        kept=d.kept, scale=d.factor, original=d.original, compact=d.compact_size, cases=checked.cases,
        dropped=d.dropped + checked.dropped, adjusted=d.adjusted, checked=checked.where,
        reference_seconds=round(checked.seconds, 3))
    return derivation, render(checked.cases)


def main() -> int:
    mem_bytes, cpu_s, timeout_s = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    request = sys.stdin.buffer.read()

    def work(answer_fd: int) -> None:
        reply = os.fdopen(answer_fd, "w", encoding="utf-8")
        try:
            apply_limits(mem_bytes, cpu_s)
            confine_worker(os.getcwd())
        except OSError as e:  # the environment's failure: the problem is not run unconfined
            reply.write(json.dumps({"status": "refused", "reason": f"confining the probe failed: {e}"}))
            reply.close()
            return
        try:
            derivation, text = derive(ProbeRequest.model_validate_json(request))
            answer = {"status": "ok", "derivation": derivation.model_dump(mode="json", by_alias=True), "text": text}
        except Refused as e:
            answer = {"status": "refused", "reason": str(e)}
        except Exception as e:  # noqa: BLE001 - the problem's own code failed: that is the reason to refuse it
            answer = {"status": "refused", "reason": f"running the problem failed: {one_line(e)}"}
        reply.write(json.dumps(answer, sort_keys=True))
        reply.close()

    answer = supervise(work, timeout_s=timeout_s, mem_limit_mb=mem_bytes >> 20)
    sys.stdout.write(json.dumps(answer, sort_keys=True))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
