// RMSNorm over the last dimension: y = x / sqrt(mean(x^2) + eps) * gamma, whole rows in UB, rows split by core.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

__aicore__ inline float ScalarOf(const LocalTensor<float> &t)
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(id);
    WaitFlag<HardEvent::V_S>(id);
    return t.GetValue(0);
}

class KernelRmsNormCustom {
public:
    __aicore__ inline KernelRmsNormCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t rowsPerCore, float eps)
    {
        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        this->eps = eps;
        uint32_t rowBytes = (cols * sizeof(float) + 31) / 32 * 32;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, this->rowCount * cols);
        gammaGm.SetGlobalBuffer((__gm__ float *)gamma, cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(inQueueGamma, 1, rowBytes);
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, rowBytes);
        pipe.InitBuffer(sqBuf, rowBytes);
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> g = inQueueGamma.AllocTensor<float>();
        DataCopyPad(g, gammaGm, RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQueueGamma.EnQue(g);
        g = inQueueGamma.DeQue<float>();
        for (uint32_t r = 0; r < this->rowCount; r++) {
            CopyIn(r);
            Compute(g);
            CopyOut(r);
        }
        inQueueGamma.FreeTensor(g);
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

    __aicore__ inline void Compute(const LocalTensor<float> &g)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        LocalTensor<float> sq = sqBuf.Get<float>();
        Mul(sq, xLocal, xLocal, this->cols);
        ReduceSum(work, sq, tmp, this->cols);
        float ms = ScalarOf(work) / this->cols + this->eps;
        Duplicate(work, ms, 8);
        Rsqrt(work, work, 8);
        float scale = ScalarOf(work);
        Muls(yLocal, xLocal, scale, this->cols);
        Mul(yLocal, yLocal, g, this->cols);
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
    TQue<QuePosition::VECIN, 1> inQueueGamma;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf, sqBuf;
    GlobalTensor<float> xGm, gammaGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    float eps = 0.0f;
};

extern "C" __global__ __aicore__ void rms_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRmsNormCustom op;
    op.Init(x, gamma, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.eps);
    op.Process();
}
