"""Regenerate the AscendC rules' development set: operators written for it (not the example suite's), each with its
correct kernel and near-misses injected by hand, as MultiKernelBench six-source .py files beside an NPUKernelBench
validation/ and the problem.py that `repair import npukernelbench` writes from it.

The kernels differ from the example suite's on purpose (other names, a Step() per tile, `AscendC::` types, a
scalar running max, the tileNum * BUFFER_NUM loop of the public samples), so a rule that only knew the suite's
spelling would not fire here. It reuses the suite's assembly code (examples/ascendc/suite/common.py).

    .venv/bin/python tests/repair/rules/data/dev_ascendc/build_dev.py

tests/repair/rules/test_ascendc_dev_generated.py rebuilds it into a temporary directory and compares byte for byte.
"""
from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[4]
sys.path.insert(0, str(ROOT / "examples" / "ascendc" / "suite"))
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from common import Edit, Op, six_sources, validation_files  # noqa: E402

from repair.ascendc import problem_source  # noqa: E402

# the host's names, other than the suite's
RENAME = {"coreNum": "aivCount", "blockDim": "usedCores"}

AXPB = Op(
    dir="axpb", op="AxpbCustom", family="elementwise",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "totalLength"), ("uint32_t", "perCore"), ("uint32_t", "chunk")], shape="flat",
    tiling="""    constexpr uint32_t PER_CORE_MIN = 2048;
    uint32_t blockDim = std::max(1u, std::min(coreNum, (totalLength + PER_CORE_MIN - 1) / PER_CORE_MIN));
    uint32_t perCore = (totalLength + blockDim - 1) / blockDim;
    perCore = (perCore + 7) / 8 * 8;
    uint32_t chunk = 2048;
""",
    kernel_class="""
class KernelAxpbCustom {
public:
    __aicore__ inline KernelAxpbCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t perCore, uint32_t chunk)
    {
        uint32_t start = perCore * GetBlockIdx();
        this->count = start >= totalLength ? 0 : (totalLength - start < perCore ? totalLength - start : perCore);
        this->chunk = chunk;
        srcGm.SetGlobalBuffer((__gm__ float *)x + start, this->count);
        dstGm.SetGlobalBuffer((__gm__ float *)y + start, this->count);
        pipe.InitBuffer(inQue, BUFFER_NUM, chunk * sizeof(float));
        pipe.InitBuffer(outQue, BUFFER_NUM, chunk * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t full = this->count / this->chunk;
        uint32_t rest = this->count % this->chunk;
        for (uint32_t t = 0; t < full; ++t) {
            Step(t * this->chunk, this->chunk);
        }
        if (rest != 0) {
            Step(full * this->chunk, rest);
        }
    }

private:
    __aicore__ inline void Step(uint32_t at, uint32_t len)
    {
        AscendC::LocalTensor<float> src = inQue.AllocTensor<float>();
        DataCopyPad(src, srcGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(src);
        src = inQue.DeQue<float>();
        AscendC::LocalTensor<float> res = outQue.AllocTensor<float>();
        Muls(res, src, 2.0f, len);
        Adds(res, res, 1.0f, len);
        outQue.EnQue(res);
        inQue.FreeTensor(src);
        res = outQue.DeQue<float>();
        DataCopyPad(dstGm[at], res, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0});
        outQue.FreeTensor(res);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    AscendC::GlobalTensor<float> srcGm;
    AscendC::GlobalTensor<float> dstGm;
    uint32_t count = 0;
    uint32_t chunk = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"y = 2 x + 1, elementwise.\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 2.0 + 1.0
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.randn(shape, device=device, dtype=torch.float32),)
""",
    test_cases="""
case_id;shape
0;[3, 999]
1;[2051]
2;[96, 8192]
3;[5, 7, 3001]
4;[81925]
""",
    edits=[
        Edit("nearmiss_tail", "near-miss", "tail-tile-dropped", "The last core skips its remainder chunk.",
             [("kernel", "        if (rest != 0) {\n",
               "        if (GetBlockIdx() + 1 != GetBlockNum() && rest != 0) {\n")]),
        Edit("nearmiss_floor_share", "near-miss", "tail-tile-dropped",
             "Each core's share rounds down: with 40 cores and a share that is a whole number of 8-element blocks, "
             "the remainder of the division is never processed.",
             [("tiling", "uint32_t perCore = (totalLength + blockDim - 1) / blockDim;",
               "uint32_t perCore = totalLength / blockDim;")], fails="full"),
        Edit("nearmiss_first_tile", "near-miss", "tile-loop-bound", "Only the first full chunk of a core runs.",
             [("kernel", "for (uint32_t t = 0; t < full; ++t)", "for (uint32_t t = 0; t < 1 && t < full; ++t)")],
             fails="full"),
        Edit("nearmiss_core_count", "near-miss", "wrong-core-count",
             "The share is split over every AIV core while fewer blocks are launched.",
             [("tiling", "(totalLength + blockDim - 1) / blockDim;", "(totalLength + coreNum - 1) / coreNum;")]),
        Edit("nearmiss_unaligned", "near-miss", "unaligned-datacopy", "The result is copied out with DataCopy.",
             [("kernel", "        DataCopyPad(dstGm[at], res, DataCopyExtParams{1, static_cast<uint32_t>(len * "
                         "sizeof(float)), 0, 0, 0});\n", "        DataCopy(dstGm[at], res, len);\n")]),
        Edit("nearmiss_enque", "near-miss", "queue-out-of-order", "The result is enqueued before it is computed.",
             [("kernel", "        Muls(res, src, 2.0f, len);\n        Adds(res, res, 1.0f, len);\n"
                         "        outQue.EnQue(res);\n",
               "        outQue.EnQue(res);\n        Muls(res, src, 2.0f, len);\n"
               "        Adds(res, res, 1.0f, len);\n")]),
        Edit("nearmiss_offset", "near-miss", "missing-block-offset", "The input buffer misses the core's offset.",
             [("kernel", "srcGm.SetGlobalBuffer((__gm__ float *)x + start, this->count);",
               "srcGm.SetGlobalBuffer((__gm__ float *)x, this->count);")]),
        Edit("nearmiss_bytes", "near-miss", "buffer-bytes", "The input queue's buffers are sized in elements.",
             [("kernel", "pipe.InitBuffer(inQue, BUFFER_NUM, chunk * sizeof(float));",
               "pipe.InitBuffer(inQue, BUFFER_NUM, chunk);")]),
    ],
)

