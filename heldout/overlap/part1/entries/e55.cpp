/**
 * Row-wise KL divergence between two softmax distributions, AscendC.
 *   out[r] = sum_j softmax(P[r])_j * (log_softmax(P[r])_j - log_softmax(Q[r])_j)
 * Each row of P and Q is brought into UB whole (alignedCols <= UB budget).
 */
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t kBufNum = 2;
constexpr float kNegInf = -3.4028235e38f;
}

class KernelKlDivRows {
public:
    __aicore__ inline KernelKlDivRows() = default;

    __aicore__ inline void Init(GM_ADDR p, GM_ADDR q, GM_ADDR out,
                                uint32_t totalRows, uint32_t cols, uint32_t alignedCols)
    {
        uint32_t coreNum = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t per = (totalRows + coreNum - 1) / coreNum;
        rowBegin_ = idx * per;
        rowEnd_ = rowBegin_ + per < totalRows ? rowBegin_ + per : totalRows;
        cols_ = cols;
        alignedCols_ = alignedCols;

        pGm_.SetGlobalBuffer((__gm__ float *)p);
        qGm_.SetGlobalBuffer((__gm__ float *)q);
        outGm_.SetGlobalBuffer((__gm__ float *)out, totalRows);

        pipe_.InitBuffer(inQueP_, kBufNum, alignedCols_ * sizeof(float));
        pipe_.InitBuffer(inQueQ_, kBufNum, alignedCols_ * sizeof(float));
        pipe_.InitBuffer(outQue_, 1, 8 * sizeof(float));
        pipe_.InitBuffer(logpBuf_, alignedCols_ * sizeof(float));
        pipe_.InitBuffer(logqBuf_, alignedCols_ * sizeof(float));
        pipe_.InitBuffer(workBuf_, alignedCols_ * sizeof(float));
        pipe_.InitBuffer(scalarBuf_, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t r = rowBegin_; r < rowEnd_; ++r) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<float> pLocal = inQueP_.AllocTensor<float>();
        LocalTensor<float> qLocal = inQueQ_.AllocTensor<float>();
        if (alignedCols_ != cols_) {
            // padded lanes must behave like -inf logits
            Duplicate(pLocal, kNegInf, alignedCols_);
            Duplicate(qLocal, kNegInf, alignedCols_);
            PipeBarrier<PIPE_ALL>();
        }
        DataCopyParams params{1, static_cast<uint16_t>(cols_ * sizeof(float)), 0, 0};
        DataCopyPadParams pad{false, 0, 0, 0};
        DataCopyPad(pLocal, pGm_[(uint64_t)r * cols_], params, pad);
        DataCopyPad(qLocal, qGm_[(uint64_t)r * cols_], params, pad);
        inQueP_.EnQue(pLocal);
        inQueQ_.EnQue(qLocal);
    }

    // dst = src - (log(sum(exp(src - max))) + max)
    __aicore__ inline void LogSoftmaxRow(LocalTensor<float> &dst, LocalTensor<float> &src)
    {
        LocalTensor<float> work = workBuf_.Get<float>();
        LocalTensor<float> s = scalarBuf_.Get<float>();

        ReduceMax(s, src, work, alignedCols_, false);
        float mx = s.GetValue(0);
        Adds(dst, src, -mx, alignedCols_);
        Exp(work, dst, alignedCols_);
        ReduceSum(s, work, work, alignedCols_);
        Ln(s, s, 1);
        float lse = s.GetValue(0) + mx;
        Adds(dst, src, -lse, alignedCols_);
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<float> pLocal = inQueP_.DeQue<float>();
        LocalTensor<float> qLocal = inQueQ_.DeQue<float>();
        LocalTensor<float> logp = logpBuf_.Get<float>();
        LocalTensor<float> logq = logqBuf_.Get<float>();

        LogSoftmaxRow(logp, pLocal);
        LogSoftmaxRow(logq, qLocal);

        // term = exp(logp) * (logp - logq); padded lanes: exp(-huge) == 0
        LocalTensor<float> work = workBuf_.Get<float>();
        Sub(logq, logp, logq, alignedCols_);
        Exp(work, logp, alignedCols_);
        Mul(work, work, logq, alignedCols_);
        if (alignedCols_ != cols_) {
            Duplicate(work[cols_], 0.0f, alignedCols_ - cols_);
        }

        LocalTensor<float> res = outQue_.AllocTensor<float>();
        ReduceSum(res, work, logp, alignedCols_);
        outQue_.EnQue(res);

        inQueP_.FreeTensor(pLocal);
        inQueQ_.FreeTensor(qLocal);
    }

    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<float> res = outQue_.DeQue<float>();
        outGm_.SetValue(r, res.GetValue(0));
        outQue_.FreeTensor(res);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, kBufNum> inQueP_, inQueQ_;
    TQue<QuePosition::VECOUT, 1> outQue_;
    TBuf<QuePosition::VECCALC> logpBuf_, logqBuf_, workBuf_, scalarBuf_;
    GlobalTensor<float> pGm_, qGm_, outGm_;
    uint32_t rowBegin_ = 0, rowEnd_ = 0, cols_ = 0, alignedCols_ = 0;
};

extern "C" __global__ __aicore__ void kl_div_rows(GM_ADDR p, GM_ADDR q, GM_ADDR out,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    KernelKlDivRows op;
    op.Init(p, q, out, td.totalRows, td.cols, td.alignedCols);
    op.Process();
}
