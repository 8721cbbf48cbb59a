#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_FLOATS = 8;
}  // namespace

class KernelMseLoss {
public:
    __aicore__ inline KernelMseLoss() {}

    __aicore__ inline void Init(GM_ADDR predict, GM_ADDR label, GM_ADDR y, const MseLossTilingData &t, bool reduce)
    {
        uint32_t offset = t.blockLength * AscendC::GetBlockIdx();
        this->length = t.totalLength - offset < t.blockLength ? t.totalLength - offset : t.blockLength;
        this->tileLength = t.tileLength;
        this->scale = t.scale;
        predictGm.SetGlobalBuffer((__gm__ float *)predict + offset, this->length);
        labelGm.SetGlobalBuffer((__gm__ float *)label + offset, this->length);
        pipe.InitBuffer(inQueueP, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(inQueueL, BUFFER_NUM, this->tileLength * sizeof(float));
        if (reduce) {
            yGm.SetGlobalBuffer((__gm__ float *)y, 1);
            pipe.InitBuffer(outQueueY, 1, BLOCK_FLOATS * sizeof(float));
            pipe.InitBuffer(accBuf, this->tileLength * sizeof(float));
            pipe.InitBuffer(workBuf, this->tileLength * sizeof(float));
        } else {
            yGm.SetGlobalBuffer((__gm__ float *)y + offset, this->length);
            pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(float));
        }
    }

    __aicore__ inline void ProcessNone()
    {
        uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t count = i + 1 < tiles ? this->tileLength : this->length - i * this->tileLength;
            CopyIn(i, count);
            SquaredError(count);
            CopyOut(i, count);
        }
    }

    __aicore__ inline void ProcessReduce()
    {
        AscendC::LocalTensor<float> acc = accBuf.Get<float>();
        AscendC::Duplicate(acc, 0.0f, this->tileLength);
        uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t count = i + 1 < tiles ? this->tileLength : this->length - i * this->tileLength;
            CopyIn(i, count);
            Accumulate(acc, count);
        }
        AddPartialSum(acc);
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<float> pLocal = inQueueP.AllocTensor<float>();
        AscendC::LocalTensor<float> lLocal = inQueueL.AllocTensor<float>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
        AscendC::DataCopyPad(pLocal, predictGm[progress * this->tileLength], params, pad);
        AscendC::DataCopyPad(lLocal, labelGm[progress * this->tileLength], params, pad);
        inQueueP.EnQue(pLocal);
        inQueueL.EnQue(lLocal);
    }

    __aicore__ inline void SquaredError(uint32_t count)
    {
        AscendC::LocalTensor<float> pLocal = inQueueP.DeQue<float>();
        AscendC::LocalTensor<float> lLocal = inQueueL.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        AscendC::Sub(yLocal, pLocal, lLocal, count);
        AscendC::Mul(yLocal, yLocal, yLocal, count);
        outQueueY.EnQue(yLocal);
        inQueueP.FreeTensor(pLocal);
        inQueueL.FreeTensor(lLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[progress * this->tileLength], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    // acc[j] += (p[j] - l[j])^2 for the tile's elements; the rest of acc keeps its zeros
    __aicore__ inline void Accumulate(AscendC::LocalTensor<float> &acc, uint32_t count)
    {
        AscendC::LocalTensor<float> pLocal = inQueueP.DeQue<float>();
        AscendC::LocalTensor<float> lLocal = inQueueL.DeQue<float>();
        AscendC::Sub(pLocal, pLocal, lLocal, count);
        AscendC::Mul(pLocal, pLocal, pLocal, count);
        AscendC::Add(acc, acc, pLocal, count);
        inQueueP.FreeTensor(pLocal);
        inQueueL.FreeTensor(lLocal);
    }

    __aicore__ inline void AddPartialSum(AscendC::LocalTensor<float> &acc)
    {
        AscendC::LocalTensor<float> work = workBuf.Get<float>();
        AscendC::LocalTensor<float> sumLocal = outQueueY.AllocTensor<float>();
        AscendC::ReduceSum(sumLocal, acc, work, this->tileLength);
        AscendC::Muls(sumLocal, sumLocal, this->scale, 1);
        outQueueY.EnQue(sumLocal);
        sumLocal = outQueueY.DeQue<float>();
        AscendC::SetAtomicAdd<float>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(yGm, sumLocal, params);
        AscendC::SetAtomicNone();
        outQueueY.FreeTensor(sumLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueP, inQueueL;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> accBuf, workBuf;
    AscendC::GlobalTensor<float> predictGm, labelGm, yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    float scale = 1.0f;
};

extern "C" __global__ __aicore__ void mse_loss(GM_ADDR predict, GM_ADDR label, GM_ADDR y, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMseLoss op;
    if (TILING_KEY_IS(1)) {
        op.Init(predict, label, y, tilingData, false);
        op.ProcessNone();
    } else if (TILING_KEY_IS(2)) {
        op.Init(predict, label, y, tilingData, true);
        op.ProcessReduce();
    }
}