ROW_MAX = Op(
    dir="row_max", op="RowMaxCustom", family="reduction",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "rows"), ("uint32_t", "cols"), ("uint32_t", "rowsPerCore"), ("uint32_t", "chunk")],
    shape="rows",
    tiling="""    uint32_t blockDim = std::max(1u, std::min(coreNum, rows));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    uint32_t chunk = std::min(cols, 4096u);
""",
    infer_shape="""    const gert::Shape *x = context->GetInputShape(0);
    gert::Shape *y = context->GetOutputShape(0);
    y->SetDimNum(x->GetDimNum() - 1);
    for (size_t i = 0; i + 1 < x->GetDimNum(); i++) {
        y->SetDim(i, x->GetDim(i));
    }
""",
    alloc="    at::Tensor y = at::empty(x.sizes().slice(0, x.dim() - 1), x.options());\n",
    kernel_class="""
constexpr uint32_t ROWS_OUT = 32;  // row maxima gathered before one copy-out

class KernelRowMaxCustom {
public:
    __aicore__ inline KernelRowMaxCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore,
                                uint32_t chunk)
    {
        uint32_t firstRow = rowsPerCore * GetBlockIdx();
        this->nRows = firstRow >= rows ? 0 : (rows - firstRow < rowsPerCore ? rows - firstRow : rowsPerCore);
        this->cols = cols;
        this->chunk = chunk;
        inGm.SetGlobalBuffer((__gm__ float *)x + firstRow * cols, this->nRows * cols);
        outGm.SetGlobalBuffer((__gm__ float *)y + firstRow, this->nRows);
        uint32_t chunkBytes = (chunk * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQue, BUFFER_NUM, chunkBytes);
        pipe.InitBuffer(outQue, 1, ROWS_OUT * sizeof(float));
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, chunkBytes);
    }

    __aicore__ inline void Process()
    {
        for (uint32_t r0 = 0; r0 < this->nRows; r0 += ROWS_OUT) {
            uint32_t n = this->nRows - r0 < ROWS_OUT ? this->nRows - r0 : ROWS_OUT;
            LocalTensor<float> maxima = outQue.AllocTensor<float>();
            for (uint32_t j = 0; j < n; j++) {
                maxima.SetValue(j, RowMax(r0 + j));
            }
            outQue.EnQue<float>(maxima);
            maxima = outQue.DeQue<float>();
            DataCopyPad(outGm[r0], maxima, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
            outQue.FreeTensor(maxima);
        }
    }

private:
    __aicore__ inline float RowMax(uint32_t row)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        float best = -3.40282347e+38f;
        for (uint32_t c = 0; c < this->cols; c += this->chunk) {
            uint32_t len = this->cols - c < this->chunk ? this->cols - c : this->chunk;
            LocalTensor<float> part = inQue.AllocTensor<float>();
            DataCopyPad(part, inGm[row * this->cols + c],
                        DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                        DataCopyPadExtParams<float>{false, 0, 0, 0});
            inQue.EnQue(part);
            part = inQue.DeQue<float>();
            ReduceMax(work, part, tmp, len);
            inQue.FreeTensor(part);
            float m = ScalarOf(work);
            best = m > best ? m : best;
        }
        return best;
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, 1> outQue;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf;
    GlobalTensor<float> inGm, outGm;
    uint32_t nRows = 0;
    uint32_t cols = 0;
    uint32_t chunk = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"Max over the last dimension (the output drops it).\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amax(x, dim=-1)
""",
    get_inputs="""
shape = eval(param.get('shape', '[1, 1]'))
return (torch.randn(shape, device=device, dtype=torch.float32) - float(param.get('shift', 0.0)),)
""",
    test_cases="""
case_id;shape;shift
0;[6, 100];8.0
1;[3, 1001];8.0
2;[130, 1000];0.0
3;[2, 9000];8.0
""",
    edits=[
        Edit("nearmiss_core_count", "near-miss", "wrong-core-count",
             "Rows are split (rounded down) over every AIV core while fewer blocks are launched.",
             [("tiling", "uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;",
               "uint32_t rowsPerCore = rows / coreNum;")]),
        Edit("nearmiss_unaligned", "near-miss", "unaligned-datacopy", "Chunks are copied in with DataCopy.",
             [("kernel", """            DataCopyPad(part, inGm[row * this->cols + c],
                        DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                        DataCopyPadExtParams<float>{false, 0, 0, 0});
""", "            DataCopy(part, inGm[row * this->cols + c], len);\n")]),
        Edit("nearmiss_free", "near-miss", "queue-out-of-order", "The chunk is freed before it is reduced.",
             [("kernel", "            ReduceMax(work, part, tmp, len);\n            inQue.FreeTensor(part);\n",
               "            inQue.FreeTensor(part);\n            ReduceMax(work, part, tmp, len);\n")]),
        Edit("nearmiss_init_scalar", "near-miss", "reduction-init", "The running max starts at 0.",
             [("kernel", "float best = -3.40282347e+38f;", "float best = 0.0f;")]),
    ],
)

