"""One AscendC operator written once (its kernel class, its tiling arithmetic, its reference) and assembled into
the three candidate formats and an NPUKernelBench task directory.

Nothing here was compiled: this machine has no CANN. The kernels follow the AscendC programming model as the
public samples show it (TPipe, TQue with EnQue/DeQue between the copy and compute stages, DataCopyPad for
lengths that are not multiples of 32 bytes, GET_TILING_DATA in the msopgen entry, `<<<>>>` for a direct launch).
"""
from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field

GE = {"float": "DT_FLOAT", "float16": "DT_FLOAT16"}
C_TYPE = {"float": "float", "float16": "half"}


@dataclass
class Edit:
    """A labelled variant: textual replacements in the operator's parts (each must match exactly once)."""

    name: str  # file stem: nearmiss_tail, cheat_binding_aten
    kind: str  # near-miss or cheat
    label: str  # bug_class of a near-miss, cheat kind of a cheat
    description: str
    # (part, old, new); parts: kernel, tiling, binding, model, launch_fn, launch (SetBlockDim), tiling_header, host_attrs
    replace: list[tuple[str, str, str]]
    formats: tuple[str, ...] = ("mkb-sources", "npukernelbench")
    flags: tuple[str, ...] = ()  # rules `repair check` reports for a cheat ("static.ascendc-chain:binding->launch")
    fails: str = "compact"  # a near-miss: the first tier it fails on ascendc-cpu (compact, or only full)


@dataclass
class Op:
    dir: str  # examples/ascendc/<dir>
    op: str  # AddCustom
    family: str
    inputs: list[tuple[str, str]]  # (name, dtype)
    outputs: list[tuple[str, str]]
    fields: list[tuple[str, str]]  # tiling struct (ctype, name); the shape fields first
    shape: str  # "flat" (totalLength) or "rows" (rows, cols), read from input 0
    tiling: str  # C++ computing blockDim and every non-shape field from the shape, coreNum and attrs
    kernel_class: str  # C++: class Kernel<Op> with Init(GM_ADDR..., fields...) and Process()
    reference: str  # Python: class Model
    get_inputs: str  # Python body of get_inputs(param, device=None)
    test_cases: str  # test_cases.csv
    attrs: list[tuple[str, str, str]] = field(default_factory=list)  # (name, ctype, default)
    init_inputs: str = "return []"
    infer_shape: str = "    *context->GetOutputShape(0) = *context->GetInputShape(0);\n"
    alloc: str = ""  # binding C++ allocating the outputs (default: empty_like the first input)
    check_precision: str = ""  # prepare_inputs.py's custom_check_precision, if the task has one
    edits: list[Edit] = field(default_factory=list)

    @property
    def snake(self) -> str:
        import re

        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", self.op).lower()

    @property
    def shape_fields(self) -> list[str]:
        return ["totalLength"] if self.shape == "flat" else ["rows", "cols"]

    def gm_names(self) -> list[str]:
        return [n for n, _ in self.inputs + self.outputs]

    def outputs_alloc(self) -> str:
        if self.alloc:
            return self.alloc
        first = self.inputs[0][0]
        return "".join(f"    at::Tensor {n} = at::empty_like({first});\n" for n, _ in self.outputs)


# -- the parts every format shares --------------------------------------------------------------------

KERNEL_HEAD = """#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

// A scalar read of a value the vector unit wrote: the scalar unit waits for the vector pipe first.
__aicore__ inline float ScalarOf(const LocalTensor<float> &t)
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(id);
    WaitFlag<HardEvent::V_S>(id);
    return t.GetValue(0);
}
"""


def kernel_source(o: Op, parts: dict, *, direct: bool) -> str:
    fields = [n for _, n in o.fields]
    gm = o.gm_names()
    if direct:
        params = ", ".join([f"GM_ADDR {n}" for n in gm] + [f"{t} {n}" for t, n in o.fields])
        entry = f"""
extern "C" __global__ __aicore__ void {o.snake}_kernel({params})
{{
    Kernel{o.op} op;
    op.Init({", ".join(gm + fields)});
    op.Process();
}}
"""
        entry += "\n" + parts["launch_fn"]
    else:
        params = ", ".join([f"GM_ADDR {n}" for n in gm] + ["GM_ADDR workspace", "GM_ADDR tiling"])
        entry = f"""
extern "C" __global__ __aicore__ void {o.snake}({params})
{{
    GET_TILING_DATA(tilingData, tiling);
    Kernel{o.op} op;
    op.Init({", ".join(gm + [f"tilingData.{f}" for f in fields])});
    op.Process();
}}
"""
    head = KERNEL_HEAD + ('#include "tiling/platform/platform_ascendc.h"\n' if direct else "")
    return head + "\n" + parts["kernel"].strip("\n") + "\n" + entry


