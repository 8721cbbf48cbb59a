/*
 * Fused Adam step for the AI core.  All four tensors are float32 and
 * updated in place:  param, exp_avg (m), exp_avg_sq (v); grad is read only.
 */
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct AdamTilingData {
    uint32_t totalLength;
    uint32_t tileLength;
    uint32_t blockLength;   // elements per core
    float lr;
    float beta1;
    float beta2;
    float eps;
    float weightDecay;
    float biasCorr1;
    float biasCorr2;
};

class KernelAdam {
public:
    __aicore__ inline KernelAdam() {}

    __aicore__ inline void Init(GM_ADDR param, GM_ADDR grad, GM_ADDR expAvg, GM_ADDR expAvgSq,
                                const AdamTilingData &td)
    {
        td_ = td;
        uint32_t offset = td.blockLength * GetBlockIdx();
        len_ = td.blockLength;
        if (offset + len_ > td.totalLength)
            len_ = (offset < td.totalLength) ? td.totalLength - offset : 0;

        paramGm_.SetGlobalBuffer((__gm__ float *)param + offset, len_);
        gradGm_.SetGlobalBuffer((__gm__ float *)grad + offset, len_);
        mGm_.SetGlobalBuffer((__gm__ float *)expAvg + offset, len_);
        vGm_.SetGlobalBuffer((__gm__ float *)expAvgSq + offset, len_);

        uint32_t bytes = td.tileLength * sizeof(float);
        pipe_.InitBuffer(inP_, BUFFER_NUM, bytes);
        pipe_.InitBuffer(inG_, BUFFER_NUM, bytes);
        pipe_.InitBuffer(inM_, BUFFER_NUM, bytes);
        pipe_.InitBuffer(inV_, BUFFER_NUM, bytes);
        pipe_.InitBuffer(outP_, BUFFER_NUM, bytes);
        pipe_.InitBuffer(outM_, BUFFER_NUM, bytes);
        pipe_.InitBuffer(outV_, BUFFER_NUM, bytes);
        pipe_.InitBuffer(tmpBuf_, bytes);
    }

    __aicore__ inline void Process()
    {
        uint32_t tiles = (len_ + td_.tileLength - 1) / td_.tileLength;
        for (uint32_t i = 0; i < tiles; ++i) {
            uint32_t cnt = (i == tiles - 1) ? len_ - i * td_.tileLength : td_.tileLength;
            CopyIn(i, cnt);
            Compute(cnt);
            CopyOut(i, cnt);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i, uint32_t cnt)
    {
        uint32_t off = i * td_.tileLength;
        LocalTensor<float> p = inP_.AllocTensor<float>();
        LocalTensor<float> g = inG_.AllocTensor<float>();
        LocalTensor<float> m = inM_.AllocTensor<float>();
        LocalTensor<float> v = inV_.AllocTensor<float>();
        DataCopy(p, paramGm_[off], cnt);
        DataCopy(g, gradGm_[off], cnt);
        DataCopy(m, mGm_[off], cnt);
        DataCopy(v, vGm_[off], cnt);
        inP_.EnQue(p);
        inG_.EnQue(g);
        inM_.EnQue(m);
        inV_.EnQue(v);
    }

    __aicore__ inline void Compute(uint32_t cnt)
    {
        LocalTensor<float> p = inP_.DeQue<float>();
        LocalTensor<float> g = inG_.DeQue<float>();
        LocalTensor<float> m = inM_.DeQue<float>();
        LocalTensor<float> v = inV_.DeQue<float>();
        LocalTensor<float> pOut = outP_.AllocTensor<float>();
        LocalTensor<float> mOut = outM_.AllocTensor<float>();
        LocalTensor<float> vOut = outV_.AllocTensor<float>();
        LocalTensor<float> t = tmpBuf_.Get<float>();

        // g = g + wd * p
        Axpy(g, p, td_.weightDecay, cnt);

        // m = beta1 * m + (1 - beta1) * g
        Muls(mOut, m, td_.beta1, cnt);
        Axpy(mOut, g, 1.0f - td_.beta1, cnt);

        // v = beta2 * v + (1 - beta2) * g * g
        Mul(t, g, g, cnt);
        Muls(vOut, v, td_.beta2, cnt);
        Axpy(vOut, t, 1.0f - td_.beta2, cnt);

        // p = p - lr * (m / bc1) / (sqrt(v / bc2) + eps)
        Muls(t, vOut, 1.0f / td_.biasCorr2, cnt);
        Sqrt(t, t, cnt);
        Adds(t, t, td_.eps, cnt);
        Div(t, mOut, t, cnt);
        Muls(t, t, td_.lr / td_.biasCorr1, cnt);
        Sub(pOut, p, t, cnt);

        outP_.EnQue(pOut);
        outM_.EnQue(mOut);
        outV_.EnQue(vOut);
        inP_.FreeTensor(p);
        inG_.FreeTensor(g);
        inM_.FreeTensor(m);
        inV_.FreeTensor(v);
    }

    __aicore__ inline void CopyOut(uint32_t i, uint32_t cnt)
    {
        uint32_t off = i * td_.tileLength;
        LocalTensor<float> p = outP_.DeQue<float>();
        LocalTensor<float> m = outM_.DeQue<float>();
        LocalTensor<float> v = outV_.DeQue<float>();
        DataCopy(paramGm_[off], p, cnt);
        DataCopy(mGm_[off], m, cnt);
        DataCopy(vGm_[off], v, cnt);
        outP_.FreeTensor(p);
        outM_.FreeTensor(m);
        outV_.FreeTensor(v);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inP_, inG_, inM_, inV_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outP_, outM_, outV_;
    TBuf<QuePosition::VECCALC> tmpBuf_;
    GlobalTensor<float> paramGm_, gradGm_, mGm_, vGm_;
    AdamTilingData td_;
    uint32_t len_ = 0;
};

extern "C" __global__ __aicore__ void fused_adam(GM_ADDR param, GM_ADDR grad, GM_ADDR expAvg,
                                                 GM_ADDR expAvgSq, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAdam op;
    op.Init(param, grad, expAvg, expAvgSq, tilingData);
    op.Process();
}