RELU = Op(
    dir="relu_tiles", op="ReluTilesCustom", family="elementwise",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "totalLength"), ("uint32_t", "blockLength"), ("uint32_t", "tileNum")], shape="flat",
    tiling="""    uint32_t blockDim = std::min(coreNum, 8u);  // inputs are multiples of 8 cores * 16 tiles * 8
    uint32_t blockLength = totalLength / blockDim;
    uint32_t tileNum = 8;
""",
    kernel_class="""
class KernelReluTilesCustom {
public:
    __aicore__ inline KernelReluTilesCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength, uint32_t tileNum)
    {
        this->blockLength = blockLength;
        this->tileNum = tileNum;
        this->tileLength = blockLength / tileNum / BUFFER_NUM;
        xGm.SetGlobalBuffer((__gm__ float *)x + this->blockLength * GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + this->blockLength * GetBlockIdx(), this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        int32_t loopCount = this->tileNum * BUFFER_NUM;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(int32_t progress)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        Relu(yLocal, xLocal, this->tileLength);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(int32_t progress)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopy(yGm[progress * this->tileLength], yLocal, this->tileLength);
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t blockLength;
    uint32_t tileNum;
    uint32_t tileLength;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"y = relu(x).\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.randn(shape, device=device, dtype=torch.float32),)
""",
    test_cases="""
case_id;shape
0;[8, 1024]
1;[16384]
2;[64, 4096]
""",
    edits=[
        Edit("nearmiss_buffer_num", "near-miss", "tile-loop-bound",
             "The loop runs tileNum tiles where the tile length was cut for tileNum * BUFFER_NUM of them.",
             [("kernel", "        int32_t loopCount = this->tileNum * BUFFER_NUM;\n"
                         "        for (int32_t i = 0; i < loopCount; i++) {\n",
               "        for (int32_t i = 0; i < this->tileNum; i++) {\n")]),
    ],
)

SOFTMAX = Op(
    dir="row_softmax", op="RowSoftmaxCustom", family="softmax",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "rows"), ("uint32_t", "cols"), ("uint32_t", "rowsPerCore")], shape="rows",
    tiling="""    uint32_t blockDim = std::max(1u, std::min(coreNum, rows));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
""",
    kernel_class="""
class KernelRowSoftmaxCustom {
public:
    __aicore__ inline KernelRowSoftmaxCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore)
    {
        uint32_t row0 = rowsPerCore * GetBlockIdx();
        this->mine = row0 >= rows ? 0 : (rows - row0 < rowsPerCore ? rows - row0 : rowsPerCore);
        this->width = cols;
        uint32_t padded = (cols * sizeof(float) + 31) / 32 * 32;
        src.SetGlobalBuffer((__gm__ float *)x + row0 * cols, this->mine * cols);
        dst.SetGlobalBuffer((__gm__ float *)y + row0 * cols, this->mine * cols);
        pipe.InitBuffer(qIn, BUFFER_NUM, padded);
        pipe.InitBuffer(qOut, BUFFER_NUM, padded);
        pipe.InitBuffer(redBuf, 32);
        pipe.InitBuffer(scratchBuf, padded);
    }

    __aicore__ inline void Process()
    {
        DataCopyExtParams line{1, static_cast<uint32_t>(this->width * sizeof(float)), 0, 0, 0};
        for (uint32_t i = 0; i < this->mine; ++i) {
            LocalTensor<float> row = qIn.AllocTensor<float>();
            DataCopyPad(row, src[i * this->width], line, DataCopyPadExtParams<float>{false, 0, 0, 0});
            qIn.EnQue(row);
            row = qIn.DeQue<float>();
            LocalTensor<float> prob = qOut.AllocTensor<float>();
            LocalTensor<float> red = redBuf.Get<float>();
            LocalTensor<float> scratch = scratchBuf.Get<float>();
            ReduceMax(red, row, scratch, this->width);
            float peak = ScalarOf(red);
            Adds(row, row, -peak, this->width);
            Exp(prob, row, this->width);
            ReduceSum(red, prob, scratch, this->width);
            float total = ScalarOf(red);
            Muls(prob, prob, 1.0f / total, this->width);
            qOut.EnQue(prob);
            qIn.FreeTensor(row);
            prob = qOut.DeQue<float>();
            DataCopyPad(dst[i * this->width], prob, line);
            qOut.FreeTensor(prob);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> qIn;
    TQue<QuePosition::VECOUT, BUFFER_NUM> qOut;
    TBuf<TPosition::VECCALC> redBuf, scratchBuf;
    GlobalTensor<float> src, dst;
    uint32_t mine = 0;
    uint32_t width = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"Softmax over the last dimension.\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)
""",
    get_inputs="""
shape = eval(param.get('shape', '[1, 1]'))
return (torch.randn(shape, device=device, dtype=torch.float32) * float(param.get('scale', 1.0)),)
""",
    test_cases="""
case_id;shape;scale
0;[4, 50];1.0
1;[6, 200];60.0
2;[33, 777];1.0
3;[8, 1024];100.0
""",
    edits=[
        Edit("nearmiss_maxsub", "near-miss", "missing-max-subtraction",
             "exp of the unshifted row overflows for large inputs.",
             [("kernel", """            ReduceMax(red, row, scratch, this->width);
            float peak = ScalarOf(red);
            Adds(row, row, -peak, this->width);
""", "")]),
    ],
)

