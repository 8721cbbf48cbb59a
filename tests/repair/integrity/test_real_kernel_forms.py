"""Forms production Triton code takes that are not cheats (issue 31), each beside the form that still is one."""
from __future__ import annotations

import textwrap

import pytest

from repair.errors import BadInput, CandidateLoadError
from repair.integrity.static import scan
from corpus_index import CORPUS, PROBLEM

HEAD = '''
import importlib
import operator
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def settings(n):
    block = triton.next_power_of_2(n)
    return block, 4 if block < 2048 else 8


def launch(x, scale=1.0, flag=False):
    out = torch.empty_like(x)
    block, warps = settings(x.shape[-1])
    n_rows, n_cols = x.shape
    if n_cols > block or n_rows < 4096 * 8:
        warps = 2
    k[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block, num_warps=warps)
{launch_tail}
    return out
'''

FUNCTION = '''
class KFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, gain=None):
        out = launch(x)
{forward_tail}
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        if dy.shape[0] > 256:
            dy = dy * 2
        return (dy * (x > 0)).sum(dim=0) / x.shape[0], None


class ModelNew(nn.Module):
    def forward(self, x, y):
        return {call}
'''


def _scan(tmp_path, launch_tail="", forward_tail="", call="KFunction.apply(x)", extra="", **kw):
    p = tmp_path / "cand.py"
    p.write_text(HEAD.format(launch_tail=textwrap.indent(textwrap.dedent(launch_tail), "    "))
                 + FUNCTION.format(forward_tail=textwrap.indent(textwrap.dedent(forward_tail), "        "), call=call)
                 + textwrap.dedent(extra))
    return scan(PROBLEM, p, **kw)


def _cheats(v):
    return {f.rule for f in v.findings if f.level == "cheat"}


def test_an_autograd_function_wrapping_a_kernel_is_clean(tmp_path):
    """The class statement, backward's torch ops and its int comparisons are not forward's compute."""
    v = _scan(tmp_path)
    assert v.verdict == "clean", [(f.rule, f.line, f.message) for f in v.findings]


def test_forward_of_the_function_is_still_judged(tmp_path):
    v = _scan(tmp_path, forward_tail="out = torch.relu(x)")
    assert "static.framework-compute" in _cheats(v)
    assert any("KFunction.forward" in f.message for f in v.findings)  # the finding says where it was reached from


def test_ints_from_a_helper_returning_a_tuple_are_host_numbers(tmp_path):
    v = _scan(tmp_path, launch_tail="if block > 256:\n    warps = 8\n")
    assert v.verdict == "clean"
    v = _scan(tmp_path, launch_tail="if (x > 0).all():\n    warps = 8\n")  # a comparison of tensor data still counts
    assert v.verdict == "violation"  # as a branch test on the host: a scalar prologue, failing the strict policy
    assert {f.level for f in v.findings if f.rule == "static.framework-compute"} == {"policy"}


def test_version_check_through_importlib_is_not_dynamic_exec(tmp_path):
    extra = '''
    def compare_version(package, op, target):
        pkg = importlib.import_module(package)
        return op(pkg.__version__, target)


    NEW = compare_version("triton", operator.ge, "3.0.0") and compare_version("torch", operator.ge, "2.0")
    '''
    assert _scan(tmp_path, extra=extra).verdict == "clean"
    computed = extra.replace('compare_version("torch"', 'compare_version("torch" + ".nn.functional"')
    assert "static.dynamic-exec" in _cheats(_scan(tmp_path, extra=computed))
    by_variable = extra + "\nNAME = 'torch'\nMOD = importlib.import_module(NAME[::-1][::-1] + '.nn')\n"
    assert "static.dynamic-exec" in _cheats(_scan(tmp_path, extra=by_variable))


