"""The three AscendC formats read into one candidate model; malformed ones are bad input naming the file."""
from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from ascendc_fixtures import SUITE, variant
from repair.ascendc import detect, is_ascendc_candidate, load_candidate, snake
from repair.cli import cli
from repair.errors import BadInput
from repair.integrity import scan

ADD = SUITE / "add"
SOFTMAX = SUITE / "softmax"


@pytest.mark.parametrize("path, fmt, extension", [
    (ADD / "correct.py", "mkb-sources", "custom_ops_lib"),
    (ADD / "correct.json", "mkb-direct", "benchmark_ops"),
    (ADD / "answer" / "0", "npukernelbench", "kernel_gen_ops"),
])
def test_three_formats_one_model(path, fmt, extension):
    cand = load_candidate(path)
    assert (cand.language, cand.format, cand.extension) == ("ascendc", fmt, extension)
    assert cand.kernel == ("add_custom_kernel" if fmt == "mkb-direct" else "add_custom")
    assert cand.op == (None if fmt == "mkb-direct" else "AddCustom")
    roles = {s.role for s in cand.sources}
    assert {"kernel", "binding", "model"} <= roles
    if fmt != "mkb-direct":
        assert {"host_tiling", "host_operator"} <= roles
    assert cand.model_dump(by_alias=True)["schema"] == "repair.ascendc-candidate/v1"


def test_detect_leaves_triton_candidates_alone():
    assert detect(SUITE.parent / "softmax" / "correct.py") is None  # a Triton candidate
    assert not is_ascendc_candidate(SUITE / "add")  # a task directory, not a solution
    assert detect(ADD / "correct.py") == "mkb-sources"


def test_six_source_lines_are_lines_of_the_py_file():
    cand = load_candidate(ADD / "correct.py")
    lines = (ADD / "correct.py").read_text().splitlines()
    for s in cand.sources:
        for i, line in enumerate(s.text.splitlines(), 1):
            file, at = s.where(i)
            assert lines[at - 1].endswith(line), (s.name, i)  # line 1 follows the opening quotes


def test_npukernelbench_placeholders_are_substituted_as_its_build_does():
    cand = load_candidate(SOFTMAX / "answer" / "0")
    binding = cand.of("binding")[0].text
    assert "aclnnSoftmaxCustom" in binding and "aclnnCustomOp" not in binding
    assert 'm.def("softmax_custom"' in binding
    assert any("aclnnCustomOp -> aclnnSoftmaxCustom" in n for n in cand.notes)


def test_content_id_ignores_where_the_candidate_lies(tmp_path):
    shutil.copytree(ADD / "answer", tmp_path / "task" / "answer")
    shutil.copytree(ADD / "validation", tmp_path / "task" / "validation")
    assert load_candidate(tmp_path / "task" / "answer" / "0").sha256 == load_candidate(ADD / "answer" / "0").sha256
    other = load_candidate(ADD / "npukb" / "nearmiss_tail")
    assert other.sha256 != load_candidate(ADD / "answer" / "0").sha256


def test_snake_is_msopgen_kernel_naming():
    assert [snake(x) for x in ("AddCustom", "LayerNormV2", "RMSNormCustom")] == \
        ["add_custom", "layer_norm_v2", "rms_norm_custom"]


# -- bad input: one line naming the file and what is wrong ------------------------------------------

def _bad(path, *needles):
    with pytest.raises(BadInput) as e:
        load_candidate(path)
    msg = str(e.value)
    assert "\n" not in msg and all(n in msg for n in needles), msg
    return msg


def test_six_sources_missing_or_not_a_literal(tmp_path):
    p = tmp_path / "c.py"
    p.write_text((ADD / "correct.py").read_text().replace("kernel_src = r", "kernel_text = r"))
    _bad(p, "c.py", "no kernel_src")
    p.write_text((ADD / "correct.py").read_text().replace('model_src = r"""', 'model_src = "x" + r"""'))
    _bad(p, "c.py:", "model_src is not a string literal")


@pytest.mark.parametrize("old, new, needle", [
    ('"op": "AddCustom"', '"op": "addCustom"', "not an operator type name"),
    ('"output_desc"', '"outputs"', "'output_desc' is a required property"),
    ('"name": "z",\n                "param_type": "required"', '"name": "z",\n                "param_type": "often"',
     "['output_desc'][0]['param_type']"),
    ('    {\n        "op"', '    {"op": "Other", "input_desc": [], "output_desc": []},\n    {\n        "op"',
     "one operator expected"),
    ("[\n    {", "[\n    {{", "not JSON"),
])
def test_project_json_is_the_msopgen_schema(tmp_path, old, new, needle):
    _bad(variant(ADD / "correct.py", tmp_path, (old, new)), "project_json_src", needle)


