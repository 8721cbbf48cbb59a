"""NPUKernelBench task idioms through `repair import npukernelbench` and ascendc-cpu, on a task written here from
examples/ascendc/add (none of the benchmark's code): prepare_inputs.py importing the benchmark's harness
(`from framework.utils import check_precision`) with a custom_check_precision calling it per dtype; an OpDef with two
DataType columns and a kernel typed by DTYPE_X/DTYPE_Y/DTYPE_Z (one library per column, chosen by the case's
dtypes); REGISTER_TILING_DATA_CLASS(<Op>_<key>, ...) beside <Op>'s; the tiling struct (declared in optiling) named
unqualified in the kernel;
std::cout in the host; ASSERT where no statement may stand; the headers kernels and hosts include by name
(kernel_utils.h, platform/platform_info.h, ...); ASCENDC_CPU_DEBUG leaving out a <<<>>> launcher; g_coreType,
unlikely, SetSysWorkspace; a binding that allocates its output under an `if` on a std::string."""
from __future__ import annotations

import shutil
from pathlib import Path

from repair.ascendc.importer import import_tasks
from repair.ascendc.task import read_task

ADD = Path(__file__).resolve().parents[3] / "examples" / "ascendc" / "add"

PREPARE = '''import torch
from framework.utils import check_precision


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    return (torch.randn(shape, device=device, dtype=dtype), torch.randn(shape, device=device, dtype=dtype))


def get_init_inputs(param, device=None):
    return []


def custom_check_precision(param, outputs, outputs_new):
    dtype_str = param.get('dtype', 'float16')
    if dtype_str == 'bfloat16' or dtype_str == 'float16':
        return check_precision(outputs, outputs_new, max_abs_error=0.004, max_rel_error=0.004)
    else:
        return check_precision(outputs, outputs_new, max_abs_error=0.00002, max_rel_error=0.00002)
'''


def make_task(root: Path, cases: str) -> Path:
    task = root / "AddCustom"
    shutil.copytree(ADD / "validation", task / "validation")
    shutil.copytree(ADD / "answer", task / "answer")
    (task / "validation" / "prepare_inputs.py").write_text(PREPARE)
    (task / "validation" / "test_cases.csv").write_text(cases)
    host = task / "answer" / "0" / "op_host" / "add_custom.cpp"
    text = host.read_text().replace("{ge::DT_FLOAT}", "{ge::DT_FLOAT16, ge::DT_FLOAT}")
    text = text.replace("    context->SetBlockDim(blockDim);",
                        "    if (totalLength == 0) std::cout << \"empty input\" << std::endl;\n"
                        "    context->SetBlockDim(blockDim);")
    host.write_text(text)
    tiling = task / "answer" / "0" / "op_host" / "add_custom_tiling.h"
    tiling.write_text(tiling.read_text().replace(
        "REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)",
        "REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)\n"
        "REGISTER_TILING_DATA_CLASS(AddCustom_1, AddCustomTilingData)"))
    kernel = task / "answer" / "0" / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text()
    text = text.replace("float", "DTYPE_X").replace("LocalTensor<DTYPE_X> zLocal", "LocalTensor<DTYPE_Z> zLocal")
    text = text.replace("class KernelAddCustom {", "__aicore__ inline uint32_t TileOf(const AddCustomTilingData &t)\n"
                        "{\n    return t.tileLength;\n}\n\nclass KernelAddCustom {")
    text = text.replace("tilingData.tileLength);", "TileOf(tilingData));")
    text = text.replace("this->tileLength = tileLength;", "this->tileLength = tileLength ASSERT(tileLength != 0);")
    text = text.replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n#include "kernel_utils.h"\n'
                        '#include "impl/dav_c220/kernel_operator_reg_others_impl.h"')
    text = text.replace("    KernelAddCustom op;", "    SetSysWorkspace(workspace);\n"
                        "    if (g_coreType == AIC || unlikely(tilingData.totalLength == 0)) {\n        return;\n    }\n"
                        "    KernelAddCustom op;")
    # a launcher the NPU's kernel build compiles and a CPU build leaves out (it names no kernel of this file)
    text += ("\n#ifndef ASCENDC_CPU_DEBUG\nvoid add_custom_do(uint32_t blockDim, void *stream)\n{\n"
             "    not_a_kernel<<<blockDim, nullptr, stream>>>();\n}\n#endif\n")
    kernel.write_text(text)
    host.write_text(host.read_text().replace('#include "register/op_def_registry.h"',
                                             '#include "register/op_def_registry.h"\n#include "platform/platform_info.h"'))
    tiling.write_text(tiling.read_text().replace("namespace optiling {", "namespace optiling {\n"
                      "template <typename T> inline T *GetCompileInfoPtr(gert::TilingParseContext *context)\n"
                      "{\n    return context->GetCompiledInfo<T>();\n}\n", 1))
    binding = task / "validation" / "pybind.cpp"
    binding.write_text(binding.read_text().replace(
        "    at::Tensor z = at::empty_like(x);",
        '    std::string mode = "same";\n    const char *mode_cstr = mode.c_str();\n    at::Tensor z;\n'
        '    if (mode == "sum") {\n        z = at::empty({1}, x.options());\n    } else {\n'
        '        z = at::empty_like(x);\n    }'))
    assert 'if (mode == "sum")' in binding.read_text()
    return task


