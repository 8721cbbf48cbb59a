// ascendc-cpu: the ops libraries' tiling-template registry: REGISTER_TILING_TEMPLATE(op, class, priority) and
// TilingRegistry::GetInstance().DoTilingImpl(context), which tries the templates in priority order (the lowest
// number first) and takes the first whose DoTiling is not GRAPH_PARAM_INVALID (not capable of the case).
#pragma once

#include <functional>
#include <map>
#include <memory>

#include "ascendc_emu/host.h"
#include "tiling/tiling_base.h"

namespace optiling {

class TilingRegistry {
public:
    using Maker = std::function<std::unique_ptr<TilingBaseClass>(gert::TilingContext *)>;
    static TilingRegistry &GetInstance() {
        static TilingRegistry registry;
        return registry;
    }
    template <class T> int Register(const char *op, int32_t priority) {
        (void)op;  // one operator a candidate: its templates are the registry's
        makers_.emplace(priority, [](gert::TilingContext *c) { return std::unique_ptr<TilingBaseClass>(new T(c)); });
        return 0;
    }
    ge::graphStatus DoTilingImpl(gert::TilingContext *context) {
        for (auto &[priority, make] : makers_) {
            (void)priority;
            ge::graphStatus ret = make(context)->DoTiling();
            if (ret != ge::GRAPH_PARAM_INVALID) return ret;
        }
        return ge::GRAPH_FAILED;  // no template takes the case
    }

private:
    std::multimap<int32_t, Maker> makers_;
};

}  // namespace optiling

#define ASCENDC_EMU_CAT2(a, b) a##b
#define ASCENDC_EMU_CAT(a, b) ASCENDC_EMU_CAT2(a, b)
#define REGISTER_TILING_TEMPLATE(op, cls, priority)                                                                 \
    static int ASCENDC_EMU_CAT(ascendc_emu_tiling_template_, __COUNTER__) =                                          \
        ::optiling::TilingRegistry::GetInstance().Register<cls>(op, priority)
