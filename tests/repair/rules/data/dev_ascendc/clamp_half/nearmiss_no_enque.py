"""ClampHalfCustom: CopyIn never EnQue's the tile it filled, so Compute's DeQue finds the queue empty."""

project_json_src = r"""
[
    {
        "op": "ClampHalfCustom",
        "language": "cpp",
        "input_desc": [
            {
                "name": "x",
                "param_type": "required",
                "format": [
                    "ND"
                ],
                "type": [
                    "float16"
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
                    "float16"
                ]
            }
        ],
        "attr": [
            {
                "name": "lo",
                "param_type": "optional",
                "type": "float",
                "default_value": "-0.5"
            },
            {
                "name": "hi",
                "param_type": "optional",
                "type": "float",
                "default_value": "0.75"
            }
        ]
    }
]
"""

host_tiling_src = r"""
#ifndef CLAMP_HALF_CUSTOM_TILING_H
#define CLAMP_HALF_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ClampHalfCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, tile);
TILING_DATA_FIELD_DEF(float, lo);
TILING_DATA_FIELD_DEF(float, hi);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ClampHalfCustom, ClampHalfCustomTilingData)
}  // namespace optiling

#endif  // CLAMP_HALF_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "clamp_half_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    ClampHalfCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t totalLength = static_cast<uint32_t>(shape.GetShapeSize());
    const float lo = *context->GetAttrs()->GetFloat(0);
    const float hi = *context->GetAttrs()->GetFloat(1);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivCount = platform.GetCoreNumAiv();
    constexpr uint32_t QUEUES = 2;  // one in, one out
    constexpr uint32_t BUFFERS = 2;  // each double-buffered
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t usedCores = std::max(1u, std::min(aivCount, (totalLength + 1023) / 1024));
    uint32_t perCore = (totalLength + usedCores - 1) / usedCores;
    perCore = (perCore + 15) / 16 * 16;
    usedCores = (totalLength + perCore - 1) / perCore;
    // half of the UB for the queues' buffers: the float scratch takes as much again
    uint32_t tileBytes = static_cast<uint32_t>(ubSize / (QUEUES * BUFFERS) / 2) / 32 * 32;
    uint32_t tile = tileBytes / 2;
    context->SetBlockDim(usedCores);
    tiling.set_totalLength(totalLength);
    tiling.set_perCore(perCore);
    tiling.set_tile(tile);
    tiling.set_lo(lo);
    tiling.set_hi(hi);
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
    context->SetOutputDataType(0, ge::DT_FLOAT16);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ClampHalfCustom : public OpDef {
public:
    explicit ClampHalfCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("lo").AttrType(OPTIONAL).Float(-0.5);
        this->Attr("hi").AttrType(OPTIONAL).Float(0.75);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(ClampHalfCustom);
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

class KernelClampHalfCustom {
public:
    __aicore__ inline KernelClampHalfCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t perCore, uint32_t tile, float lo,
                                float hi)
    {
        uint32_t start = perCore * GetBlockIdx();
        this->count = totalLength - start < perCore ? totalLength - start : perCore;
        this->tile = tile;
        this->lo = lo;
        this->hi = hi;
        xGm.SetGlobalBuffer((__gm__ half *)x + start, this->count);
        yGm.SetGlobalBuffer((__gm__ half *)y + start, this->count);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(half));
        pipe.InitBuffer(outQue, BUFFER_NUM, tile * sizeof(half));
        pipe.InitBuffer(scratch, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t steps = (this->count + this->tile - 1) / this->tile;
        for (uint32_t s = 0; s < steps; s++) {
            uint32_t len = s + 1 == steps ? this->count - s * this->tile : this->tile;
            CopyIn(s * this->tile, len);
            Compute(len);
            CopyOut(s * this->tile, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t at, uint32_t len)
    {
        LocalTensor<half> xLocal = inQue.AllocTensor<half>();
        DataCopyPad(xLocal, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(half)), 0, 0, 0},
                    DataCopyPadExtParams<half>{false, 0, 0, 0});
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<half> xLocal = inQue.DeQue<half>();
        LocalTensor<half> yLocal = outQue.AllocTensor<half>();
        LocalTensor<float> f = scratch.Get<float>();
        Cast(f, xLocal, RoundMode::CAST_NONE, len);
        Maxs(f, f, this->lo, len);
        Mins(f, f, this->hi, len);
        Cast(yLocal, f, RoundMode::CAST_ROUND, len);
        outQue.EnQue(yLocal);
        inQue.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t at, uint32_t len)
    {
        LocalTensor<half> yLocal = outQue.DeQue<half>();
        DataCopyPad(yGm[at], yLocal, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(half)), 0, 0, 0});
        outQue.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    TBuf<QuePosition::VECCALC> scratch;
    GlobalTensor<half> xGm, yGm;
    uint32_t count = 0;
    uint32_t tile = 0;
    float lo = 0.0f;
    float hi = 0.0f;
};

extern "C" __global__ __aicore__ void clamp_half_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelClampHalfCustom op;
    op.Init(x, y, tilingData.totalLength, tilingData.perCore, tilingData.tile, tilingData.lo, tilingData.hi);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor clamp_half_custom_impl_npu(const at::Tensor &x, double lo, double hi)
{
    at::Tensor y = at::empty_like(x);
    EXEC_NPU_CMD(aclnnClampHalfCustom, x, lo, hi, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("clamp_half_custom", &clamp_half_custom_impl_npu, "ClampHalfCustom");
}
"""

model_src = r"""
import torch
import torch_npu
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self, lo, hi):
        super().__init__()
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        return custom_ops_lib.clamp_half_custom(x, self.lo, self.hi)
"""
