#include <cstring>
#include "mse_loss_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t ALIGN_NUM = 8;     // float elements in a 32-byte block
constexpr uint32_t TILE_LENGTH = 4096;
constexpr uint64_t KEY_NONE = 1;      // elementwise squared error
constexpr uint64_t KEY_REDUCE = 2;    // one partial sum per core, added into the output

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    MseLossTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());

    uint32_t blockLength = (totalLength + coreNum - 1) / coreNum;
    blockLength = (blockLength + ALIGN_NUM - 1) / ALIGN_NUM * ALIGN_NUM;
    uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;

    const char *reduction = context->GetAttrs()->GetStr(0);
    uint64_t tilingKey = KEY_REDUCE;
    float scale = 1.0f;
    if (strcmp(reduction, "none") == 0) {
        tilingKey = KEY_NONE;
    } else if (strcmp(reduction, "mean")) {
        scale = 1.0f / static_cast<float>(totalLength);
    }

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(TILE_LENGTH);
    tiling.set_scale(scale);
    context->SetTilingKey(tilingKey);
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
    const char *reduction = context->GetAttrs()->GetStr(0);
    if (strcmp(reduction, "none") == 0) {
        *context->GetOutputShape(0) = *context->GetInputShape(0);
    } else {
        *context->GetOutputShape(0) = gert::Shape({1});
    }
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MseLoss : public OpDef {
public:
    explicit MseLoss(const char *name) : OpDef(name)
    {
        this->Input("predict").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("label").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("reduction").AttrType(OPTIONAL).String("mean");

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(MseLoss);
}  // namespace ops
