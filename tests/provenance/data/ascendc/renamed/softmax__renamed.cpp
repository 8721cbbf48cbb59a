// Normalised exponentials per row.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;


__aicore__ inline float LaneValue(const LocalTensor<float> &tensor) {
    event_t evt = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(evt);
    WaitFlag<HardEvent::V_S>(evt);
    return tensor.GetValue(0);
}

class RowExpNormKernel {
public:
    __aicore__ inline RowExpNormKernel() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t height, uint32_t width, uint32_t rowsEach) {
        uint32_t rowStart = rowsEach * GetBlockIdx();
        this->nRows = rowStart >= height ? 0 : (height - rowStart < rowsEach ? height - rowStart : rowsEach);
        this->width = width;
        uint32_t bytesPerRow = (width * sizeof(float) + 31) / 32 * 32;
        inGm.SetGlobalBuffer((__gm__ float *)x + rowStart * width, this->nRows * width);
        outGm.SetGlobalBuffer((__gm__ float *)y + rowStart * width, this->nRows * width);
        tpipe.InitBuffer(qX, QUEUE_DEPTH, bytesPerRow);
        tpipe.InitBuffer(qY, QUEUE_DEPTH, bytesPerRow);
        tpipe.InitBuffer(redBuf, 32);
        tpipe.InitBuffer(scratchBuf, bytesPerRow);
    }

    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < this->nRows; i++) {
            LoadTile(i);
            Kernel();
            StoreTile(i);
        }
    }

private:
    __aicore__ inline DataCopyExtParams RowCopy() {
        return DataCopyExtParams{1, static_cast<uint32_t>(this->width * sizeof(float)), 0, 0, 0};
    }

    __aicore__ inline void LoadTile(uint32_t i) {
        LocalTensor<float> xt = qX.AllocTensor<float>();
        DataCopyPad(xt, inGm[i * this->width], RowCopy(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        qX.EnQue(xt);
    }

    __aicore__ inline void Kernel() {
        LocalTensor<float> xt = qX.DeQue<float>();
        LocalTensor<float> yt = qY.AllocTensor<float>();
        LocalTensor<float> red = redBuf.Get<float>();
        LocalTensor<float> scratch = scratchBuf.Get<float>();
        ReduceMax(red, xt, scratch, this->width);
        float hi = LaneValue(red);
        Adds(xt, xt, -hi, this->width);
        Exp(xt, xt, this->width);
        ReduceSum(red, xt, scratch, this->width);
        float z = LaneValue(red);
        Muls(yt, xt, 1.0f / z, this->width);
        qY.EnQue<float>(yt);
        qX.FreeTensor(xt);
    }

    __aicore__ inline void StoreTile(uint32_t i) {
        LocalTensor<float> yt = qY.DeQue<float>();
        DataCopyPad(outGm[i * this->width], yt, RowCopy());
        qY.FreeTensor(yt);
    }

    TPipe tpipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> qX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> qY;
    TBuf<TPosition::VECCALC> redBuf, scratchBuf;
    GlobalTensor<float> inGm, outGm;
    uint32_t nRows = 0;
    uint32_t width = 0;
};

extern "C" __global__ __aicore__ void row_exp_norm(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    RowExpNormKernel k;
    k.Init(x, y, td.height, td.width, td.rowsEach);
    k.Process();
}