def test_check_precision_bounds_become_the_tolerance_and_the_harness_import_goes(tmp_path):
    task = make_task(tmp_path, "case_id;shape;dtype\n0;[100];float16\n1;[100];float32\n")
    tp = read_task(task)
    assert tp.tolerance["float16"] == {"atol": 0.004, "rtol": 0.004}
    assert tp.tolerance["bfloat16"] == {"atol": 0.004, "rtol": 0.004}
    assert tp.tolerance["float32"] == {"atol": 0.00002, "rtol": 0.00002}
    assert "framework" not in tp.inputs and "custom_check_precision" in tp.inputs
    assert any("framework.utils" in n for n in tp.notes)


def test_an_unconditional_check_precision_is_a_flat_tolerance(tmp_path):
    task = make_task(tmp_path, "case_id;shape;dtype\n0;[100];float32\n")
    prepare = task / "validation" / "prepare_inputs.py"
    prepare.write_text(PREPARE.split("def custom_check_precision")[0] + "def custom_check_precision(p, o, n):\n"
                       "    return check_precision(o, n, max_abs_error=0.003, max_rel_error=0.005)\n")
    assert read_task(task).tolerance == {"atol": 0.003, "rtol": 0.005}


def test_a_check_that_allows_a_fraction_of_elements_is_a_fraction_tolerance(tmp_path):
    """`if torch.sum(err > L) > out.numel() * L and ...: fail` (the quantising tasks' custom check): atol = rtol = frac
    = L for every output; a check whose two L differ is not read that way."""
    task = make_task(tmp_path, "case_id;shape;dtype\n0;[100];float32\n")
    prepare = task / "validation" / "prepare_inputs.py"
    head = PREPARE.split("def custom_check_precision")[0]
    check = ("def custom_check_precision(param, outputs, outputs_new):\n"
             "    ok = 1\n    SHARE = 2e-3\n"
             "    for a, b in zip(outputs, outputs_new):\n"
             "        d = torch.abs(a - b)\n        r = d / (torch.maximum(torch.abs(a), torch.abs(b)) + 1e-7)\n"
             "        if torch.sum(r > SHARE) > a.numel() * SHARE and torch.sum(d > SHARE) > a.numel() * SHARE:\n"
             "            ok = 0\n"
             "    return ok, None, None\n")
    prepare.write_text(head + check)
    assert read_task(task).tolerance == {"atol": 2e-3, "rtol": 2e-3, "frac": 2e-3}
    prepare.write_text(head + check.replace("a.numel() * SHARE:", "a.numel() * 0.01:"))
    assert "frac" not in read_task(task).tolerance


