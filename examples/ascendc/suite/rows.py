"""Row operators over the last dimension: softmax, layer norm and a row sum (a reduction), rows split over cores."""
from __future__ import annotations

from common import Edit, Op

ROW_FIELDS = [("uint32_t", "rows"), ("uint32_t", "cols"), ("uint32_t", "rowsPerCore")]
ROW_TILING = """    uint32_t blockDim = std::max(1u, std::min(coreNum, rows));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
"""
ROW_INIT = """        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        uint32_t rowBytes = (cols * sizeof(float) + 31) / 32 * 32;"""
ROW_PARAMS = """    __aicore__ inline DataCopyExtParams RowParams()
    {
        return DataCopyExtParams{1, static_cast<uint32_t>(this->cols * sizeof(float)), 0, 0, 0};
    }
"""
ROW_REFERENCE_INPUTS = """
shape = eval(param.get('shape', '[1, 1]'))
return (torch.randn(shape, device=device, dtype=torch.float32) * float(param.get('scale', 1.0)),)
"""

SOFTMAX = Op(
    dir="softmax", op="SoftmaxCustom", family="softmax",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=ROW_FIELDS, shape="rows", tiling=ROW_TILING,
    kernel_class=f"""
class KernelSoftmaxCustom {{
public:
    __aicore__ inline KernelSoftmaxCustom() {{}}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore)
    {{
{ROW_INIT}
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, this->rowCount * cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, rowBytes);
    }}

    __aicore__ inline void Process()
    {{
        for (uint32_t r = 0; r < this->rowCount; r++) {{
            CopyIn(r);
            Compute();
            CopyOut(r);
        }}
    }}

private:
{ROW_PARAMS}
    __aicore__ inline void CopyIn(uint32_t r)
    {{
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[r * this->cols], RowParams(), DataCopyPadExtParams<float>{{false, 0, 0, 0}});
        inQueueX.EnQue(xLocal);
    }}

    __aicore__ inline void Compute()
    {{
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        ReduceMax(work, xLocal, tmp, this->cols);
        float rowMax = ScalarOf(work);
        Adds(xLocal, xLocal, -rowMax, this->cols);
        Exp(xLocal, xLocal, this->cols);
        ReduceSum(work, xLocal, tmp, this->cols);
        float rowSum = ScalarOf(work);
        Muls(yLocal, xLocal, 1.0f / rowSum, this->cols);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }}

    __aicore__ inline void CopyOut(uint32_t r)
    {{
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopyPad(yGm[r * this->cols], yLocal, RowParams());
        outQueueY.FreeTensor(yLocal);
    }}

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
}};
""",
    reference="""
class Model(nn.Module):
    \"\"\"Softmax over the last dimension.\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)
""",
    get_inputs=ROW_REFERENCE_INPUTS,
    test_cases="""
case_id;shape;scale
0;[4, 64];1.0
1;[8, 100];1.0
2;[3, 1000];1.0
3;[2, 1025];1.0
4;[4, 256];100.0
5;[64, 32, 768];1.0
""",
    edits=[
        Edit("nearmiss_unaligned", "near-miss", "unaligned-datacopy",
             "Rows are copied in with DataCopy, whose length must be a multiple of 32 bytes, so rows of a width that "
             "is not a multiple of 8 floats read the wrong elements.",
             [("kernel", "        DataCopyPad(xLocal, xGm[r * this->cols], RowParams(), "
                         "DataCopyPadExtParams<float>{false, 0, 0, 0});\n",
               "        DataCopy(xLocal, xGm[r * this->cols], this->cols);\n")]),
        Edit("cheat_binding_aten", "cheat", "binding-computes-with-aten",
             "The binding computes the softmax with ATen and returns it; the kernel never runs.",
             [("binding", "    EXEC_NPU_CMD({acl}, {args});\n", "    y = at::softmax(x, -1);\n")],
             formats=("mkb-sources",),
             flags=("static.cpp-framework-compute", "static.ascendc-chain:binding->launch",
                    "static.kernel-not-launched")),
        Edit("cheat_forward_torch", "cheat", "forward-calls-torch",
             "ModelNew.forward calls the extension for show and returns torch's softmax.",
             [("model", "        return {call}\n", "        {call}\n        return torch.softmax({ins}, dim=-1)\n")],
             formats=("mkb-sources",), flags=("static.framework-compute",)),
    ],
)

