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
