#include <algorithm>
#include "fast_gelu_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t ELEM_ALIGN = 16;
constexpr uint32_t MIN_PER_CORE = 1024;
constexpr uint32_t MAX_TILE = 4096;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    FastGeluTilingData tiling;
    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t blockDim = std::max(1u, std::min(platform.GetCoreNumAiv(), (totalLength + MIN_PER_CORE - 1) / MIN_PER_CORE));
    uint32_t blockLength = (totalLength + blockDim - 1) / blockDim;
    blockLength = (blockLength + ELEM_ALIGN - 1) / ELEM_ALIGN * ELEM_ALIGN;
    blockDim = (totalLength + blockLength - 1) / blockLength;

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(std::min(blockLength, MAX_TILE));
    context->SetBlockDim(blockDim);
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
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class FastGelu : public OpDef {
public:
    explicit FastGelu(const char *name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(FastGelu);
}  // namespace ops
