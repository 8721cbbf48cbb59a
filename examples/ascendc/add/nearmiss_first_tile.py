"""AddCustom: Each core computes only its first tile, so a core whose share is more than one tile (4096 elements) leaves the rest unwritten: the compact cases fit one tile a core, the large ones do not."""

project_json_src = r"""
[
    {
        "op": "AddCustom",
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
                "name": "y",
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
                "name": "z",
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
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
}  // namespace optiling

#endif  // ADD_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    AddCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t totalLength = static_cast<uint32_t>(shape.GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    constexpr uint32_t MIN_PER_CORE = 1024;  // fewer elements than this are not worth another core
    constexpr uint32_t ALIGN = 16;  // each core starts on a 32-byte boundary for float and half alike
    uint32_t blockDim = std::max(1u, std::min(coreNum, (totalLength + MIN_PER_CORE - 1) / MIN_PER_CORE));
    uint32_t blockLength = (totalLength + blockDim - 1) / blockDim;
    blockLength = (blockLength + ALIGN - 1) / ALIGN * ALIGN;
    uint32_t tileLength = 4096;
    context->SetBlockDim(blockDim);
    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
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
class AddCustom : public OpDef {
public:
    explicit AddCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(AddCustom);
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

class KernelAddCustom {
public:
    __aicore__ inline KernelAddCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t offset = blockLength * GetBlockIdx();
        this->length = offset >= totalLength ? 0 : (totalLength - offset < blockLength ? totalLength - offset : blockLength);
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, this->length);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tiles = this->length / this->tileLength;
        uint32_t tail = this->length - tiles * this->tileLength;
        for (uint32_t i = 0; i < tiles && i < 1; i++) {
            CopyIn(i * this->tileLength, this->tileLength);
            Compute(this->tileLength);
            CopyOut(i * this->tileLength, this->tileLength);
        }
        if (tail > 0) {
            CopyIn(tiles * this->tileLength, tail);
            Compute(tail);
            CopyOut(tiles * this->tileLength, tail);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[offset], params, pad);
        DataCopyPad(yLocal, yGm[offset], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        DataCopyPad(zGm[offset], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddCustom op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor add_custom_impl_npu(const at::Tensor &x, const at::Tensor &y)
{
    at::Tensor z = at::empty_like(x);
    EXEC_NPU_CMD(aclnnAddCustom, x, y, z);
    return z;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("add_custom", &add_custom_impl_npu, "AddCustom");
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

    def forward(self, x, y):
        return custom_ops_lib.add_custom(x, y)
"""