SCALE_SHIFT = Op(
    dir="scale_shift", op="ScaleShiftCustom", family="elementwise",
    inputs=[("x", "float")], outputs=[("y", "float")], attrs=[("alpha", "float", "1.5")],
    fields=[("uint32_t", "totalLength"), ("uint32_t", "perCore"), ("uint32_t", "tile"), ("uint32_t", "tileCount"),
            ("float", "alpha")], shape="flat",
    tiling="""    uint32_t alignedLength = ((totalLength + 7) / 8) * 8;
    uint32_t blockDim = std::max(1u, std::min(coreNum, (alignedLength + 2047) / 2048));
    uint32_t perCore = (alignedLength / 8 + blockDim - 1) / blockDim * 8;
    blockDim = (alignedLength + perCore - 1) / perCore;
    uint32_t tile = 1024;
    uint32_t fullTiles = perCore / tile;
    uint32_t tileCount = (perCore % tile) == 0 ? fullTiles : fullTiles + 1;
""",
    kernel_class="""
class KernelScaleShiftCustom {
public:
    __aicore__ inline KernelScaleShiftCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t perCore, uint32_t tile,
                                uint32_t tileCount, float alpha)
    {
        uint32_t begin = perCore * GetBlockIdx();
        this->count = GetBlockIdx() + 1 == GetBlockNum() ? totalLength - begin : perCore;
        this->tile = tile;
        this->tileCount = tileCount;
        this->alpha = alpha;
        xGm.SetGlobalBuffer((__gm__ float *)x + begin, this->count);
        yGm.SetGlobalBuffer((__gm__ float *)y + begin, this->count);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(float));
        pipe.InitBuffer(outQue, BUFFER_NUM, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t t = 0; t < this->tileCount; t++) {
            uint32_t at = t * this->tile;
            if (at >= this->count) {
                break;
            }
            uint32_t len = this->count - at < this->tile ? this->count - at : this->tile;
            CopyIn(at, len);
            Compute(len);
            CopyOut(at, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t at, uint32_t len)
    {
        LocalTensor<float> xLocal = inQue.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<float> xLocal = inQue.DeQue<float>();
        LocalTensor<float> yLocal = outQue.AllocTensor<float>();
        Muls(yLocal, xLocal, this->alpha, len);
        Adds(yLocal, yLocal, 1.0f, len);
        outQue.EnQue(yLocal);
        inQue.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t at, uint32_t len)
    {
        LocalTensor<float> yLocal = outQue.DeQue<float>();
        DataCopyPad(yGm[at], yLocal, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0});
        outQue.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    GlobalTensor<float> xGm, yGm;
    uint32_t count = 0;
    uint32_t tile = 0;
    uint32_t tileCount = 0;
    float alpha = 1.0f;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"y = alpha * x + 1, elementwise, alpha a float attribute.\"\"\"

    def __init__(self, alpha=1.5):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return x * self.alpha + 1.0
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.randn(shape, device=device, dtype=torch.float32),)
""",
    init_inputs="return [float(param.get('alpha', 1.5))]",
    test_cases="""
case_id;shape;alpha
0;[3, 999];2.5
1;[1999];0.75
2;[96, 8193];1.5
3;[5, 7, 3001];-0.5
4;[262147];3.25
""",
    edits=[
        Edit("nearmiss_tile_count", "near-miss", "tile-count-floored",
             "The tile count copies the floor of the share by the tile, so a share's last partial tile is skipped.",
             [("tiling", "uint32_t tileCount = (perCore % tile) == 0 ? fullTiles : fullTiles + 1;",
               "uint32_t tileCount = fullTiles;")]),
        # no aligned-down length here: this kernel's last core takes totalLength - begin, so it would pass
        Edit("nearmiss_loop_short", "near-miss", "loop-off-by-one", "The tile loop stops one tile short.",
             [("kernel", "for (uint32_t t = 0; t < this->tileCount; t++)",
               "for (uint32_t t = 0; t < this->tileCount - 1; t++)")]),
        Edit("nearmiss_launch_all", "near-miss", "block-count",
             "SetBlockDim launches every AIV core while the shares were computed for fewer blocks.",
             [("launch", "context->SetBlockDim(blockDim);", "context->SetBlockDim(platform.GetCoreNumAiv());")]),
        Edit("nearmiss_alpha_int", "near-miss", "attribute-misread",
             "The float attribute alpha travels in an integer tiling field, so its fraction is lost.",
             [("tiling_header", "TILING_DATA_FIELD_DEF(float, alpha);", "TILING_DATA_FIELD_DEF(uint32_t, alpha);")]),
    ],
)