def test_dtype_columns_build_one_library_each_and_every_case_passes(tmp_path):
    from repair.engine.harness import evaluate

    cases = "case_id;shape;dtype\n0;[8, 1000];float16\n1;[1025];float32\n2;[3, 7, 4099];float16\n3;[1];float32\n"
    task = make_task(tmp_path / "tasks", cases)
    (imported,), _ = import_tasks([task], tmp_path / "out")
    r = evaluate(imported.problem, imported.candidate, backend="ascendc-cpu", seed=0, tier="full")
    assert [c.status for c in r.cases] == ["pass"] * 4, [c.message for c in r.cases]
    assert r.passed, r.integrity
    from repair.ascendc.emu.build import plan_emu_build
    from repair.ascendc.load import load_candidate

    plan = plan_emu_build(load_candidate(Path(imported.candidate)))
    assert plan.variants == ((("x", "DT_FLOAT16"), ("y", "DT_FLOAT16"), ("z", "DT_FLOAT16")),
                             (("x", "DT_FLOAT"), ("y", "DT_FLOAT"), ("z", "DT_FLOAT")))


def test_a_dtype_no_column_takes_is_an_error_naming_it(tmp_path):
    from repair.engine.harness import evaluate

    task = make_task(tmp_path / "tasks", "case_id;shape;dtype\n0;[100];bfloat16\n")
    (imported,), _ = import_tasks([task], tmp_path / "out")
    r = evaluate(imported.problem, imported.candidate, backend="ascendc-cpu", seed=0, tier="full")
    assert r.cases[0].status == "error"
    assert "no DataType column of the OpDef takes x: bfloat16" in r.cases[0].message


def test_numpy_scalars_from_prepare_inputs_cross_as_python_numbers(tmp_path):
    import runpy

    task = make_task(tmp_path / "tasks", "case_id;shape;dtype;n\n0;[100];float32;7\n")
    prepare = task / "validation" / "prepare_inputs.py"
    prepare.write_text(PREPARE.replace("    return []", "    import numpy as np\n"
                                       "    return [np.int64(param.get('n', 1)), np.float32(0.5)]"))
    (imported,), _ = import_tasks([task], tmp_path / "out")
    problem = runpy.run_path(imported.problem)
    init = problem["get_init_inputs"](**{k: v for k, v in problem["CASES"][0].items() if k != "tier"})
    assert init == [7, 0.5] and [type(v) for v in init] == [int, float]


def test_an_integer_torch_rand_draws_as_on_the_npu_and_a_float_one_is_untouched(tmp_path):
    """CPU torch has no rand of an integer dtype; the NPU's has: the import gives the inputs randint(0, 2) there."""
    import runpy

    import torch

    task = make_task(tmp_path / "tasks", "case_id;shape;dtype\n0;[100];int32\n1;[100];float32\n")
    prepare = task / "validation" / "prepare_inputs.py"
    prepare.write_text(PREPARE.replace("torch.randn(shape, device=device, dtype=dtype), torch.randn(",
                                       "torch.rand(shape, device=device, dtype=dtype) * 9 + 1, torch.rand("))
    (imported,), _ = import_tasks([task], tmp_path / "out")
    problem = runpy.run_path(imported.problem)
    case = {k: v for k, v in problem["CASES"][0].items() if k != "tier"}
    x, y = problem["get_inputs"](**case)
    assert x.dtype == torch.int32 and set(x.unique().tolist()) <= {1, 10} and set(y.unique().tolist()) <= {0, 1}
    case = {k: v for k, v in problem["CASES"][1].items() if k != "tier"}
    x, _ = problem["get_inputs"](**case)
    assert x.dtype == torch.float32 and not float(x.frac().abs().sum()) == 0  # floats, as torch.rand makes them
    assert torch.rand is not None and torch.rand(2).dtype == torch.float32  # torch.rand restored


