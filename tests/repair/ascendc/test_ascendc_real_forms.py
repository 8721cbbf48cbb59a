"""The forms published AscendC operators take, each in a small file written here over the suite's AddCustom: the
loader takes them, the chain follows them (clean), and the same form with its link cut is flagged."""
from __future__ import annotations

import shutil

import pytest

from ascendc_fixtures import SUITE, variant
from repair.ascendc import load_candidate
from repair.errors import BadInput
from repair.integrity import scan

ADD = SUITE / "add"
ANSWER = ADD / "answer" / "0"
SET_TILING = 'this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");'
ENTRY_BODY = """    GET_TILING_DATA(tilingData, tiling);
    KernelAddCustom op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
"""


def _task(tmp_path, *edits):
    """ADD's answer with edits, beside a copy of its validation/ (scanned as the candidate's: no hashes vouch)."""
    cand = variant(ANSWER, tmp_path / "task", *edits)
    shutil.copytree(ADD / "validation", tmp_path / "task" / "validation")
    return cand


def _links(v) -> set[str]:
    return {f.message.split(":")[0] for f in v.findings if f.rule == "static.ascendc-chain"}


def _clean(cand):
    v = scan(ADD / "problem.py", cand)
    assert v.verdict == "clean", [f.message for f in v.findings]


def _flags(cand, link: str, words: str = ""):
    v = scan(ADD / "problem.py", cand)
    hits = [f for f in v.findings if f.message.startswith(link + ":") and words in f.message]
    assert hits and all(f.file and f.line for f in hits), [f.message for f in v.findings]


# -- the msopgen JSON ---------------------------------------------------------------------------------

_ATTR = ',\n        "attr": [{"name": "alpha", "param_type": "optional", "type": %s, "default_value": 1.0}]\n    }\n]'


@pytest.mark.parametrize("attr_type", ['["float"]', '"float"'])
def test_an_attribute_type_is_a_string_or_a_one_element_list(tmp_path, attr_type):
    p = variant(ADD / "correct.py", tmp_path, ("        ]\n    }\n]", "        ]" + _ATTR % attr_type))
    assert load_candidate(p).op == "AddCustom"


def test_formats_and_types_as_single_strings_load_and_two_attribute_types_do_not(tmp_path):
    one = variant(ADD / "correct.py", tmp_path / "a", ('"format": [\n                    "ND"\n                ],\n'
                                                       '                "type": [\n                    "float"\n'
                                                       '                ]\n            },\n            {\n'
                                                       '                "name": "y"',
                                                       '"format": "ND", "type": "float"\n            },\n'
                                                       '            {\n                "name": "y"'))
    assert load_candidate(one).op == "AddCustom"
    two = variant(ADD / "correct.py", tmp_path / "b", ("        ]\n    }\n]", "        ]" + _ATTR % '["float", "int"]'))
    with pytest.raises(BadInput, match=r"\['attr'\]\[0\]\['type'\]"):
        load_candidate(two)


# -- host: registration and TilingFuncs ----------------------------------------------------------------

_IMPL = ("}  // namespace optiling\n\nnamespace ge", "IMPL_OP_OPTILING(AddCustom)\n    .Tiling(TilingFunc);\n"
                                                    "}  // namespace optiling\n\nnamespace ge")


def test_impl_op_optiling_registers_the_tiling_func(tmp_path):
    _clean(_task(tmp_path / "a", (SET_TILING, 'this->AICore().AddConfig("ascend910b");'), _IMPL))
    other = (_IMPL[0], _IMPL[1].replace("IMPL_OP_OPTILING(AddCustom)", "IMPL_OP_OPTILING(SubCustom)"))
    _flags(_task(tmp_path / "b", (SET_TILING, 'this->AICore().AddConfig("ascend910b");'), other), "host->tiling",
           "registers no TilingFunc")


_HELPER = """class AddTiling {
public:
    explicit AddTiling(gert::TilingContext *context) : context_(context) {}
    ge::graphStatus DoTiling()
    {
        uint32_t total = static_cast<uint32_t>(context_->GetInputShape(0)->GetOriginShape().GetShapeSize());
        context_->SetBlockDim(1);
        tilingData_.set_totalLength(total);
        tilingData_.set_blockLength((total + 15) / 16 * 16);
        tilingData_.set_tileLength(4096);
        return Save();
    }

private:
    ge::graphStatus Save()
    {
        tilingData_.SaveToBuffer(context_->GetRawTilingData()->GetData(), context_->GetRawTilingData()->GetCapacity());
        context_->GetRawTilingData()->SetDataSize(tilingData_.GetDataSize());
        return ge::GRAPH_SUCCESS;
    }
    gert::TilingContext *context_;
    AddCustomTilingData tilingData_;
};

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    AddTiling tiling(context);
    return tiling.DoTiling();
}
"""


