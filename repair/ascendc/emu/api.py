"""The AscendC API on ascendc-cpu: each call, whether the emulation has it, and how it differs from the NPU.

One table, `API`, is the source of three things: the README's table (`render_markdown`; `python -m
repair.ascendc.emu.api` prints it, a test compares the README with it), the build's `unsupported` verdict (a g++
error naming an API the table lists as not emulated, or a form of a partial one: `unsupported_in`), and the
engine's check that a candidate said to be unsupported really calls that API (`calls_in`: its sources are read,
never run, so a candidate cannot claim the verdict to dodge a failure).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

EMULATED, PARTIAL, MISSING = "emulated", "partial", "not emulated"


@dataclass(frozen=True)
class Api:
    names: tuple[str, ...]  # the spellings a kernel calls (AscendC::Add, Adds, ...), one table row for them all
    group: str
    status: str  # EMULATED, PARTIAL (forms missing: a call of one is `unsupported`), MISSING
    note: str = ""  # the forms emulated, what is missing, and every known difference from the NPU

    def row(self) -> str:
        return f"| {', '.join(f'`{n}`' for n in self.names)} | {self.group} | {self.status} | {self.note} |"


def _a(names: str, group: str, status: str, note: str = "") -> Api:
    return Api(tuple(names.split()), group, status, note)


_BITWISE = "integers only, as on the NPU"
API: tuple[Api, ...] = (
    # -- memory, queues, synchronisation -------------------------------------------------------------------------
    _a("GlobalTensor", "memory", PARTIAL, "`SetGlobalBuffer`, `operator[]`, `GetValue`/`SetValue`, `operator()`, "
       "`GetPhyAddr`, `GetSize`, `SetL2CacheHint` (no effect); every access checked against the launch's GM tensors (a read of the "
       "rest of a tensor's last 32-byte block is allowed, as the NPU allocates whole blocks)"),
    _a("LocalTensor", "memory", PARTIAL, "`operator[]`, `GetValue`/`SetValue`, `operator()`, `GetSize`/`SetSize`, "
       "`GetLength`, `GetPhyAddr`, `ReinterpretCast`, and the operator expressions (`dst = a + b`, `-`, `*`, `/`, "
       "`dst = a op scalar`) over the whole tensor; each use checked against its queue state"),
    _a("TPipe InitBuffer", "memory", EMULATED, "`InitBuffer` (queues and TBufs), `Reset`, `Destroy`, "
       "`AllocEventID`/`ReleaseEventID`/`FetchEventID`. A buffer past the unified buffer is no error at InitBuffer "
       "(the NPU does not check); its first access past the end is, as that access faults on the NPU"),
    _a("TQue TQueBind AllocTensor EnQue DeQue FreeTensor", "memory", EMULATED,
       "vector positions; the depth is enforced (an EnQue on a full queue is an error); a DeQue of an empty queue or "
       "an AllocTensor with every buffer in use is a `timeout` at once (the NPU waits forever); a tensor written "
       "after its EnQue or used after its FreeTensor is an error"),
    _a("TQueConfig", "memory", PARTIAL, "a `TQue<pos, depth, &config>` config on the vector positions, where its "
       "fields change nothing; its cube-only format conversions (`nd2nz`, `nz2nd`) are not emulated"),
    _a("TBuf Get GetWithOffset", "memory", EMULATED, "also `AllocTensor` (TBuf inherits TQueBind's: the whole "
       "buffer); a TBuf no InitBuffer sized gives a tensor that faults on its first use"),
    _a("PopStackBuffer", "memory", EMULATED, "the unified buffer left after every InitBuffer"),
    _a("DataCopy", "copy", PARTIAL, "GM->UB, UB->GM, UB->UB by count and by `DataCopyParams` (32-byte units); a "
       "count that is not a whole number of 32-byte blocks copies the whole blocks only and drops the rest, with a "
       "note, as the NPU does. Not emulated: the Nd2Nz/Nz2Nd, `DataCopyEnhancedParams` and slice forms"),
    _a("DataCopyPad", "copy", PARTIAL, "GM->UB with `DataCopyExtParams`/`DataCopyPadExtParams` (and the older "
       "`DataCopyParams`/`DataCopyPadParams`), UB->GM. With no left or right padding, a row's dummy elements up "
       "to its 32-byte boundary hold the first element of its last 32-byte block; padded elements hold "
       "`paddingValue` with `isPad`, else they are undefined (NaN). Not emulated: UB->L1 (TSCM), Nd2Nz"),
    _a("SetPadValue", "copy", EMULATED, "the value DataCopyPad pads with when `isPad` is false and padding is asked"),
    _a("InitGlobalMemory", "copy", EMULATED, "fills a GM range with a value"),
    _a("InitOutput", "copy", EMULATED, "InitGlobalMemory's earlier name (deprecated in CANN's headers, still there)"),
    _a("SetAtomicAdd SetAtomicMax SetAtomicMin SetAtomicNone", "copy", EMULATED,
       "UB->GM copies combine with GM in T's arithmetic; a copy of another type is an error"),
    _a("DataCopyWithReduce", "copy", MISSING),
    _a("SetFlag WaitFlag set_flag wait_flag PipeBarrier pipe_barrier TQueSync", "sync", EMULATED,
       "they order the pipes in the pipe model (see the execution model; `PipeBarrier` within one pipe changes "
       "nothing); a WaitFlag no SetFlag precedes is a `timeout` at once"),
    _a("SyncAll", "sync", EMULATED, "the hardware form and the software one (GM and UB workspaces): a barrier across "
       "the launch's blocks, which take turns (see the execution model), ordering every pipe of the block; a SyncAll "
       "not every block reaches is a `timeout`"),
    _a("CrossCoreSetFlag CrossCoreWaitFlag", "sync", MISSING, "cube/vector handshakes: no cube unit here"),
    _a("GetBlockIdx GetBlockNum GetSubBlockIdx GetSubBlockNum get_block_idx get_block_num block_idx block_num", "core",
       EMULATED,
       "every block runs on a vector core; one sub-block"),
    _a("GetUserWorkspace GetSysWorkSpacePtr SetSysWorkspace", "core", EMULATED),
    # -- vector instructions -------------------------------------------------------------------------------------
    _a("Add Sub Mul Div Max Min", "vector", EMULATED, "count and level-0 (mask, repeats, strides) forms; half and "
       "bfloat16 compute in float, each result rounded; Max/Min propagate NaN"),
    _a("And Or", "vector", EMULATED, f"count and level-0 forms; {_BITWISE}"),
    _a("Xor", "vector", EMULATED, f"count form, with or without its scratch buffer; {_BITWISE}"),
    _a("Not", "vector", EMULATED, f"count and level-0 forms; {_BITWISE}"),
    _a("Exp Ln Abs Sqrt Rsqrt Reciprocal Relu", "vector", EMULATED,
       "count and level-0 forms; exact in float (the NPU's are within its documented precision)"),
    _a("Adds Muls Maxs Mins", "vector", EMULATED, "count and level-0 forms"),
    _a("LeakyRelu ShiftLeft ShiftRight", "vector", EMULATED, "count form"),
    _a("Axpy", "vector", EMULATED, "count form, in float"),
    _a("Duplicate", "vector", EMULATED, "count and level-0 forms"),
    _a("Cast", "vector", EMULATED, "count and level-0 forms, every rounding mode; only the conversions and modes "
       "the documentation lists for the Atlas A2 vector unit (another is an error)"),
    _a("Compare", "vector", EMULATED, "count and level-0 forms; the count form compares whole 256-byte repeats "
       "(the documentation asks for them): the bits past the last whole repeat keep what they held, with a note"),
    _a("CompareScalar Compares", "vector", EMULATED, "count form"),
    _a("Select", "vector", EMULATED, "count and level-0 forms, tensor-tensor and tensor-scalar; `SELMODE` honoured "
       "(`VSEL_CMPMASK_SPR` uses one repeat's bits for every repeat)"),
    _a("Copy", "vector", EMULATED, "level-0 form"),
    _a("Brcb", "vector", EMULATED, "each of 8 elements a repeat to a 32-byte block, `BrcbRepeatParams` strides"),
    _a("Gather", "vector", EMULATED, "by byte offsets (count form)"),
    _a("GatherMask", "vector", EMULATED, "the built-in patterns (1-7) and a user bit mask (uint16_t/uint32_t), normal "
       "mode and the Atlas A2's counter mode (mask elements a repeat), with rsvdCnt"),
    _a("CreateVecIndex ArithProgression", "vector", EMULATED),
    _a("TransDataTo5HD TransDataTo5HDImpl", "vector", PARTIAL, "16- and 32-bit types: the LocalTensor-list, "
       "address-list and pointer-list forms; not 8-bit types (`dstHighHalf`/`srcHighHalf`)"),
    _a("Transpose", "vector", PARTIAL, "the 16 x 16 form of a 16-bit type; not the `TransposeParamsExt` form"),
    _a("Sort Sort32 MrgSort", "vector", MISSING),
    _a("ReduceSum ReduceMax ReduceMin", "reduce", EMULATED, "count and level-0 forms, with the index; sums as a "
       "binary tree with half rounding"),
    _a("WholeReduceSum WholeReduceMax WholeReduceMin", "reduce", EMULATED, "masks, repeats, strides, ReduceOrder"),
    _a("BlockReduceSum BlockReduceMax BlockReduceMin PairReduceSum GetReduceMaxMinCount", "reduce", EMULATED),
    _a("SetMaskCount SetMaskNorm SetVectorMask ResetMask AscendCUtils", "mask", EMULATED,
       "normal (bit) and counter modes; count-form calls leave normal mode, all ones"),
    _a("vcadd get_acc_val GetAccVal", "CCE", PARTIAL, "`vcadd` with a null destination and accumulation (the sum of "
       "every masked element into the accumulator) and with a destination (one sum a repeat); `GetAccVal`. The "
       "rest of the CCE instruction set is not emulated"),
    _a("DuplicateImpl DataCopyUB2GMImpl", "CCE", EMULATED, "CANN's implementation functions on raw addresses "
       "(a UB address from `GetPhyAddr()`): a fill of UB, a UB->GM copy by `DataCopyParams`"),
    _a("vadd vsub vmul vdiv vmax vmin vcmax vcmin vexp vln vabs vor vand vnot vector_dup vconv vtranspose "
       "copy_ubuf_to_ubuf copy_gm_to_ubuf copy_ubuf_to_gm set_va_reg_sb", "CCE", MISSING,
       "the CCE instruction set below the AscendC API"),
    # -- the math and activation libraries -----------------------------------------------------------------------
    _a("Tanh Sigmoid Sin Cos Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh Erf Erfc Log Log2 Log10", "math",
       EMULATED, "with or without their scratch buffer, by count or over the whole source; exact in float (the NPU's "
       "approximations are within the tolerances its tasks use)"),
    _a("Power", "math", EMULATED, "tensor-tensor, tensor-scalar and scalar-tensor, half, float and int32_t"),
    _a("Exp", "math", EMULATED, "the math library's Taylor form `Exp<T, level>(dst, src, tmp, n)` as the basic Exp"),
    _a("Round Floor Ceil Trunc Sign Frac", "math", EMULATED, "Round to the nearest integer, a tie to the even one "
       "(as documented); Sign of NaN is NaN"),
    _a("ClampMax ClampMin", "math", EMULATED),
    _a("Gelu FasterGelu Silu Swish", "activation", EMULATED, "Gelu in the tanh form (x * sigmoid(1.5958 (x + "
       "0.044715 x^3))), FasterGelu x * sigmoid(1.702 x)"),
    _a("FasterGeluV2 GeGLU SwiGLU ReGlu LogSoftMax SoftmaxFlash SoftmaxFlashV2 SoftmaxGrad", "activation", MISSING),
    _a("SoftMax SimpleSoftMax", "activation", PARTIAL, "ND format over the last axis of [srcM, srcK] (its first "
       "oriSrcK elements), with or without the sum and max outputs (one 32-byte block a row) and the scratch buffer; "
       "`SoftMaxTiling` and the host's `SoftMaxTilingFunc`/tmp-size queries. Not the NZ format"),
    _a("Sum Mean", "reduce", EMULATED, "`SumParams`/`MeanParams` rows, the sum as a binary tree"),
    _a("CumSum", "reduce", EMULATED, "along the last or first axis, `CumSumInfo`"),
    _a("LayerNorm RmsNorm BatchNorm DeepNorm GroupNorm", "norm", MISSING, "the high-level normalisation APIs"),
    _a("Matmul Mmad LoadData Fixpipe REGIST_MATMUL_OBJ", "cube", MISSING, "no cube unit"),
    _a("SetDeqScale", "vector", PARTIAL, "`SetDeqScale(half)` for Cast from int32_t to half; not the quantisation "
       "forms (float scale, offset, sign mode)"),
    # -- host side -----------------------------------------------------------------------------------------------
    _a("BEGIN_TILING_DATA_DEF TILING_DATA_FIELD_DEF REGISTER_TILING_DATA_CLASS GET_TILING_DATA", "host", EMULATED,
       "also `_ARR`, `_STRUCT`, `GET_TILING_DATA_WITH_STRUCT`/`_MEMBER`"),
    _a("OpDef TilingContext PlatformAscendC", "host", EMULATED, "inputs, outputs, attributes, `SetTiling`, "
       "`OP_ADD`; the context passes shapes, dtypes and attributes; `$REPAIR_ASCENDC_CORES` cores and "
       "`$REPAIR_ASCENDC_UB_KB` of UB"),
    _a("ge::Shape GetSigmoidMaxMinTmpSize GetSoftMaxMaxTmpSize GetSoftMaxMinTmpSize", "host", EMULATED,
       "the scratch sizes are the emulation's own (its library needs none)"),
    _a("TilingBaseClass TilingRegistry REGISTER_TILING_TEMPLATE TilingParse GetCompileInfo", "host", EMULATED,
       "the ops libraries' tiling framework: DoTiling's steps in order, templates tried by priority, TilingParse's "
       "compile info before the tiling"),
)

HEADERS: dict[str, str] = {  # CANN headers the emulation does not provide, and what they hold
    "opdev/op_executor.h": "the aclnn op executor (host)",
    "lib/matmul_intf.h": "Matmul",
    "tikicpulib.h": "CANN's CPU debug library",
}


def _names(*statuses: str) -> set[str]:
    return {n for a in API if a.status in statuses for n in a.names}


MISSING_NAMES = _names(MISSING)
PARTIAL_NAMES = _names(PARTIAL)


@dataclass(frozen=True)
class Unsupported:
    api: str  # the API (or header) the emulation lacks
    where: str  # the candidate's file:line g++ named
    form: bool  # a form of a partial API, not the whole API

    def message(self) -> str:
        what = f"a form of AscendC's {self.api}" if self.form else f"AscendC's {self.api}"
        return (f"ascendc-cpu does not emulate {what} ({self.where}): this environment cannot judge the candidate "
                "(unsupported, not wrong; an NPU can)")


_LOC = r"^(?P<where>[^:\s][^:]*:\d+)(?::\d+)?: (?:fatal )?error: "
_MISSING_PATTERNS = (
    re.compile(_LOC + r"'(?:\w+::)*(?P<name>\w+)' (?:was not declared in this scope|does not name a type|"
                      r"is not a member of '[\w:]+'|in namespace '[\w:]+' does not name a type)", re.M),
    re.compile(_LOC + r"there are no arguments to '(?P<name>\w+)' that depend on a template parameter", re.M),
    re.compile(_LOC + r"'(?P<name>\w+)' is not a member of '(?P<ns>[\w:]+)'", re.M),
)
_FORM = re.compile(_LOC + r"no matching function for call to '(?:AscendC::)?(?P<name>\w+)(?:<[^']*>)?\(", re.M)
_MEMBER = re.compile(_LOC + r"'(?:class|struct) AscendC::(?P<cls>\w+)(?:<[^']*>)?' has no member named "
                            r"'(?P<name>\w+)'", re.M)
_HEADER = re.compile(_LOC + r"(?P<name>[\w./-]+): No such file or directory", re.M)
# the emulation's own marker, for a form its templates cannot run (a static_assert in its headers)
_MARKER = re.compile(_LOC + r"static assertion failed: ascendc-cpu does not emulate (?P<name>\w+)", re.M)
_FROM_HERE = re.compile(r"^(?P<where>(?!ascendc-cpu/)[^:\s][^:]*:\d+)(?::\d+)?:\s+required from here", re.M)


def unsupported_in(message: str) -> Unsupported | None:
    """The API (or CANN header) ascendc-cpu lacks that a g++ message names, or None: a name the table lists as not
    emulated not declared, a partial API called in a form it lacks, a partial class's missing member."""
    found = []
    for rx in _MISSING_PATTERNS:
        for m in rx.finditer(message):
            name = m.group("name")
            if name in MISSING_NAMES or (m.groupdict().get("ns") == "ge" and f"ge::{name}" in MISSING_NAMES):
                found.append((m.start(), Unsupported(name, m.group("where"), False)))
    for m in _FORM.finditer(message):
        if m.group("name") in PARTIAL_NAMES:
            found.append((m.start(), Unsupported(m.group("name"), m.group("where"), True)))
    for m in _MEMBER.finditer(message):
        if m.group("cls") in PARTIAL_NAMES:
            found.append((m.start(), Unsupported(f"{m.group('cls')}::{m.group('name')}", m.group("where"), False)))
    for m in _MARKER.finditer(message):  # the candidate's line is the instantiation's `required from here`
        here = [h for h in _FROM_HERE.finditer(message) if h.start() < m.start()]
        where = here[-1].group("where") if here else m.group("where")
        found.append((m.start(), Unsupported(m.group("name"), where, True)))
    for m in _HEADER.finditer(message):
        if m.group("name") in HEADERS:
            found.append((m.start(), Unsupported(f"header {m.group('name')}", m.group("where"), False)))
    return min(found, key=lambda f: f[0])[1] if found else None


