"""RestLastCustom: the correct kernel"""

project_json_src = r"""
[
    {
        "op": "RestLastCustom",
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
#ifndef REST_LAST_CUSTOM_TILING_H
#define REST_LAST_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RestLastCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, share);
TILING_DATA_FIELD_DEF(uint32_t, rest);
TILING_DATA_FIELD_DEF(uint32_t, tile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RestLastCustom, RestLastCustomTilingData)
}  // namespace optiling

#endif  // REST_LAST_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "rest_last_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    RestLastCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t totalLength = static_cast<uint32_t>(shape.GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivCount = platform.GetCoreNumAiv();
    uint32_t usedCores = std::max(1u, std::min(aivCount, totalLength / 2048));
    uint32_t share = totalLength / usedCores / 8 * 8;
    uint32_t rest = totalLength - share * usedCores;  // the last block's extra elements
    uint32_t tile = 2048;
    context->SetBlockDim(usedCores);
    tiling.set_totalLength(totalLength);
    tiling.set_share(share);
    tiling.set_rest(rest);
    tiling.set_tile(tile);
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
class RestLastCustom : public OpDef {
public:
    explicit RestLastCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(RestLastCustom);
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

class KernelRestLastCustom {
public:
    __aicore__ inline KernelRestLastCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t share, uint32_t rest,
                                uint32_t tile)
    {
        uint32_t base = share * GetBlockIdx();
        this->count = share + (GetBlockIdx() + 1 == GetBlockNum() ? rest : 0);
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ float *)x + base, this->count);
        yGm.SetGlobalBuffer((__gm__ float *)y + base, this->count);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(float));
        pipe.InitBuffer(outQue, BUFFER_NUM, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t at = 0; at < this->count; at += this->tile) {
            Step(at, this->count - at < this->tile ? this->count - at : this->tile);
        }
    }

private:
    __aicore__ inline void Step(uint32_t at, uint32_t len)
    {
        AscendC::LocalTensor<float> src = inQue.AllocTensor<float>();
        DataCopyPad(src, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(src);
        src = inQue.DeQue<float>();
        AscendC::LocalTensor<float> res = outQue.AllocTensor<float>();
        Abs(res, src, len);
        Muls(res, res, 2.0f, len);
        outQue.EnQue(res);
        inQue.FreeTensor(src);
        res = outQue.DeQue<float>();
        DataCopyPad(yGm[at], res, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0});
        outQue.FreeTensor(res);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t count = 0;
    uint32_t tile = 0;
};

extern "C" __global__ __aicore__ void rest_last_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRestLastCustom op;
    op.Init(x, y, tilingData.totalLength, tilingData.share, tilingData.rest, tilingData.tile);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor rest_last_custom_impl_npu(const at::Tensor &x)
{
    at::Tensor y = at::empty_like(x);
    EXEC_NPU_CMD(aclnnRestLastCustom, x, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("rest_last_custom", &rest_last_custom_impl_npu, "RestLastCustom");
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
        return custom_ops_lib.rest_last_custom(x)
"""
