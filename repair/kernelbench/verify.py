"""Checking each written case against the reference (in the probe process): the imported problem.py, as written,
builds the case and its Model runs on it, on the CPU where the case is small enough and on the meta device if not."""
from __future__ import annotations

import time
import types
from dataclasses import dataclass, field
from typing import Any

from repair.kernelbench.derive import numel, one_line
from repair.kernelbench.model import CaseSize, Dropped


@dataclass
class Checked:
    cases: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    where: dict[str, str] = field(default_factory=dict)  # variant -> "cpu" | "meta"
    seconds: float = 0.0


def load_problem(path: str, text: str) -> types.ModuleType:
    module = types.ModuleType("_kb_imported")
    module.__file__ = path
    exec(compile(text, path, "exec"), module.__dict__)  # the probe process exists to run this
    return module


def _outputs(value: Any) -> list:
    import torch

    outs = list(value) if isinstance(value, (list, tuple)) else [value]
    for o in outs:
        if not isinstance(o, torch.Tensor):
            raise TypeError(f"forward returns a {type(o).__name__}, not tensors")
    return outs


def run_case(module: types.ModuleType, params: dict[str, Any], device: str) -> tuple[list, list, float]:
    """(inputs, outputs, forward seconds) of one case of the imported problem, built from seed 0."""
    import torch

    torch.manual_seed(0)
    with torch.device(device), torch.no_grad():
        init = list(module.get_init_inputs(**params))
        inputs = list(module.get_inputs(**params))
        model = module.Model(*init)
        t0 = time.perf_counter()
        out = _outputs(model(*inputs))
        return inputs, out, time.perf_counter() - t0


def check_cases(module: types.ModuleType, cases: list[dict[str, Any]], predicted: dict[str, CaseSize],
                cpu_limit: int) -> Checked:
    """Keep the cases the reference accepts; a strided case also has to give what the contiguous one gives."""
    import torch

    done = Checked()
    for case in cases:
        name = case["variant"]
        params = {k: v for k, v in case.items() if k != "tier"}
        device = "cpu" if predicted[name].elements <= cpu_limit else "meta"
        try:
            inputs, out, seconds = run_case(module, params, device)
            done.seconds += seconds if device == "cpu" else 0.0
            if numel(inputs) + numel(out) != predicted[name].elements:
                raise AssertionError(f"the written case builds {numel(inputs) + numel(out):,} elements where "
                                     f"{predicted[name].elements:,} were derived")
            if params.get("layout") == "strided":
                if not any(isinstance(t, torch.Tensor) and not t.is_contiguous() for t in inputs):
                    raise AssertionError("no input is a tensor of more than one element")
                if device == "cpu":
                    _, same, _ = run_case(module, {**params, "layout": "contiguous"}, device)
                    if not all(a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-4,
                                                                     equal_nan=True) for a, b in zip(out, same)):
                        raise AssertionError("the reference gives other values for non-contiguous inputs")
        except Exception as e:  # noqa: BLE001 - the problem's own code: any error rejects the case
            done.dropped.append(Dropped(variant=name, reason=f"the reference rejects it ({device}): {one_line(e)}"))
            continue
        done.where[name] = device
        done.cases.append(case)
    return done
