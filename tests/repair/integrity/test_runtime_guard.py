"""RuntimeGuard in-process: op recording, launch counting, alias/mutation/taint checks, insensitivity."""
from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton decorates the kernels below

import pytest  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from repair.integrity.runtime import RuntimeGuard, insensitivity_findings  # noqa: E402


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


def _launch(x, y):
    relu_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)


def good(x):
    y = torch.empty_like(x)
    _launch(x.contiguous().view(-1), y.view(-1))
    return y.view(x.shape)


def cast_copy(x):
    y = torch.empty(x.shape, dtype=torch.float32)
    _launch(x, y)
    return y.to(torch.float64).clone()


def torch_after_kernel(x):
    y = torch.empty_like(x)
    _launch(x, y)
    return torch.relu(y)


def alias(x):
    _launch(x, x)
    return x


def no_launch(x):
    return x.clamp(min=0)


def discarded(x):
    y = torch.empty_like(x)
    _launch(x, y)
    return x.clone()


def empty_grid(x):
    y = torch.empty_like(x)
    relu_kernel[(0,)](x, y, x.numel(), BLOCK=64)
    return y


def _run(fn, rules_off=()):
    x = torch.randn(4, 32)
    before = [x.clone()]
    guard = RuntimeGuard(rules_off)
    with guard:
        out = fn(x)
    return guard, guard.findings(before, [x], out)


@pytest.mark.parametrize("fn", [good, cast_copy], ids=lambda f: f.__name__)
def test_legit_forward_has_no_findings(fn):
    guard, found = _run(fn)
    assert found == []
    assert guard.launches == 1 and guard.log()["kernels"] == {"relu_kernel": 1}


@pytest.mark.parametrize("fn, rules", [
    (torch_after_kernel, {"runtime.framework-compute", "runtime.output-not-from-kernel"}),
    (alias, {"runtime.output-alias", "runtime.input-mutated"}),
    (no_launch, {"runtime.framework-compute", "runtime.no-launch"}),
    (discarded, {"runtime.output-not-from-kernel"}),
], ids=lambda v: getattr(v, "__name__", ""))
def test_cheating_forward_is_flagged(fn, rules):
    _, found = _run(fn)
    assert {f.rule for f in found} == rules
    assert all(f.phase == "runtime" for f in found)


def test_an_empty_grid_is_a_launch_not_a_cheat():
    # a floor-divided grid on a tiny case is a numerics bug (the output stays unwritten), not an integrity one
    guard, found = _run(empty_grid)
    assert found == [] and guard.launches == 1


def test_framework_compute_names_the_aten_op():
    _, found = _run(torch_after_kernel)
    assert any("aten::relu" in f.evidence for f in found)


def test_rules_off_silence_their_findings():
    _, found = _run(alias, rules_off=["runtime.output-alias"])
    assert {f.rule for f in found} == {"runtime.input-mutated"}


def test_all_runtime_rules_off_installs_nothing():
    from triton.runtime.interpreter import InterpretedFunction

    run = InterpretedFunction.run
    guard = RuntimeGuard(["runtime.*"])
    with guard:
        assert InterpretedFunction.run is run
        out = no_launch(torch.randn(8))
    assert guard.findings([], [], out) == []


def test_hooks_are_removed_even_when_forward_raises():
    from triton.runtime.interpreter import InterpretedFunction

    run = InterpretedFunction.run
    with pytest.raises(ZeroDivisionError):
        with RuntimeGuard():
            assert InterpretedFunction.run is not run
            1 / 0
    assert InterpretedFunction.run is run
    torch.relu(torch.randn(3))  # no dispatch mode left behind


def test_insensitivity():
    a, b = torch.randn(16), torch.randn(16)
    same = insensitivity_findings(a.relu(), a.relu().clone(), a.relu(), b.relu())
    assert [f.rule for f in same] == ["runtime.insensitive-output"]
    const = insensitivity_findings(torch.full((16,), 0.5), torch.full((16,), 0.25), a.relu(), b.relu())
    assert [f.rule for f in const] == ["runtime.insensitive-output"]
    assert insensitivity_findings(a.relu(), b.relu(), a.relu(), b.relu()) == []
    # a reference that is itself insensitive (all-zero on both inputs) excuses the candidate
    z = torch.zeros(16)
    assert insensitivity_findings(z, z.clone(), z, z.clone()) == []
    # tuples of outputs are compared element by element, NaN equal to NaN
    n = torch.tensor([float("nan"), 1.0])
    assert len(insensitivity_findings((n, a), (n.clone(), b), (a[:2], a), (b[:2], b))) == 1


