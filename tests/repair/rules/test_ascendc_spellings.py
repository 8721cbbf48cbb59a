"""The AscendC rules match a bug by what the code does, not by one spelling of it.

Each case is a fragment of a kernel or a host tiling function written another way than the suites' near-misses
(other names, `this->` members, a core index held in a variable, `auto`, a CeilDiv helper, a reinterpret_cast,
`std::min` caps); the class's rules must reach the fix, and must leave the correct spelling alone.
"""
from __future__ import annotations

import pytest

from ingest.rules import apply_rule, equivalent
from repair.rules.catalog import ASCENDC_STARTER

BY_CLASS = {p.bug_class: list(p.rules) for p in ASCENDC_STARTER}


def _kernel(members: str, body: str) -> str:
    return ('#include "kernel_operator.h"\nusing namespace AscendC;\n\nclass KernelX {\npublic:\n'
            f"    __aicore__ inline void Run()\n    {{\n{body}\n    }}\n\nprivate:\n{members}\n}};\n")


def _host(body: str) -> str:
    return ("namespace optiling {\nstatic ge::graphStatus TilingFunc(gert::TilingContext *ctx)\n{\n"
            f"{body}\n    return ge::GRAPH_SUCCESS;\n}}\n}}\n")


MEMBERS = """    TPipe pipe;
    TQue<QuePosition::VECIN, 2> qIn;
    TQue<QuePosition::VECOUT, 2> qOut;
    GlobalTensor<half> aGm, bGm;
    uint32_t n = 0;"""

SUMMER = MEMBERS + """
    TBuf<QuePosition::VECCALC> sumBuf;
    __aicore__ inline void Fold(AscendC::LocalTensor<float> &into, uint32_t i)
    {
        AscendC::Add(into, into, Chunk(i), this->w);
    }"""

# a file that reaches AscendC through an alias only (no `using namespace`): a name a rewrite brings in takes `AC::`
ALIASED = """#include "kernel_operator.h"
namespace AC = AscendC;

class KernelX {
public:
    __aicore__ inline void Init(GM_ADDR a, uint32_t total, uint32_t each, uint32_t spare)
    {
        this->len = LEN;
        aGm.SetGlobalBuffer((__gm__ half *)a + each * AC::GetBlockIdx(), this->len);
    }

private:
    AC::GlobalTensor<half> aGm;
    uint32_t len = 0;
};
""" + _host("    uint32_t each = n / cores / 16 * 16;\n    tiling.set_each(each);\n"
            "    uint32_t spare = n - cores * each;\n    tiling.set_spare(spare);")


def _aliased(length: str) -> str:
    return ALIASED.replace("LEN", length)