CLAMP_HALF = Op(
    dir="clamp_half", op="ClampHalfCustom", family="elementwise",
    inputs=[("x", "float16")], outputs=[("y", "float16")], attrs=[("lo", "float", "-0.5"), ("hi", "float", "0.75")],
    fields=[("uint32_t", "totalLength"), ("uint32_t", "perCore"), ("uint32_t", "tile"), ("float", "lo"),
            ("float", "hi")], shape="flat",
    tiling="""    constexpr uint32_t QUEUES = 2;  // one in, one out
    constexpr uint32_t BUFFERS = 2;  // each double-buffered
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t blockDim = std::max(1u, std::min(coreNum, (totalLength + 1023) / 1024));
    uint32_t perCore = (totalLength + blockDim - 1) / blockDim;
    perCore = (perCore + 15) / 16 * 16;
    blockDim = (totalLength + perCore - 1) / perCore;
    // half of the UB for the queues' buffers: the float scratch takes as much again
    uint32_t tileBytes = static_cast<uint32_t>(ubSize / (QUEUES * BUFFERS) / 2) / 32 * 32;
    uint32_t tile = tileBytes / 2;
""",
    kernel_class="""
class KernelClampHalfCustom {
public:
    __aicore__ inline KernelClampHalfCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t perCore, uint32_t tile, float lo,
                                float hi)
    {
        uint32_t start = perCore * GetBlockIdx();
        this->count = totalLength - start < perCore ? totalLength - start : perCore;
        this->tile = tile;
        this->lo = lo;
        this->hi = hi;
        xGm.SetGlobalBuffer((__gm__ half *)x + start, this->count);
        yGm.SetGlobalBuffer((__gm__ half *)y + start, this->count);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(half));
        pipe.InitBuffer(outQue, BUFFER_NUM, tile * sizeof(half));
        pipe.InitBuffer(scratch, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t steps = (this->count + this->tile - 1) / this->tile;
        for (uint32_t s = 0; s < steps; s++) {
            uint32_t len = s + 1 == steps ? this->count - s * this->tile : this->tile;
            CopyIn(s * this->tile, len);
            Compute(len);
            CopyOut(s * this->tile, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t at, uint32_t len)
    {
        LocalTensor<half> xLocal = inQue.AllocTensor<half>();
        DataCopyPad(xLocal, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(half)), 0, 0, 0},
                    DataCopyPadExtParams<half>{false, 0, 0, 0});
        inQue.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<half> xLocal = inQue.DeQue<half>();
        LocalTensor<half> yLocal = outQue.AllocTensor<half>();
        LocalTensor<float> f = scratch.Get<float>();
        Cast(f, xLocal, RoundMode::CAST_NONE, len);
        Maxs(f, f, this->lo, len);
        Mins(f, f, this->hi, len);
        Cast(yLocal, f, RoundMode::CAST_ROUND, len);
        outQue.EnQue(yLocal);
        inQue.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t at, uint32_t len)
    {
        LocalTensor<half> yLocal = outQue.DeQue<half>();
        DataCopyPad(yGm[at], yLocal, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(half)), 0, 0, 0});
        outQue.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    TBuf<QuePosition::VECCALC> scratch;
    GlobalTensor<half> xGm, yGm;
    uint32_t count = 0;
    uint32_t tile = 0;
    float lo = 0.0f;
    float hi = 0.0f;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"y = clamp(x, lo, hi) of a half tensor, lo and hi float attributes (the bounds are exact in half).\"\"\"

    def __init__(self, lo=-0.5, hi=0.75):
        super().__init__()
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        return torch.clamp(x, self.lo, self.hi)
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.randn(shape, device=device, dtype=torch.float16),)
""",
    init_inputs="return [float(param.get('lo', -0.5)), float(param.get('hi', 0.75))]",
    test_cases="""
case_id;shape;lo;hi
0;[3, 999];-0.5;0.75
1;[1999];-1.0;0.25
2;[96, 8193];-0.5;0.75
3;[262147];-0.25;1.5
""",
    edits=[
        Edit("nearmiss_swap_bounds", "near-miss", "clamp-bounds-swapped",
             "The Maxs takes the upper bound and the Mins the lower one, so every element comes out as lo.",
             [("kernel", "Maxs(f, f, this->lo, len);\n        Mins(f, f, this->hi, len);",
               "Maxs(f, f, this->hi, len);\n        Mins(f, f, this->lo, len);")]),
        Edit("nearmiss_no_enque", "near-miss", "missing-enque",
             "CopyIn never EnQue's the tile it filled, so Compute's DeQue finds the queue empty.",
             [("kernel", "        inQue.EnQue(xLocal);\n", "")]),
        Edit("nearmiss_scratch_half", "near-miss", "buffer-dtype",
             "The float scratch is sized tile * sizeof(half), half of what the cast into it writes.",
             [("kernel", "pipe.InitBuffer(scratch, tile * sizeof(float));",
               "pipe.InitBuffer(scratch, tile * sizeof(half));")], fails="full"),
        Edit("nearmiss_ub_queues", "near-miss", "ub-overallocated",
             "The tile splits the UB over the two queues but not over their two buffers each, so the queues and "
             "the scratch ask for more than the UB.",
             [("tiling", "ubSize / (QUEUES * BUFFERS) / 2", "ubSize / QUEUES / 2")]),
        Edit("nearmiss_launch_floor", "near-miss", "tile-count-floored",
             "The launched block count is totalLength / perCore rounded down, so the last, partial block is never "
             "launched.",
             [("tiling", "blockDim = (totalLength + perCore - 1) / perCore;", "blockDim = totalLength / perCore;")]),
    ],
)

# y = x / numel(x) + 1: the scale is a mean's, computed on the host from the whole length
NUMEL_SCALE = Op(
    dir="numel_scale", op="NumelScaleCustom", family="elementwise",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "totalLength"), ("uint32_t", "perCore"), ("uint32_t", "tile"), ("uint32_t", "tileCount"),
            ("float", "alpha")], shape="flat",
    tiling=SCALE_SHIFT.tiling + "    float alpha = 1.0f / static_cast<float>(totalLength);\n",
    kernel_class=SCALE_SHIFT.kernel_class.replace("ScaleShiftCustom", "NumelScaleCustom"),
    reference="""
class Model(nn.Module):
    \"\"\"y = x / numel(x) + 1, elementwise (the scale of a mean).\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x / x.numel() + 1.0
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.randn(shape, device=device, dtype=torch.float32) * 1000,)
""",
    test_cases="""
case_id;shape
0;[3, 999]
1;[1999]
2;[96, 8193]
3;[262147]
""",
    edits=[
        Edit("nearmiss_share_divisor", "near-miss", "mean-divisor",
             "The scale divides by one core's share instead of the whole length.",
             [("tiling", "float alpha = 1.0f / static_cast<float>(totalLength);",
               "float alpha = 1.0f / static_cast<float>(perCore);")]),
    ],
)

