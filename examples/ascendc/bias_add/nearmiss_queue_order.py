"""BiasAddCustom: The output tile is enqueued for copy-out before Add has written it, so the copy can race the vector unit."""

project_json_src = r"""
[
    {
        "op": "BiasAddCustom",
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
            },
            {
                "name": "b",
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
#ifndef BIAS_ADD_CUSTOM_TILING_H
#define BIAS_ADD_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BiasAddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BiasAddCustom, BiasAddCustomTilingData)
}  // namespace optiling

#endif  // BIAS_ADD_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "bias_add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    BiasAddCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(shape.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(shape.GetShapeSize() / cols);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    constexpr uint32_t MIN_ROWS_PER_CORE = 4;
    uint32_t blockDim = std::max(1u, std::min(coreNum, (rows + MIN_ROWS_PER_CORE - 1) / MIN_ROWS_PER_CORE));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    context->SetBlockDim(blockDim);
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowsPerCore(rowsPerCore);
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
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class BiasAddCustom : public OpDef {
public:
    explicit BiasAddCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(BiasAddCustom);
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

class KernelBiasAddCustom {
public:
    __aicore__ inline KernelBiasAddCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR b, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore)
    {
        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, this->rowCount * cols);
        bGm.SetGlobalBuffer((__gm__ float *)b, cols);
        uint32_t rowBytes = (cols * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(inQueueB, 1, rowBytes);
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowBytes);
    }

    __aicore__ inline void Process()
    {
        if (this->rowCount == 0) {
            return;
        }
        LocalTensor<float> bLocal = inQueueB.AllocTensor<float>();
        DataCopyPad(bLocal, bGm, RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQueueB.EnQue(bLocal);
        bLocal = inQueueB.DeQue<float>();
        for (uint32_t r = 0; r < this->rowCount; r++) {
            CopyIn(r);
            Compute(bLocal);
            CopyOut(r);
        }
        inQueueB.FreeTensor(bLocal);
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

    __aicore__ inline void Compute(const LocalTensor<float> &bLocal)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        outQueueY.EnQue<float>(yLocal);
        Add(yLocal, xLocal, bLocal, this->cols);
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
    TQue<QuePosition::VECIN, 1> inQueueB;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<float> xGm, bGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
};

extern "C" __global__ __aicore__ void bias_add_custom(GM_ADDR x, GM_ADDR b, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBiasAddCustom op;
    op.Init(x, b, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor bias_add_custom_impl_npu(const at::Tensor &x, const at::Tensor &b)
{
    at::Tensor y = at::empty_like(x);
    EXEC_NPU_CMD(aclnnBiasAddCustom, x, b, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("bias_add_custom", &bias_add_custom_impl_npu, "BiasAddCustom");
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

    def forward(self, x, b):
        return custom_ops_lib.bias_add_custom(x, b)
"""
