#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

// A scalar read of a value the vector unit wrote: the scalar unit waits for the vector pipe first.
__aicore__ inline float ScalarOf(const LocalTensor<float> &t)
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(id);
    WaitFlag<HardEvent::V_S>(id);
    return t.GetValue(0);
}

class KernelLayerNormCustom {
public:
    __aicore__ inline KernelLayerNormCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t rowsPerCore, float eps)
    {
        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        uint32_t rowBytes = (cols * sizeof(float) + 31) / 32 * 32;
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
    }

    __aicore__ inline void Process()
    {
        if (this->rowCount == 0) {
            return;
        }
        LocalTensor<float> affine = inQueueAffine.AllocTensor<float>();
        DataCopyPad(affine, gammaGm, RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        DataCopyPad(affine[this->stride], betaGm, RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQueueAffine.EnQue(affine);
        affine = inQueueAffine.DeQue<float>();
        for (uint32_t r = 0; r < this->rowCount; r++) {
            CopyIn(r);
            Compute(affine);
            CopyOut(r);
        }
        inQueueAffine.FreeTensor(affine);
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

    __aicore__ inline void Compute(const LocalTensor<float> &affine)
    {
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
    }

    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopyPad(yGm[r * this->cols], yLocal, RowParams());
        outQueueY.FreeTensor(yLocal);
    }

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
};

extern "C" __global__ __aicore__ void layer_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLayerNormCustom op;
    op.Init(x, gamma, beta, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.eps);
    op.Process();
}
