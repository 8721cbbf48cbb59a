// ascendc-cpu: the ops libraries' tiling framework on the host: TilingBaseClass, whose DoTiling runs a tiling
// template's steps in order (shape and attributes, platform, IsCapable, the op's and the library's tiling, workspace,
// PostTiling, then the tiling key), as CANN's ops repositories define it. TilingRegistry picks among the registered
// templates (tiling/tiling_templates_registry.h).
#pragma once

#include <memory>

#include "ascendc_emu/host.h"

namespace optiling {

struct AiCoreParams {
    uint64_t ubSize = 0;
    uint64_t blockDim = 0;
    uint64_t aicNum = 0;
    uint64_t l1Size = 0;
    uint64_t l0aSize = 0;
    uint64_t l0bSize = 0;
    uint64_t l0cSize = 0;
};

class TilingBaseClass {
public:
    TilingBaseClass() = default;
    explicit TilingBaseClass(gert::TilingContext *context) : context_(context) {}
    virtual ~TilingBaseClass() = default;

    // GRAPH_PARAM_INVALID when the template is not capable of the case: the registry tries the next one
    ge::graphStatus DoTiling() {
        ge::graphStatus ret = GetShapeAttrsInfo();
        if (ret != ge::GRAPH_SUCCESS) return ret;
        ret = GetPlatformInfo();
        if (ret != ge::GRAPH_SUCCESS) return ret;
        if (!IsCapable()) return ge::GRAPH_PARAM_INVALID;
        for (auto step : {&TilingBaseClass::DoOpTiling, &TilingBaseClass::DoLibApiTiling,
                          &TilingBaseClass::GetWorkspaceSize, &TilingBaseClass::PostTiling}) {
            ret = (this->*step)();
            if (ret != ge::GRAPH_SUCCESS) return ret;
        }
        context_->SetTilingKey(GetTilingKey());
        DumpTilingInfo();
        return ge::GRAPH_SUCCESS;
    }
    virtual void Reset(gert::TilingContext *context) { context_ = context; }

protected:
    virtual bool IsCapable() = 0;
    virtual ge::graphStatus GetPlatformInfo() = 0;
    virtual ge::graphStatus GetShapeAttrsInfo() = 0;
    virtual ge::graphStatus DoOpTiling() = 0;
    virtual ge::graphStatus DoLibApiTiling() = 0;
    virtual uint64_t GetTilingKey() const = 0;
    virtual ge::graphStatus GetWorkspaceSize() = 0;
    virtual ge::graphStatus PostTiling() = 0;
    virtual void DumpTilingInfo() {}

    gert::TilingContext *context_ = nullptr;
    std::unique_ptr<platform_ascendc::PlatformAscendC> ascendcPlatform_;
    AiCoreParams aicoreParams_;
    uint32_t blockDim_ = 0;
    uint64_t workspaceSize_ = 0;
    uint64_t tilingKey_ = 0;
};

}  // namespace optiling
