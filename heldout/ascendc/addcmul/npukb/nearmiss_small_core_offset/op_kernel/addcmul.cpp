#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelAddcmul {
public:
    __aicore__ inline KernelAddcmul() {}

    __aicore__ inline void Init(GM_ADDR input, GM_ADDR x1, GM_ADDR x2, GM_ADDR y, const AddcmulTilingData &t)
    {
        uint32_t idx = GetBlockIdx();
        uint64_t offset = 0;
        if (idx < t.bigCoreNum) {
            this->length = t.bigCoreLength;
            offset = static_cast<uint64_t>(idx) * t.bigCoreLength;
        } else {
            this->length = t.smallCoreLength;
            offset = static_cast<uint64_t>(idx) * t.smallCoreLength;
        }
        // blocks were counted rounded up: the last core stops at the tensor's end
        if (offset + this->length > t.totalLength) {
            this->length = t.totalLength - offset;
        }
        this->tileLength = t.tileLength;
        this->value = t.value;

        inputGm.SetGlobalBuffer((__gm__ T *)input + offset, this->length);
        x1Gm.SetGlobalBuffer((__gm__ T *)x1 + offset, this->length);
        x2Gm.SetGlobalBuffer((__gm__ T *)x2 + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->length);
        pipe.InitBuffer(inQueueInput, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(inQueueX1, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(inQueueX2, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        uint32_t tileNum = (this->length + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i == tileNum - 1) ? this->length - i * this->tileLength : this->tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> inputLocal = inQueueInput.AllocTensor<T>();
        LocalTensor<T> x1Local = inQueueX1.AllocTensor<T>();
        LocalTensor<T> x2Local = inQueueX2.AllocTensor<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        DataCopyPad(inputLocal, inputGm[progress * this->tileLength], copyParams, padParams);
        DataCopyPad(x1Local, x1Gm[progress * this->tileLength], copyParams, padParams);
        DataCopyPad(x2Local, x2Gm[progress * this->tileLength], copyParams, padParams);
        inQueueInput.EnQue(inputLocal);
        inQueueX1.EnQue(x1Local);
        inQueueX2.EnQue(x2Local);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> inputLocal = inQueueInput.DeQue<T>();
        LocalTensor<T> x1Local = inQueueX1.DeQue<T>();
        LocalTensor<T> x2Local = inQueueX2.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        Mul(yLocal, x1Local, x2Local, count);
        Muls(yLocal, yLocal, static_cast<T>(this->value), count);
        Add(yLocal, yLocal, inputLocal, count);
        outQueueY.EnQue<T>(yLocal);
        inQueueInput.FreeTensor(inputLocal);
        inQueueX1.FreeTensor(x1Local);
        inQueueX2.FreeTensor(x2Local);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm[progress * this->tileLength], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueInput, inQueueX1, inQueueX2;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<T> inputGm, x1Gm, x2Gm, yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    float value = 1.0f;
};

extern "C" __global__ __aicore__ void addcmul(GM_ADDR input_data, GM_ADDR x1, GM_ADDR x2, GM_ADDR y,
                                              GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddcmul<DTYPE_INPUT_DATA> op;
    op.Init(input_data, x1, x2, y, tilingData);
    op.Process();
}
