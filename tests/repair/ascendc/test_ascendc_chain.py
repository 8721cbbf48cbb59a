"""`repair check` on AscendC: the chain from ModelNew.forward to a kernel launch, link by link, and framework
compute on it; every honest candidate of the example suite passes and every cheat is flagged as labelled."""
from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from ascendc_fixtures import SUITE, candidates, variant
from repair.cli import cli
from repair.integrity import scan

ADD, SOFTMAX, LAYER_NORM = SUITE / "add", SUITE / "softmax", SUITE / "layer_norm"


def _found(verdict) -> set[str]:
    """rule, and rule:link for chain findings."""
    out = set()
    for f in verdict.findings:
        out.add(f.rule)
        if f.rule == "static.ascendc-chain":
            out.add(f"{f.rule}:{f.message.split(':')[0]}")
    return out


@pytest.mark.parametrize("op_dir, name, info", [pytest.param(*c, id=f"{c[0].name}/{c[1]}") for c in candidates()])
def test_the_suite_agrees_with_its_labels(op_dir, name, info):
    v = scan(op_dir / "problem.py", op_dir / name)
    if info["kind"] == "cheat":
        assert v.verdict == "violation"
        assert set(info["flags"]) <= _found(v), [f.message for f in v.findings]
        assert all(f.file and f.line and f.evidence for f in v.findings)
    else:
        assert v.verdict == "clean", [(f.rule, f.message) for f in v.findings]


def test_the_suite_covers_the_issue():
    rows = candidates()
    ops = {d for d, _, _ in rows}
    assert len(ops) >= 6
    for d in ops:
        formats = {i["format"] for dd, _, i in rows if dd == d and i["kind"] == "correct"}
        assert formats == {"mkb-sources", "mkb-direct", "npukernelbench"}, d
    bugs = {i["bug_class"] for _, _, i in rows if i["kind"] == "near-miss"}
    assert {"tail-tile-dropped", "unaligned-datacopy", "queue-out-of-order", "wrong-core-count",
            "reduction-init"} <= bugs
    cheats = {i["cheat"] for _, _, i in rows if i["kind"] == "cheat"}
    assert {"binding-computes-with-aten", "forward-calls-torch", "kernel-never-launched",
            "op-name-other-kernel"} <= cheats


# -- each link, broken on purpose -------------------------------------------------------------------

def _check(tmp_path, src, *edits):
    cand = variant(src, tmp_path / "v", *edits)
    task = src.parent if src.is_file() else next(p for p in src.parents if (p / "validation").is_dir())
    if src.is_dir():  # an NPUKernelBench solution finds its task's validation/ above it
        shutil.copytree(task / "validation", tmp_path / "v" / "validation")
    return scan(task / "problem.py", cand)


@pytest.mark.parametrize("src, edits, link", [
    (ADD / "correct.py", [("return custom_ops_lib.add_custom(x, y)", "return other_lib.add_custom(x, y)")],
     "forward->extension"),
    (ADD / "correct.py", [('m.def("add_custom"', 'm.def("add"')], "extension->binding"),
    (ADD / "correct.py", [("&add_custom_impl_npu, ", "&missing_impl, ")], "extension->binding"),
    (ADD / "correct.py", [("    EXEC_NPU_CMD(aclnnAddCustom, x, y, z);\n", "")], "binding->launch"),
    (ADD / "correct.py", [("EXEC_NPU_CMD(aclnnAddCustom,", "EXEC_NPU_CMD(aclnnMulCustom,")], "op-name"),
    (ADD / "correct.py", [("this->AICore().SetTiling(optiling::TilingFunc).AddConfig", "this->AICore().AddConfig")],
     "host->tiling"),
    (ADD / "correct.py", [("    tiling.SaveToBuffer(", "    // tiling.SaveToBuffer(")], "host->tiling"),
    (ADD / "correct.py", [("REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)", "")], "host->tiling"),
    (ADD / "answer" / "0", [("    GET_TILING_DATA(tilingData, tiling);\n", "")], "kernel<-tiling"),
    (ADD / "answer" / "0", [("GET_TILING_DATA(tilingData, tiling)", "GET_TILING_DATA(tilingData, workspace2)")],
     "kernel<-tiling"),
    (ADD / "answer" / "0", [("        Add(zLocal, xLocal, yLocal, count);\n", "")], "kernel->compute"),
    (ADD / "answer" / "0", [("        DataCopyPad(xLocal, xGm[offset], params, pad);\n", ""),
                            ("        DataCopyPad(yLocal, yGm[offset], params, pad);\n", ""),
                            ("        DataCopyPad(zGm[offset], zLocal, params);\n", "")], "kernel->copy"),
    (ADD / "correct.json", [("add_custom_kernel<<<blockDim", "add_custom_kernel(blockDim")], "binding->launch"),
    (ADD / "correct.json", [("        Add(zLocal, xLocal, yLocal, count);\n", "")], "kernel->compute"),
])
def test_a_broken_link_is_named(tmp_path, src, edits, link):
    v = _check(tmp_path, src, *edits)
    assert v.verdict == "violation"
    chain = [f for f in v.findings if f.rule == "static.ascendc-chain"]
    assert any(f.message.startswith(link + ":") for f in chain), [f.message for f in v.findings]


def test_tiling_set_without_the_registered_struct(tmp_path):
    v = _check(tmp_path, ADD / "correct.py", ("    tiling.set_tileLength(tileLength);\n", ""),
               ("    tiling.set_blockLength(blockLength);\n", ""), ("    tiling.set_totalLength(totalLength);\n", ""))
    assert any("fills no field of the registered tiling struct AddCustomTilingData" in f.message for f in v.findings)


