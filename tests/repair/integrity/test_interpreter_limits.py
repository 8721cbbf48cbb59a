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

UNMASKED_STORE = HEAD + '''

@triton.jit
def double(a_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(a_ptr + offs, mask=offs < n, other=0.0)
    tl.store(o_ptr + offs, x * 2.0)  # no mask: BLOCK is past the end of the output


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = torch.empty_like(a)
        double[(1,)](a, out, a.numel(), BLOCK=1024)
        return out
'''

TABLE_STORE = HEAD + '''

@triton.jit
def double(a_ptr, table_ptr, n, BLOCK: tl.constexpr):
    o_ptr = tl.load(table_ptr).to(tl.pointer_type(tl.float32))  # the output's address, read from a table
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.load(a_ptr + offs, mask=offs < n, other=0.0) * 2.0, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = torch.empty_like(a)
        double[(1,)](a, torch.tensor([out.data_ptr()], dtype=torch.int64), a.numel(), BLOCK=1024)
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


def test_a_store_past_its_tensor_fails_the_case_every_time_and_writes_nothing(tmp_path):
    """On the interpreter an unmasked store past the output lands in whatever host memory follows it: another
    tensor, by chance of allocation order the input (then an input-mutated finding), or the heap. Here it is refused
    before it writes, so the case fails the same way on every run, and the input is left as it was."""
    line = next(i for i, text in enumerate(UNMASKED_STORE.splitlines(), 1) if "# no mask" in text)
    for _ in range(2):
        r, res = _eval(tmp_path, "a * 2.0", UNMASKED_STORE)
        case = res["cases"][0]
        assert case["status"] == "error" and not res["passed"], case
        assert f"out-of-bounds store at {tmp_path / 'cand.py'}:{line}: 768 of the 1024 elements" in case["message"]
        assert res["integrity"]["findings"] == []
    masked = UNMASKED_STORE.replace("x * 2.0)  # no mask", "x * 2.0, mask=offs < n)  # masked")
    r, res = _eval(tmp_path, "a * 2.0", masked)
    assert r.exit_code == 0 and res["passed"], [c.get("message") for c in res["cases"]]
    # A store through an address read from a table writes a tensor no argument of the launch holds: nothing here
    # knows its bounds, so it runs (the integrity gate still says the output never went to a launch).
    r, res = _eval(tmp_path, "a * 2.0", TABLE_STORE)
    assert [c["status"] for c in res["cases"]] == ["pass"], res["cases"]