def calls_in(texts: list[str], api: str) -> bool:
    """Whether the sources (comments stripped) name `api` (its last `::` part, or a header's path)."""
    from repair.ascendc.cxx import strip_comments

    if api.startswith("header "):
        word = re.escape(api.removeprefix("header "))
        rx = re.compile(r'#\s*include\s*[<"]' + word + '[>"]')
    else:
        rx = re.compile(r"\b" + re.escape(api.split("::")[-1]) + r"\b")
    return any(rx.search(strip_comments(t)) for t in texts)


_CLAIM = re.compile(r"^ascendc-cpu does not emulate (?:a form of )?AscendC's (?P<api>header \S+|\S+) \(")


def confirm_unsupported(path: str, message: str) -> bool:
    """Whether the candidate at `path` calls the API its build's message says ascendc-cpu lacks (the engine's
    check of a candidate process's `unsupported`: the sources are read, never run)."""
    from repair.ascendc.load import load_candidate
    from repair.errors import RepairError

    m = _CLAIM.match(message)
    api = m.group("api") if m else ""
    known = MISSING_NAMES | PARTIAL_NAMES
    if not api or not (api.startswith("header ") or api in known or api.split("::")[0] in known):
        return False
    try:
        cand = load_candidate(path)
    except RepairError:
        return False
    return calls_in([s.text for s in cand.sources], api)


def render_markdown() -> str:
    """The README's table of the API, from `API`."""
    head = ["| API | group | status | forms and differences from the NPU |", "|---|---|---|---|"]
    return "\n".join(head + [a.row() for a in API])


README_BEGIN = "<!-- ascendc-api-table: generated by `python -m repair.ascendc.emu.api` from repair/ascendc/emu/api.py -->"
README_END = "<!-- end of ascendc-api-table -->"


if __name__ == "__main__":
    print(README_BEGIN)
    print(render_markdown())
    print(README_END)
