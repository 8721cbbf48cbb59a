"""ReduceSumCustom: The row accumulator starts at the row's first element instead of zero, so that element is counted twice."""

project_json_src = r"""
[
    {
        "op": "ReduceSumCustom",
        "language": "cpp",
        "input_desc": [
            {
                "name": "x",
                "param_type": "required",
                "format": [
                    "ND"
                ],
                "type": [
                    "float"
                ]
            }
        ],
        "output_desc": [
            {
                "name": "y",
                "param_type": "required",
                "format": [
                    "ND"
                ],
                "type": [
                    "float"
                ]
            }
        ]
    }
]
"""

host_tiling_src = r"""
#ifndef REDUCE_SUM_CUSTOM_TILING_H
#define REDUCE_SUM_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceSumCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceSumCustom, ReduceSumCustomTilingData)
}  // namespace optiling

#endif  // REDUCE_SUM_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "reduce_sum_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    ReduceSumCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(shape.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(shape.GetShapeSize() / cols);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint32_t blockDim = std::max(1u, std::min(coreNum, rows));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    uint32_t chunk = std::min(cols, 8192u);  // columns reduced per step
    context->SetBlockDim(blockDim);
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_chunk(chunk);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext *context)
{
    const gert::Shape *x = context->GetInputShape(0);
    gert::Shape *y = context->GetOutputShape(0);
    y->SetDimNum(x->GetDimNum() - 1);
    for (size_t i = 0; i + 1 < x->GetDimNum(); i++) {
        y->SetDim(i, x->GetDim(i));
    }
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ReduceSumCustom : public OpDef {
public:
    explicit ReduceSumCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(ReduceSumCustom);
}  // namespace ops
"""

kernel_src = r"""
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

constexpr uint32_t OUT_BATCH = 64;  // row sums gathered in local memory before one copy-out

class KernelReduceSumCustom {
public:
    __aicore__ inline KernelReduceSumCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore,
                                uint32_t chunk)
    {
        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        this->chunk = chunk;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first, this->rowCount);
        uint32_t chunkBytes = (chunk * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, chunkBytes);
        pipe.InitBuffer(outQueueY, 1, OUT_BATCH * sizeof(float));
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, chunkBytes);
    }

    __aicore__ inline void Process()
    {
        for (uint32_t r0 = 0; r0 < this->rowCount; r0 += OUT_BATCH) {
            uint32_t n = this->rowCount - r0 < OUT_BATCH ? this->rowCount - r0 : OUT_BATCH;
            LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            for (uint32_t j = 0; j < n; j++) {
                yLocal.SetValue(j, RowSum(r0 + j));
            }
            // the scalar unit wrote yLocal: the copy-out (MTE3) waits for it, and the next batch's writes wait for
            // the copy-out (the queue orders the vector pipe only)
            event_t sToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
            SetFlag<HardEvent::S_MTE3>(sToMte3);
            WaitFlag<HardEvent::S_MTE3>(sToMte3);
            outQueueY.EnQue<float>(yLocal);
            yLocal = outQueueY.DeQue<float>();
            DataCopyPad(yGm[r0], yLocal, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
            event_t mte3ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
            SetFlag<HardEvent::MTE3_S>(mte3ToS);
            WaitFlag<HardEvent::MTE3_S>(mte3ToS);
            outQueueY.FreeTensor(yLocal);
        }
    }

private:
    __aicore__ inline float RowSum(uint32_t row)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        float acc = xGm.GetValue(row * this->cols);
        for (uint32_t c = 0; c < this->cols; c += this->chunk) {
            uint32_t len = this->cols - c < this->chunk ? this->cols - c : this->chunk;
            LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
            DataCopyPad(xLocal, xGm[row * this->cols + c], params, DataCopyPadExtParams<float>{false, 0, 0, 0});
            inQueueX.EnQue(xLocal);
            xLocal = inQueueX.DeQue<float>();
            ReduceSum(work, xLocal, tmp, len);
            inQueueX.FreeTensor(xLocal);
            acc += ScalarOf(work);
        }
        return acc;
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, 1> outQueueY;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t chunk = 0;
};

extern "C" __global__ __aicore__ void reduce_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelReduceSumCustom op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.chunk);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor reduce_sum_custom_impl_npu(const at::Tensor &x)
{
    at::Tensor y = at::empty(x.sizes().slice(0, x.dim() - 1), x.options());
    EXEC_NPU_CMD(aclnnReduceSumCustom, x, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("reduce_sum_custom", &reduce_sum_custom_impl_npu, "ReduceSumCustom");
}
"""

model_src = r"""
import torch
import torch_npu
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return custom_ops_lib.reduce_sum_custom(x)
"""
