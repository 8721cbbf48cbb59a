import pytest

from planted_corpus import DATA, kernel_path, ports
from provenance.opstream import ops_of

TRITON_SOFTMAX = kernel_path("softmax").read_text()


@pytest.mark.parametrize("port", [p for paths in ports().values() for p in paths], ids=lambda p: p.name)
def test_every_port_has_the_op_stream_of_its_triton_kernel(port):
    op = port.stem.split("__")[0]
    assert ops_of(port.read_text(), "cpp") == ops_of(kernel_path(op).read_text(), "triton")


def test_softmax_stream():
    assert ops_of(TRITON_SOFTMAX, "triton") == ["LOAD", "REDUCE_MAX", "SUB", "EXP", "REDUCE_SUM", "DIV", "STORE"]


@pytest.mark.parametrize("c", [
    "void f(const float* x, float* y, int n) { float m = -1e30f; for (int i = 0; i < n; i++) m = fmaxf(m, x[i]); y[0] = m; }",
    "void f(const float* x, float* y, int n) { float m = x[0]; for (int i = 0; i < n; i++) if (x[i] > m) m = x[i]; y[0] = m; }",
    "void f(const float* x, float* y, int n) { float m = x[0]; for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m; *y = m; }",
    "void f(const float* x, float* y, int n) { float m = x[0]; for (int i = 0; i < n; i++) { float t = std::max(m, x[i]); m = t; } y[0] = m; }",
])
def test_c_running_max_forms_are_one_reduction(c):
    assert ops_of(c, "c") == ["LOAD", "REDUCE_MAX", "STORE"]


def test_triton_tiled_max_is_the_same_reduction():
    code = """
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    acc = tl.full([BLOCK], -float("inf"), tl.float32)
    for s in range(0, n, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
        acc = tl.maximum(acc, x)
    tl.store(y_ptr, tl.max(acc, axis=0))
"""
    assert ops_of(code, "triton") == ["LOAD", "REDUCE_MAX", "STORE"]


def test_index_arithmetic_and_bounds_masks_emit_nothing():
    code = """
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) * 2 + 1
    x = tl.load(x_ptr + offs, mask=offs < n)
    x = tl.where(offs < n, x, 0.0)
    tl.store(y_ptr + offs, x, mask=offs < n)
"""
    assert ops_of(code, "triton") == ["LOAD", "STORE"]
    c = "__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; y[i] = i < n ? x[i] : 0.0f; }"
    assert ops_of(c, "cuda") == ["LOAD", "STORE"]


def test_data_select_and_constants():
    code = """
@triton.jit
def k(x_ptr, y_ptr):
    x = tl.load(x_ptr)
    tl.store(y_ptr, tl.where(x > 0, x, x * 0.01))
"""
    assert ops_of(code, "triton") == ["LOAD", "K:0.0", "CMP", "K:0.01", "MUL", "SELECT", "STORE"]
    c = "void k(const float* x, float* y) { float v = *x; *y = v > 0.0f ? v : 0.01f * v; }"
    assert ops_of(c, "c") == ops_of(code, "triton")


def test_load_is_placed_at_first_use():
    early = """
@triton.jit
def k(a_ptr, b_ptr, y_ptr):
    a = tl.load(a_ptr)
    b = tl.load(b_ptr)
    t = tl.exp(a)
    tl.store(y_ptr, t * b)
"""
    late = "void k(const float* a, const float* b, float* y) { y[0] = expf(a[0]) * b[0]; }"
    assert ops_of(early, "triton") == ops_of(late, "c") == ["LOAD", "EXP", "LOAD", "MUL", "STORE"]


def test_recomputed_expression_counts_once_and_spilled_store_is_intermediate():
    recompute = ("void f(const float* x, float* y, int n, float m, float s) {"
                 " for (int i = 0; i < n; i++) s += expf(x[i] - m);"
                 " for (int i = 0; i < n; i++) y[i] = expf(x[i] - m) / s; }")
    spill = ("void f(const float* x, float* y, int n, float m, float s) {"
             " for (int i = 0; i < n; i++) { y[i] = expf(x[i] - m); s += y[i]; }"
             " for (int i = 0; i < n; i++) y[i] = y[i] / s; }")
    want = ["LOAD", "SUB", "EXP", "REDUCE_SUM", "DIV", "STORE"]
    assert ops_of(recompute, "c") == ops_of(spill, "c") == want


def test_dot_and_accumulated_products_agree():
    tri = """
@triton.jit
def k(a_ptr, b_ptr, c_ptr, K, BK: tl.constexpr):
    acc = tl.zeros((16, 16), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + k)
        b = tl.load(b_ptr + k)
        acc += tl.dot(a, b)
    tl.store(c_ptr, acc)
"""
    c = "void k(const float* a, const float* b, float* c, int K) { float acc = 0; for (int k = 0; k < K; k++) acc += a[k] * b[k]; *c = acc; }"
    assert ops_of(tri, "triton") == ops_of(c, "c") == ["LOAD", "LOAD", "MUL", "REDUCE_SUM", "STORE"]


def test_ascendc_intrinsics_are_mapped():
    assert ops_of((DATA / "ports" / "softmax__ascendc.cpp").read_text(), "ascendc") == ops_of(TRITON_SOFTMAX, "triton")


def test_host_code_and_torch_reference_emit_nothing():
    problem = "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return torch.softmax(x, dim=-1) * 2\n"
    assert ops_of(problem, "python") == []


def test_a_defaulted_constructor_has_no_body_and_is_no_error():
    """`Kernel() = default;` is a function_definition without a body (found in a held-out AscendC port)."""
    code = ("class K {\npublic:\n    K() = default;\n    void Run(float* y, const float* x, int n) {\n"
            "        for (int i = 0; i < n; ++i) y[i] = expf(x[i]);\n    }\n};\n")
    assert ops_of(code, "cpp") == ops_of("void f(float* y, const float* x, int n) {\n"
                                         "    for (int i = 0; i < n; ++i) y[i] = expf(x[i]);\n}\n", "cpp")


def test_an_array_accumulator_is_a_running_sum_whichever_loop_it_runs_over():
    """A port that interchanges its loops for the memory layout keeps its reductions."""
    inner = ("void k(const float* w, const float* x, float* y, int M, int K) {\n"
             "    for (int m = 0; m < M; ++m) { float acc = 0.0f;\n"
             "        for (int k = 0; k < K; ++k) acc += w[m * K + k] * x[k];\n        y[m] = acc; }\n}\n")
    outer = ("void k(const float* w, const float* x, float* acc, int M, int K) {\n"
             "    for (int k = 0; k < K; ++k)\n        for (int m = 0; m < M; ++m)\n"
             "            acc[m] += w[m * K + k] * x[k];\n}\n")
    assert "REDUCE_SUM" in ops_of(inner, "cpp") and "REDUCE_SUM" in ops_of(outer, "cpp")
    # an elementwise in-place add is not a reduction: every enclosing loop indexes the target
    inplace = ("void k(const float* x, float* y, int n, int m) {\n    for (int i = 0; i < n; ++i)\n"
               "        for (int j = 0; j < m; ++j) y[i * m + j] += x[i * m + j];\n}\n")
    assert "REDUCE_SUM" not in ops_of(inplace, "cpp")