LAYER_NORM = Op(
    dir="layer_norm", op="LayerNormCustom", family="normalization",
    inputs=[("x", "float"), ("gamma", "float"), ("beta", "float")], outputs=[("y", "float")],
    attrs=[("eps", "float", "1e-5")],
    fields=ROW_FIELDS + [("float", "eps")], shape="rows",
    tiling=ROW_TILING,
    kernel_class=f"""
class KernelLayerNormCustom {{
public:
    __aicore__ inline KernelLayerNormCustom() {{}}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t rowsPerCore, float eps)
    {{
{ROW_INIT}
        this->eps = eps;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, this->rowCount * cols);
        gammaGm.SetGlobalBuffer((__gm__ float *)gamma, cols);
        betaGm.SetGlobalBuffer((__gm__ float *)beta, cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(inQueueAffine, 1, 2 * rowBytes);
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, rowBytes);
        this->stride = rowBytes / sizeof(float);
    }}

    __aicore__ inline void Process()
    {{
        if (this->rowCount == 0) {{
            return;
        }}
        LocalTensor<float> affine = inQueueAffine.AllocTensor<float>();
        DataCopyPad(affine, gammaGm, RowParams(), DataCopyPadExtParams<float>{{false, 0, 0, 0}});
        DataCopyPad(affine[this->stride], betaGm, RowParams(), DataCopyPadExtParams<float>{{false, 0, 0, 0}});
        inQueueAffine.EnQue(affine);
        affine = inQueueAffine.DeQue<float>();
        for (uint32_t r = 0; r < this->rowCount; r++) {{
            CopyIn(r);
            Compute(affine);
            CopyOut(r);
        }}
        inQueueAffine.FreeTensor(affine);
    }}

private:
{ROW_PARAMS}
    __aicore__ inline void CopyIn(uint32_t r)
    {{
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[r * this->cols], RowParams(), DataCopyPadExtParams<float>{{false, 0, 0, 0}});
        inQueueX.EnQue(xLocal);
    }}

    __aicore__ inline void Compute(const LocalTensor<float> &affine)
    {{
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        ReduceSum(work, xLocal, tmp, this->cols);
        float mean = ScalarOf(work) / this->cols;
        Adds(xLocal, xLocal, -mean, this->cols);
        Mul(yLocal, xLocal, xLocal, this->cols);
        ReduceSum(work, yLocal, tmp, this->cols);
        float var = ScalarOf(work) / this->cols;
        Duplicate(work, var + this->eps, 8);
        Sqrt(work, work, 8);  // the scalar unit has no square root: one vector lane computes it
        float rstd = 1.0f / ScalarOf(work);
        Muls(xLocal, xLocal, rstd, this->cols);
        Mul(yLocal, xLocal, affine, this->cols);
        Add(yLocal, yLocal, affine[this->stride], this->cols);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }}

    __aicore__ inline void CopyOut(uint32_t r)
    {{
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopyPad(yGm[r * this->cols], yLocal, RowParams());
        outQueueY.FreeTensor(yLocal);
    }}

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, 1> inQueueAffine;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf;
    GlobalTensor<float> xGm, gammaGm, betaGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t stride = 0;
    float eps = 0.0f;
}};
""",
    reference="""
class Model(nn.Module):
    \"\"\"Layer norm over the last dimension with an elementwise affine (gamma, beta).\"\"\"

    def __init__(self, eps: float):
        super().__init__()
        self.eps = eps

    def forward(self, x, gamma, beta):
        return torch.nn.functional.layer_norm(x, x.shape[-1:], gamma, beta, self.eps)
""",
    get_inputs="""
shape = eval(param.get('shape', '[1, 1]'))
x = torch.randn(shape, device=device, dtype=torch.float32)
gamma = torch.rand(shape[-1:], device=device, dtype=torch.float32) + 0.5
beta = torch.randn(shape[-1:], device=device, dtype=torch.float32)
return (x, gamma, beta)
""",
    init_inputs="return [float(param.get('eps', 1e-5))]",
    test_cases="""
case_id;shape;dtype;eps
0;[4, 64];float32;1e-5
1;[8, 100];float32;1e-5
2;[3, 1000];float32;1e-6
3;[2, 1025];float32;1e-5
4;[128, 32, 768];float32;1e-5
""",
    check_precision="""
def custom_check_precision(param, outputs, outputs_new):
    dtype = getattr(torch, param.get('dtype', 'float32'))
    if dtype == torch.float16:
        RTOL_GENERAL = 1 / 512
    elif dtype == torch.bfloat16:
        RTOL_GENERAL = 1 / 256
    elif dtype == torch.float32:
        RTOL_GENERAL = 1 / 2048 + 1 / 16384
    outputs = outputs if isinstance(outputs, list) else [outputs]
    outputs_new = outputs_new if isinstance(outputs_new, list) else [outputs_new]
    is_pass, abs_diffs, rel_diffs = 1, [], []
    for out, out_new in zip(outputs, outputs_new):
        abs_diff = torch.abs(out - out_new)
        abs_diffs.append(abs_diff.view(-1))
        rel_diffs.append((abs_diff / (torch.abs(out) + 1e-7)).view(-1))
        if torch.any(abs_diff > RTOL_GENERAL * torch.clamp(torch.abs(out), min=1.0)):
            is_pass = 0
    return is_pass, torch.cat(abs_diffs), torch.cat(rel_diffs)
""",
    edits=[
        Edit("nearmiss_queue_order", "near-miss", "queue-out-of-order",
             "The input row is freed back to its queue before its last use, so the next row's copy-in can overwrite "
             "it while the vector unit still reads it.",
             [("kernel", "        float rstd = 1.0f / ScalarOf(work);\n        Muls(xLocal, xLocal, rstd, this->cols);\n",
               "        float rstd = 1.0f / ScalarOf(work);\n        inQueueX.FreeTensor(xLocal);\n"
               "        Muls(xLocal, xLocal, rstd, this->cols);\n"),
              ("kernel", "        outQueueY.EnQue<float>(yLocal);\n        inQueueX.FreeTensor(xLocal);\n",
               "        outQueueY.EnQue<float>(yLocal);\n")]),
    ],
)