CASES = {
    "tail-tile-dropped": [
        # the last tile's branch keeps the full tile's length (AscendC:: calls, locals, `i == n - 1`)
        (_kernel(MEMBERS, "        uint32_t cnt = this->tileLen;\n"
                          "        uint32_t tailCnt = this->total - (this->loops - 1) * this->tileLen;\n"
                          "        for (uint32_t i = 0; i < this->loops; i++) {\n"
                          "            if (i == this->loops - 1) {\n                cnt = this->tileLen;\n            }\n"
                          "            AscendC::DataCopy(t, aGm[i * this->tileLen], cnt);\n        }"),
         _kernel(MEMBERS, "        uint32_t cnt = this->tileLen;\n"
                          "        uint32_t tailCnt = this->total - (this->loops - 1) * this->tileLen;\n"
                          "        for (uint32_t i = 0; i < this->loops; i++) {\n"
                          "            if (i == this->loops - 1) {\n                cnt = tailCnt;\n            }\n"
                          "            AscendC::DataCopy(t, aGm[i * this->tileLen], cnt);\n        }")),
        # the last block's length drops the remainder the host computed (a namespace alias: the fix says AC::)
        (_aliased("each"), _aliased("each + (AC::GetBlockIdx() == AC::GetBlockNum() - 1 ? spare : 0)")),
        (_kernel(MEMBERS, "        uint32_t core = GetBlockIdx();\n        uint32_t last = this->n % 64;\n"
                          "        if (last != 0 && core < GetBlockNum() - 1) {\n            Tile(this->n - last, last);\n"
                          "        }"),
         _kernel(MEMBERS, "        uint32_t core = GetBlockIdx();\n        uint32_t last = this->n % 64;\n"
                          "        if (last != 0) {\n            Tile(this->n - last, last);\n        }")),
        (_kernel(MEMBERS, "        int me = AscendC::GetBlockIdx();\n        if (me != lastCore && leftover > 0) "
                          "{\n            Tile(done, leftover);\n        }"),
         _kernel(MEMBERS, "        int me = AscendC::GetBlockIdx();\n        if (leftover > 0) "
                          "{\n            Tile(done, leftover);\n        }")),
        (_host("    int64_t n = shape.GetShapeSize();\n    auto cores = std::min<int64_t>(40, n / 256);\n"
               "    ctx->SetBlockDim(cores);\n    int64_t each = n / cores;"),
         _host("    int64_t n = shape.GetShapeSize();\n    auto cores = std::min<int64_t>(40, n / 256);\n"
               "    ctx->SetBlockDim(cores);\n    int64_t each = (n + cores - 1) / cores;")),
    ],
    "tile-loop-bound": [
        (_kernel(MEMBERS, "        for (int32_t k = 0; k < 1 && k < this->loops; ++k) {\n            Tile(k);\n        }"),
         _kernel(MEMBERS, "        for (int32_t k = 0; k < this->loops; ++k) {\n            Tile(k);\n        }")),
        (_kernel(MEMBERS, "        for (uint32_t j = 0; j < std::min(blocks, 1u); j++) {\n            Tile(j);\n"
                          "        }"),
         _kernel(MEMBERS, "        for (uint32_t j = 0; j < blocks; j++) {\n            Tile(j);\n        }")),
    ],
    "wrong-core-count": [
        (_host("    auto asc = platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo());\n"
               "    auto aiv = asc.GetCoreNumAiv();\n    uint32_t used = std::min<uint32_t>(aiv, rows);\n"
               "    uint32_t share = CeilDiv(rows, aiv);\n    ctx->SetBlockDim(used);"),
         _host("    auto asc = platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo());\n"
               "    auto aiv = asc.GetCoreNumAiv();\n    uint32_t used = std::min<uint32_t>(aiv, rows);\n"
               "    uint32_t share = CeilDiv(rows, used);\n    ctx->SetBlockDim(used);")),
        (_host("    uint32_t cores = ascendcPlatform->GetCoreNumAiv();\n    uint32_t dim = total < 4096 ? 1 : cores;\n"
               "    ctx->SetBlockDim(dim);\n    uint32_t per = (total + cores - 1) / cores;"),
         _host("    uint32_t cores = ascendcPlatform->GetCoreNumAiv();\n    uint32_t dim = total < 4096 ? 1 : cores;\n"
               "    ctx->SetBlockDim(dim);\n    uint32_t per = (total + dim - 1) / dim;")),
    ],
    "unaligned-datacopy": [
        (_kernel(MEMBERS, "        AscendC::LocalTensor<half> t = qOut.DeQue<half>();\n"
                          "        DataCopy(this->bGm[base], t, cnt);\n        qOut.FreeTensor(t);"),
         _kernel(MEMBERS, "        AscendC::LocalTensor<half> t = qOut.DeQue<half>();\n"
                          "        DataCopyPad(this->bGm[base], t, DataCopyExtParams{1, static_cast<uint32_t>((cnt) * "
                          "sizeof(half)), 0, 0, 0});\n        qOut.FreeTensor(t);")),
    ],
    "queue-out-of-order": [
        (_kernel(MEMBERS, "        LocalTensor<half> o = qOut.AllocTensor<half>();\n        qOut.EnQue(o);\n"
                          "        Exp(o, i, len);\n        Muls(o, o, (half)2, len);\n        qIn.FreeTensor(i);"),
         _kernel(MEMBERS, "        LocalTensor<half> o = qOut.AllocTensor<half>();\n"
                          "        Exp(o, i, len);\n        Muls(o, o, (half)2, len);\n        qOut.EnQue(o);\n"
                          "        qIn.FreeTensor(i);")),
        (_kernel(MEMBERS, "        LocalTensor<half> v = qIn.DeQue<half>();\n        qIn.FreeTensor(v);\n"
                          "        Abs(w, v, len);\n        v = qIn.DeQue<half>();\n        Abs(w, v, len);"),
         _kernel(MEMBERS, "        LocalTensor<half> v = qIn.DeQue<half>();\n"
                          "        Abs(w, v, len);\n        qIn.FreeTensor(v);\n        v = qIn.DeQue<half>();\n"
                          "        Abs(w, v, len);")),
    ],
    "reduction-init": [
        (_kernel(MEMBERS, "        float total = 1.0f;\n        for (uint32_t i = 0; i < k; i++) {\n"
                          "            total = total + Part(i);\n        }"),
         _kernel(MEMBERS, "        float total = 0;\n        for (uint32_t i = 0; i < k; i++) {\n"
                          "            total = total + Part(i);\n        }")),
        (_kernel(MEMBERS, "        LocalTensor<float> run = runBuf.Get<float>();\n        Duplicate(run, 0.0f, w);\n"
                          "        for (uint32_t i = 0; i < k; i++) {\n            Max(run, run, Chunk(i), w);\n"
                          "        }"),
         _kernel(MEMBERS, "        LocalTensor<float> run = runBuf.Get<float>();\n"
                          "        Duplicate(run, -3.40282347e+38f, w);\n        for (uint32_t i = 0; i < k; i++) {\n"
                          "            Max(run, run, Chunk(i), w);\n        }")),
        (_kernel(MEMBERS, "        LocalTensor<float> acc = accBuf.Get<float>();\n"
                          "        for (uint32_t i = 0; i < k; i++) {\n            Add(acc, acc, Chunk(i), w);\n"
                          "        }"),
         _kernel(MEMBERS, "        LocalTensor<float> acc = accBuf.Get<float>();\n        Duplicate(acc, (float)(0), w);\n"
                          "        for (uint32_t i = 0; i < k; i++) {\n            Add(acc, acc, Chunk(i), w);\n"
                          "        }")),
        # the running sum is kept by a helper the tiles are passed to
        (_kernel(SUMMER, "        pipe.InitBuffer(sumBuf, this->w * sizeof(float));\n"
                         "        AscendC::LocalTensor<float> part = sumBuf.Get<float>();\n"
                         "        for (uint32_t i = 0; i < k; i++) {\n            Fold(part, i);\n        }"),
         _kernel(SUMMER, "        pipe.InitBuffer(sumBuf, this->w * sizeof(float));\n"
                         "        AscendC::LocalTensor<float> part = sumBuf.Get<float>();\n"
                         "        Duplicate(part, (float)(0), this->w);\n"
                         "        for (uint32_t i = 0; i < k; i++) {\n            Fold(part, i);\n        }")),
    ],
    "missing-max-subtraction": [
        (_kernel(MEMBERS, "        LocalTensor<half> v = qIn.DeQue<half>();\n        Exp(v, v, cnt);\n"
                          "        ReduceSum(acc, v, work, cnt);"),
         _kernel(MEMBERS, "        LocalTensor<half> v = qIn.DeQue<half>();\n        ReduceMax(acc, v, work, cnt);\n"
                          "        event_t shiftEvt_ = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));\n"
                          "        SetFlag<HardEvent::V_S>(shiftEvt_);\n        WaitFlag<HardEvent::V_S>(shiftEvt_);\n"
                          "        half shiftMax_ = acc.GetValue(0);\n        Adds(v, v, (half)(-shiftMax_), cnt);\n"
                          "        Exp(v, v, cnt);\n        ReduceSum(acc, v, work, cnt);")),
    ],
    "missing-block-offset": [
        # past the big blocks, the correction is scaled by the bare index (AscendC::, this->, index first, `>=`)
        (_kernel(MEMBERS, "        uint64_t off = this->big * AscendC::GetBlockIdx();\n"
                          "        if (AscendC::GetBlockIdx() >= this->bigN) {\n"
                          "            off -= AscendC::GetBlockIdx() * (this->big - this->small);\n        }\n"
                          "        aGm.SetGlobalBuffer((__gm__ half *)a + off, this->n);"),
         _kernel(MEMBERS, "        uint64_t off = this->big * AscendC::GetBlockIdx();\n"
                          "        if (AscendC::GetBlockIdx() >= this->bigN) {\n"
                          "            off -= (AscendC::GetBlockIdx() - this->bigN) * (this->big - this->small);\n"
                          "        }\n        aGm.SetGlobalBuffer((__gm__ half *)a + off, this->n);")),
        # the offset written whole, big * N + small * idx (AscendC::, a namespace's call inside SetGlobalBuffer)
        (_kernel(MEMBERS, "        if (AscendC::GetBlockIdx() < nBig) {\n"
                          "            aGm.SetGlobalBuffer((__gm__ half *)a + big * 2 * AscendC::GetBlockIdx(), big);\n"
                          "        } else {\n            aGm.SetGlobalBuffer((__gm__ half *)a + nBig * big * 2 + "
                          "small * 2 * AscendC::GetBlockIdx(), small);\n        }"),
         _kernel(MEMBERS, "        if (AscendC::GetBlockIdx() < nBig) {\n"
                          "            aGm.SetGlobalBuffer((__gm__ half *)a + big * 2 * AscendC::GetBlockIdx(), big);\n"
                          "        } else {\n            aGm.SetGlobalBuffer((__gm__ half *)a + nBig * big * 2 + "
                          "small * 2 * (AscendC::GetBlockIdx() - nBig), small);\n        }")),
        # a core index held in a variable, `N <= core`, `off = off - ...`
        (_kernel(MEMBERS, "        int32_t me = GetBlockIdx();\n        int32_t off = big * me;\n"
                          "        if (nBig <= me) {\n            this->n = small;\n"
                          "            off = off - (big - small) * me;\n        } else {\n            this->n = big;\n"
                          "        }\n        aGm.SetGlobalBuffer((__gm__ half *)a + off, this->n);"),
         _kernel(MEMBERS, "        int32_t me = GetBlockIdx();\n        int32_t off = big * me;\n"
                          "        if (nBig <= me) {\n            this->n = small;\n"
                          "            off = off - (big - small) * (me - nBig);\n        } else {\n            this->n = big;\n"
                          "        }\n        aGm.SetGlobalBuffer((__gm__ half *)a + off, this->n);")),
        (_kernel(MEMBERS, "        aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(a), len);\n"
                          "        bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(b) + len * GetBlockIdx(), len);"),
         _kernel(MEMBERS, "        aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(a) + len * GetBlockIdx(), len);\n"
                          "        bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(b) + len * GetBlockIdx(), len);")),
        (_kernel(MEMBERS, "        uint32_t base = AscendC::GetBlockIdx() * this->tileLen;\n"
                          "        this->n = total - base < share ? total - base : share;\n"
                          "        aGm.SetGlobalBuffer((__gm__ half *)a + base, this->n);"),
         _kernel(MEMBERS, "        uint32_t base = AscendC::GetBlockIdx() * share;\n"
                          "        this->n = total - base < share ? total - base : share;\n"
                          "        aGm.SetGlobalBuffer((__gm__ half *)a + base, this->n);")),
        (_kernel(MEMBERS, "        auto start = share;\n"
                          "        aGm.SetGlobalBuffer((__gm__ half *)a + start, share);\n"
                          "        bGm.SetGlobalBuffer((__gm__ half *)b + start, share);"),
         _kernel(MEMBERS, "        auto start = (share) * GetBlockIdx();\n"
                          "        aGm.SetGlobalBuffer((__gm__ half *)a + start, share);\n"
                          "        bGm.SetGlobalBuffer((__gm__ half *)b + start, share);")),
    ],
    "tile-count-floored": [
        (_host("    uint32_t n = shape.GetShapeSize();\n    uint32_t whole = n / tileLen;\n    uint32_t tiles = whole;\n"
               "    tiling.set_tiles(tiles);"),
         _host("    uint32_t n = shape.GetShapeSize();\n    uint32_t whole = n / tileLen;\n"
               "    uint32_t tiles = (n % tileLen) == 0 ? whole : whole + 1;\n    tiling.set_tiles(tiles);")),
        (_host("    uint32_t n = shape.GetShapeSize();\n    uint32_t padded = (n / 16) * 16;\n"
               "    tiling.set_len(padded);"),
         _host("    uint32_t n = shape.GetShapeSize();\n    uint32_t padded = ((n + 16 - 1) / 16) * 16;\n"
               "    tiling.set_len(padded);")),
    ],
    "loop-off-by-one": [
        (_kernel(MEMBERS, "        for (uint32_t t = 0; t < this->tiles - 1; t++) {\n            Tile(t * this->len);\n"
                          "        }"),
         _kernel(MEMBERS, "        for (uint32_t t = 0; t < this->tiles; t++) {\n            Tile(t * this->len);\n"
                          "        }")),
        (_kernel(MEMBERS, "        for (int32_t k = 0; k < loops; k++) {\n            Tile(k * len);\n        }\n"
                          "        Tile((loops - 1) * len);"),
         _kernel(MEMBERS, "        for (int32_t k = 0; k < loops - 1; k++) {\n            Tile(k * len);\n        }\n"
                          "        Tile((loops - 1) * len);")),
        (_kernel(MEMBERS, "        for (uint32_t t = 1; t < this->tiles; t++) {\n            Tile(t, this->len);\n"
                          "        }"),
         _kernel(MEMBERS, "        for (uint32_t t = 0; t < this->tiles; t++) {\n            Tile(t, this->len);\n"
                          "        }")),
    ],
    "block-count": [
        (_host("    auto plat = platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo());\n"
               "    uint32_t cores = plat.GetCoreNumAiv();\n    uint32_t used = std::min(cores, (n + 1023) / 1024);\n"
               "    uint32_t share = (n + used - 1) / used;\n    ctx->SetBlockDim(plat.GetCoreNumAiv());"),
         _host("    auto plat = platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo());\n"
               "    uint32_t cores = plat.GetCoreNumAiv();\n    uint32_t used = std::min(cores, (n + 1023) / 1024);\n"
               "    uint32_t share = (n + used - 1) / used;\n    ctx->SetBlockDim(used);")),
    ],
    "attribute-misread": [
        ("BEGIN_TILING_DATA_DEF(XTiling)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nTILING_DATA_FIELD_DEF(int32_t, beta);\n"
         "END_TILING_DATA_DEF;\n" + _host("    const float *beta = ctx->GetAttrs()->GetAttrPointer<float>(0);\n"
                                          "    tiling.set_beta(*beta);"),
         "BEGIN_TILING_DATA_DEF(XTiling)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nTILING_DATA_FIELD_DEF(float, beta);\n"
         "END_TILING_DATA_DEF;\n" + _host("    const float *beta = ctx->GetAttrs()->GetAttrPointer<float>(0);\n"
                                          "    tiling.set_beta(*beta);")),
    ],
    "buffer-dtype": [
        (_kernel(MEMBERS, "        pipe.InitBuffer(tmpBuf, sizeof(half) * this->n);\n"
                          "        AscendC::LocalTensor<float> w = tmpBuf.Get<float>();"),
         _kernel(MEMBERS, "        pipe.InitBuffer(tmpBuf, sizeof(float) * this->n);\n"
                          "        AscendC::LocalTensor<float> w = tmpBuf.Get<float>();")),
    ],
    "missing-enque": [
        (_kernel(MEMBERS, "        auto t = qIn.AllocTensor<half>();\n        DataCopy(t, aGm[k * 256], 256);\n"
                          "        Adds(t, t, (half)1, 256);"),
         _kernel(MEMBERS, "        auto t = qIn.AllocTensor<half>();\n        DataCopy(t, aGm[k * 256], 256);\n"
                          "        Adds(t, t, (half)1, 256);\n        qIn.EnQue(t);")),
    ],
    "ub-overallocated": [  # one source holding the kernel (its InitBuffer's buffer count) and the host's tiling
        (_kernel(MEMBERS, "        pipe.InitBuffer(qIn, 2, this->n * sizeof(half));")
         + _host("    constexpr uint32_t QUEUES = 3;\n    uint64_t ub = 0;\n"
                 "    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);\n"
                 "    uint32_t per = static_cast<uint32_t>(ub / QUEUES) / 64 * 64;"),
         _kernel(MEMBERS, "        pipe.InitBuffer(qIn, 2, this->n * sizeof(half));")
         + _host("    constexpr uint32_t QUEUES = 3;\n    uint64_t ub = 0;\n"
                 "    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);\n"
                 "    uint32_t per = static_cast<uint32_t>(ub / (QUEUES * 2)) / 64 * 64;")),
    ],
    "mean-divisor": [
        (_host("    uint32_t n = shape.GetShapeSize();\n    uint32_t padded = (n + 15) / 16 * 16;\n"
               "    float inv = 1.0f / (float)padded;\n    tiling.set_inv(inv);"),
         _host("    uint32_t n = shape.GetShapeSize();\n    uint32_t padded = (n + 15) / 16 * 16;\n"
               "    float inv = 1.0f / (float)n;\n    tiling.set_inv(inv);")),
    ],
    "clamp-bounds-swapped": [
        (_kernel(MEMBERS, "        AscendC::Mins(o, v, this->lowerBound, cnt);\n"
                          "        AscendC::Maxs(o, o, this->upperBound, cnt);"),
         _kernel(MEMBERS, "        AscendC::Mins(o, v, this->upperBound, cnt);\n"
                          "        AscendC::Maxs(o, o, this->lowerBound, cnt);")),
    ],
    "missing-pipe-sync": [  # this-> members, AscendC:: calls, the flag pair the file writes elsewhere (V_MTE2)
        (_kernel(MEMBERS + "\n    TBuf<TPosition::VECCALC> rowBuf;\n    GlobalTensor<float> xGm;",
                 "        AscendC::LocalTensor<float> row = this->rowBuf.Get<float>();\n"
                 "        AscendC::DataCopyPad(row, this->xGm[0], {1, 256, 0, 0, 0}, {false, 0, 0, 0});\n        AscendC::Muls(row, row, 2.0f, 64);\n"
                 "        event_t back = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE2));\n"
                 "        AscendC::SetFlag<HardEvent::V_MTE2>(back);\n        AscendC::WaitFlag<HardEvent::V_MTE2>(back);"),
         _kernel(MEMBERS + "\n    TBuf<TPosition::VECCALC> rowBuf;\n    GlobalTensor<float> xGm;",
                 "        AscendC::LocalTensor<float> row = this->rowBuf.Get<float>();\n"
                 "        AscendC::DataCopyPad(row, this->xGm[0], {1, 256, 0, 0, 0}, {false, 0, 0, 0});\n"
                 "        event_t eventIdMTE2ToV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));\n"
                 "        SetFlag<HardEvent::MTE2_V>(eventIdMTE2ToV);\n        WaitFlag<HardEvent::MTE2_V>(eventIdMTE2ToV);\n"
                 "        AscendC::Muls(row, row, 2.0f, 64);\n"
                 "        event_t back = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE2));\n"
                 "        AscendC::SetFlag<HardEvent::V_MTE2>(back);\n        AscendC::WaitFlag<HardEvent::V_MTE2>(back);")),
    ],
    "accumulator-reset-per-tile": [  # AscendC:: calls, this-> members, the reset inside the loop itself
        (_kernel(SUMMER, "        AscendC::LocalTensor<float> acc = this->sumBuf.Get<float>();\n"
                         "        for (uint32_t i = 0; i < this->n; i++) {\n"
                         "            AscendC::Duplicate(acc, (float)0, this->w);\n"
                         "            AscendC::Add(acc, acc, Chunk(i), this->w);\n        }\n"
                         "        AscendC::ReduceSum(acc, acc, acc, this->w);"),
         _kernel(SUMMER, "        AscendC::LocalTensor<float> acc = this->sumBuf.Get<float>();\n"
                         "        AscendC::Duplicate(acc, (float)0, this->w);\n"
                         "        for (uint32_t i = 0; i < this->n; i++) {\n"
                         "            AscendC::Add(acc, acc, Chunk(i), this->w);\n        }\n"
                         "        AscendC::ReduceSum(acc, acc, acc, this->w);")),
    ],
    "missing-atomic-accumulate": [  # AscendC:: calls in a file with `using namespace AscendC` (the fix may be bare)
        (_kernel(MEMBERS + "\n    GlobalTensor<float> outGm;",
                 "        outGm.SetGlobalBuffer((__gm__ float *)out, 1);\n        aGm.SetGlobalBuffer((__gm__ half *)a + "
                 "AscendC::GetBlockIdx() * this->n, this->n);\n"
                 "        AscendC::LocalTensor<float> part = qOut.AllocTensor<float>();\n"
                 "        AscendC::ReduceSum(part, part, part, this->n);\n"
                 "        qOut.EnQue(part);\n        part = qOut.DeQue<float>();\n"
                 "        AscendC::DataCopyPad(outGm, part, {1, 4, 0, 0, 0});"),
         _kernel(MEMBERS + "\n    GlobalTensor<float> outGm;",
                 "        outGm.SetGlobalBuffer((__gm__ float *)out, 1);\n        aGm.SetGlobalBuffer((__gm__ half *)a + "
                 "AscendC::GetBlockIdx() * this->n, this->n);\n"
                 "        AscendC::LocalTensor<float> part = qOut.AllocTensor<float>();\n"
                 "        AscendC::ReduceSum(part, part, part, this->n);\n"
                 "        qOut.EnQue(part);\n        part = qOut.DeQue<float>();\n"
                 "        SetAtomicAdd<float>();\n        AscendC::DataCopyPad(outGm, part, {1, 4, 0, 0, 0});\n"
                 "        SetAtomicNone();")),
    ],
    "buffer-bytes": [
        (_kernel(MEMBERS, "        pipe.InitBuffer(qIn, 2, this->tileLen);\n"
                          "        LocalTensor<half> t = qIn.AllocTensor<half>();"),
         _kernel(MEMBERS, "        pipe.InitBuffer(qIn, 2, (this->tileLen) * sizeof(half));\n"
                          "        LocalTensor<half> t = qIn.AllocTensor<half>();")),
    ],
}

PARAMS = [pytest.param(c, bad, good, id=f"{c}-{i}") for c, cases in CASES.items() for i, (bad, good) in
          enumerate(cases)]


def _reached(rules, source: str, depth: int = 2) -> list[str]:
    seen, frontier = [source], [source]
    for _ in range(depth):
        frontier = [a.patched_source for s in frontier for r in rules for a in apply_rule(r, s)]
        seen += frontier
    return seen


def test_every_ascendc_class_has_spellings():
    assert set(CASES) == set(BY_CLASS)


@pytest.mark.parametrize("bug_class,bad,good", PARAMS)
def test_the_class_reaches_the_fix_from_another_spelling(bug_class, bad, good):
    assert any(equivalent(r, good, "cpp") for r in _reached(BY_CLASS[bug_class], bad)), bug_class


@pytest.mark.parametrize("bug_class,bad,good", PARAMS)
def test_no_ascendc_rule_touches_the_correct_spelling(bug_class, bad, good):
    changed = [a.rule_id for rules in BY_CLASS.values() for r in rules for a in apply_rule(r, good)
               if not equivalent(a.patched_source, good, "cpp")]
    assert changed == []