def test_item_that_feeds_a_launch_is_a_host_sync(tmp_path):
    v = _scan(tmp_path, forward_tail="g = x.abs().max().item() if gain is not None else 1.0\nlaunch(out, g)",
              call="KFunction.apply(x, y)")
    assert "static.host-compute" not in {f.rule for f in v.findings}
    v = _scan(tmp_path, launch_tail="s = x.sum().item()\nout = torch.full_like(out, s)")
    assert "static.host-compute" in _cheats(v)  # the inputs' sum, through the host, is the output
    # the same over the kernel's output is a host epilogue: policy, its share the runtime guard's to measure
    v = _scan(tmp_path, launch_tail="s = out.sum().item()\nout = torch.full_like(out, s)")
    assert {f.level for f in v.findings if f.rule == "static.host-compute"} == {"policy"}


def test_a_scalar_prologue_is_policy(tmp_path):
    """Host-side checks and counts before the launch (Liger's cross entropy): their values end in asserts,
    branch tests and `.item()` syncs, never in a tensor the wrapper returns or launches."""
    tail = """
    valid = x[:, 0] != -100
    n = valid.sum().item()
    assert (x * valid[:, None]).max() < 1e6, f"out of range: {x.max()}"
    if (x < -1e6).any():
        raise ValueError("out of range")
    out = launch(x, 1.0 / n)
    """
    v = _scan(tmp_path, forward_tail=tail)
    found = [f for f in v.findings if f.rule == "static.framework-compute"]
    assert found and not _cheats(v) and all("scalar prologue" in f.message for f in found)
    assert _scan(tmp_path, forward_tail=tail, policy="epilogue").verdict == "clean"
    # a framework op whose tensor the kernel reads, or the wrapper returns, is not a prologue of scalars
    assert "static.framework-compute" in _cheats(_scan(tmp_path, forward_tail="z = torch.relu(x)\nout = launch(z)"))
    assert "static.framework-compute" in _cheats(_scan(tmp_path, forward_tail="out = (x > 0).float()\nn = out.sum().item()"))
    # an op writing a tensor inside an assert (out=, an in-place method) is not a check
    for line in ("assert torch.relu(x, out=y) is not None", "assert y.add_(x) is not None"):
        assert "static.framework-compute" in _cheats(_scan(tmp_path, forward_tail="y = torch.empty_like(x)\n" + line))


def test_a_branch_no_call_site_takes_is_not_walked(tmp_path):
    """`gain` is None at the only call site and `scale` keeps its default: their branches never run."""
    v = _scan(tmp_path, forward_tail="if gain is not None:\n    out = out * gain.sum()")
    assert v.verdict == "clean"
    v = _scan(tmp_path, launch_tail="if scale != 1.0:\n    out = out * scale")
    assert v.verdict == "clean"
    v = _scan(tmp_path, forward_tail="if gain is not None:\n    out = out * gain.sum()", call="KFunction.apply(x, y)")
    assert "static.framework-compute" in {f.rule for f in v.findings}  # a call site passes a tensor: it may run
    v = _scan(tmp_path, launch_tail="if scale != 1.0:\n    out = out * scale", call="launch(x, 2.0)")
    assert "static.framework-compute" in {f.rule for f in v.findings}


def test_a_framework_epilogue_over_a_kernel_output_is_policy(tmp_path):
    v = _scan(tmp_path, launch_tail="out = torch.sum(out)")
    found = [f for f in v.findings if f.rule == "static.framework-compute"]
    assert found and all(f.level == "policy" for f in found) and "epilogue" in found[0].message
    assert v.verdict == "violation" and v.policy == "strict"  # the method's protocol fails it
    lax = _scan(tmp_path, launch_tail="out = torch.sum(out)", policy="epilogue")
    assert lax.verdict == "clean" and lax.policy == "epilogue" and lax.findings  # reported, not failed
    # torch compute on the inputs (no kernel wrote them) stays a cheat under either policy
    v = _scan(tmp_path, forward_tail="out = torch.relu(x)", policy="epilogue")
    assert v.verdict == "violation"


