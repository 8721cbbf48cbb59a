#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T, bool PAD>
class KernelClipByValue {
public:
    __aicore__ inline KernelClipByValue() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR minValue, GM_ADDR maxValue, GM_ADDR y,
                                const ClipByValueTilingData &tiling)
    {
        uint32_t offset = tiling.blockLength * GetBlockIdx();
        this->length = tiling.totalLength - offset < tiling.blockLength ? tiling.totalLength - offset
                                                                          : tiling.blockLength;
        this->tileLength = tiling.tileLength;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->length);
        minGm.SetGlobalBuffer((__gm__ T *)minValue, 1);
        maxGm.SetGlobalBuffer((__gm__ T *)maxValue, 1);
        this->lo = minGm.GetValue(0);
        this->hi = maxGm.GetValue(0);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        uint32_t loops = (this->length + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < loops; i++) {
            uint32_t count = (i == loops - 1) ? this->length - i * this->tileLength : this->tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        if constexpr (PAD) {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[progress * this->tileLength], params, pad);
        } else {
            DataCopy(xLocal, xGm[progress * this->tileLength], count);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        Maxs(yLocal, xLocal, this->hi, count);
        Mins(yLocal, yLocal, this->lo, count);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        if constexpr (PAD) {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPad(yGm[progress * this->tileLength], yLocal, params);
        } else {
            DataCopy(yGm[progress * this->tileLength], yLocal, count);
        }
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<T> xGm, yGm, minGm, maxGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    T lo;
    T hi;
};

extern "C" __global__ __aicore__ void clip_by_value(GM_ADDR x, GM_ADDR clip_value_min, GM_ADDR clip_value_max,
                                                    GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelClipByValue<DTYPE_X, false> op;
        op.Init(x, clip_value_min, clip_value_max, y, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelClipByValue<DTYPE_X, true> op;
        op.Init(x, clip_value_min, clip_value_max, y, tilingData);
        op.Process();
    }
}
