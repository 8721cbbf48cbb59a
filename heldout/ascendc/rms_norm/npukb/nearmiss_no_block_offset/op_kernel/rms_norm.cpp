#include "kernel_operator.h"

namespace AC = AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelRmsNorm {
public:
    __aicore__ inline KernelRmsNorm() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, const RmsNormTilingData &t)
    {
        uint32_t idx = AC::GetBlockIdx();
        this->cols = t.cols;
        this->colsAligned = t.colsAligned;
        this->epsilon = t.epsilon;
        this->rows = t.rowsPerCore + (idx < t.bigRows ? 1 : 0);
        uint64_t rowStart = static_cast<uint64_t>(idx) * t.rowsPerCore + (idx < t.bigRows ? idx : t.bigRows);

        xGm.SetGlobalBuffer((__gm__ T *)x, static_cast<uint64_t>(this->rows) * this->cols);
        yGm.SetGlobalBuffer((__gm__ T *)y, static_cast<uint64_t>(this->rows) * this->cols);
        gammaGm.SetGlobalBuffer((__gm__ T *)gamma, this->cols);

        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->colsAligned * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->colsAligned * sizeof(T));
        pipe.InitBuffer(gammaBuf, this->colsAligned * sizeof(float));
        pipe.InitBuffer(xFloatBuf, this->colsAligned * sizeof(float));
        pipe.InitBuffer(squareBuf, this->colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, this->colsAligned * sizeof(float) / 8);  // ReduceSum's partials: one per repeat
        pipe.InitBuffer(sumBuf, 32);
    }

    __aicore__ inline void Process()
    {
        LoadGamma();
        for (uint32_t r = 0; r < this->rows; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void LoadGamma()
    {
        AC::LocalTensor<T> gLocal = inQueueX.AllocTensor<T>();
        CopyRow(gLocal, gammaGm);
        inQueueX.EnQue(gLocal);
        gLocal = inQueueX.DeQue<T>();
        ToFloat(gammaBuf.Get<float>(), gLocal);
        inQueueX.FreeTensor(gLocal);
    }

    __aicore__ inline void CopyRow(const AC::LocalTensor<T> &dst, const AC::GlobalTensor<T> &src)
    {
        AC::DataCopyExtParams params{1, static_cast<uint32_t>(this->cols * sizeof(T)), 0, 0, 0};
        AC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AC::DataCopyPad(dst, src, params, pad);
    }

    __aicore__ inline void ToFloat(const AC::LocalTensor<float> &dst, const AC::LocalTensor<T> &src)
    {
        if constexpr (std::is_same_v<T, float>) {
            AC::DataCopy(dst, src, this->colsAligned);
        } else {
            AC::Cast(dst, src, AC::RoundMode::CAST_NONE, this->cols);
        }
    }

    // 1 / sqrt(mean(src^2) + epsilon) of one row, in U's arithmetic
    template <typename U>
    __aicore__ inline float RowRstd(const AC::LocalTensor<U> &src)
    {
        AC::LocalTensor<U> sq = squareBuf.Get<U>();
        AC::LocalTensor<U> work = workBuf.Get<U>();
        AC::LocalTensor<U> sum = sumBuf.Get<U>();
        AC::Mul(sq, src, src, this->cols);
        AC::ReduceSum(sum, sq, work, this->cols);
        AC::Muls(sum, sum, static_cast<U>(1.0f / static_cast<float>(this->cols)), 1);
        AC::Adds(sum, sum, static_cast<U>(this->epsilon), 1);
        AC::Rsqrt(sum, sum, 1);
        // the scalar unit reads what the vector unit wrote: wait for it
        event_t eventId = static_cast<event_t>(pipe.FetchEventID(AC::HardEvent::V_S));
        AC::SetFlag<AC::HardEvent::V_S>(eventId);
        AC::WaitFlag<AC::HardEvent::V_S>(eventId);
        return static_cast<float>(sum.GetValue(0));
    }

    __aicore__ inline void CopyIn(uint32_t r)
    {
        AC::LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        CopyRow(xLocal, xGm[static_cast<uint64_t>(r) * this->cols]);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute()
    {
        AC::LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        AC::LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        AC::LocalTensor<float> xf = xFloatBuf.Get<float>();
        AC::LocalTensor<float> g = gammaBuf.Get<float>();
        ToFloat(xf, xLocal);
        float rstd = RowRstd(xf);
        AC::Muls(xf, xf, rstd, this->cols);
        AC::Mul(xf, xf, g, this->cols);
        if constexpr (std::is_same_v<T, float>) {
            AC::DataCopy(yLocal, xf, this->colsAligned);
        } else {
            AC::Cast(yLocal, xf, AC::RoundMode::CAST_RINT, this->cols);
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t r)
    {
        AC::LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AC::DataCopyExtParams params{1, static_cast<uint32_t>(this->cols * sizeof(T)), 0, 0, 0};
        AC::DataCopyPad(yGm[static_cast<uint64_t>(r) * this->cols], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    AC::TPipe pipe;
    AC::TQue<AC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AC::TQue<AC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AC::TBuf<AC::QuePosition::VECCALC> gammaBuf, xFloatBuf, squareBuf, workBuf, sumBuf;
    AC::GlobalTensor<T> xGm, yGm, gammaGm;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rows = 0;
    float epsilon = 0.0f;
};

extern "C" __global__ __aicore__ void rms_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRmsNorm<DTYPE_X> op;
    op.Init(x, gamma, y, tilingData);
    op.Process();
}
