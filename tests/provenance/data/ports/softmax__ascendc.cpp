// Row softmax as an AscendC vector kernel (ported from the Triton softmax): one row per loop step.
#include "kernel_operator.h"
using namespace AscendC;

class KernelSoftmax {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols) {
        this->rows = rows;
        this->cols = cols;
        xGm.SetGlobalBuffer((__gm__ float*)x, rows * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y, rows * cols);
        pipe.InitBuffer(inQueueX, 1, cols * sizeof(float));
        pipe.InitBuffer(outQueueY, 1, cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(redBuf, 32);
    }
    __aicore__ inline void Process() {
        for (uint32_t row = 0; row < rows; row++) {
            CopyIn(row);
            Compute();
            CopyOut(row);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row) {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopy(xLocal, xGm[row * cols], cols);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute() {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> red = redBuf.Get<float>();
        ReduceMax(red, xLocal, work, cols);
        float rowMax = red.GetValue(0);
        Adds(xLocal, xLocal, -rowMax, cols);
        Exp(yLocal, xLocal, cols);
        ReduceSum(red, yLocal, work, cols);
        float den = red.GetValue(0);
        Muls(yLocal, yLocal, 1.0f / den, cols);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t row) {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopy(yGm[row * cols], yLocal, cols);
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueueX;
    TQue<QuePosition::VECOUT, 1> outQueueY;
    TBuf<QuePosition::VECCALC> workBuf, redBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t rows, cols;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols) {
    KernelSoftmax op;
    op.Init(x, y, rows, cols);
    op.Process();
}
