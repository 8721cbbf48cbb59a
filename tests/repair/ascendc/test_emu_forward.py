"""ModelNew.forward runs as written on ascendc-cpu: the extension it imports is a stand-in running the emulated
operator, and whatever forward does with the result is judged (numerics and the runtime guard), as on an NPU."""
from __future__ import annotations

import pytest
import torch

from ascendc_fixtures import SUITE, variant
from repair.ascendc import emulate
from repair.engine import evaluate, render_table

ADD = SUITE / "add"
CALL = "        return custom_ops_lib.add_custom(x, y)\n"


def _forward(tmp_path, body: str):
    return variant(ADD / "correct.py", tmp_path, (CALL, body))


@pytest.mark.parametrize("body, rule", [
    ("        return custom_ops_lib.add_custom(x, y) * 2\n", "runtime.framework-compute"),  # scales
    ("        return custom_ops_lib.add_custom(x, y) + 0.5\n", "runtime.framework-compute"),  # offsets
    ("        custom_ops_lib.add_custom(x, y)\n        return torch.zeros_like(x)\n",  # replaces
     "runtime.output-not-from-kernel"),
    ("        custom_ops_lib.add_custom(x, y)\n        return x\n", "runtime.output-alias"),  # discards
], ids=["scales", "offsets", "replaces", "discards"])
def test_what_forward_does_with_the_result_is_judged(tmp_path, body, rule):
    r = evaluate(ADD / "problem.py", _forward(tmp_path, body), backend="ascendc-cpu", seed=1, tier="compact")
    assert not r.passed, render_table(r)
    assert {c.status for c in r.cases} == {"mismatch"}, render_table(r)  # the numbers are wrong, as on the NPU
    rules = {f.rule for f in r.integrity.findings}
    assert rule in rules and r.integrity.verdict == "violation", rules


def test_forward_runs_its_own_control_flow_and_the_launch_is_counted(tmp_path):
    body = ("        if x.dim() > 0:\n            out = custom_ops_lib.add_custom(x.contiguous(), y)\n"
            "        else:\n            out = None\n        return out\n")
    r = evaluate(ADD / "problem.py", _forward(tmp_path, body), backend="ascendc-cpu", seed=1, tier="compact")
    assert r.passed, render_table(r)
    assert r.cases[0].guard_log["kernels"] == {"add_custom": 1}
    twice = evaluate(ADD / "problem.py", _forward(tmp_path / "2", "        custom_ops_lib.add_custom(x, y)\n" + CALL),
                     backend="ascendc-cpu", seed=1, tier="compact")
    assert twice.cases[0].guard_log["kernels"] == {"add_custom": 2}


def test_the_stand_in_converts_arguments_as_pybind11_would():
    m = emulate(ADD / "correct.py")()
    x, y = torch.randn(64), torch.randn(64)
    ext = type(m).forward.__globals__["custom_ops_lib"]
    assert ext.__ascendc_emulated__ and callable(ext.add_custom)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        ext.add_custom(x, 2.0)
    with pytest.raises(TypeError, match="takes no keywords"):
        ext.add_custom(x=x, y=y)
    torch.testing.assert_close(ext.add_custom(x, y), x + y)
    with pytest.raises(Exception, match="torch_npu.npu_add is part of torch_npu"):
        __import__("torch_npu").npu_add


def test_a_binding_check_is_a_runtime_error_forward_may_catch(tmp_path):
    """The direct launch's binding checks `x.is_contiguous()`: a strided view raises before any kernel runs (a
    RuntimeError, as c10::Error is), and a forward that catches it and retries contiguously is correct."""
    strided = variant(ADD / "correct.json", tmp_path, (
        "        return benchmark_ops.add_custom(x, y)\n",
        "        try:\n            return benchmark_ops.add_custom(x.as_strided((x.numel() // 2,), (2,)), y)\n"
        "        except RuntimeError:\n            return benchmark_ops.add_custom(x, y)\n"))
    r = evaluate(ADD / "problem.py", strided, backend="ascendc-cpu", seed=1, tier="compact")
    assert r.passed, render_table(r)