def test_outputs_are_compared_piece_by_piece_to_their_last_element():
    """_same and _constant go through big outputs in pieces (and stop at the first that differs): a difference,
    or a NaN matched by a NaN, in the last piece still counts."""
    from repair.integrity.runtime import _SPAN, _constant, _same

    a = torch.randn(2 * _SPAN + 3)
    b = a.clone()
    a[-1] = b[-1] = float("nan")
    assert _same(a, b)
    b[-2] += 1
    assert not _same(a, b)
    flat = torch.full((2 * _SPAN + 3,), 0.5)
    assert _constant(flat)
    flat[-1] = 0.25
    assert not _constant(flat)
    view = a[:-3].reshape(-1, 8)[:, :5]
    assert _same(view, view.clone())  # a view goes through as well


# -- levels (issue 31): an epilogue over kernel outputs and an in-place kernel are policy; the rest stays cheat ----

@triton.jit
def row_sum_kernel(x_ptr, p_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(p_ptr + row, tl.sum(v, axis=0))


def partials_then_torch_sum(x):
    partial = torch.empty(x.shape[0])
    row_sum_kernel[(x.shape[0],)](x, partial, x.shape[1], BLOCK=32)
    return torch.sum(partial) / x.numel()  # the final reduction of kernel partials: a small epilogue


def _levels(found):
    from repair.integrity.verdict import default_level

    return {f.rule: f.level or default_level(f.rule) for f in found}


def test_a_small_epilogue_over_kernel_partials_is_policy_with_its_share():
    _, found = _run(partials_then_torch_sum)
    assert _levels(found) == {"runtime.framework-compute": "policy", "runtime.output-not-from-kernel": "policy"}
    share = next(f.share for f in found if f.rule == "runtime.framework-compute")
    assert 0 < share < 0.25


def test_framework_compute_that_is_most_of_the_work_stays_a_cheat():
    # the kernel only copies (relu of x), torch computes the answer on the kernel's output: a third of the elements
    _, found = _run(torch_after_kernel)
    assert _levels(found) == {"runtime.framework-compute": "cheat", "runtime.output-not-from-kernel": "cheat"}
    _, found = _run(no_launch)  # torch on the inputs, no kernel at all
    assert _levels(found)["runtime.framework-compute"] == "cheat"


def test_an_in_place_kernel_is_policy_and_a_passthrough_alias_a_cheat():
    _, found = _run(alias)  # the kernel wrote its result over x and returns x
    assert _levels(found) == {"runtime.output-alias": "policy", "runtime.input-mutated": "policy"}

    def passthrough(x):
        y = torch.empty_like(x)
        _launch(x, y)
        return x  # the input, unchanged

    _, found = _run(passthrough)
    assert _levels(found)["runtime.output-alias"] == "cheat"


# -- a scalar prologue (issue 31): host-side counts and checks before the launch, not the kernel's compute --------

@triton.jit
def scaled_row_sum_kernel(x_ptr, p_ptr, n_cols, inv, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(p_ptr + row, tl.sum(v, axis=0) * inv)


@triton.jit
def fill_kernel(o_ptr, value):
    tl.store(o_ptr, value)


def counted_rows(x):
    """A count of the valid rows made on the host and handed to the kernel; an assert on the inputs' first column
    (an assert over every element would be most of the forward's elements: a cheat's share)."""
    valid = x[:, 0] > -100.0
    n = valid.sum().item()
    assert (x[:, 0] < 1e6).all(), "inputs out of range"
    out = torch.empty(x.shape[0])
    scaled_row_sum_kernel[(x.shape[0],)](x, out, x.shape[1], 1.0 / n, BLOCK=32)
    return out


def answer_through_a_host_scalar(x):
    """The answer computed by torch, read back as a number and written by a kernel that only stores it."""
    s = x.sum().item()
    out = torch.empty(1)
    fill_kernel[(1,)](out, s)
    return out


def framework_input_for_the_kernel(x):
    """A framework op whose tensor the kernel reads: not a scalar prologue."""
    y = torch.relu(x)
    out = torch.empty(x.shape[0])
    scaled_row_sum_kernel[(x.shape[0],)](y, out, x.shape[1], 1.0, BLOCK=32)
    return out


def test_a_scalar_prologue_is_policy_and_names_its_ops():
    _, found = _run(counted_rows)
    assert _levels(found) == {"runtime.framework-compute": "policy"}  # the output is the kernel's
    f = found[0]
    assert "scalar prologue" in f.message and "gt" in f.message and 0 < f.share < 0.25


def test_an_answer_through_a_host_scalar_and_a_framework_kernel_input_stay_cheats():
    _, found = _run(answer_through_a_host_scalar)  # torch read every element; the kernel one
    assert _levels(found)["runtime.framework-compute"] == "cheat"
    assert found[0].share > 0.25
    _, found = _run(framework_input_for_the_kernel)
    assert _levels(found)["runtime.framework-compute"] == "cheat"


@triton.jit
def weighted_row_mean_kernel(p_ptr, d_ptr, o_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    p = tl.load(p_ptr + row * n_cols + offs, mask=m, other=0.0)
    d = tl.load(d_ptr + row * n_cols + offs, mask=m, other=0.0)
    tl.store(o_ptr + row, tl.sum(p * d, axis=0) / n_cols)


def _run_two(fn, a, b):
    before = [a.clone(), b.clone()]
    guard = RuntimeGuard(())
    with guard:
        out = fn(a, b)
    return guard.findings(before, [a, b], out)


def test_a_framework_prologue_a_kernel_combines_with_its_own_input_is_policy():
    def surface(x, d):
        p = torch.softmax(x, dim=1).contiguous()
        out = torch.empty(x.shape[0])
        weighted_row_mean_kernel[(x.shape[0],)](p, d, out, x.shape[1], BLOCK=32)
        return out

    found = _run_two(surface, torch.randn(4, 32), torch.rand(4, 32))
    assert _levels(found) == {"runtime.framework-compute": "policy"}
    assert "framework prologue" in found[0].message and "_softmax" in found[0].message
    assert 0.25 < found[0].share <= 0.5

    def copied(x, d):  # the framework computed it all; the kernel reads nothing else of the inputs
        p = torch.softmax(x, dim=1) * d
        out = torch.empty_like(p)
        _launch(p, out)  # the copying kernel (relu of a positive product: the product itself)
        return out

    found = _run_two(copied, torch.randn(4, 32), torch.rand(4, 32))
    assert _levels(found)["runtime.framework-compute"] == "cheat"

    def second_input_read_by_torch_too(x, d):  # d was read by a framework op as well: not the kernel's own data
        p = torch.softmax(x, dim=1) + d.sum()
        out = torch.empty(x.shape[0])
        weighted_row_mean_kernel[(x.shape[0],)](p, d, out, x.shape[1], BLOCK=32)
        return out

    found = _run_two(second_input_read_by_torch_too, torch.randn(4, 32), torch.rand(4, 32))
    assert _levels(found)["runtime.framework-compute"] == "cheat"


def test_an_output_built_from_numbers_read_back_from_kernel_outputs_is_a_host_epilogue():
    def host_sum(x):  # kernel partial sums, added up on the host, wrapped as the output (an LLM-written N3 norm)
        partial = torch.empty(x.shape[0])
        row_sum_kernel[(x.shape[0],)](x, partial, x.shape[1], BLOCK=32)
        return torch.tensor(sum(partial[i].item() for i in range(x.shape[0])) / x.numel())

    _, found = _run(host_sum)
    assert _levels(found) == {"runtime.output-not-from-kernel": "policy"}
    assert "host numbers" in found[0].message

    def host_from_the_input(x):  # a number of the input itself: not the kernel's
        partial = torch.empty(x.shape[0])
        row_sum_kernel[(x.shape[0],)](x, partial, x.shape[1], BLOCK=32)
        return torch.tensor(partial[0].item() + x[0, 0].item())

    _, found = _run(host_from_the_input)
    assert _levels(found)["runtime.output-not-from-kernel"] == "cheat"


def test_random_draws_are_allocations_and_compute_on_them_is_not():
    def drawn(x):
        noise = torch.randn(x.shape)
        y = torch.empty_like(x)
        _launch(noise, y)
        return y

    _, found = _run(drawn)
    assert found == []

    def computed(x):
        y = torch.empty_like(x)
        _launch(x, y)
        return y + torch.rand_like(x).sigmoid()

    _, found = _run(computed)
    assert "aten::sigmoid" in next(f.evidence for f in found if f.rule == "runtime.framework-compute")


def test_a_big_input_is_remembered_by_its_digest_and_a_change_is_still_found(monkeypatch):
    """The mutation check keeps a digest of an input past _DIGEST_FROM bytes, not a copy: one byte changed is a
    finding, the same bytes are none."""
    import torch

    from repair.integrity import runtime

    monkeypatch.setattr(runtime, "_DIGEST_FROM", 1024)
    x = torch.randn(4096, dtype=torch.bfloat16)
    kept = runtime.snapshot(x)
    assert isinstance(kept, runtime.Fingerprint)
    assert runtime.mutation_findings([kept], [x]) == []
    x[4095] += 1
    assert [f.rule for f in runtime.mutation_findings([kept], [x])] == ["runtime.input-mutated"]
    assert isinstance(runtime.snapshot(torch.ones(4)), torch.Tensor)  # a small one is a copy