# a half row sum through TBufs, flagged by hand (a kernel written for --cce-auto-sync=off): every hand-over between
# pipes has its SetFlag/WaitFlag, the sum is taken in float
HALF_ROW_SUM = Op(
    dir="half_row_sum", op="HalfRowSumCustom", family="reduction",
    inputs=[("x", "float16")], outputs=[("y", "float16")],
    fields=[("uint32_t", "rows"), ("uint32_t", "cols"), ("uint32_t", "rowsPerCore"), ("uint32_t", "colsPadded")],
    shape="rows",
    tiling="""    uint32_t blockDim = std::max(1u, std::min(coreNum, rows));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    uint32_t colsPadded = (cols + 15) / 16 * 16;
""",
    infer_shape=ROW_MAX.infer_shape,
    alloc=ROW_MAX.alloc,
    kernel_class="""
constexpr uint32_t SUMS_OUT = 16;  // row sums gathered before one copy-out (32 bytes of half)

class KernelHalfRowSumCustom {
public:
    __aicore__ inline KernelHalfRowSumCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore,
                                uint32_t colsPadded)
    {
        uint32_t firstRow = rowsPerCore * GetBlockIdx();
        this->nRows = firstRow >= rows ? 0 : (rows - firstRow < rowsPerCore ? rows - firstRow : rowsPerCore);
        this->cols = cols;
        inGm.SetGlobalBuffer((__gm__ half *)x + firstRow * cols, this->nRows * cols);
        outGm.SetGlobalBuffer((__gm__ half *)y + firstRow, this->nRows);
        pipe.InitBuffer(rowBuf, colsPadded * sizeof(half));
        pipe.InitBuffer(wideBuf, colsPadded * sizeof(float));
        pipe.InitBuffer(workBuf, colsPadded * sizeof(float));
        pipe.InitBuffer(sumBuf, 32);
        pipe.InitBuffer(outBuf, SUMS_OUT * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<half> sums = outBuf.Get<half>();
        for (uint32_t r0 = 0; r0 < this->nRows; r0 += SUMS_OUT) {
            uint32_t n = this->nRows - r0 < SUMS_OUT ? this->nRows - r0 : SUMS_OUT;
            for (uint32_t j = 0; j < n; j++) {
                sums.SetValue(j, static_cast<half>(RowSum(r0 + j)));
            }
            event_t sToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
            SetFlag<HardEvent::S_MTE3>(sToMte3);
            WaitFlag<HardEvent::S_MTE3>(sToMte3);
            DataCopyPad(outGm[r0], sums, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0});
            // the next batch's SetValue overwrites what the copy-out reads
            event_t mte3ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
            SetFlag<HardEvent::MTE3_S>(mte3ToS);
            WaitFlag<HardEvent::MTE3_S>(mte3ToS);
        }
    }

private:
    __aicore__ inline float RowSum(uint32_t row)
    {
        LocalTensor<half> xh = rowBuf.Get<half>();
        LocalTensor<float> xf = wideBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> sum = sumBuf.Get<float>();
        DataCopyPad(xh, inGm[row * this->cols],
                    DataCopyExtParams{1, static_cast<uint32_t>(this->cols * sizeof(half)), 0, 0, 0},
                    DataCopyPadExtParams<half>{false, 0, 0, 0});
        event_t mte2ToV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(mte2ToV);
        WaitFlag<HardEvent::MTE2_V>(mte2ToV);
        Cast(xf, xh, RoundMode::CAST_NONE, this->cols);
        // the next row's copy-in overwrites what the Cast read
        event_t vToMte2 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE2));
        SetFlag<HardEvent::V_MTE2>(vToMte2);
        WaitFlag<HardEvent::V_MTE2>(vToMte2);
        ReduceSum(sum, xf, work, this->cols);
        return ScalarOf(sum);
    }

    TPipe pipe;
    TBuf<TPosition::VECCALC> rowBuf, wideBuf, workBuf, sumBuf, outBuf;
    GlobalTensor<half> inGm, outGm;
    uint32_t nRows = 0;
    uint32_t cols = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"Sum over the last dimension of a half tensor (the output drops it).\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=-1)
""",
    get_inputs="""
shape = eval(param.get('shape', '[1, 1]'))
return (torch.randn(shape, device=device, dtype=torch.float16),)
""",
    test_cases="""
case_id;shape
0;[6, 100]
1;[19, 1001]
2;[40, 2048]
""",
    edits=[
        Edit("nearmiss_no_mte2_v", "near-miss", "missing-pipe-sync",
             "The SetFlag/WaitFlag<MTE2_V> between the row's copy into its TBuf and the Cast that reads it is "
             "missing: built with --cce-auto-sync=off, the vector pipe may read the row before the copy lands.",
             [("kernel", """        event_t mte2ToV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(mte2ToV);
        WaitFlag<HardEvent::MTE2_V>(mte2ToV);
""", "")]),
    ],
)

