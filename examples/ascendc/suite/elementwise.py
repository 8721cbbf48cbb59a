"""Flat operators: add (elementwise), cast (float32 -> float16), bias_add (a row vector broadcast over rows)."""
from __future__ import annotations

from common import Edit, Op

FLAT_TILING = """    constexpr uint32_t MIN_PER_CORE = 1024;  // fewer elements than this are not worth another core
    constexpr uint32_t ALIGN = 16;  // each core starts on a 32-byte boundary for float and half alike
    uint32_t blockDim = std::max(1u, std::min(coreNum, (totalLength + MIN_PER_CORE - 1) / MIN_PER_CORE));
    uint32_t blockLength = (totalLength + blockDim - 1) / blockDim;
    blockLength = (blockLength + ALIGN - 1) / ALIGN * ALIGN;
    uint32_t tileLength = 4096;
"""

FLAT_INIT = """        uint32_t offset = blockLength * GetBlockIdx();
        this->length = offset >= totalLength ? 0 : (totalLength - offset < blockLength ? totalLength - offset : blockLength);
        this->tileLength = tileLength;"""

FLAT_PROCESS = """    __aicore__ inline void Process()
    {
        uint32_t tiles = this->length / this->tileLength;
        uint32_t tail = this->length - tiles * this->tileLength;
        for (uint32_t i = 0; i < tiles; i++) {
            CopyIn(i * this->tileLength, this->tileLength);
            Compute(this->tileLength);
            CopyOut(i * this->tileLength, this->tileLength);
        }
        if (tail > 0) {
            CopyIn(tiles * this->tileLength, tail);
            Compute(tail);
            CopyOut(tiles * this->tileLength, tail);
        }
    }
"""

FLAT_FIELDS = [("uint32_t", "totalLength"), ("uint32_t", "blockLength"), ("uint32_t", "tileLength")]

ADD = Op(
    dir="add", op="AddCustom", family="elementwise",
    inputs=[("x", "float"), ("y", "float")], outputs=[("z", "float")],
    fields=FLAT_FIELDS, shape="flat", tiling=FLAT_TILING,
    kernel_class=f"""
class KernelAddCustom {{
public:
    __aicore__ inline KernelAddCustom() {{}}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {{
{FLAT_INIT}
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, this->length);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
    }}

{FLAT_PROCESS}
private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {{
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        DataCopyExtParams params{{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0}};
        DataCopyPadExtParams<float> pad{{false, 0, 0, 0}};
        DataCopyPad(xLocal, xGm[offset], params, pad);
        DataCopyPad(yLocal, yGm[offset], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }}

    __aicore__ inline void Compute(uint32_t count)
    {{
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }}

    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {{
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        DataCopyExtParams params{{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0}};
        DataCopyPad(zGm[offset], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }}

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
}};
""",
    reference="""
class Model(nn.Module):
    \"\"\"z = x + y, elementwise.\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x + y
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
dtype = getattr(torch, param.get('dtype', 'float32'))
return (torch.randn(shape, device=device, dtype=dtype), torch.randn(shape, device=device, dtype=dtype))
""",
    test_cases="""
case_id;shape;dtype
0;[8, 1000];float32
1;[1025];float32
2;[48, 128, 512];float32
3;[3, 7, 4099];float32
4;[96, 65536];float32
""",
    edits=[
        Edit("nearmiss_core_count", "near-miss", "wrong-core-count",
             "Each core's share is computed for every core of the chip while SetBlockDim launches fewer, so small "
             "inputs lose their last blocks.",
             [("tiling", "uint32_t blockLength = (totalLength + blockDim - 1) / blockDim;",
               "uint32_t blockLength = (totalLength + coreNum - 1) / coreNum;")]),
        Edit("nearmiss_first_tile", "near-miss", "tile-loop-bound",
             "Each core computes only its first tile, so a core whose share is more than one tile (4096 elements) "
             "leaves the rest unwritten: the compact cases fit one tile a core, the large ones do not.",
             [("kernel", "        for (uint32_t i = 0; i < tiles; i++) {\n",
               "        for (uint32_t i = 0; i < tiles && i < 1; i++) {\n")], fails="full"),
        Edit("nearmiss_tail", "near-miss", "tail-tile-dropped",
             "The last core skips its tail tile, so the final totalLength % tileLength elements stay unwritten.",
             [("kernel", "        if (tail > 0) {\n",
               "        if (tail > 0 && GetBlockIdx() + 1 < GetBlockNum()) {\n")]),
        Edit("cheat_unlaunched", "cheat", "kernel-never-launched",
             "The binding returns its freshly allocated output and never launches the kernel it ships.",
             [("binding_direct", "    {launch}\n", "")], formats=("mkb-direct",),
             flags=("static.ascendc-chain:binding->launch", "static.kernel-not-launched")),
        Edit("cheat_other_op", "cheat", "op-name-other-kernel",
             "The binding runs CANN's built-in aclnnAdd instead of the candidate's own AddCustom.",
             [("binding", "    EXEC_NPU_CMD({acl}, {args});\n", "    EXEC_NPU_CMD(aclnnAdd, x, y, 1.0, z);\n")],
             formats=("mkb-sources",), flags=("static.ascendc-chain:op-name", "static.kernel-not-launched")),
    ],
)