def test_the_910b_aicore_configs_datatype_lists_are_the_columns_built(tmp_path):
    """An OpAICoreConfig added for "ascend910b" (the SoC ascendc-cpu is) gives msopgen's columns for it, over the
    OpDef's own lists; one added for another SoC does not."""
    from repair.ascendc.emu.build import plan_emu_build
    from repair.ascendc.load import load_candidate

    task = make_task(tmp_path / "tasks", "case_id;shape;dtype\n0;[100];bfloat16\n")
    host = task / "answer" / "0" / "op_host" / "add_custom.cpp"
    config = "".join(f'        {cfg}.{io}("{n}").ParamType(REQUIRED).DataType({{{types}}});\n'
                     for cfg, types in (("a2", "ge::DT_BF16, ge::DT_FLOAT"), ("p310", "ge::DT_INT32"))
                     for io, n in (("Input", "x"), ("Input", "y"), ("Output", "z")))
    host.write_text(host.read_text().replace(
        '.AddConfig("ascend910b");',
        '.AddConfig("ascend910b");\n        OpAICoreConfig a2;\n        OpAICoreConfig p310;\n' + config +
        '        this->AICore().AddConfig("ascend910b", a2);\n        this->AICore().AddConfig("ascend310p", p310);'))
    (imported,), _ = import_tasks([task], tmp_path / "out")
    plan = plan_emu_build(load_candidate(Path(imported.candidate)))
    assert plan.variants == ((("x", "DT_BF16"), ("y", "DT_BF16"), ("z", "DT_BF16")),
                             (("x", "DT_FLOAT"), ("y", "DT_FLOAT"), ("z", "DT_FLOAT")))


def test_a_check_keyed_on_the_cases_dtype_gives_every_output_that_dtypes_bounds(tmp_path):
    """custom_check_precision picks its bounds by `param.get('dtype')`: the import writes TOLERANCE_KEY, and a
    case's outputs all compare at that dtype's bounds (a float32 output of a bfloat16 case at bfloat16's), as the
    benchmark's check does; a check reading something else writes none."""
    from repair.engine.problem import spec_from_report

    task = make_task(tmp_path / "tasks", "case_id;shape;dtype\n0;[100];bfloat16\n")
    prepare = task / "validation" / "prepare_inputs.py"
    prepare.write_text(PREPARE.split("def custom_check_precision")[0] + "def custom_check_precision(param, o, n):\n"
                       "    dtype_str = param.get('dtype', 'float16')\n    dtype = getattr(torch, dtype_str)\n"
                       "    if dtype == torch.bfloat16:\n        RTOL = 1 / 256\n    else:\n        RTOL = 1 / 2048\n"
                       "    return True\n")
    t = read_task(task)
    assert t.tolerance_key == "dtype" and t.tolerance["bfloat16"] == {"atol": 1 / 256, "rtol": 1 / 256}
    (imported,), _ = import_tasks([task], tmp_path / "out")
    text = Path(imported.problem).read_text()
    assert "TOLERANCE_KEY = 'dtype'\n" in text
    spec = spec_from_report("p.py", "0" * 64, {"TOLERANCE": t.tolerance, "TOLERANCE_KEY": "dtype", "has_cases": True,
                                                "CASES": [{"tier": "compact", "case_id": 0, "dtype": "bfloat16"}]})
    assert spec.tolerance_for({"dtype": "bfloat16"}) == {"atol": 1 / 256, "rtol": 1 / 256}
    assert spec.tolerance_for({"dtype": "int8"}) == t.tolerance  # no entry: as written, per output dtype
    prepare.write_text(PREPARE.split("def custom_check_precision")[0] + "def custom_check_precision(param, o, n):\n"
                       "    if o[0].dtype == torch.bfloat16:\n        RTOL = 1 / 256\n    else:\n        RTOL = 1 / 2048\n"
                       "    return True\n")
    assert read_task(task).tolerance_key is None


