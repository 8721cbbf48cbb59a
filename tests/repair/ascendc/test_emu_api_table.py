"""repair/ascendc/emu/api.py: the table of the AscendC API on ascendc-cpu is what the headers declare and what the
README shows, and a build that meets an API it lists as not emulated is `unsupported`, never `compile-error`."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ascendc_fixtures import ROOT, SUITE, variant
from repair.ascendc.emu.api import (API, MISSING, MISSING_NAMES, README_BEGIN, README_END, confirm_unsupported,
                                    render_markdown, unsupported_in)
from repair.ascendc.emu.build import INCLUDE, UnsupportedApi, compile_failure

HEADERS = "\n".join(p.read_text() for p in INCLUDE.rglob("*.h"))


def _declared(name: str) -> bool:
    last = name.split("::")[-1]
    tmp = re.fullmatch(r"Get(\w+)MaxMinTmpSize", last)  # made by a macro of the host library
    return bool(re.search(rf"\b{re.escape(last)}\b", HEADERS) or
                (tmp and re.search(rf"ASCENDC_EMU_TMP_SIZE\({tmp.group(1)}\)", HEADERS)))


def test_every_api_the_table_calls_emulated_is_in_the_headers_and_no_missing_one_is():
    for api in API:
        for name in api.names:
            assert _declared(name) == (api.status != MISSING), (name, api.status)


def test_the_readme_table_is_the_code_table():
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index(README_BEGIN) + len(README_BEGIN):readme.index(README_END)].strip()
    assert block == render_markdown(), "regenerate with `python -m repair.ascendc.emu.api`"


@pytest.mark.parametrize("message, api, where, form", [
    ("op_kernel/x.h:88:18: error: 'Sort32' is not a member of 'AscendC'", "Sort32", "op_kernel/x.h:88", False),
    ("k.cpp (kernel_src):7:3: error: 'MrgSort' was not declared in this scope; did you mean 'Sort'?", "MrgSort",
     "k.cpp (kernel_src):7", False),
    ("op_kernel/d.cpp:62:17: error: there are no arguments to 'vcmax' that depend on a template parameter",
     "vcmax", "op_kernel/d.cpp:62", False),
    ("a.cpp:3:5: error: no matching function for call to 'AscendC::DataCopy(AscendC::LocalTensor<float>&, int)'",
     "DataCopy", "a.cpp:3", True),
    ("a.cpp:3:5: error: no matching function for call to 'Add(AscendC::LocalTensor<float>&)'", None, None, None),
    ("a.cpp:9:2: error: 'class AscendC::LocalTensor<float>' has no member named 'SetUserTag'",
     "LocalTensor::SetUserTag", "a.cpp:9", False),
    ("op_host/x.h:18:10: fatal error: opdev/op_executor.h: No such file or directory", "header opdev/op_executor.h",
     "op_host/x.h:18", False),
    ("op_host/x.h:18:10: fatal error: my_helpers.h: No such file or directory", None, None, None),
    ("k.cpp:5:9:   required from here\nascendc-cpu/ascendc_emu/gather.h:1:1: error: static assertion failed: "
     "ascendc-cpu does not emulate TransDataTo5HD of 8-bit types", "TransDataTo5HD", "k.cpp:5", True),
    ("k.cpp:5:9: error: 'Matmul' does not name a type", "Matmul", "k.cpp:5", False),
    ("k.cpp:5:9: error: expected ';' before '}' token", None, None, None),
])
def test_compiler_messages_naming_an_api_the_emulation_lacks(message, api, where, form):
    found = unsupported_in(message)
    if api is None:
        assert found is None and not isinstance(compile_failure(message), UnsupportedApi)
        return
    assert (found.api, found.where, found.form) == (api, where, form)
    err = compile_failure(message)
    assert isinstance(err, UnsupportedApi) and err.case_status == "unsupported"
    assert str(err).startswith("ascendc-cpu does not emulate") and message in str(err)  # the whole message too


def test_the_engine_takes_unsupported_only_from_a_candidate_that_calls_the_api(tmp_path):
    add = SUITE / "add" / "correct.py"
    claim = "ascendc-cpu does not emulate AscendC's Sort32 (x.cpp:1): this environment cannot judge the candidate"
    assert not confirm_unsupported(str(add), claim)  # a process claiming it for a candidate that never calls it
    calls = variant(add, tmp_path, ("Add(zLocal, xLocal, yLocal, count);",
                                    "Add(zLocal, xLocal, yLocal, count); Sort32(zLocal, xLocal, yLocal, count);"))
    assert confirm_unsupported(str(calls), claim)
    assert not confirm_unsupported(str(calls), "ascendc-cpu does not emulate AscendC's Add (x.cpp:1)")  # emulated
    assert "Sort32" in MISSING_NAMES and Path(add).is_file()