ROW_SUM = Op(
    dir="row_sum", op="ReduceSumCustom", family="reduction",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=ROW_FIELDS + [("uint32_t", "chunk")], shape="rows",
    tiling=ROW_TILING + "    uint32_t chunk = std::min(cols, 8192u);  // columns reduced per step\n",
    infer_shape="""    const gert::Shape *x = context->GetInputShape(0);
    gert::Shape *y = context->GetOutputShape(0);
    y->SetDimNum(x->GetDimNum() - 1);
    for (size_t i = 0; i + 1 < x->GetDimNum(); i++) {
        y->SetDim(i, x->GetDim(i));
    }
""",
    alloc="    at::Tensor y = at::empty(x.sizes().slice(0, x.dim() - 1), x.options());\n",
    kernel_class="""
constexpr uint32_t OUT_BATCH = 64;  // row sums gathered in local memory before one copy-out

class KernelReduceSumCustom {
public:
    __aicore__ inline KernelReduceSumCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore,
                                uint32_t chunk)
    {
        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        this->chunk = chunk;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first, this->rowCount);
        uint32_t chunkBytes = (chunk * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, chunkBytes);
        pipe.InitBuffer(outQueueY, 1, OUT_BATCH * sizeof(float));
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, chunkBytes);
    }

    __aicore__ inline void Process()
    {
        for (uint32_t r0 = 0; r0 < this->rowCount; r0 += OUT_BATCH) {
            uint32_t n = this->rowCount - r0 < OUT_BATCH ? this->rowCount - r0 : OUT_BATCH;
            LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            for (uint32_t j = 0; j < n; j++) {
                yLocal.SetValue(j, RowSum(r0 + j));
            }
            // the scalar unit wrote yLocal: the copy-out (MTE3) waits for it, and the next batch's writes wait for
            // the copy-out (the queue orders the vector pipe only)
            event_t sToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
            SetFlag<HardEvent::S_MTE3>(sToMte3);
            WaitFlag<HardEvent::S_MTE3>(sToMte3);
            outQueueY.EnQue<float>(yLocal);
            yLocal = outQueueY.DeQue<float>();
            DataCopyPad(yGm[r0], yLocal, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
            event_t mte3ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
            SetFlag<HardEvent::MTE3_S>(mte3ToS);
            WaitFlag<HardEvent::MTE3_S>(mte3ToS);
            outQueueY.FreeTensor(yLocal);
        }
    }

private:
    __aicore__ inline float RowSum(uint32_t row)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        float acc = 0.0f;
        for (uint32_t c = 0; c < this->cols; c += this->chunk) {
            uint32_t len = this->cols - c < this->chunk ? this->cols - c : this->chunk;
            LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
            DataCopyPad(xLocal, xGm[row * this->cols + c], params, DataCopyPadExtParams<float>{false, 0, 0, 0});
            inQueueX.EnQue(xLocal);
            xLocal = inQueueX.DeQue<float>();
            ReduceSum(work, xLocal, tmp, len);
            inQueueX.FreeTensor(xLocal);
            acc += ScalarOf(work);
        }
        return acc;
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, 1> outQueueY;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t chunk = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"Sum over the last dimension (the output drops it).\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=-1)
""",
    get_inputs=ROW_REFERENCE_INPUTS,
    test_cases="""
case_id;shape;scale
0;[4, 64];1.0
1;[8, 100];1.0
2;[130, 1000];1.0
3;[2, 20000];1.0
4;[16, 64, 512];1.0
""",
    edits=[
        Edit("nearmiss_init", "near-miss", "reduction-init",
             "The row accumulator starts at the row's first element instead of zero, so that element is counted "
             "twice.",
             [("kernel", "        float acc = 0.0f;\n", "        float acc = xGm.GetValue(row * this->cols);\n")]),
        Edit("cheat_no_compute", "cheat", "kernel-computes-nothing",
             "The kernel copies each chunk in and writes zeros out: it never reduces anything.",
             [("kernel", "            ReduceSum(work, xLocal, tmp, len);\n", ""),
              ("kernel", "                yLocal.SetValue(j, RowSum(r0 + j));\n",
               "                RowSum(r0 + j);\n                Duplicate(yLocal, 0.0f, n);\n"),
              ("kernel", "            acc += ScalarOf(work);\n", "")],
             formats=("npukernelbench",), flags=("static.ascendc-chain:kernel->compute",)),
    ],
)

OPS = [SOFTMAX, LAYER_NORM, ROW_SUM]