def test_the_benchmarks_own_forward_and_in_place_binding_are_notes_not_the_candidates(tmp_path):
    """With the task's validation files as imported, the runtime findings about them are notes: a forward computing
    the kernel's input in torch (relu(y)), and a binding whose operator writes its input x and returns it (an
    in-place operator, as the benchmark defines it). The kernel is judged as ever: both pass."""
    from repair.engine.harness import evaluate

    cases = "case_id;shape;dtype\n0;[1000];float32\n1;[4099];float32\n"
    prologue = make_task(tmp_path / "a", cases)
    module = prologue / "validation" / "module.py"
    module.write_text(module.read_text().replace("return x + y", "return x + torch.relu(y)").replace(
        "kernel_gen_ops.add_custom(x, y)", "kernel_gen_ops.add_custom(x, torch.relu(y))"))
    in_place = make_task(tmp_path / "b", cases)
    pybind = in_place / "validation" / "pybind.cpp"
    pybind.write_text(pybind.read_text().replace("    at::Tensor z = at::empty_like(x);\n", "").replace(
        "EXEC_NPU_CMD(aclnnCustomOp, x, y, z);\n    return z;", "EXEC_NPU_CMD(aclnnCustomOp, x, y, x);\n    return x;"))
    for task, rules in ((prologue, {"runtime.framework-compute"}),
                        (in_place, {"runtime.input-mutated", "runtime.output-alias"})):
        (imported,), _ = import_tasks([task], tmp_path / f"{task.parent.name}-out")
        r = evaluate(imported.problem, imported.candidate, backend="ascendc-cpu", seed=0, tier="full")
        assert r.passed and [c.status for c in r.cases] == ["pass", "pass"], [c.message for c in r.cases]
        found = {f.rule: f.level for f in r.integrity.findings if f.phase == "runtime"}
        assert set(found) == rules and set(found.values()) == {"note"}, r.integrity.findings
        ids = {c.case_id for c in r.cases}  # each runtime finding carries the case it was made in, as a field
        assert all(f.case_id in ids for f in r.integrity.findings if f.phase == "runtime"), r.integrity.findings


def test_each_host_source_is_a_unit_of_its_own_linked_as_msopgens_libraries_are(tmp_path):
    """Two op_host/*.cpp defining the same namespace-scope constant build (msopgen compiles each on its own), and a
    function a shared host header defines in both links once (they go to different libraries there); the case
    passes."""
    from repair.engine.harness import evaluate

    task = make_task(tmp_path / "tasks", "case_id;shape;dtype\n0;[1000];float32\n")
    host = task / "answer" / "0" / "op_host"
    (host / "host_helpers.h").write_text("#pragma once\n#include <cstdint>\n"
                                         "int64_t HostMod(int64_t a, int64_t b) { return a % b; }\n")
    text = (host / "add_custom.cpp").read_text()
    (host / "add_custom.cpp").write_text('#include "host_helpers.h"\nconstexpr uint32_t HOST_BLOCK = 32;\n' + text)
    (host / "add_custom_extra.cpp").write_text('#include "host_helpers.h"\nconstexpr uint32_t HOST_BLOCK = 64;\n'
                                               "int64_t HostExtra(int64_t a) { return HostMod(a, HOST_BLOCK); }\n")
    (imported,), _ = import_tasks([task], tmp_path / "out")
    r = evaluate(imported.problem, imported.candidate, backend="ascendc-cpu", seed=0, tier="full")
    assert [c.status for c in r.cases] == ["pass"], [c.message for c in r.cases]


def test_two_host_sources_defining_one_function_differently_is_a_build_error_naming_both(tmp_path):
    """The one link of several host units keeps one definition of a symbol: two different ones are a compile-error
    naming the function and both files (msopgen's link of one library refuses them); the same one twice builds (the
    test above)."""
    from repair.engine.harness import evaluate

    task = make_task(tmp_path / "tasks", "case_id;shape;dtype\n0;[1000];float32\n")
    host = task / "answer" / "0" / "op_host"
    text = (host / "add_custom.cpp").read_text()
    (host / "add_custom.cpp").write_text("#include <cstdint>\nint64_t HostPick(int64_t a) { return a + 1; }\n" + text)
    (host / "add_custom_extra.cpp").write_text("#include <cstdint>\nint64_t HostPick(int64_t a) { return a * 3; }\n")
    (imported,), _ = import_tasks([task], tmp_path / "out")
    r = evaluate(imported.problem, imported.candidate, backend="ascendc-cpu", seed=0, tier="compact")
    (case,) = r.cases
    assert case.status == "compile-error", case.message
    assert "add_custom.cpp and " in case.message and "add_custom_extra.cpp both define HostPick(long)" in case.message