def test_op_name_must_agree_between_json_host_and_kernel(tmp_path):
    _bad(variant(ADD / "correct.py", tmp_path / "a", ("OP_ADD(AddCustom);", "OP_ADD(SubCustom);")),
         "OP_ADD(SubCustom) differs from the op 'AddCustom'", "host_operator_src")
    # a tiling struct registered under another name is no load error (real answers register the structs they
    # nest that way); the chain then finds none for the operator
    other = variant(ADD / "correct.py", tmp_path / "b", ("REGISTER_TILING_DATA_CLASS(AddCustom,",
                                                         "REGISTER_TILING_DATA_CLASS(MulCustom,"))
    assert load_candidate(other).op == "AddCustom"
    assert any(f.message.startswith("host->tiling: no REGISTER_TILING_DATA_CLASS(AddCustom")
               for f in scan(ADD / "problem.py", other).findings)
    msg = _bad(variant(ADD / "correct.py", tmp_path / "c", ("__aicore__ void add_custom(", "__aicore__ void mul_custom(")),
               "kernel entry mul_custom differs from OP_ADD(AddCustom)", "launches add_custom")
    assert "correct.py:" in msg
    _bad(variant(ADD / "correct.py", tmp_path / "d", ("OP_ADD(AddCustom);", "")), "no OP_ADD(<Op>)")
    _bad(variant(ADD / "npukb" / "nearmiss_tail", tmp_path / "e", ("OP_ADD(AddCustom);", "OP_ADD(Other);")),
         "op_kernel/add_custom.cpp:", "kernel entry add_custom differs from OP_ADD(Other)")


def test_direct_launch_needs_its_files(tmp_path):
    doc = json.loads((ADD / "correct.json").read_text())
    cases = {
        "no-binding": ([s for s in doc["sources"] if s["path"] != "kernel/pybind11.cpp"], "no a pybind11 .cpp"),
        "no-model": ([s for s in doc["sources"] if s["path"] != "ModelNew.py"], "no ModelNew.py"),
        "escape": (doc["sources"] + [{"path": "../evil.cpp", "content": ""}], "leaves the candidate's directory"),
        "shape": ([{"file": "x"}], "not a direct-launch candidate"),
    }
    for name, (sources, needle) in cases.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps({**doc, "sources": sources}))
        _bad(p, f"{name}.json", needle)
    p = tmp_path / "plain.json"
    p.write_text(json.dumps(doc["sources"]))  # a bare list of files is the format too
    assert load_candidate(p).format == "mkb-direct"
    p.write_text("{not json")
    _bad(p, "plain.json", "not JSON")
    _bad(variant(ADD / "correct.json", tmp_path / "k", ("__global__ __aicore__ void add_custom_kernel",
                                                         "void add_custom_kernel")), "no __global__ kernel")


def test_npukernelbench_needs_its_directories_and_validation(tmp_path):
    shutil.copytree(ADD / "answer" / "0", tmp_path / "sol")
    _bad(tmp_path / "sol", "sol", "no validation/module.py")
    shutil.copytree(ADD / "validation", tmp_path / "validation")
    (tmp_path / "sol" / "op_host" / "add_custom_tiling.h").rename(tmp_path / "sol" / "op_kernel" / "tiling.h")
    assert load_candidate(tmp_path / "sol").op == "AddCustom"  # the tiling header may sit beside the kernel
    (tmp_path / "sol" / "op_kernel" / "add_custom.cpp").unlink()
    _bad(tmp_path / "sol", "no op_kernel/*.cpp")


def test_cli_bad_input_exits_2_with_one_line(tmp_path):
    p = variant(ADD / "correct.py", tmp_path, ("OP_ADD(AddCustom);", "OP_ADD(SubCustom);"))
    for command in ("check", "eval"):
        r = CliRunner().invoke(cli, [command, str(ADD / "problem.py"), str(p)])
        assert r.exit_code == 2, r.output
        errors = [ln for ln in r.output.splitlines() if ln.startswith("error:")]
        assert len(errors) == 1 and "correct.py" in errors[0] and "differs" in errors[0]
