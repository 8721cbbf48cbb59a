// ascendc-cpu: platform_ascendc::PlatformAscendC, reporting the configured core count and UB size.
#pragma once

#include "ascendc_emu/base.h"

namespace fe {
class PlatFormInfos {};
inline PlatFormInfos g_platform_infos;
}  // namespace fe

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };
enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND910_93, ASCEND310P, ASCEND310B, ASCEND610, RESERVED_VERSION };

class PlatformAscendC {
public:
    PlatformAscendC() = default;
    explicit PlatformAscendC(const fe::PlatFormInfos *) {}
    uint32_t GetCoreNum() const { return ascendc_emu::g_config.aiv; }
    uint32_t GetCoreNumAiv() const { return ascendc_emu::g_config.aiv; }
    uint32_t GetCoreNumAic() const { return ascendc_emu::g_config.aic; }
    uint32_t GetCoreNumVector() const { return ascendc_emu::g_config.aiv; }
    void GetCoreMemSize(CoreMemType t, uint64_t &size) const {
        switch (t) {
            case CoreMemType::UB: size = ascendc_emu::g_config.ub; break;
            case CoreMemType::L1: size = 512 * 1024; break;
            case CoreMemType::L0_A: case CoreMemType::L0_B: size = 64 * 1024; break;
            case CoreMemType::L0_C: size = 128 * 1024; break;
            case CoreMemType::L2: size = 192ull * 1024 * 1024; break;
            default: size = 64ull * 1024 * 1024 * 1024; break;
        }
    }
    void GetCoreMemBw(CoreMemType, uint64_t &bw) const { bw = 0; }
    SocVersion GetSocVersion() const { return SocVersion::ASCEND910B; }
    uint32_t GetLibApiWorkSpaceSize() const { return static_cast<uint32_t>(ascendc_emu::g_config.sys_workspace); }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        (void)aicCoreNum;
        return aivCoreNum == 0 ? sliceNum : std::min(sliceNum, aivCoreNum);
    }
    uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }
    int64_t ReserveLocalMemory(int64_t) const { return 0; }
};

class PlatformAscendCManager {
public:
    static PlatformAscendC *GetInstance() {
        static PlatformAscendC p;
        return &p;
    }
    static PlatformAscendC *GetInstance(const char *) { return GetInstance(); }
};

}  // namespace platform_ascendc
