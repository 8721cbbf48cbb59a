"""The parallelism guard's figures: what a launch asks for, per forward, and which shrinks are flagged.

The example suite's check runs each near-miss and its correct kernel in this process with every kernel launch
recorded and skipped (no kernel body runs: a near-miss's out-of-bounds store cannot touch this process), on the
problem's largest full-tier case.
"""
from __future__ import annotations

import importlib.util
import inspect
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

from repair.engine.parallelism import compare_parallelism as compare, forward_figures
from repair.integrity.launchshape import add_shape, launch_shape

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


@contextmanager
def dry_launches():
    """Every Triton launch in the block is recorded (its shape) and not run."""
    from triton.runtime.jit import KernelInterface

    shapes: list[dict] = []
    found, stack = [], [KernelInterface]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                stack.append(sub)
    patched = [(c, c.__dict__["run"]) for c in found if "run" in c.__dict__]

    def wrap(orig):
        def run(self, *args, **kwargs):
            if not inspect.isfunction(getattr(self, "fn", None)):  # an autotuner: its chosen config runs inside
                return orig(self, *args, **kwargs)
            shape = launch_shape(self, args, kwargs)
            if shape is not None:
                add_shape(shapes, shape)
            return None
        return run

    for cls, orig in patched:
        setattr(cls, "run", wrap(orig))
    try:
        yield shapes
    finally:
        for cls, orig in patched:
            setattr(cls, "run", orig)


def dry_figures(problem: Path, candidate: Path, params: dict) -> dict | None:
    import torch

    prob = _load(problem, "_dry_problem")
    torch.manual_seed(0)
    init = list(prob.get_init_inputs(**params)) if hasattr(prob, "get_init_inputs") else []
    inputs = list(prob.get_inputs(**params))
    cand = _load(candidate, "_dry_candidate")
    with torch.no_grad(), dry_launches() as shapes:
        cand.ModelNew(*init)(*inputs)
    return forward_figures(shapes)


def _largest_full_case(problem: Path) -> dict:
    cases = [dict(c) for c in _load(problem, "_dry_cases").CASES if c.get("tier") == "full"]
    for c in cases:
        c.pop("tier")
    sizes = []
    for c in cases:
        n = 1
        for v in c.values():
            n *= v if isinstance(v, int) and not isinstance(v, bool) else 1
        sizes.append(n)
    return cases[sizes.index(max(sizes))]


def _pairs():
    out = []
    for meta in sorted(EXAMPLES.glob("*/meta.yaml")):
        d = meta.parent
        for name, info in yaml.safe_load(meta.read_text())["candidates"].items():
            if info["kind"] == "near-miss" and name.endswith(".py"):
                out.append(pytest.param(d, name, id=f"{d.name}/{name}"))
    return out


@pytest.mark.parametrize("op_dir,name", _pairs())
def test_honest_repairs_of_the_examples_are_not_flagged(op_dir: Path, name: str):
    """Each near-miss's correct kernel is its honest repair: it asks the device for at least a quarter as much."""
    params = _largest_full_case(op_dir / "problem.py")
    before = dry_figures(op_dir / "problem.py", op_dir / name, params)
    after = dry_figures(op_dir / "problem.py", op_dir / "correct.py", params)
    assert before is not None and after is not None, "no launch recorded"
    verdict = compare({"c": before}, {"c": after})
    assert not verdict["flagged"], verdict["message"]


ADD_RELU_SERIAL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    for start in range(0, n_elements, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_elements
        tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), 0.0),
                 mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        out = torch.empty_like(x)
        add_relu_kernel[(1,)](x, y, out, x.numel(), BLOCK=1024)
        return out
