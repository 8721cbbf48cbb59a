"""Constructs the Triton interpreter gets wrong run as on a GPU; what it cannot run is named, never a mismatch."""
from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from repair.cli import cli

PROBLEM = '''
import torch
import torch.nn as nn

OPERATOR = {"id": "probe"}


class Model(nn.Module):
    def forward(self, a, b):
        return %s


def get_inputs():
    return [torch.randn(16, 16), torch.randn(16, 16)]


def get_init_inputs():
    return []
'''

HEAD = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl
'''

BF16_DOT = HEAD + '''

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :]).to(tl.bfloat16)  # rounded to nearest even, as on a GPU
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b))


class ModelNew(nn.Module):
    def forward(self, a, b):
        c = torch.empty(16, 16)
        mm[(1,)](a, b.bfloat16(), c, N=16)
        return c
'''

MASK_AND_FLOAT = HEAD + '''

@triton.jit
def scaled(a_ptr, o_ptr, n, limit, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = (offs < n) & (limit < n)  # a bool tensor and a scalar comparison
    s = scale.to(tl.float32)  # a float argument is an fp32 scalar on a GPU
    tl.store(o_ptr + offs, tl.load(a_ptr + offs, mask=mask, other=0.0) * s, mask=mask)


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = torch.empty_like(a)
        scaled[(1,)](a, out, a.numel(), 3, 2.0, BLOCK=256)
        return out
'''

ERFINV = HEAD + '''
from triton.language.extra import libdevice


@triton.jit
def inv(a_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, libdevice.erfinv(tl.load(a_ptr + offs, mask=m) * 0.5), mask=m)


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = torch.empty_like(a)
        inv[(1,)](a, out, a.numel(), BLOCK=256)
        return out
'''


def _eval(tmp_path, reference, candidate, *args):
    (tmp_path / "problem.py").write_text(PROBLEM % reference)
    (tmp_path / "cand.py").write_text(textwrap.dedent(candidate))
    r = CliRunner().invoke(cli, ["eval", str(tmp_path / "problem.py"), str(tmp_path / "cand.py"), "--json",
                                 "--tier", "compact", "--seed", "3", "--backend", "triton-cpu", *args])
    return r, json.loads(r.output[r.output.index("{"):r.output.rindex("}") + 1])


@pytest.mark.parametrize("reference, candidate", [
    ("(a.bfloat16().float() @ b.bfloat16().float())", BF16_DOT),
    ("a * 2.0", MASK_AND_FLOAT),
], ids=["bf16-dot", "bool-mask-and-float-arg"])
def test_the_construct_runs_as_on_a_gpu(tmp_path, reference, candidate):
    r, res = _eval(tmp_path, reference, candidate)
    assert r.exit_code == 0 and res["passed"], [c.get("message") for c in res["cases"]]


def test_what_the_interpreter_cannot_run_is_named_with_its_line_and_exits_3(tmp_path):
    r, res = _eval(tmp_path, "torch.erfinv(a * 0.5)", ERFINV)
    case = res["cases"][0]
    assert case["status"] == "unsupported-on-interpreter" and r.exit_code == 3
    line = next(i for i, text in enumerate(ERFINV.splitlines(), 1) if "libdevice.erfinv" in text)
    assert "libdevice" in case["message"] and f"cand.py:{line}" in case["message"].splitlines()[0]


def test_a_candidate_that_cannot_be_imported_is_a_load_error_with_its_line(tmp_path):
    broken = MASK_AND_FLOAT + "\n\ndef helper(x: Tensor):\n    return x\n"
    r, res = _eval(tmp_path, "a * 2.0", broken)
    line = broken.splitlines().index("def helper(x: Tensor):") + 1
    assert r.exit_code == 2 and res["load_error"].endswith(f"cand.py:{line}: cannot be imported: name 'Tensor' is "
                                                           "not defined (its module-level code runs at import)")
    assert f"cand.py:{line}: cannot be imported" in r.output
    (tmp_path / "cand.py").write_text(MASK_AND_FLOAT + "\nimport no_such_module_here\n")
    r = CliRunner().invoke(cli, ["eval", str(tmp_path / "problem.py"), str(tmp_path / "cand.py"), "--tier", "compact"])
    assert r.exit_code == 2 and "cannot be imported: ModuleNotFoundError" in r.output
    r = CliRunner().invoke(cli, ["check", str(tmp_path / "problem.py"), str(tmp_path / "cand.py")])
    assert r.exit_code == 0  # what only importing finds, `repair check` (which runs nothing) cannot
