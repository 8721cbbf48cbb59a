"""The strict build's address-space check: a GM address cast to a pointer without `__gm__` does not build, as on an
NPU; every correct kernel of the suites builds as before (NPUKernelBench's 1,376 answer sources and the Ascend
samples' 1,046 were checked by hand when the check was written: no finding)."""
from __future__ import annotations

from pathlib import Path

import pytest

from repair.ascendc import load_candidate
from repair.ascendc.emu.addrspace import check_sources, check_text, strict_message

ROOT = Path(__file__).resolve().parents[3]

KERNEL = """#include "kernel_operator.h"
class K {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR ws, uint32_t n)
    {
        xGm.SetGlobalBuffer(%s, n);
        uint64_t addr = (uint64_t)x;
        __gm__ float *base = (__gm__ float *)y;
        float scratch[8];
        float *s = (float *)scratch;
        this->ws = ws;
    }
    AscendC::GlobalTensor<float> xGm;
    GM_ADDR ws;
};
"""


@pytest.mark.parametrize("cast", ["(float *)x + n * AscendC::GetBlockIdx()", "reinterpret_cast<float *>(x)",
                                  "static_cast<float *>((void *)x)", "(float *)(x + 4)", "(float *)this->ws"])
def test_a_gm_address_cast_without_gm_is_an_error(cast):
    errors = check_text(KERNEL % cast)
    assert len(errors) == 1 and errors[0].line == 6, errors
    assert "__gm__" in errors[0].message()


@pytest.mark.parametrize("cast", ["(__gm__ float *)x + n * AscendC::GetBlockIdx()", "reinterpret_cast<__gm__ float *>(x)",
                                  "(GM_ADDR)x", "(__gm__ float *)(x + 4)"])
def test_casts_that_keep_the_address_space_pass(cast):
    assert check_text(KERNEL % cast) == []


def test_a_local_declared_gm_is_a_gm_address_and_the_file_label_is_kept():
    src = '#line 40 "op_kernel/k.cpp"\n' + (KERNEL % "(__gm__ float *)x").replace(
        "float *s = (float *)scratch;", "float *s = (float *)base;")
    errors = check_sources({"op_kernel/k.cpp": src})
    assert [(e.file, e.line, e.operand) for e in errors] == [("op_kernel/k.cpp", 49, "base")]


def test_the_build_refuses_what_bisheng_would(tmp_path, monkeypatch):
    """The suite's add kernel with `__gm__` dropped from one cast is a compile error before g++ runs (no compiler is
    needed to refuse it); the kernel as written builds its plan with no finding."""
    from repair.ascendc import CompileError, build_library, plan_emu_build
    from repair.ascendc.emu import build as emu_build

    monkeypatch.setenv("REPAIR_ASCENDC_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(emu_build, "compiler", lambda: ("/nonexistent/g++", "g++ test"))
    monkeypatch.setattr(emu_build, "headers_digest", lambda: "test")
    cand = load_candidate(ROOT / "examples" / "ascendc" / "add" / "correct.py")
    plan = plan_emu_build(cand)
    assert strict_message(plan.files) == ""
    kernel = next(k for k in plan.files if k.startswith("op_kernel/"))
    bad = plan.files[kernel].replace("(__gm__ float *)y + offset", "(float *)y + offset", 1)
    assert bad != plan.files[kernel]
    broken = type(plan)({**plan.files, kernel: bad}, plan.units, plan.include_dirs, plan.entry, plan.key + "x",
                        plan.variants)
    with pytest.raises(CompileError, match=r"correct.py \(kernel_src\):\d+:\d+: error: `\(float \*\)y` casts the GM "
                                           r"address `y`"):
        build_library(broken)