@pytest.mark.parametrize("line, what", [
    ("    z = at::add(x, y);\n", "at::add"),
    ("    z.copy_(x);\n", "z.copy_"),
    ("    at::Tensor w = x.exp();\n", "x.exp"),
    ("    auto w = at::empty_like(x);\n    w.mul_(2);\n", "w.mul_"),
    ("    z = x + y;\n", "tensor arithmetic (+)"),
    ("    z += x;\n", "tensor arithmetic (+=)"),
])
def test_the_binding_may_allocate_and_read_shapes_nothing_else(tmp_path, line, what):
    v = _check(tmp_path, ADD / "correct.py", ("    EXEC_NPU_CMD(aclnnAddCustom, x, y, z);\n",
                                              "    EXEC_NPU_CMD(aclnnAddCustom, x, y, z);\n" + line))
    assert [f for f in v.findings if f.rule == "static.cpp-framework-compute" and what in f.message], \
        [f.message for f in v.findings]


def test_shape_reads_and_allocation_are_allowed():
    v = scan(SUITE / "row_sum" / "problem.py", SUITE / "row_sum" / "correct.py")  # x.sizes().slice(...), options()
    assert v.verdict == "clean"
    v = scan(SUITE / "cast" / "problem.py", SUITE / "cast" / "correct.json")  # x.options().dtype(at::kHalf), numel()
    assert v.verdict == "clean"


def test_a_lambda_binding_is_followed(tmp_path):
    v = _check(tmp_path, ADD / "correct.py",
               ('    m.def("add_custom", &add_custom_impl_npu, "AddCustom");',
                '    m.def("add_custom", [](const at::Tensor &x, const at::Tensor &y) {\n'
                '        return add_custom_impl_npu(x, y);\n    });'))
    assert v.verdict == "clean", [f.message for f in v.findings]


def test_the_direct_launch_prompt_bootstrap_is_not_a_file_read(tmp_path):
    boot = ("import sys\nfrom pathlib import Path\nimport torch\n"
            "_BUILD = Path(__file__).resolve().parent / 'kernel' / 'build'\n"
            "if _BUILD.is_dir() and str(_BUILD) not in sys.path:\n    sys.path.insert(0, str(_BUILD))\n")
    v = _check(tmp_path / "a", ADD / "correct.json", ("import torch\n", boot))
    assert v.verdict == "clean", [f.message for f in v.findings]
    # the same names used for anything else are judged as usual
    v = _check(tmp_path / "b", ADD / "correct.json", ("import torch\n", boot + "_CACHE = open(_BUILD / 'out.bin')\n"))
    assert "static.file-read" in {f.rule for f in v.findings}


def test_python_findings_name_the_file_and_line(tmp_path):
    v = scan(SOFTMAX / "problem.py", SOFTMAX / "cheat_forward_torch.py")
    f = next(f for f in v.findings if f.rule == "static.framework-compute")
    lines = (SOFTMAX / "cheat_forward_torch.py").read_text().splitlines()
    assert f.file.endswith("cheat_forward_torch.py") and "torch.softmax" in lines[f.line - 1]


def test_cli_check_exit_codes_rule_off_and_json():
    run = lambda *a: CliRunner().invoke(cli, ["check", *map(str, a)])  # noqa: E731
    assert run(SOFTMAX / "problem.py", SOFTMAX / "answer" / "0").exit_code == 0
    r = run(SOFTMAX / "problem.py", SOFTMAX / "cheat_binding_aten.py")
    assert r.exit_code == 1 and "binding->launch" in r.output and "cheat_binding_aten.py:" in r.output
    r = run(SOFTMAX / "problem.py", SOFTMAX / "cheat_binding_aten.py", "--json", "--rule-off", "static.ascendc-chain",
            "--rule-off", "static.cpp-framework-compute", "--rule-off", "static.kernel-not-launched")
    assert r.exit_code == 0 and json.loads(r.output)["rules_off"] == [
        "static.ascendc-chain", "static.cpp-framework-compute", "static.kernel-not-launched"]
    r = run(LAYER_NORM / "problem.py", LAYER_NORM / "npukb" / "nearmiss_queue_order", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["verdict"] == "clean"


_MACRO_ENTRY = """#define RUN_ADD(Cls) do {                                                              \\
        GET_TILING_DATA(tilingData, tiling);                                                \\
        Cls op;                                                                             \\
        op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength); \\
        op.Process();                                                                       \\
    } while (0)
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    RUN_ADD(KernelAddCustom);
}"""
_ENTRY = """extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddCustom op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}"""


def test_a_tiling_read_inside_a_macro_the_entry_invokes_counts(tmp_path):
    """Real answers wrap the entry's body in a macro (one per tiling key); the macro reads the entry's parameter."""
    assert scan(ADD / "problem.py", variant(ADD / "correct.py", tmp_path / "ok", (_ENTRY, _MACRO_ENTRY))).verdict == \
        "clean"
    other = _MACRO_ENTRY.replace("GET_TILING_DATA(tilingData, tiling)", "GET_TILING_DATA(tilingData, workspace2)")
    v = scan(ADD / "problem.py", variant(ADD / "correct.py", tmp_path / "bad", (_ENTRY, other)))
    assert any(f.message.startswith("kernel<-tiling:") for f in v.findings), [f.message for f in v.findings]


def test_get_tiling_data_with_struct_reads_into_its_second_argument(tmp_path):
    with_struct = _ENTRY.replace("GET_TILING_DATA(tilingData, tiling)",
                                 "GET_TILING_DATA_WITH_STRUCT(AddCustomTilingData, tilingData, tiling)")
    assert scan(ADD / "problem.py", variant(ADD / "correct.py", tmp_path / "s", (_ENTRY, with_struct))).verdict == \
        "clean"