def launch_fn(o: Op, tiling: str) -> str:
    gm = o.gm_names()
    params = ", ".join([f"GM_ADDR {n}" for n in gm] + [f"uint32_t {f}" for f in o.shape_fields]
                       + [f"{t} {n}" for n, t, _ in o.attrs] + ["void *stream"])
    args = ", ".join(gm + [n for _, n in o.fields])
    return f"""extern "C" void launch_{o.snake}({params})
{{
    uint32_t coreNum = platform_ascendc::PlatformAscendCManager::GetInstance()->GetCoreNumAiv();
{tiling.rstrip()}
    {o.snake}_kernel<<<blockDim, nullptr, stream>>>({args});
}}
"""


def tiling_header(o: Op) -> str:
    guard = f"{o.snake.upper()}_TILING_H"
    fields = "".join(f"TILING_DATA_FIELD_DEF({t}, {n});\n" for t, n in o.fields)
    return f"""#ifndef {guard}
#define {guard}

#include "register/tilingdata_base.h"

namespace optiling {{
BEGIN_TILING_DATA_DEF({o.op}TilingData)
{fields}END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS({o.op}, {o.op}TilingData)
}}  // namespace optiling

#endif  // {guard}
"""


def host_source(o: Op, parts: dict) -> str:
    if o.shape == "flat":
        shape = "    uint32_t totalLength = static_cast<uint32_t>(shape.GetShapeSize());\n"
    else:
        shape = ("    uint32_t cols = static_cast<uint32_t>(shape.GetDim(shape.GetDimNum() - 1));\n"
                 "    uint32_t rows = static_cast<uint32_t>(shape.GetShapeSize() / cols);\n")
    attrs = parts["host_attrs"]
    sets = "".join(f"    tiling.set_{n}({n});\n" for _, n in o.fields)
    ios = "".join(f'        this->{kind}("{n}").ParamType(REQUIRED).DataType({{ge::{GE[d]}}}).Format({{ge::FORMAT_ND}});\n'
                  for kind, items in (("Input", o.inputs), ("Output", o.outputs)) for n, d in items)
    ios += "".join(f'        this->Attr("{n}").AttrType(OPTIONAL).Float({v});\n' for n, _, v in o.attrs)
    dtypes = "".join(f"    context->SetOutputDataType({i}, ge::{GE[d]});\n" for i, (_, d) in enumerate(o.outputs))
    return f"""#include <algorithm>
#include "{o.snake}_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {{
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{{
    {o.op}TilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
{shape}{attrs}    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
{parts["tiling"].rstrip()}
{parts["launch"].rstrip()}
{sets}    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}}
}}  // namespace optiling

namespace ge {{
static ge::graphStatus InferShape(gert::InferShapeContext *context)
{{
{o.infer_shape.rstrip()}
    return GRAPH_SUCCESS;
}}

static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{{
{dtypes.rstrip()}
    return GRAPH_SUCCESS;
}}
}}  // namespace ge

namespace ops {{
class {o.op} : public OpDef {{
public:
    explicit {o.op}(const char *name) : OpDef(name)
    {{
{ios}        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }}
}};

OP_ADD({o.op});
}}  // namespace ops
"""


def project_json(o: Op) -> str:
    def desc(items):
        return [{"name": n, "param_type": "required", "format": ["ND"], "type": [d]} for n, d in items]

    entry = {"op": o.op, "language": "cpp", "input_desc": desc(o.inputs), "output_desc": desc(o.outputs)}
    if o.attrs:
        entry["attr"] = [{"name": n, "param_type": "optional", "type": "float", "default_value": v}
                         for n, _, v in o.attrs]
    return json.dumps([entry], indent=4) + "\n"


def _binding_params(o: Op) -> str:
    return ", ".join([f"const at::Tensor &{n}" for n, _ in o.inputs] + [f"double {n}" for n, _, _ in o.attrs])


