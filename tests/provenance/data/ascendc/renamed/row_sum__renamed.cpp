// Per-row totals.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;


__aicore__ inline float LaneValue(const LocalTensor<float> &tensor) {
    event_t evt = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(evt);
    WaitFlag<HardEvent::V_S>(evt);
    return tensor.GetValue(0);
}

constexpr uint32_t GATHER = 64;

class RowTotalKernel {
public:
    __aicore__ inline RowTotalKernel() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t height, uint32_t width, uint32_t rowsEach,
                                uint32_t piece) {
        uint32_t rowStart = rowsEach * GetBlockIdx();
        this->nRows = rowStart >= height ? 0 : (height - rowStart < rowsEach ? height - rowStart : rowsEach);
        this->width = width;
        this->piece = piece;
        inGm.SetGlobalBuffer((__gm__ float *)x + rowStart * width, this->nRows * width);
        outGm.SetGlobalBuffer((__gm__ float *)y + rowStart, this->nRows);
        uint32_t pieceBytes = (piece * sizeof(float) + 31) / 32 * 32;
        tpipe.InitBuffer(qX, QUEUE_DEPTH, pieceBytes);
        tpipe.InitBuffer(qY, 1, GATHER * sizeof(float));
        tpipe.InitBuffer(redBuf, 32);
        tpipe.InitBuffer(scratchBuf, pieceBytes);
    }

    __aicore__ inline void Process() {
        for (uint32_t base = 0; base < this->nRows; base += GATHER) {
            uint32_t n = this->nRows - base < GATHER ? this->nRows - base : GATHER;
            LocalTensor<float> yt = qY.AllocTensor<float>();
            for (uint32_t j = 0; j < n; j++) {
                yt.SetValue(j, TotalOf(base + j));
            }
            qY.EnQue<float>(yt);
            yt = qY.DeQue<float>();
            DataCopyPad(outGm[base], yt, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
            qY.FreeTensor(yt);
        }
    }

private:
    __aicore__ inline float TotalOf(uint32_t i) {
        LocalTensor<float> red = redBuf.Get<float>();
        LocalTensor<float> scratch = scratchBuf.Get<float>();
        float s = 0.0f;
        for (uint32_t off = 0; off < this->width; off += this->piece) {
            uint32_t m = this->width - off < this->piece ? this->width - off : this->piece;
            LocalTensor<float> xt = qX.AllocTensor<float>();
            DataCopyExtParams cp{1, static_cast<uint32_t>(m * sizeof(float)), 0, 0, 0};
            DataCopyPad(xt, inGm[i * this->width + off], cp, DataCopyPadExtParams<float>{false, 0, 0, 0});
            qX.EnQue(xt);
            xt = qX.DeQue<float>();
            ReduceSum(red, xt, scratch, m);
            qX.FreeTensor(xt);
            s += LaneValue(red);
        }
        return s;
    }

    TPipe tpipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> qX;
    TQue<QuePosition::VECOUT, 1> qY;
    TBuf<TPosition::VECCALC> redBuf, scratchBuf;
    GlobalTensor<float> inGm, outGm;
    uint32_t nRows = 0;
    uint32_t width = 0;
    uint32_t piece = 0;
};

extern "C" __global__ __aicore__ void row_total(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    RowTotalKernel k;
    k.Init(x, y, td.height, td.width, td.rowsEach, td.piece);
    k.Process();
}
