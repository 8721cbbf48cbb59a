"""AxpbCustom: The result is enqueued before it is computed."""

project_json_src = r"""
[
    {
        "op": "AxpbCustom",
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
#ifndef AXPB_CUSTOM_TILING_H
#define AXPB_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AxpbCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AxpbCustom, AxpbCustomTilingData)
}  // namespace optiling

#endif  // AXPB_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "axpb_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    AxpbCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t totalLength = static_cast<uint32_t>(shape.GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivCount = platform.GetCoreNumAiv();
    constexpr uint32_t PER_CORE_MIN = 2048;
    uint32_t usedCores = std::max(1u, std::min(aivCount, (totalLength + PER_CORE_MIN - 1) / PER_CORE_MIN));
    uint32_t perCore = (totalLength + usedCores - 1) / usedCores;
    perCore = (perCore + 7) / 8 * 8;
    uint32_t chunk = 2048;
    context->SetBlockDim(usedCores);
    tiling.set_totalLength(totalLength);
    tiling.set_perCore(perCore);
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
class AxpbCustom : public OpDef {
public:
    explicit AxpbCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(AxpbCustom);
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

class KernelAxpbCustom {
public:
    __aicore__ inline KernelAxpbCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t perCore, uint32_t chunk)
    {
        uint32_t start = perCore * GetBlockIdx();
        this->count = start >= totalLength ? 0 : (totalLength - start < perCore ? totalLength - start : perCore);
        this->chunk = chunk;
        srcGm.SetGlobalBuffer((__gm__ float *)x + start, this->count);
        dstGm.SetGlobalBuffer((__gm__ float *)y + start, this->count);
        pipe.InitBuffer(inQue, BUFFER_NUM, chunk * sizeof(float));
        pipe.InitBuffer(outQue, BUFFER_NUM, chunk * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t full = this->count / this->chunk;
        uint32_t rest = this->count % this->chunk;
        for (uint32_t t = 0; t < full; ++t) {
            Step(t * this->chunk, this->chunk);
        }
        if (rest != 0) {
            Step(full * this->chunk, rest);
        }
    }

private:
    __aicore__ inline void Step(uint32_t at, uint32_t len)
    {
        AscendC::LocalTensor<float> src = inQue.AllocTensor<float>();
        DataCopyPad(src, srcGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(src);
        src = inQue.DeQue<float>();
        AscendC::LocalTensor<float> res = outQue.AllocTensor<float>();
        outQue.EnQue(res);
        Muls(res, src, 2.0f, len);
        Adds(res, res, 1.0f, len);
        inQue.FreeTensor(src);
        res = outQue.DeQue<float>();
        DataCopyPad(dstGm[at], res, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0});
        outQue.FreeTensor(res);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    AscendC::GlobalTensor<float> srcGm;
    AscendC::GlobalTensor<float> dstGm;
    uint32_t count = 0;
    uint32_t chunk = 0;
};

extern "C" __global__ __aicore__ void axpb_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAxpbCustom op;
    op.Init(x, y, tilingData.totalLength, tilingData.perCore, tilingData.chunk);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor axpb_custom_impl_npu(const at::Tensor &x)
{
    at::Tensor y = at::empty_like(x);
    EXEC_NPU_CMD(aclnnAxpbCustom, x, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("axpb_custom", &axpb_custom_impl_npu, "AxpbCustom");
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
        return custom_ops_lib.axpb_custom(x)
"""