# a whole-tensor sum: each core adds its share tile by tile into a TBuf accumulator zeroed once, reduces it and adds
# its partial sum into the one output element with SetAtomicAdd (the binding zeroes the output)
SUM_ALL = Op(
    dir="sum_all", op="SumAllCustom", family="reduction",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "totalLength"), ("uint32_t", "perCore"), ("uint32_t", "tile")], shape="flat",
    tiling="""    constexpr uint32_t TILE = 512;
    uint32_t blockDim = std::max(1u, std::min(coreNum, (totalLength + 2 * TILE - 1) / (2 * TILE)));
    uint32_t perCore = ((totalLength + blockDim - 1) / blockDim + 7) / 8 * 8;
    blockDim = (totalLength + perCore - 1) / perCore;
    uint32_t tile = TILE;
""",
    infer_shape="""    gert::Shape *y = context->GetOutputShape(0);
    y->SetDimNum(1);
    y->SetDim(0, 1);
""",
    alloc="    at::Tensor y = at::zeros({1}, x.options());\n",
    kernel_class="""
class KernelSumAllCustom {
public:
    __aicore__ inline KernelSumAllCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t perCore, uint32_t tile)
    {
        uint32_t begin = perCore * GetBlockIdx();
        this->count = begin >= totalLength ? 0 : (totalLength - begin < perCore ? totalLength - begin : perCore);
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ float *)x + begin, this->count);
        yGm.SetGlobalBuffer((__gm__ float *)y, 1);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(float));
        pipe.InitBuffer(outQue, 1, 32);
        pipe.InitBuffer(accBuf, tile * sizeof(float));
        pipe.InitBuffer(workBuf, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        Duplicate(acc, 0.0f, this->tile);
        for (uint32_t at = 0; at < this->count; at += this->tile) {
            uint32_t len = this->count - at < this->tile ? this->count - at : this->tile;
            CopyIn(at, len);
            Accumulate(acc, len);
        }
        CopyOut(acc);
    }

private:
    __aicore__ inline void CopyIn(uint32_t at, uint32_t len)
    {
        LocalTensor<float> xLocal = inQue.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(xLocal);
    }

    __aicore__ inline void Accumulate(LocalTensor<float> &acc, uint32_t len)
    {
        LocalTensor<float> xLocal = inQue.DeQue<float>();
        Add(acc, acc, xLocal, len);
        inQue.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(LocalTensor<float> &acc)
    {
        LocalTensor<float> total = outQue.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        ReduceSum(total, acc, work, this->tile);
        outQue.EnQue(total);
        total = outQue.DeQue<float>();
        SetAtomicAdd<float>();
        DataCopyPad(yGm, total, DataCopyExtParams{1, static_cast<uint32_t>(sizeof(float)), 0, 0, 0});
        SetAtomicNone();
        outQue.FreeTensor(total);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, 1> outQue;
    TBuf<TPosition::VECCALC> accBuf, workBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t count = 0;
    uint32_t tile = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"The sum of every element of x, as a one-element tensor.\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x).reshape(1)
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.rand(shape, device=device, dtype=torch.float32),)
""",
    test_cases="""
case_id;shape
0;[3, 999]
1;[4100]
2;[96, 8193]
3;[262147]
""",
    edits=[
        Edit("nearmiss_reset_in_helper", "near-miss", "accumulator-reset-per-tile",
             "The accumulator is zeroed in the helper each tile calls, so each core's partial sum keeps only its "
             "last tile.",
             [("kernel", """        Duplicate(acc, 0.0f, this->tile);
        for (uint32_t at""", """        for (uint32_t at"""),
              ("kernel", """        LocalTensor<float> xLocal = inQue.DeQue<float>();
        Add(acc""", """        LocalTensor<float> xLocal = inQue.DeQue<float>();
        Duplicate(acc, 0.0f, this->tile);
        Add(acc""")]),
        Edit("nearmiss_no_atomic", "near-miss", "missing-atomic-accumulate",
             "The cores copy their partial sums to the one output element without SetAtomicAdd, so they overwrite "
             "each other.",
             [("kernel", "        SetAtomicAdd<float>();\n", ""), ("kernel", "        SetAtomicNone();\n", "")]),
    ],
)

# big and small blocks: the first bigCores blocks take one element more than the rest, so a block past them starts
# bigShare * idx less one element for each small block before it; each block's last tile has its own length
BIG_SMALL = Op(
    dir="big_small", op="BigSmallCustom", family="elementwise",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "totalLength"), ("uint32_t", "smallShare"), ("uint32_t", "bigShare"),
            ("uint32_t", "bigCores"), ("uint32_t", "tile"), ("uint32_t", "smallTiles"), ("uint32_t", "bigTiles"),
            ("uint32_t", "smallLast"), ("uint32_t", "bigLast")], shape="flat",
    tiling="""    constexpr uint32_t TILE = 1024;
    uint32_t blockDim = std::max(1u, std::min(coreNum, (totalLength + TILE - 1) / TILE));
    uint32_t smallShare = totalLength / blockDim;
    uint32_t bigCores = totalLength % blockDim;  // these blocks take one element more
    uint32_t bigShare = smallShare + 1;
    uint32_t tile = TILE;
    uint32_t smallTiles = (smallShare + TILE - 1) / TILE;
    uint32_t bigTiles = (bigShare + TILE - 1) / TILE;
    uint32_t smallLast = smallShare - (smallTiles - 1) * TILE;
    uint32_t bigLast = bigShare - (bigTiles - 1) * TILE;
""",
    kernel_class="""
class KernelBigSmallCustom {
public:
    __aicore__ inline KernelBigSmallCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t smallShare, uint32_t bigShare,
                                uint32_t bigCores, uint32_t tile, uint32_t smallTiles, uint32_t bigTiles,
                                uint32_t smallLast, uint32_t bigLast)
    {
        uint32_t core = GetBlockIdx();
        uint32_t start = bigShare * core;
        this->tile = tile;
        if (core < bigCores) {
            this->share = bigShare;
            this->tiles = bigTiles;
            this->lastLen = bigLast;
        } else {
            this->share = smallShare;
            this->tiles = smallTiles;
            this->lastLen = smallLast;
            start -= (bigShare - smallShare) * (core - bigCores);
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + start, this->share);
        yGm.SetGlobalBuffer((__gm__ float *)y + start, this->share);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(float));
        pipe.InitBuffer(outQue, BUFFER_NUM, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        this->len = this->tile;
        for (uint32_t t = 0; t < this->tiles; ++t) {
            if (t + 1 == this->tiles) {
                this->len = this->lastLen;
            }
            Step(t * this->tile);
        }
    }

private:
    __aicore__ inline void Step(uint32_t at)
    {
        AscendC::LocalTensor<float> src = inQue.AllocTensor<float>();
        DataCopyPad(src, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(this->len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(src);
        src = inQue.DeQue<float>();
        AscendC::LocalTensor<float> res = outQue.AllocTensor<float>();
        Muls(res, src, 0.5f, this->len);
        Adds(res, res, -3.0f, this->len);
        outQue.EnQue(res);
        inQue.FreeTensor(src);
        res = outQue.DeQue<float>();
        DataCopyPad(yGm[at], res, DataCopyExtParams{1, static_cast<uint32_t>(this->len * sizeof(float)), 0, 0, 0});
        outQue.FreeTensor(res);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t share = 0, tiles = 0, lastLen = 0, tile = 0, len = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"y = x / 2 - 3, elementwise.\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 0.5 - 3.0
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.randn(shape, device=device, dtype=torch.float32),)
""",
    test_cases="""
case_id;shape
0;[2051]
1;[3, 999]
2;[7, 3001]
3;[40961]
4;[96, 8193]
""",
    edits=[
        Edit("nearmiss_small_offset", "near-miss", "missing-block-offset",
             "A small block's offset takes off one element for every block before it, not only for the small ones "
             "(its index, not its index less bigCores): its share moves back over its neighbour's.",
             [("kernel", "start -= (bigShare - smallShare) * (core - bigCores);",
               "start -= (bigShare - smallShare) * core;")]),
        Edit("nearmiss_last_full", "near-miss", "tail-tile-dropped",
             "The branch for a block's last tile keeps the full tile's length, so the last tile runs past the "
             "block's share; the tail's length is computed and never used.",
             [("kernel", "                this->len = this->lastLen;\n", "                this->len = this->tile;\n")]),
    ],
)

