#include "tril_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t COL_ALIGN = 16;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    TrilTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
    size_t dims = shape.GetDimNum();
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(dims - 1));
    uint32_t matrixRows = static_cast<uint32_t>(shape.GetDim(dims - 2));
    uint32_t totalRows = static_cast<uint32_t>(shape.GetShapeSize() / cols);

    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivNum = platform.GetCoreNumAiv();
    uint32_t rowsPerCore = (totalRows + aivNum - 1) / aivNum;
    uint32_t blockDim = (totalRows + rowsPerCore - 1) / rowsPerCore;

    const int64_t *diagonal = context->GetAttrs()->GetInt(0);
    tiling.set_totalRows(totalRows);
    tiling.set_matrixRows(matrixRows);
    tiling.set_cols(cols);
    tiling.set_colsAligned((cols + COL_ALIGN - 1) / COL_ALIGN * COL_ALIGN);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_diagonal(static_cast<int32_t>(*diagonal));

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
class Tril : public OpDef {
public:
    explicit Tril(const char *name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("diagonal").AttrType(OPTIONAL).Int(0);

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(Tril);
}  // namespace ops
