// ascendc-cpu: the host-side logging and check macros of the ops libraries (OPS_LOG_*, OPS_CHECK, ...). Debug and
// info lines are dropped; errors go to stderr; a failed check runs the action it names (return ge::GRAPH_FAILED).
#pragma once

#include <cstdio>

#include "ascendc_emu/host.h"

#define OPS_LOG_D(name, ...) ((void)0)
#define OPS_LOG_I(name, ...) ((void)0)
#define OPS_LOG_W(name, ...) ((void)0)
#define OPS_LOG_E(name, ...) (std::fprintf(stderr, "[%s] ", static_cast<const char *>(name)), \
                              std::fprintf(stderr, __VA_ARGS__), std::fputc('\n', stderr))
#define OPS_REPORT_VECTOR_INNER_ERR(name, ...) OPS_LOG_E(name, __VA_ARGS__)
#define OPS_REPORT_CUBE_INNER_ERR(name, ...) OPS_LOG_E(name, __VA_ARGS__)
#define OPS_CHECK(cond, log, ...) \
    if (cond) {                   \
        log;                      \
        __VA_ARGS__;              \
    }
#define OPS_LOG_E_IF_NULL(context, ptr, ...)                          \
    if ((ptr) == nullptr) {                                           \
        OPS_LOG_E("ascendc_cpu", "%s is nullptr", #ptr);              \
        __VA_ARGS__;                                                  \
    }
#define OPS_CHECK_NULL_WITH_CONTEXT(context, ptr) OPS_LOG_E_IF_NULL(context, ptr, return ge::GRAPH_FAILED)
#define OPS_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ret) OPS_LOG_E_IF_NULL(context, ptr, return ret)