def _tiling_func() -> str:
    text = (ANSWER / "op_host" / "add_custom.cpp").read_text()
    start = text.index("static ge::graphStatus TilingFunc")
    return text[start:text.index("}  // namespace optiling")]


def test_a_tiling_func_delegating_to_a_helper_class_fills_and_saves_its_field(tmp_path):
    _clean(_task(tmp_path / "a", (_tiling_func(), _HELPER)))
    unsaved = _HELPER.replace("        tilingData_.SaveToBuffer(", "        // tilingData_.SaveToBuffer(")
    _flags(_task(tmp_path / "b", (_tiling_func(), unsaved)), "host->tiling", "never writes")


_PLAIN_HEADER = """#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include <cstdint>
struct AddCustomTilingData {
    uint32_t totalLength;
    uint32_t blockLength;
    uint32_t tileLength;
};
#endif
"""
_PLAIN_FUNC = """static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    AddCustomTilingData *tiling = context->GetTilingData<AddCustomTilingData>();
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    context->SetBlockDim(1);
    tiling->totalLength = total;
    tiling->blockLength = (total + 15) / 16 * 16;
    tiling->tileLength = 4096;
    return ge::GRAPH_SUCCESS;
}
"""


def _plain(tmp_path, func: str):
    cand = _task(tmp_path, (_tiling_func(), func), ("GET_TILING_DATA(tilingData, tiling)",
                                                    "GET_TILING_DATA_WITH_STRUCT(AddCustomTilingData, tilingData, tiling)"))
    (cand / "op_host" / "add_custom_tiling.h").unlink()
    (cand / "op_kernel" / "add_custom_tiling.h").write_text(_PLAIN_HEADER)  # beside the kernel, as CANN's samples
    return cand


def test_a_plain_struct_taken_with_get_tiling_data_is_the_tiling(tmp_path):
    _clean(_plain(tmp_path / "a", _PLAIN_FUNC))
    unfilled = "\n".join(ln for ln in _PLAIN_FUNC.splitlines() if "tiling->" not in ln) + "\n"
    _flags(_plain(tmp_path / "b", unfilled), "host->tiling", "fills no field")


# -- kernel: the tiling followed into a class ----------------------------------------------------------

_BY_POINTER = """#define ADD_IMPL(Cls, ...)            \\
    do {                              \\
        Cls<__VA_ARGS__> op;          \\
        op.Init(x, y, z, &tilingData); \\
        RUN_ONE;                      \\
    } while (0)
#if defined(ASCENDC_CPU_DEBUG)
#define RUN_ONE op.Process()
#else
#define RUN_ONE op.Process()
#endif

template <typename T, int MODE>
class KernelAddT {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTilingData *t)
    {
        inner.Init(x, y, z, t->totalLength, t->blockLength, t->tileLength);
    }
    __aicore__ inline void Process() { inner.Process(); }

private:
    KernelAddCustom inner;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(0)) {
        ADD_IMPL(KernelAddT, float,
                 0);
    } else if (TILING_KEY_IS(1)) {
        ADD_IMPL(KernelAddT, float, 1);
    }
}
"""
_ENTRY = ('extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, '
          'GM_ADDR tiling)\n{\n' + ENTRY_BODY + "}\n")


def test_tiling_by_pointer_into_a_macro_wrapped_init_with_template_args_under_tiling_keys(tmp_path):
    _clean(_task(tmp_path / "a", (_ENTRY, _BY_POINTER)))
    ignored = _BY_POINTER.replace("inner.Init(x, y, z, t->totalLength, t->blockLength, t->tileLength);",
                                  "inner.Init(x, y, z, 1024, 1024, 1024);")
    _flags(_task(tmp_path / "b", (_ENTRY, ignored)), "kernel<-tiling", "never reads it")


def test_tiling_by_reference_and_as_raw_global_memory_is_read_where_it_lands(tmp_path):
    by_ref = _BY_POINTER.replace("const AddCustomTilingData *t)", "const AddCustomTilingData &t)") \
        .replace("t->", "t.").replace("&tilingData", "tilingData")
    _clean(_task(tmp_path / "a", (_ENTRY, by_ref)))
    raw = _BY_POINTER.replace("const AddCustomTilingData *t)\n    {\n        inner.Init(x, y, z, t->totalLength, "
                              "t->blockLength, t->tileLength);",
                              "GM_ADDR t)\n    {\n        auto words = reinterpret_cast<__gm__ uint32_t *>(t);\n"
                              "        inner.Init(x, y, z, words[0], words[1], words[2]);") \
        .replace("GET_TILING_DATA(tilingData, tiling);\n", "").replace("&tilingData", "tiling")
    _clean(_task(tmp_path / "b", (_ENTRY, raw)))
    unused = raw.replace("inner.Init(x, y, z, words[0], words[1], words[2]);", "inner.Init(x, y, z, 8, 8, 8);")
    _flags(_task(tmp_path / "c", (_ENTRY, unused)), "kernel<-tiling")