# every block takes the same share of whole 32-byte blocks; the last one also takes what the split leaves over
REST_LAST = Op(
    dir="rest_last", op="RestLastCustom", family="elementwise",
    inputs=[("x", "float")], outputs=[("y", "float")],
    fields=[("uint32_t", "totalLength"), ("uint32_t", "share"), ("uint32_t", "rest"), ("uint32_t", "tile")],
    shape="flat",
    tiling="""    uint32_t blockDim = std::max(1u, std::min(coreNum, totalLength / 2048));
    uint32_t share = totalLength / blockDim / 8 * 8;
    uint32_t rest = totalLength - share * blockDim;  // the last block's extra elements
    uint32_t tile = 2048;
""",
    kernel_class="""
class KernelRestLastCustom {
public:
    __aicore__ inline KernelRestLastCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t share, uint32_t rest,
                                uint32_t tile)
    {
        uint32_t base = share * GetBlockIdx();
        this->count = share + (GetBlockIdx() + 1 == GetBlockNum() ? rest : 0);
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ float *)x + base, this->count);
        yGm.SetGlobalBuffer((__gm__ float *)y + base, this->count);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(float));
        pipe.InitBuffer(outQue, BUFFER_NUM, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t at = 0; at < this->count; at += this->tile) {
            Step(at, this->count - at < this->tile ? this->count - at : this->tile);
        }
    }

private:
    __aicore__ inline void Step(uint32_t at, uint32_t len)
    {
        AscendC::LocalTensor<float> src = inQue.AllocTensor<float>();
        DataCopyPad(src, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(src);
        src = inQue.DeQue<float>();
        AscendC::LocalTensor<float> res = outQue.AllocTensor<float>();
        Abs(res, src, len);
        Muls(res, res, 2.0f, len);
        outQue.EnQue(res);
        inQue.FreeTensor(src);
        res = outQue.DeQue<float>();
        DataCopyPad(yGm[at], res, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0});
        outQue.FreeTensor(res);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t count = 0;
    uint32_t tile = 0;
};
""",
    reference="""
class Model(nn.Module):
    \"\"\"y = 2 |x|, elementwise.\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.abs() * 2.0
""",
    get_inputs="""
shape = eval(param.get('shape', '[1]'))
return (torch.randn(shape, device=device, dtype=torch.float32),)
""",
    test_cases="""
case_id;shape
0;[3, 999]
1;[2051]
2;[7, 3001]
3;[5]
4;[96, 8193]
""",
    edits=[
        Edit("nearmiss_rest_dropped", "near-miss", "tail-tile-dropped",
             "The last block's length is the share alone: the elements the split leaves over, which the host hands "
             "the kernel, are never processed.",
             [("kernel", "this->count = share + (GetBlockIdx() + 1 == GetBlockNum() ? rest : 0);",
               "this->count = share;")]),
    ],
)

OPS = [AXPB, ROW_MAX, RELU, SOFTMAX, SCALE_SHIFT, CLAMP_HALF, NUMEL_SCALE, HALF_ROW_SUM, SUM_ALL, BIG_SMALL,
       REST_LAST]
# near-misses that fail only in a build the default does not make: `pipe-model`, with REPAIR_ASCENDC_AUTO_SYNC=off (the
# flags the compiler inserts otherwise; heldout/ascendc labels its own so)
NEEDS = {"nearmiss_no_mte2_v": "pipe-model"}


def _renamed(text: str) -> str:
    for old, new in RENAME.items():
        text = re.sub(rf"\b{old}\b", new, text)
    return text


def build_op(o: Op, root: Path) -> None:
    d = root / o.dir
    if d.exists():
        shutil.rmtree(d)
    files = dict(validation_files(o))
    files["correct.py"] = _renamed(six_sources(o))
    candidates = {"correct.py": {"kind": "correct", "format": "mkb-sources"}}
    for e in o.edits:
        files[f"{e.name}.py"] = _renamed(six_sources(o, e))
        candidates[f"{e.name}.py"] = {"kind": "near-miss", "format": "mkb-sources", "bug_class": e.label,
                                      "fails": e.fails, "description": e.description,
                                      **({"needs": NEEDS[e.name]} if e.name in NEEDS else {})}
    files["meta.yaml"] = ("# Generated by tests/repair/rules/data/dev_ascendc/build_dev.py, like every file of this "
                          "directory (problem.py by `repair import npukernelbench`'s own code); edit it and rerun.\n"
                          + yaml.safe_dump({"operator": o.dir, "family": o.family, "op": o.op,
                                            "candidates": candidates}, sort_keys=False, width=120))
    for rel, text in files.items():
        path = d / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (d / "problem.py").write_text(problem_source(d, family=o.family), encoding="utf-8")


def build(root: Path) -> None:
    """Write every operator of the set under root (HERE to regenerate it; a test writes to tmp_path and compares)."""
    for op in OPS:
        build_op(op, root)


if __name__ == "__main__":
    build(HERE)
    print(f"wrote {', '.join(o.dir for o in OPS)} under {HERE}")