'''


def _variant(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "variant.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize("how", ["one-program", "block-size-1", "num-warps-1"])
def test_serialising_repairs_are_flagged(tmp_path, how):
    op = EXAMPLES / "add_relu"
    correct = (op / "correct.py").read_text()
    if how == "one-program":
        text = ADD_RELU_SERIAL
    elif how == "block-size-1":
        text = correct.replace("BLOCK = 1024", "BLOCK = 1")
    else:  # a near-miss asking for 8 warps, a repair for 1
        text = correct.replace("BLOCK=BLOCK)", "BLOCK=BLOCK, num_warps=1)")
    assert text != correct
    params = {"M": 40, "N": 1000}
    base = correct.replace("BLOCK=BLOCK)", "BLOCK=BLOCK, num_warps=8)") if how == "num-warps-1" else correct
    before = dry_figures(op / "problem.py", _variant(tmp_path, base), params)
    after = dry_figures(op / "problem.py", _variant(tmp_path, text), params)
    verdict = compare({"c4": before}, {"c4": after})
    assert verdict["flagged"], verdict
    assert verdict["measure"] == {"one-program": "programs", "block-size-1": "per_program",
                                  "num-warps-1": "num_warps"}[how]
    assert "parallelism shrank" in verdict["message"] and "case c4" in verdict["message"]
    # the factor is the user's: the same shrink passes a guard set loose enough
    assert not compare({"c4": before}, {"c4": after}, factor=verdict["ratio"] + 1)["flagged"]


def test_figures_are_capped_by_the_work_there_is():
    """An over-launched grid (n programs of 1024 elements for n elements) is no more parallel than its repair's."""
    over = [{"programs": 40000, "per_program": 1024, "elements": 40000, "num_warps": None}]
    fixed = [{"programs": 40, "per_program": 1024, "elements": 40000, "num_warps": None}]
    a, b = forward_figures(over), forward_figures(fixed)
    assert a == b and a["programs"] == 40
    assert not compare({"c": a}, {"c": b})["flagged"]
    # a block far larger than the tensor counts as the tensor
    assert forward_figures([{"programs": 1, "per_program": 4096, "elements": 1000}])["per_program"] == 1000


def test_a_launch_in_a_loop_counts_each_time():
    shapes: list[dict] = []
    one = {"kernel": "k", "grid": [1], "programs": 1, "blocks": {"BLOCK": 64}, "per_program": 64, "elements": 64,
           "num_warps": None, "num_stages": None}
    for _ in range(5):
        add_shape(shapes, dict(one))
    assert len(shapes) == 1 and shapes[0]["count"] == 5
    assert forward_figures(shapes)["programs"] == 5 and forward_figures(shapes)["launches"] == 5


def test_grid_functions_and_defaults_are_resolved():
    """A grid lambda over the launch's meta-parameters, a constexpr default, num_warps and a GROUP size (not a block)."""
    import torch

    def kernel(x_ptr, n, BLOCK_M: "tl.constexpr" = 32, BLOCK_N: "tl.constexpr" = 16,
               GROUP_SIZE_M: "tl.constexpr" = 8):
        pass

    class Fake:
        fn = staticmethod(kernel)

    x = torch.zeros(100, 50)
    shape = launch_shape(Fake(), (x, 5000), {"grid": lambda meta: (triton_cdiv(100, meta["BLOCK_M"]), 3),
                                            "BLOCK_N": 64, "num_warps": 2, "warmup": False})
    assert shape["grid"] == [4, 3] and shape["programs"] == 12
    assert shape["blocks"] == {"BLOCK_M": 32, "BLOCK_N": 64} and shape["per_program"] == 32 * 64
    assert shape["num_warps"] == 2 and shape["elements"] == 5000
    assert launch_shape(Fake(), (x, 1), {}) is None  # no grid: nothing to say
    assert launch_shape(Fake(), (x, 1), {"grid": lambda meta: 1 / 0}) is None  # the launch itself will fail


def triton_cdiv(a: int, b: int) -> int:
    return -(-a // b)


def test_no_common_case_compares_nothing():
    assert compare({"c0": {"programs": 1}}, {"c1": {"programs": 1}}) is None


def _rule_examples():
    from repair.rules.catalog import STARTER

    out = []
    for p in STARTER:
        for ex in p.examples if p.language == "triton" else ():
            path = ROOT / ex
            if path.suffix == ".py" and (path.parent / "problem.py").is_file():
                out.append(pytest.param(p.key, ex, id=f"{p.key}:{path.parent.name}/{path.name}"))
    return out


@pytest.mark.parametrize("key,example", _rule_examples())
def test_starter_rules_keep_the_parallelism_of_what_they_repair(tmp_path, key, example):
    """Every patch a starter rule makes on a near-miss it is meant to repair (grid and block rewrites among them)
    asks the device for at least a quarter as much as the near-miss did."""
    from ingest.rules.engine import apply_rule
    from repair.rules.catalog import STARTER

    pattern = next(p for p in STARTER if p.key == key)
    path = ROOT / example
    problem = path.parent / "problem.py"
    params = _largest_full_case(problem)
    before = dry_figures(problem, path, params)
    patches = [a.patched_source for r in pattern.rules
               for a in apply_rule(r, path.read_text(), reference=problem.read_text())]
    assert patches, "the rule does not fire on its own example"
    checked = 0
    for i, text in enumerate(patches):
        patched = tmp_path / f"patch_{i}.py"
        patched.write_text(text)
        try:
            after = dry_figures(problem, patched, params)
        except Exception:  # noqa: BLE001  (a patch that does not run is refused by the evaluation, not here)
            continue
        verdict = compare({"c": before}, {"c": after})
        assert not verdict["flagged"], (i, verdict["message"])
        checked += 1
    assert checked, "no patch of the rule ran"