def test_a_decoy_kernel_is_a_note_and_the_decoy_cheat_is_still_caught():
    v = scan(PROBLEM, CORPUS / "cheat_decoy_kernel.py", policy="epilogue")
    levels = {f.rule: f.level for f in v.findings}
    assert levels["static.kernel-not-launched"] == "note"
    assert levels["static.framework-compute"] == "cheat" and v.verdict == "violation"


def test_unknown_policy_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match="unknown integrity policy"):
        _scan(tmp_path, policy="lenient")


def test_a_module_level_name_error_is_a_load_error(tmp_path):
    p = tmp_path / "cand.py"
    p.write_text((CORPUS / "legit_basic.py").read_text() + "\n\ndef helper(x: Tensor):\n    return x\n")
    with pytest.raises(CandidateLoadError, match=r"cand.py:\d+: cannot be imported: name 'Tensor'"):
        scan(PROBLEM, p)
    p.write_text("from __future__ import annotations\n" + (CORPUS / "legit_basic.py").read_text()
                 + "\n\ndef helper(x: Tensor):\n    return x\n")  # annotations not evaluated: imports fine
    assert scan(PROBLEM, p).verdict == "clean"


def test_an_optional_subclass_defined_in_a_try_is_not_a_fallback(tmp_path):
    extra = '''
    try:
        from transformers import NoSuchNorm

        class FastNorm(NoSuchNorm):
            def forward(self, x):
                return KFunction.apply(x)
    except (ImportError, AttributeError):
        pass
    '''
    assert "static.fallback-except" not in {f.rule for f in _scan(tmp_path, extra=extra).findings}
    fallback = '''
    def guarded(x):
        try:
            return KFunction.apply(x)
        except RuntimeError:
            return torch.relu(x)
    '''
    v = _scan(tmp_path, extra=fallback, call="guarded(x)")
    assert "static.fallback-except" in _cheats(v)


def test_a_framework_prologue_a_launch_combines_with_its_own_input_is_policy(tmp_path):
    """torch does one step on x, the kernel the rest against y (an LLM-written surface loss's form)."""
    two = """
    @triton.jit
    def k2(p_ptr, d_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(o_ptr + offs, tl.load(p_ptr + offs, mask=offs < n) * tl.load(d_ptr + offs, mask=offs < n),
                 mask=offs < n)


    def wrapper(x, d):
        p = torch.softmax(x, dim=1).contiguous()
        out = torch.empty_like(x)
        k2[(1,)](p, d.flatten().contiguous(), out, x.numel(), BLOCK=1024)
        return out
    """
    v = _scan(tmp_path, call="wrapper(x, y)", extra=two)
    found = [f for f in v.findings if f.rule == "static.framework-compute"]
    assert found and not _cheats(v) and "framework prologue" in found[0].message
    # the launch reads the framework's result and nothing else of the inputs: the kernel only moves it
    moved = two.replace("d.flatten().contiguous()", "p")
    assert "static.framework-compute" in _cheats(_scan(tmp_path, call="wrapper(x, y)", extra=moved))
    # the second input is the framework op's too
    both = two.replace("torch.softmax(x, dim=1)", "torch.softmax(x * d, dim=1)")
    assert "static.framework-compute" in _cheats(_scan(tmp_path, call="wrapper(x, y)", extra=both))


def test_random_draws_in_forward_are_allocations(tmp_path):
    """An LLM-written RNN draws its weights with torch.randn in forward (it cannot see the model's): data from no
    input, like torch.full; its output fails the numerics, not the integrity verdict."""
    v = _scan(tmp_path, forward_tail="w = torch.randn(x.shape[1], 4, dtype=x.dtype)\nout = launch(x) + 0 * launch(w)[0, 0]")
    assert "torch.randn" not in " ".join(f.message for f in v.findings)
    v = _scan(tmp_path, forward_tail="out = torch.randn_like(x).sigmoid()")
    assert "static.framework-compute" in _cheats(v)  # computing on the draw is compute
