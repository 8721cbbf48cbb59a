/*
 * Row-relative magnitude threshold on the vector core.
 *   thresh[r] = ratio * max_j |x[r, j]|
 *   y[r, j]   = |x[r, j]| >= thresh[r] ? x[r, j] : 0
 * Two passes over each row, tileLen columns at a time.
 */
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct RowThresholdTiling {
    uint32_t nRows;
    uint32_t nCols;
    uint32_t tileLen;        // multiple of 64
    uint32_t rowsPerCore;
    float ratio;
};

class KernelRowThreshold {
public:
    __aicore__ inline KernelRowThreshold() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const RowThresholdTiling &t)
    {
        t_ = t;
        rowBegin_ = GetBlockIdx() * t.rowsPerCore;
        rowEnd_ = rowBegin_ + t.rowsPerCore;
        if (rowEnd_ > t.nRows) rowEnd_ = t.nRows;

        xGm_.SetGlobalBuffer((__gm__ float *)x, (uint64_t)t.nRows * t.nCols);
        yGm_.SetGlobalBuffer((__gm__ float *)y, (uint64_t)t.nRows * t.nCols);

        pipe_.InitBuffer(inQ_, BUFFER_NUM, t.tileLen * sizeof(float));
        pipe_.InitBuffer(outQ_, BUFFER_NUM, t.tileLen * sizeof(float));
        pipe_.InitBuffer(absBuf_, t.tileLen * sizeof(float));
        pipe_.InitBuffer(redBuf_, t.tileLen * sizeof(float));
        pipe_.InitBuffer(maskBuf_, t.tileLen / 8);
        pipe_.InitBuffer(zeroBuf_, t.tileLen * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> zeros = zeroBuf_.Get<float>();
        Duplicate(zeros, 0.0f, t_.tileLen);
        uint32_t nTiles = (t_.nCols + t_.tileLen - 1) / t_.tileLen;

        for (uint32_t row = rowBegin_; row < rowEnd_; ++row) {
            // pass 1: running max of |x|
            float runMax = 0.0f;
            for (uint32_t i = 0; i < nTiles; ++i) {
                uint32_t len = TileLen(i);
                CopyIn(row, i, len);
                float m = TileAbsMax(len);
                runMax = m > runMax ? m : runMax;
            }
            float thresh = runMax * t_.ratio;

            // pass 2: zero everything under the threshold
            for (uint32_t i = 0; i < nTiles; ++i) {
                uint32_t len = TileLen(i);
                CopyIn(row, i, len);
                Compute(len, thresh);
                CopyOut(row, i, len);
            }
        }
    }

private:
    __aicore__ inline uint32_t TileLen(uint32_t i)
    {
        uint32_t start = i * t_.tileLen;
        return (start + t_.tileLen <= t_.nCols) ? t_.tileLen : t_.nCols - start;
    }

    __aicore__ inline void CopyIn(uint32_t row, uint32_t i, uint32_t len)
    {
        LocalTensor<float> xl = inQ_.AllocTensor<float>();
        DataCopy(xl, xGm_[(uint64_t)row * t_.nCols + i * t_.tileLen], len);
        inQ_.EnQue(xl);
    }

    __aicore__ inline float TileAbsMax(uint32_t len)
    {
        LocalTensor<float> xl = inQ_.DeQue<float>();
        LocalTensor<float> a = absBuf_.Get<float>();
        LocalTensor<float> work = redBuf_.Get<float>();
        Abs(a, xl, len);
        ReduceMax(a, a, work, len, false);
        float m = a.GetValue(0);
        inQ_.FreeTensor(xl);
        return m;
    }

    __aicore__ inline void Compute(uint32_t len, float thresh)
    {
        LocalTensor<float> xl = inQ_.DeQue<float>();
        LocalTensor<float> yl = outQ_.AllocTensor<float>();
        LocalTensor<float> a = absBuf_.Get<float>();
        LocalTensor<uint8_t> keep = maskBuf_.Get<uint8_t>();
        LocalTensor<float> zeros = zeroBuf_.Get<float>();

        Abs(a, xl, len);
        CompareScalar(keep, a, thresh, CMPMODE::GE, len);
        Select(yl, keep, xl, zeros, SELMODE::VSEL_TENSOR_TENSOR_MODE, len);

        outQ_.EnQue(yl);
        inQ_.FreeTensor(xl);
    }

    __aicore__ inline void CopyOut(uint32_t row, uint32_t i, uint32_t len)
    {
        LocalTensor<float> yl = outQ_.DeQue<float>();
        DataCopy(yGm_[(uint64_t)row * t_.nCols + i * t_.tileLen], yl, len);
        outQ_.FreeTensor(yl);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQ_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQ_;
    TBuf<QuePosition::VECCALC> absBuf_, redBuf_, maskBuf_, zeroBuf_;
    GlobalTensor<float> xGm_, yGm_;
    RowThresholdTiling t_;
    uint32_t rowBegin_ = 0, rowEnd_ = 0;
};

extern "C" __global__ __aicore__ void row_threshold(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    KernelRowThreshold op;
    op.Init(x, y, td);
    op.Process();
}
