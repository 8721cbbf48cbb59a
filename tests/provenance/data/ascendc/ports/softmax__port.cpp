// Row softmax, ported from the Triton kernel in examples/softmax/correct.py: each core takes a block of rows,
// one row at a time is brought into UB whole (the Triton kernel's one-program-per-row, BLOCK >= n_cols).
#include "kernel_operator.h"

namespace {
constexpr int32_t DEPTH = 2;
}

class SoftmaxRowKernel {
public:
    __aicore__ inline SoftmaxRowKernel() {}

    __aicore__ inline void Init(GM_ADDR src, GM_ADDR dst, uint32_t nRows, uint32_t nCols, uint32_t rowsPerBlock)
    {
        uint32_t start = AscendC::GetBlockIdx() * rowsPerBlock;
        nRows_ = (start + rowsPerBlock <= nRows) ? rowsPerBlock : (start < nRows ? nRows - start : 0);
        nCols_ = nCols;
        padded_ = (nCols + 7) / 8 * 8;
        srcGm_.SetGlobalBuffer((__gm__ float *)src + start * nCols, nRows_ * nCols);
        dstGm_.SetGlobalBuffer((__gm__ float *)dst + start * nCols, nRows_ * nCols);
        pipe_.InitBuffer(inQ_, DEPTH, padded_ * sizeof(float));
        pipe_.InitBuffer(outQ_, DEPTH, padded_ * sizeof(float));
        pipe_.InitBuffer(scratch_, padded_ * sizeof(float));
        pipe_.InitBuffer(lane_, 8 * sizeof(float));
        pipe_.InitBuffer(denom_, padded_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t row = 0; row < nRows_; ++row) {
            LoadRow(row);
            NormalizeRow();
            StoreRow(row);
        }
    }

private:
    __aicore__ inline void LoadRow(uint32_t row)
    {
        AscendC::LocalTensor<float> v = inQ_.AllocTensor<float>();
        AscendC::DataCopy(v, srcGm_[row * nCols_], padded_);
        inQ_.EnQue(v);
    }

    __aicore__ inline void NormalizeRow()
    {
        AscendC::LocalTensor<float> v = inQ_.DeQue<float>();
        AscendC::LocalTensor<float> out = outQ_.AllocTensor<float>();
        AscendC::LocalTensor<float> work = scratch_.Get<float>();
        AscendC::LocalTensor<float> m = lane_.Get<float>();
        AscendC::LocalTensor<float> d = denom_.Get<float>();
        // x = x - max(x)
        AscendC::ReduceMax(m, v, work, nCols_);
        float peak = m.GetValue(0);
        AscendC::Adds(v, v, -peak, nCols_);
        // num = exp(x); den = sum(num)
        AscendC::Exp(out, v, nCols_);
        AscendC::ReduceSum(m, out, work, nCols_);
        float total = m.GetValue(0);
        // num / den
        AscendC::Duplicate(d, total, nCols_);
        AscendC::Div(out, out, d, nCols_);
        outQ_.EnQue(out);
        inQ_.FreeTensor(v);
    }

    __aicore__ inline void StoreRow(uint32_t row)
    {
        AscendC::LocalTensor<float> out = outQ_.DeQue<float>();
        AscendC::DataCopy(dstGm_[row * nCols_], out, padded_);
        outQ_.FreeTensor(out);
    }

    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::QuePosition::VECIN, DEPTH> inQ_;
    AscendC::TQue<AscendC::QuePosition::VECOUT, DEPTH> outQ_;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> scratch_, lane_, denom_;
    AscendC::GlobalTensor<float> srcGm_, dstGm_;
    uint32_t nRows_ = 0, nCols_ = 0, padded_ = 0;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR src, GM_ADDR dst, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(cfg, tiling);
    SoftmaxRowKernel kernel;
    kernel.Init(src, dst, cfg.nRows, cfg.nCols, cfg.rowsPerBlock);
    kernel.Process();
}