def msopgen_binding(o: Op, parts: dict, *, npukb: bool) -> str:
    """The pybind11 C++ calling the msopgen operator; NPUKernelBench's keeps its placeholders."""
    fn = "custom_pybind_api" if npukb else f"{o.snake}_impl_npu"
    acl = "aclnnCustomOp" if npukb else f"aclnn{o.op}"
    module = "kernel_gen_ops" if npukb else "TORCH_EXTENSION_NAME"
    name = "custom_pybind_api" if npukb else o.snake
    args = ", ".join([n for n, _ in o.inputs] + [n for n, _, _ in o.attrs] + [n for n, _ in o.outputs])
    ret = o.outputs[0][0]
    body = parts["binding"].replace("{fn}", fn).replace("{acl}", acl).replace("{args}", args)
    return f"""#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor {fn}({_binding_params(o)})
{{
{o.outputs_alloc()}{body.rstrip()}
    return {ret};
}}

PYBIND11_MODULE({module}, m)
{{
    m.def("{name}", &{fn}, "{o.op}");
}}
"""


MSOPGEN_BINDING_BODY = "    EXEC_NPU_CMD({acl}, {args});\n"


def direct_binding(o: Op, parts: dict) -> str:
    ptrs = ", ".join(f"reinterpret_cast<GM_ADDR>({n}.data_ptr())" for n in o.gm_names())
    first = o.inputs[0][0]
    if o.shape == "flat":
        shape = f"    uint32_t totalLength = static_cast<uint32_t>({first}.numel());\n"
    else:
        shape = (f"    uint32_t cols = static_cast<uint32_t>({first}.size(-1));\n"
                 f"    uint32_t rows = static_cast<uint32_t>({first}.numel() / {first}.size(-1));\n")
    launch = ", ".join([ptrs] + o.shape_fields + [f"static_cast<float>({n})" for n, _, _ in o.attrs] + ["stream"])
    body = parts["binding_direct"].replace("{launch}", f"{o.snake.upper()}_LAUNCH({launch});")
    return f"""#include <torch/extension.h>
#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "{o.snake}_launch.h"

at::Tensor {o.snake}({_binding_params(o)})
{{
    TORCH_CHECK({first}.is_contiguous(), "{o.snake}: the input must be contiguous");
{o.outputs_alloc()}{shape}    auto stream = c10_npu::getCurrentNPUStream().stream(false);
{body.rstrip()}
    return {o.outputs[0][0]};
}}

PYBIND11_MODULE(benchmark_ops, m)
{{
    m.def("{o.snake}", &{o.snake}, "{o.op}, launched directly");
}}
"""


DIRECT_BINDING_BODY = "    {launch}\n"


def launch_header(o: Op) -> str:
    guard = f"{o.snake.upper()}_LAUNCH_H"
    params = ", ".join([f"GM_ADDR {n}" for n in o.gm_names()] + [f"uint32_t {f}" for f in o.shape_fields]
                       + [f"{t} {n}" for n, t, _ in o.attrs] + ["void *stream"])
    return f"""#ifndef {guard}
#define {guard}

#include <cstdint>

#ifndef GM_ADDR
#define GM_ADDR uint8_t *
#endif

extern "C" void launch_{o.snake}({params});

#define {o.snake.upper()}_LAUNCH(...) launch_{o.snake}(__VA_ARGS__)

#endif  // {guard}
"""


def model_new(o: Op, parts: dict, module: str, *, import_inside: bool = False) -> str:
    ins = ", ".join(n for n, _ in o.inputs)
    attrs = "".join(f", self.{n}" for n, _, _ in o.attrs)
    init_params = "".join(f", {n}" for n, _, _ in o.attrs)
    stores = "".join(f"        self.{n} = {n}\n" for n, _, _ in o.attrs)
    call = f"{module}.{o.snake}({ins}{attrs})"
    body = parts["model"].replace("{call}", call).replace("{ins}", ins)
    imp = f"        import {module}\n" if import_inside else ""
    return f"""class ModelNew(torch.nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{stores or "        pass" + chr(10)}
    def forward(self, {ins}):
{imp}{body.rstrip()}
"""


MODEL_BODY = "        return {call}\n"