BINDING = """at::Tensor add_custom_impl_npu(const at::Tensor &x, const at::Tensor &y)
{
    at::Tensor z = at::empty_like(x);
    EXEC_NPU_CMD(aclnnAddCustom, x, y, z);
    return z;
}
"""


def test_the_binding_reads_as_cpp_runs_it(tmp_path):
    """Forms the binding evaluator follows as C++ would: an output dtype from a namespace-scope table, the operator
    call in a helper under an `if`, a loop, a vector of outputs; forward computes an input the extension takes."""
    forms = variant(ADD / "correct.py", tmp_path, (BINDING, """std::map<int64_t, at::ScalarType> kOut = {{0, at::kFloat}, {1, at::kHalf}};

static void run_add(const at::Tensor &x, const at::Tensor &y, at::Tensor &z)
{
    EXEC_NPU_CMD(aclnnAddCustom, x, y, z);
}

std::vector<at::Tensor> add_custom_impl_npu(const at::Tensor &x, const at::Tensor &y, int64_t kind)
{
    at::Tensor z = at::empty(x.sizes(), x.options().dtype(kOut.at(kind)));
    int64_t n = 1;
    for (int64_t i = 0; i < x.dim(); i++) {
        n *= x.size(i);
    }
    if (n > 0 && kind == 0) {
        run_add(x, y, z);
    } else {
        TORCH_CHECK(false, "no kernel for kind ", kind);
    }
    std::vector<at::Tensor> out;
    out.push_back(z);
    return out;
}
"""), (CALL, "        return custom_ops_lib.add_custom(x, y.contiguous(), 0)[0]\n"))
    r = evaluate(ADD / "problem.py", forms, backend="ascendc-cpu", seed=1, tier="compact")
    assert r.passed, render_table(r)
    m = emulate(forms)()
    ext = type(m).forward.__globals__["custom_ops_lib"]
    x = torch.randn(40)
    with pytest.raises(RuntimeError, match="TORCH_CHECK.*failed in the binding: no kernel for kind 1$"):
        ext.add_custom(x, x, 1)
    with pytest.raises(IndexError, match="a key 7 the table does not hold"):
        ext.add_custom(x, x, 7)


def test_a_binding_assigns_through_a_vectors_element_references(tmp_path):
    """`shape.back() = 1`, `shape.back() /= 2`, `shape.front() = ...`, `shape.at(k) = ...` write the local vector as
    C++ does (a shape for an output); `at(k)` past the end throws std::out_of_range, an IndexError in Python."""
    forms = variant(ADD / "correct.py", tmp_path, (BINDING, """at::Tensor add_custom_impl_npu(const at::Tensor &x, const at::Tensor &y, int64_t k)
{
    auto shape = x.sizes().vec();
    int64_t last = shape.back();
    if (!shape.empty()) shape.back() = 1;
    shape.front() = shape.front() * 2;
    shape.back() /= 2;
    shape.back() *= 2;
    shape.at(k) = last;
    at::Tensor z = at::empty(shape, x.options());
    EXEC_NPU_CMD(aclnnAddCustom, x, y, z);
    return z;
}
"""), (CALL, "        return custom_ops_lib.add_custom(x, y, 0)\n"))
    ext = type(emulate(forms)()).forward.__globals__["custom_ops_lib"]
    x, y = torch.randn(48), torch.randn(48)
    torch.testing.assert_close(ext.add_custom(x, y, 0), x + y)  # [48] -> [1] -> [2] -> [1] -> [2] -> [48]
    with pytest.raises(IndexError, match=r"writes element 1 of 1 \(std::out_of_range\)"):
        ext.add_custom(x, y, 1)
