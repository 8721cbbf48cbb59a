/*
 * Row LayerNorm for Ascend vector cores.
 * Each core owns a contiguous range of rows; a row is streamed in tiles of
 * `tileLen` elements twice (statistics, then normalize).
 */
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct LayerNormTilingData {
    uint32_t numRows;
    uint32_t numCols;
    uint32_t rowsPerCore;
    uint32_t tileLen;     // multiple of 8 floats
    float eps;
};

class LayerNormRowsKernel {
public:
    __aicore__ inline LayerNormRowsKernel() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                GM_ADDR mean, GM_ADDR rstd, const LayerNormTilingData &td)
    {
        numCols_ = td.numCols;
        tileLen_ = td.tileLen;
        eps_ = td.eps;
        rowBegin_ = GetBlockIdx() * td.rowsPerCore;
        rowEnd_ = rowBegin_ + td.rowsPerCore;
        if (rowEnd_ > td.numRows) rowEnd_ = td.numRows;

        xGm_.SetGlobalBuffer((__gm__ float *)x);
        yGm_.SetGlobalBuffer((__gm__ float *)y);
        gammaGm_.SetGlobalBuffer((__gm__ float *)gamma, numCols_);
        betaGm_.SetGlobalBuffer((__gm__ float *)beta, numCols_);
        meanGm_.SetGlobalBuffer((__gm__ float *)mean);
        rstdGm_.SetGlobalBuffer((__gm__ float *)rstd);

        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLen_ * sizeof(float));
        pipe_.InitBuffer(inQueueGB_, BUFFER_NUM, 2 * tileLen_ * sizeof(float));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, tileLen_ * sizeof(float));
        pipe_.InitBuffer(accSumBuf_, tileLen_ * sizeof(float));
        pipe_.InitBuffer(accSqBuf_, tileLen_ * sizeof(float));
        pipe_.InitBuffer(tmpBuf_, tileLen_ * sizeof(float));
        pipe_.InitBuffer(redBuf_, 64 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t nTiles = (numCols_ + tileLen_ - 1) / tileLen_;
        for (uint32_t r = rowBegin_; r < rowEnd_; ++r) {
            uint64_t base = (uint64_t)r * numCols_;
            LocalTensor<float> accS = accSumBuf_.Get<float>();
            LocalTensor<float> accQ = accSqBuf_.Get<float>();
            Duplicate(accS, 0.0f, tileLen_);
            Duplicate(accQ, 0.0f, tileLen_);

            // pass 1: per-lane sum and sum of squares
            for (uint32_t t = 0; t < nTiles; ++t) {
                uint32_t len = TileLen(t);
                CopyInX(base + t * tileLen_, len);
                Accumulate(len);
            }
            float mu, rstd;
            Finalize(mu, rstd);
            meanGm_.SetValue(r, mu);
            rstdGm_.SetValue(r, rstd);

            // pass 2: normalize + affine
            for (uint32_t t = 0; t < nTiles; ++t) {
                uint32_t len = TileLen(t);
                CopyInX(base + t * tileLen_, len);
                CopyInGB(t * tileLen_, len);
                Compute(mu, rstd, len);
                CopyOut(base + t * tileLen_, len);
            }
        }
    }

private:
    __aicore__ inline uint32_t TileLen(uint32_t t) const
    {
        uint32_t c0 = t * tileLen_;
        return (c0 + tileLen_ <= numCols_) ? tileLen_ : numCols_ - c0;
    }

    __aicore__ inline void CopyInX(uint64_t off, uint32_t len)
    {
        LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
        DataCopy(xLocal, xGm_[off], len);
        inQueueX_.EnQue(xLocal);
    }

    __aicore__ inline void CopyInGB(uint32_t c0, uint32_t len)
    {
        LocalTensor<float> gb = inQueueGB_.AllocTensor<float>();
        DataCopy(gb, gammaGm_[c0], len);
        DataCopy(gb[tileLen_], betaGm_[c0], len);
        inQueueGB_.EnQue(gb);
    }

    __aicore__ inline void Accumulate(uint32_t len)
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> accS = accSumBuf_.Get<float>();
        LocalTensor<float> accQ = accSqBuf_.Get<float>();
        LocalTensor<float> sq = tmpBuf_.Get<float>();
        Add(accS, accS, xLocal, len);
        Mul(sq, xLocal, xLocal, len);
        Add(accQ, accQ, sq, len);
        inQueueX_.FreeTensor(xLocal);
    }

    __aicore__ inline void Finalize(float &mu, float &rstd)
    {
        LocalTensor<float> accS = accSumBuf_.Get<float>();
        LocalTensor<float> accQ = accSqBuf_.Get<float>();
        LocalTensor<float> work = tmpBuf_.Get<float>();
        LocalTensor<float> red = redBuf_.Get<float>();
        ReduceSum(red, accS, work, tileLen_);
        float s = red.GetValue(0);
        ReduceSum(red, accQ, work, tileLen_);
        float q = red.GetValue(0);
        float invN = 1.0f / (float)numCols_;
        mu = s * invN;
        float var = q * invN - mu * mu;
        // rstd = 1 / sqrt(var + eps) computed on the vector unit
        Duplicate(red, var + eps_, 8);
        Sqrt(red, red, 8);
        Reciprocal(red, red, 8);
        rstd = red.GetValue(0);
    }

    __aicore__ inline void Compute(float mu, float rstd, uint32_t len)
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> gb = inQueueGB_.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY_.AllocTensor<float>();
        Adds(yLocal, xLocal, -mu, len);
        Muls(yLocal, yLocal, rstd, len);
        Mul(yLocal, yLocal, gb, len);
        Add(yLocal, yLocal, gb[tileLen_], len);
        outQueueY_.EnQue(yLocal);
        inQueueX_.FreeTensor(xLocal);
        inQueueGB_.FreeTensor(gb);
    }

    __aicore__ inline void CopyOut(uint64_t off, uint32_t len)
    {
        LocalTensor<float> yLocal = outQueueY_.DeQue<float>();
        DataCopy(yGm_[off], yLocal, len);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueGB_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY_;
    TBuf<QuePosition::VECCALC> accSumBuf_, accSqBuf_, tmpBuf_, redBuf_;
    GlobalTensor<float> xGm_, yGm_, gammaGm_, betaGm_, meanGm_, rstdGm_;
    uint32_t numCols_ = 0, tileLen_ = 0, rowBegin_ = 0, rowEnd_ = 0;
    float eps_ = 1e-5f;
};

extern "C" __global__ __aicore__ void layer_norm_rows(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta,
                                                      GM_ADDR y, GM_ADDR mean, GM_ADDR rstd,
                                                      GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    LayerNormTilingData t{td.numRows, td.numCols, td.rowsPerCore, td.tileLen, td.eps};
    LayerNormRowsKernel op;
    op.Init(x, gamma, beta, y, mean, rstd, t);
    op.Process();
}