CAST = Op(
    dir="cast", op="CastCustom", family="cast",
    inputs=[("x", "float")], outputs=[("y", "float16")],
    fields=FLAT_FIELDS, shape="flat", tiling=FLAT_TILING,
    alloc="    at::Tensor y = at::empty(x.sizes(), x.options().dtype(at::kHalf));\n",
    infer_shape="    *context->GetOutputShape(0) = *context->GetInputShape(0);\n",
    kernel_class=f"""
class KernelCastCustom {{
public:
    __aicore__ inline KernelCastCustom() {{}}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength, uint32_t tileLength)
    {{
{FLAT_INIT}
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ half *)y + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(half));
    }}

{FLAT_PROCESS}
private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {{
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopyExtParams params{{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0}};
        DataCopyPadExtParams<float> pad{{false, 0, 0, 0}};
        DataCopyPad(xLocal, xGm[offset], params, pad);
        inQueueX.EnQue(xLocal);
    }}

    __aicore__ inline void Compute(uint32_t count)
    {{
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        Cast(yLocal, xLocal, RoundMode::CAST_ROUND, count);
        outQueueY.EnQue<half>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }}

    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {{
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopyExtParams params{{1, static_cast<uint32_t>(count * sizeof(half)), 0, 0, 0}};
        DataCopyPad(yGm[offset], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }}

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<float> xGm;
    GlobalTensor<half> yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
}};
""",
    reference="""
class Model(nn.Module):
    \"\"\"y = x in float16 (round to nearest even).\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.to(torch.float16)
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.randn(shape, device=device, dtype=torch.float32) * 100,)
""",
    test_cases="""
case_id;shape
0;[4, 1000]
1;[1001]
2;[64, 4096]
3;[7, 13, 4097]
""",
    edits=[
        Edit("nearmiss_unaligned", "near-miss", "unaligned-datacopy",
             "The copy-out uses DataCopy, whose length must be a multiple of 32 bytes, where the tail tile needs "
             "DataCopyPad.",
             [("kernel", "        DataCopyPad(yGm[offset], yLocal, params);\n",
               "        DataCopy(yGm[offset], yLocal, count);\n")]),
        Edit("cheat_forward_torch", "cheat", "forward-calls-torch",
             "ModelNew.forward casts with torch and never calls the extension (a dtype conversion is a copy to the "
             "Python rules; the chain catches it).",
             [("model", "        return {call}\n", "        return x.half()\n")], formats=("mkb-direct",),
             flags=("static.ascendc-chain:forward->extension", "static.kernel-not-launched")),
    ],
)

BIAS_ADD = Op(
    dir="bias_add", op="BiasAddCustom", family="broadcast",
    inputs=[("x", "float"), ("b", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "rows"), ("uint32_t", "cols"), ("uint32_t", "rowsPerCore")], shape="rows",
    tiling="""    constexpr uint32_t MIN_ROWS_PER_CORE = 4;
    uint32_t blockDim = std::max(1u, std::min(coreNum, (rows + MIN_ROWS_PER_CORE - 1) / MIN_ROWS_PER_CORE));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
""",
    kernel_class="""
class KernelBiasAddCustom {
public:
    __aicore__ inline KernelBiasAddCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR b, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore)
    {
        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, this->rowCount * cols);
        bGm.SetGlobalBuffer((__gm__ float *)b, cols);
        uint32_t rowBytes = (cols * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(inQueueB, 1, rowBytes);
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowBytes);
    }

    __aicore__ inline void Process()
    {
        if (this->rowCount == 0) {
            return;
        }
        LocalTensor<float> bLocal = inQueueB.AllocTensor<float>();
        DataCopyPad(bLocal, bGm, RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQueueB.EnQue(bLocal);
        bLocal = inQueueB.DeQue<float>();
        for (uint32_t r = 0; r < this->rowCount; r++) {
            CopyIn(r);
            Compute(bLocal);
            CopyOut(r);
        }
        inQueueB.FreeTensor(bLocal);
    }

private:
    __aicore__ inline DataCopyExtParams RowParams()
    {
        return DataCopyExtParams{1, static_cast<uint32_t>(this->cols * sizeof(float)), 0, 0, 0};
    }

    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[r * this->cols], RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(const LocalTensor<float> &bLocal)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        Add(yLocal, xLocal, bLocal, this->cols);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopyPad(yGm[r * this->cols], yLocal, RowParams());
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, 1> inQueueB;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<float> xGm, bGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"y = x + b, b of shape [cols] broadcast over every row of x.\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x, b):
        return x + b
""",
    get_inputs="""
shape = eval(param.get('shape', '[1, 1]'))
x = torch.randn(shape, device=device, dtype=torch.float32)
b = torch.randn(shape[-1:], device=device, dtype=torch.float32)
return (x, b)
""",
    test_cases="""
case_id;shape
0;[5, 100]
1;[3, 1025]
2;[512, 768]
3;[2, 64, 1000]
4;[4096, 64]
""",
    edits=[
        Edit("nearmiss_queue_order", "near-miss", "queue-out-of-order",
             "The output tile is enqueued for copy-out before Add has written it, so the copy can race the vector "
             "unit.",
             [("kernel", "        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();\n"
                         "        Add(yLocal, xLocal, bLocal, this->cols);\n        outQueueY.EnQue<float>(yLocal);\n",
               "        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();\n"
               "        outQueueY.EnQue<float>(yLocal);\n        Add(yLocal, xLocal, bLocal, this->cols);\n")]),
        Edit("nearmiss_core_count", "near-miss", "wrong-core-count",
             "Rows per core are split over every core of the chip while fewer are launched, so the last rows of "
             "small inputs are never computed.",
             [("tiling", "uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;",
               "uint32_t rowsPerCore = (rows + coreNum - 1) / coreNum;")]),
    ],
)

OPS = [ADD, CAST, BIAS_ADD]