def parts_of(o: Op, edit: Edit | None = None) -> dict:
    parts = {"kernel": o.kernel_class, "tiling": o.tiling, "binding": MSOPGEN_BINDING_BODY,
             "binding_direct": DIRECT_BINDING_BODY, "model": MODEL_BODY, "tiling_header": tiling_header(o),
             "launch": "    context->SetBlockDim(blockDim);\n",  # the host's launch of the blocks
             "host_attrs": "".join(f"    const {t} {n} = *context->GetAttrs()->GetFloat({i});\n"
                                   for i, (n, t, _) in enumerate(o.attrs))}
    for part, old, new in (edit.replace if edit else []):
        if part == "launch_fn":
            continue
        if parts[part].count(old) != 1:
            raise AssertionError(f"{o.dir}/{edit.name}: {old!r} occurs {parts[part].count(old)} times in {part}")
        parts[part] = parts[part].replace(old, new)
    parts["launch_fn"] = launch_fn(o, parts["tiling"])
    for part, old, new in (edit.replace if edit else []):
        if part == "launch_fn":
            if parts[part].count(old) != 1:
                raise AssertionError(f"{o.dir}/{edit.name}: {old!r} not once in the launch function")
            parts[part] = parts[part].replace(old, new)
    return parts


# -- the formats ----------------------------------------------------------------------------------------

def six_sources(o: Op, edit: Edit | None = None) -> str:
    parts = parts_of(o, edit)
    model = "import torch\nimport torch_npu\nimport custom_ops_lib\n\n\n" + model_new(o, parts, "custom_ops_lib")
    srcs = [("project_json_src", project_json(o)), ("host_tiling_src", parts["tiling_header"]),
            ("host_operator_src", host_source(o, parts)), ("kernel_src", kernel_source(o, parts, direct=False)),
            ("python_bind_src", msopgen_binding(o, parts, npukb=False)), ("model_src", model)]
    head = f'"""{o.op}: ' + (edit.description if edit else "the correct kernel") + '"""\n'
    return head + "".join(f'\n{name} = r"""\n{text}"""\n' for name, text in srcs)


def direct_json(o: Op, edit: Edit | None = None) -> str:
    parts = parts_of(o, edit)
    model = "import torch\nimport benchmark_ops\n\n\n" + model_new(o, parts, "benchmark_ops")
    sources = [("ModelNew.py", model), (f"kernel/{o.snake}_launch.h", launch_header(o)),
               (f"kernel/{o.snake}_kernel.cpp", kernel_source(o, parts, direct=True)),
               ("kernel/pybind11.cpp", direct_binding(o, parts))]
    doc = {"name": f"{o.dir}_{edit.name if edit else 'correct'}", "problem": o.dir,
           "description": edit.description if edit else f"{o.op}, the correct kernel, launched directly",
           "entry": {"model": "ModelNew.py::ModelNew"}, "build": {"type": "ascendc_direct_launch"},
           "sources": [{"path": p, "content": c} for p, c in sources]}
    return json.dumps(doc, indent=2) + "\n"


def npukb_files(o: Op, edit: Edit | None = None) -> dict[str, str]:
    """op_host/ and op_kernel/ of a solution in NPUKernelBench's layout."""
    parts = parts_of(o, edit)
    return {f"op_host/{o.snake}.cpp": host_source(o, parts), f"op_host/{o.snake}_tiling.h": parts["tiling_header"],
            f"op_kernel/{o.snake}.cpp": kernel_source(o, parts, direct=False)}


def validation_files(o: Op) -> dict[str, str]:
    """The task's fixed validation/ files."""
    module = ("import torch\nimport torch_npu\nfrom torch_npu.contrib import transfer_to_npu\nimport torch.nn as nn\n\n\n"
              + o.reference.strip("\n") + "\n\n\n"
              + model_new(o, parts_of(o), "kernel_gen_ops", import_inside=True).replace("torch.nn.Module", "nn.Module"))
    prepare = ("import torch\n\n\n"
               "def get_inputs(param, device=None):\n" + textwrap.indent(o.get_inputs.strip("\n"), "    ") + "\n\n\n"
               "def get_init_inputs(param, device=None):\n" + textwrap.indent(o.init_inputs.strip("\n"), "    ") + "\n")
    if o.check_precision:
        prepare += "\n\n" + o.check_precision.strip("\n") + "\n"
    return {"validation/module.py": module, "validation/pybind.cpp": msopgen_binding(o, parts_of(o), npukb=True),
            "validation/prepare_inputs.py": prepare, "validation/test_cases.csv": o.test_cases.strip("\n") + "\n"}
