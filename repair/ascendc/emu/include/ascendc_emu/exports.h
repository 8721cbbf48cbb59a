// ascendc-cpu: the library's C interface on the kernel side (included once, by the generated launcher).
#pragma once

#include "ascendc_emu/launch.h"

#define ASCENDC_EMU_EXPORT extern "C" __attribute__((visibility("default")))

ASCENDC_EMU_EXPORT int ascendc_emu_abi() { return 1; }

ASCENDC_EMU_EXPORT void ascendc_emu_configure(uint32_t aiv, uint32_t aic, uint64_t ub) {
    ascendc_emu::g_config.aiv = aiv;
    ascendc_emu::g_config.aic = aic;
    ascendc_emu::g_config.ub = ub;
}

ASCENDC_EMU_EXPORT void ascendc_emu_set_auto_sync(int on) { ascendc_emu::g_config.auto_sync = on != 0; }

ASCENDC_EMU_EXPORT void ascendc_emu_gm_reset() {
    ascendc_emu::g_gm.clear();
    ascendc_emu::g_notes.clear();  // the notes are a launch's
}

ASCENDC_EMU_EXPORT void ascendc_emu_gm_add(void *p, uint64_t bytes, const char *name) {
    uintptr_t lo = reinterpret_cast<uintptr_t>(p);
    ascendc_emu::g_gm.push_back({lo, lo + bytes, name});
}

ASCENDC_EMU_EXPORT const char *ascendc_emu_error() { return ascendc_emu::g_error.c_str(); }

// the launch's notes, one a line (without their keys)
ASCENDC_EMU_EXPORT const char *ascendc_emu_notes() {
    static std::string out;
    out.clear();
    for (const std::string &n : ascendc_emu::g_notes) out += n.substr(n.find('\t') + 1) + "\n";
    return out.c_str();
}