# -- kernel: copies through functors, and kernels that only move data ---------------------------------

_FUNCTORS = """struct CopyGmToUb {
    __aicore__ inline void operator()(const LocalTensor<float> &dst, const GlobalTensor<float> &src, uint32_t n)
    {
        DataCopyPad(dst, src, DataCopyExtParams{1, n * 4, 0, 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0});
    }
};
template <typename T>
struct TileCopy {
    using CopyIn = CopyGmToUb;
};

class KernelAddCustom {"""


def test_a_copy_through_a_functor_named_by_an_alias_is_followed(tmp_path):
    edits = [("class KernelAddCustom {", _FUNCTORS),
             ("        DataCopyPad(xLocal, xGm[offset], params, pad);\n", "        copyIn(xLocal, xGm[offset], count);\n"),
             ("        DataCopyPad(yLocal, yGm[offset], params, pad);\n", "        copyIn(yLocal, yGm[offset], count);\n"),
             ("    TPipe pipe;\n", "    TPipe pipe;\n    typename TileCopy<float>::CopyIn copyIn;\n")]
    _clean(_task(tmp_path / "a", *edits))


def test_a_kernel_that_only_moves_data_computes_and_one_that_drops_its_input_does_not(tmp_path):
    copy = [("        Add(zLocal, xLocal, yLocal, count);\n", ""),
            ("        DataCopyPad(zGm[offset], zLocal, params);\n", "        DataCopyPad(zGm[offset], zLocal, params);\n"
                                                                     "        LocalTensor<float> xOut = inQueueX.DeQue<float>();\n"
                                                                     "        DataCopyPad(zGm[offset], xOut, params);\n")]
    _clean(_task(tmp_path / "a", *copy))
    _flags(_task(tmp_path / "b", copy[0]), "kernel->compute", "nothing reads")


# -- the benchmark's validation files ----------------------------------------------------------------------

def _imported(tmp_path, pybind_edit=None):
    from repair.ascendc import import_tasks

    task = tmp_path / "src" / "AddCustom"
    shutil.copytree(ADD / "validation", task / "validation")
    shutil.copytree(ADD / "answer", task / "answer")
    if pybind_edit:
        p = task / "validation" / "pybind.cpp"
        p.write_text(p.read_text().replace(*pybind_edit))
    done, _ = import_tasks([task], tmp_path / "out")
    return done[0]


def test_validation_files_are_trusted_as_imported_and_a_changed_one_is_flagged(tmp_path):
    # the benchmark's own binding computing with ATen is the benchmark's business: not scanned once its hash matches
    aten = ("EXEC_NPU_CMD(", "at::Tensor unused = at::relu(x);\n    EXEC_NPU_CMD(")
    imported = _imported(tmp_path / "a", aten)
    assert "VALIDATION_SHA256" in open(imported.problem).read()
    v = scan(imported.problem, imported.candidate)
    assert v.verdict == "clean", [f.message for f in v.findings]
    # a candidate carrying another pybind.cpp: flagged, and that copy is scanned as its own code
    p = tmp_path / "a" / "out" / "AddCustom" / "candidate" / "validation" / "pybind.cpp"
    p.write_text(p.read_text().replace("at::relu(x)", "at::exp(x)"))
    v = scan(imported.problem, imported.candidate)
    rules = {f.rule for f in v.findings}
    assert {"static.validation-changed", "static.cpp-framework-compute"} <= rules
    changed = next(f for f in v.findings if f.rule == "static.validation-changed")
    assert changed.file.endswith("validation/pybind.cpp") and changed.line == 1
    # prepare_inputs.py or test_cases.csv carried beside them are checked too
    imported = _imported(tmp_path / "b")
    cases = tmp_path / "b" / "out" / "AddCustom" / "candidate" / "validation" / "test_cases.csv"
    cases.write_text((ADD / "validation" / "test_cases.csv").read_text() + "\n")
    assert {f.rule for f in scan(imported.problem, imported.candidate).findings} == {"static.validation-changed"}


def test_a_candidate_written_binding_may_read_a_scalar_and_build_options(tmp_path):
    line = "    EXEC_NPU_CMD(aclnnAddCustom, x, y, z);\n"
    ok = variant(ADD / "correct.py", tmp_path / "a", (line, "    float scale = x.item<float>();\n    at::Tensor w = "
                                                          "at::empty({1}, torch::TensorOptions().dtype(torch::kFloat)"
                                                          ".device(x.device()));\n" + line))
    _clean(ok)
