// Row normalisation (mean/variance), affine.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;


__aicore__ inline float LaneValue(const LocalTensor<float> &tensor) {
    event_t evt = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(evt);
    WaitFlag<HardEvent::V_S>(evt);
    return tensor.GetValue(0);
}

class RowNormKernel {
public:
    __aicore__ inline RowNormKernel() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR w, GM_ADDR b, GM_ADDR y, uint32_t height, uint32_t width,
                                uint32_t rowsEach, float epsilon) {
        uint32_t rowStart = rowsEach * GetBlockIdx();
        this->nRows = rowStart >= height ? 0 : (height - rowStart < rowsEach ? height - rowStart : rowsEach);
        this->width = width;
        uint32_t bytesPerRow = (width * sizeof(float) + 31) / 32 * 32;
        this->epsilon = epsilon;
        inGm.SetGlobalBuffer((__gm__ float *)x + rowStart * width, this->nRows * width);
        outGm.SetGlobalBuffer((__gm__ float *)y + rowStart * width, this->nRows * width);
        wGm.SetGlobalBuffer((__gm__ float *)w, width);
        bGm.SetGlobalBuffer((__gm__ float *)b, width);
        tpipe.InitBuffer(qX, QUEUE_DEPTH, bytesPerRow);
        tpipe.InitBuffer(qAffine, 1, 2 * bytesPerRow);
        tpipe.InitBuffer(qY, QUEUE_DEPTH, bytesPerRow);
        tpipe.InitBuffer(redBuf, 32);
        tpipe.InitBuffer(scratchBuf, bytesPerRow);
        this->wbStride = bytesPerRow / sizeof(float);
    }

    __aicore__ inline void Process() {
        if (this->nRows == 0) {
            return;
        }
        LocalTensor<float> wb = qAffine.AllocTensor<float>();
        DataCopyPad(wb, wGm, RowCopy(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        DataCopyPad(wb[this->wbStride], bGm, RowCopy(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        qAffine.EnQue(wb);
        wb = qAffine.DeQue<float>();
        for (uint32_t i = 0; i < this->nRows; i++) {
            LoadTile(i);
            Kernel(wb);
            StoreTile(i);
        }
        qAffine.FreeTensor(wb);
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

    __aicore__ inline void Kernel(const LocalTensor<float> &wb) {
        LocalTensor<float> xt = qX.DeQue<float>();
        LocalTensor<float> yt = qY.AllocTensor<float>();
        LocalTensor<float> red = redBuf.Get<float>();
        LocalTensor<float> scratch = scratchBuf.Get<float>();
        ReduceSum(red, xt, scratch, this->width);
        float mu = LaneValue(red) / this->width;
        Adds(xt, xt, -mu, this->width);
        Mul(yt, xt, xt, this->width);
        ReduceSum(red, yt, scratch, this->width);
        float sigma2 = LaneValue(red) / this->width;
        Duplicate(red, sigma2 + this->epsilon, 8);
        Sqrt(red, red, 8);
        float invStd = 1.0f / LaneValue(red);
        Muls(xt, xt, invStd, this->width);
        Mul(yt, xt, wb, this->width);
        Add(yt, yt, wb[this->wbStride], this->width);
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
    TQue<QuePosition::VECIN, 1> qAffine;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> qY;
    TBuf<TPosition::VECCALC> redBuf, scratchBuf;
    GlobalTensor<float> inGm, wGm, bGm, outGm;
    uint32_t nRows = 0;
    uint32_t width = 0;
    uint32_t wbStride = 0;
    float epsilon = 0.0f;
};

extern "C" __global__ __aicore__ void row_norm(GM_ADDR x, GM_ADDR w, GM_ADDR b, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    RowNormKernel k;
    k.Init(x, w, b, y, td.height, td.width, td.rowsEach, td.epsilon);
    k.Process();
}
