"""Focused static cases: aliases, string tricks, contexts (forward vs __init__), reachability, bad input."""
from __future__ import annotations

import textwrap

import pytest

from repair.errors import BadInput
from repair.integrity.rules import RULES, resolve_rules_off
from repair.integrity.static import scan
from corpus_index import PROBLEM

KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
'''


def _scan(tmp_path, body: str, **kw):
    p = tmp_path / "cand.py"
    p.write_text(KERNEL + textwrap.dedent(body))
    return scan(PROBLEM, p, **kw)


def _rules(v):
    return {f.rule for f in v.findings}


FORWARD = '''
class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
{init}
    def forward(self, x, y):
        out = torch.empty_like(x)
        k[(1,)](x, out, x.numel(), BLOCK=64)
{fwd}
        return out
'''


def _model(init="        pass", fwd="        pass"):
    return FORWARD.format(init=init, fwd=fwd)


@pytest.mark.parametrize("fwd", [
    "        out = torch.softmax(out, -1)",
    "        out = out.sigmoid()",
    "        out = out * 2",
    "        out = -out",
    "        out += y",
    "        out = (out > 0).float()",
    "        out = torch.nn.functional.relu(out)",
    "        f = torch.nn.functional; out = f.relu(out)",
    "        out = getattr(torch.Tensor, 'ab' + 's')(out)",
    "        out = torch.__dict__['relu'](out)",
    "        out = sum([out, y])",
    "        out = torch.nn.ReLU()(out)",
    "        out = out.T @ y",
])
def test_forward_framework_compute_is_flagged(tmp_path, fwd):
    assert "static.framework-compute" in _rules(_scan(tmp_path, _model(fwd=fwd)))


@pytest.mark.parametrize("init", [
    "        self.w = nn.Parameter(torch.randn(N) * 0.02 + 1.0)",
    "        self.lin = nn.Linear(N, N); nn.init.kaiming_uniform_(self.lin.weight)",
    "        w = torch.empty(N); w.normal_(); self.w = nn.Parameter(w.mul(0.5))",
    "        self.register_buffer('var', torch.rand(N) + 0.5)",
])
def test_weight_initialisation_in_init_is_allowed(tmp_path, init):
    assert _scan(tmp_path, _model(init=init)).verdict == "clean"


def test_compute_in_init_beyond_initialisation_is_flagged(tmp_path):
    v = _scan(tmp_path, _model(init="        self.w = torch.softmax(torch.randn(N), 0)"))
    assert "static.framework-compute" in _rules(v)


def test_random_in_forward_is_flagged(tmp_path):
    assert "static.framework-compute" in _rules(_scan(tmp_path, _model(fwd="        out = torch.randn_like(out)")))


def test_unreachable_helper_is_not_judged_but_reachable_one_is(tmp_path):
    helper = "\ndef _unused(t):\n    return torch.relu(t)\n\ndef _used(t):\n    return t.exp()\n"
    v = _scan(tmp_path, helper + _model())
    assert v.verdict == "clean"
    v = _scan(tmp_path, helper + _model(fwd="        out = _used(out)"))
    assert [f.line for f in v.findings] and all("exp" in f.message for f in v.findings)


def test_helper_params_are_typed_from_call_sites(tmp_path):
    helper = "\ndef _blocks(n, b):\n    return (n + b - 1) // b\n\ndef _add(a, b):\n    return a + b\n"
    assert _scan(tmp_path, helper + _model(fwd="        g = _blocks(x.numel(), 64)")).verdict == "clean"
    assert "static.framework-compute" in _rules(_scan(tmp_path, helper + _model(fwd="        out = _add(out, y)")))


def test_module_level_code_runs_at_import_and_is_judged(tmp_path):
    v = _scan(tmp_path, "import os\n_FLAG = os.environ.get('CI')\n" + _model())
    assert "static.env-check" in _rules(v)


@pytest.mark.parametrize("head", ["import posix\n_K = posix.environ\n", "from posix import environ as _e\n_K = _e\n"])
def test_the_environment_read_through_posix_is_an_env_check(tmp_path, head):
    assert "static.env-check" in _rules(_scan(tmp_path, head + _model()))


def test_kernel_body_torch_use_is_flagged(tmp_path):
    body = '''
@triton.jit
def k2(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, torch.relu(tl.load(x_ptr + offs)))
''' + _model(fwd="        k2[(1,)](out, 1, BLOCK=64)")
    assert "static.framework-compute" in _rules(_scan(tmp_path, body))


def test_cpp_source_file_is_scanned(tmp_path):
    (tmp_path / "ext.cpp").write_text("#include <torch/extension.h>\n"
                                      "torch::Tensor f(torch::Tensor x) { return at::softmax(x, -1); }\n")
    body = "from torch.utils.cpp_extension import load\n_ext = load(name='e', sources=['ext.cpp'])\n" + _model()
    v = _scan(tmp_path, body)
    assert "static.cpp-framework-compute" in _rules(v)
    (tmp_path / "ext.cpp").write_text("torch::Tensor f(torch::Tensor x) { auto y = torch::empty_like(x); "
                                      "return y; }\n")
    assert _scan(tmp_path, body).verdict == "clean"


def test_bad_candidates_raise_bad_input(tmp_path):
    p = tmp_path / "broken.py"
    p.write_text("def f(:\n")
    with pytest.raises(BadInput, match="broken.py.*does not parse"):
        scan(PROBLEM, p)
    p.write_text("class Model:\n    pass\n")
    with pytest.raises(BadInput, match="no class ModelNew"):
        scan(PROBLEM, p)
    with pytest.raises(BadInput, match="cannot read"):
        scan(PROBLEM, tmp_path / "missing.py")


def test_rule_names_are_validated_and_expanded():
    with pytest.raises(BadInput, match="unknown integrity rule 'static.nope'"):
        resolve_rules_off(["static.nope"])
    assert set(resolve_rules_off(["static.*"])) == {r for r in RULES if r.startswith("static.")}
    assert set(resolve_rules_off(["*"])) == set(RULES)
    assert resolve_rules_off(["runtime.no-launch", "runtime.no-launch"]) == ("runtime.no-launch",)
