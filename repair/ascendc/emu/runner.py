"""Running a built AscendC candidate: the case's tensors in guarded GM buffers, the host tiling, the kernel's blocks.

Every tensor the operator sees lives in a GM buffer of its own with a poisoned guard region on either side:
inputs are copied in (and back out, should the kernel write them, so the runtime guard sees the mutation),
outputs are allocated there, unwritten elements NaN. The emulator checks every GM access made through the API
against these tensors; a write through a raw pointer that lands in a guard region is found after the launch.
A fault comes back as a KernelFault whose `case_status` is the case's status: `error` (UB overflow, misaligned
copy, a tensor used after FreeTensor or written after EnQue), `crash` (GM outside every tensor) or `timeout`
(a queue or flag that would wait forever on the NPU).
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
from pathlib import Path
from typing import Any, Callable

from repair.ascendc.emu.binding import BindingPlan, BindingProgram, op_api_unsupported
from repair.ascendc.emu.build import _GE_NUM
from repair.ascendc.emu.cxxeval import Evaluator, Opaque, Ptr
from repair.ascendc.emu.forward import MappingError
from repair.errors import BadInput, RepairError

GUARD = 4096  # bytes of poison before and after every GM tensor
POISON = 0xA5
_STATUS = {1: "error", 2: "crash", 3: "timeout"}
_GE = {"float32": 0, "float16": 1, "int8": 2, "int32": 3, "uint8": 4, "int16": 6, "int64": 9, "float64": 11,
       "bool": 12, "bfloat16": 27}


class KernelFault(RepairError):
    """The emulated operator did what the NPU would fail on; `case_status` is the case's status."""

    def __init__(self, case_status: str, message: str):
        super().__init__(message)
        self.case_status = case_status


def platform_config() -> tuple[int, int, int]:
    """(vector cores, cube cores, UB bytes) of the emulated chip: $REPAIR_ASCENDC_CORES (default 40 vector cores,
    half as many cube cores) and $REPAIR_ASCENDC_UB_KB (default 192)."""
    out = []
    for var, default in (("REPAIR_ASCENDC_CORES", 40), ("REPAIR_ASCENDC_UB_KB", 192)):
        raw = os.environ.get(var, "").strip() or str(default)
        if not raw.isdigit() or not 0 < int(raw) <= 1 << 16:
            raise BadInput(f"{var}={raw!r}: expected a whole number from 1 to 65536")
        out.append(int(raw))
    return out[0], max(1, out[0] // 2), out[1] * 1024


def auto_sync() -> bool:
    """$REPAIR_ASCENDC_AUTO_SYNC: `on` (the default, as a custom operator project builds with the BiSheng
    compiler's --cce-auto-sync, which inserts the flags a dependency between pipes needs) or `off` (a kernel built
    with --cce-auto-sync=off: a hand-over between pipes that no queue, flag or barrier orders is a pipe race)."""
    raw = os.environ.get("REPAIR_ASCENDC_AUTO_SYNC", "").strip().lower() or "on"
    if raw not in ("on", "off"):
        raise BadInput(f"REPAIR_ASCENDC_AUTO_SYNC={raw!r}: expected on or off")
    return raw == "on"


class _Arg(ctypes.Structure):
    _fields_ = [("p", ctypes.c_void_p), ("i", ctypes.c_int64), ("f", ctypes.c_double)]


class _TensorDesc(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32), ("dims", ctypes.c_int64 * 8)]


class _Attr(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("f", ctypes.c_double), ("i", ctypes.c_int64), ("s", ctypes.c_char_p),
                ("list", ctypes.POINTER(ctypes.c_int64)), ("nlist", ctypes.c_int32)]


class _Tiling(ctypes.Structure):
    _fields_ = [("block_dim", ctypes.c_uint32), ("tiling_key", ctypes.c_uint64), ("tiling_size", ctypes.c_uint64),
                ("workspace", ctypes.c_uint64), ("status", ctypes.c_uint32)]


_TILING_CAPACITY = 64 * 1024
_NO_WORKSPACE = 4096  # bytes of the workspace a launch gets when its tiling asks for none
_ATTR_KINDS = {"float": 0, "int": 1, "bool": 2, "str": 3, "list_int": 4}


class Library:
    """The candidate's shared library, configured for the emulated chip."""

    def __init__(self, path: str | Path):
        lib = self.lib = ctypes.CDLL(str(path))
        lib.ascendc_emu_configure.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64]
        lib.ascendc_emu_gm_add.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p]
        lib.ascendc_emu_error.restype = ctypes.c_char_p
        lib.ascendc_emu_notes.restype = ctypes.c_char_p
        lib.ascendc_emu_entry.argtypes = [ctypes.POINTER(_Arg), ctypes.c_int, ctypes.c_uint32, ctypes.c_uint64]
        lib.ascendc_emu_configure(*platform_config())
        lib.ascendc_emu_set_auto_sync(int(auto_sync()))
        self.arity = lib.ascendc_emu_arity()
        self.opdef = None
        if hasattr(lib, "ascendc_emu_opdef"):
            lib.ascendc_emu_opdef.restype = ctypes.c_char_p
            lib.ascendc_emu_tiling.argtypes = [
                ctypes.POINTER(_TensorDesc), ctypes.c_int, ctypes.POINTER(_TensorDesc), ctypes.c_int,
                ctypes.POINTER(_Attr), ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(_Tiling)]
            self.opdef = json.loads(lib.ascendc_emu_opdef())

    def error(self) -> str:
        return self.lib.ascendc_emu_error().decode("utf-8", "replace")

    def notes(self) -> list[str]:
        """What the last launch noticed that the NPU does silently (a DataCopy length rounded down, ...)."""
        return [n for n in self.lib.ascendc_emu_notes().decode("utf-8", "replace").splitlines() if n]


def npu_allocation(nbytes: int) -> int:
    """The bytes torch_npu's caching allocator reserves for a tensor of `nbytes`: 32 more, in 512-byte blocks."""
    return (nbytes + 32 + 511) // 512 * 512


_HOST_OUTPUT_MAX = 2000  # characters of what the host printed that a failure's message carries (its last ones)


class _Printed:
    text = ""


@contextlib.contextmanager
def host_output():
    """What the candidate's host code prints on stdout while it runs (its OP_LOGE is often a printf): captured, and
    passed on to the process's stdout as well; `.text` holds its last lines for a failure's message."""
    import sys
    import tempfile

    printed = _Printed()
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    libc.fflush(None)
    saved = os.dup(1)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        try:
            yield printed
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            f.seek(0)
            data = f.read()
            if data:
                os.write(1, data[-(1 << 16):])
            text = " ".join(data.decode("utf-8", "replace").split())
            printed.text = text[-_HOST_OUTPUT_MAX:]


class Arena:
    """The GM of one launch: each tensor in a buffer of its own between two poisoned guard regions."""

    def __init__(self):
        self.regions: list[tuple[Any, int, str]] = []  # (buffer, data bytes, name)
        self._views: dict[int, int] = {}  # id of a tensor living in a buffer -> its region
        self._inputs: list[tuple[Any, Any]] = []  # (caller's tensor, its GM copy)
        self._keep: list = []
        self._data: dict[int, int] = {}  # region -> its tensor's own bytes, where the region holds more

    def _buffer(self, nbytes: int):
        import torch

        buf = torch.empty(GUARD * 2 + nbytes, dtype=torch.uint8)
        buf[:GUARD] = POISON
        buf[GUARD + nbytes:] = POISON
        return buf

    def allocate(self, shape: tuple, dtype, how: str, fill) -> Any:
        """An output the binding allocates: NaN (or the integer type's largest value) unless it asks for a fill."""
        import torch

        numel = 1
        for s in shape:
            numel *= s
        nbytes = numel * torch.empty((), dtype=dtype).element_size()
        # torch_npu's caching allocator hands out 32 bytes more than asked, rounded up to 512-byte blocks: a write
        # into the rest of the output's allocation lands there harmlessly, so the region holds it; it never reaches
        # the output (a kernel writing a whole 32-byte block for its last element is correct on the NPU)
        padded = npu_allocation(nbytes)
        buf = self._buffer(padded)
        buf[GUARD + nbytes:GUARD + padded] = POISON
        view = buf[GUARD:GUARD + nbytes].view(dtype).view(shape)
        if fill is not None:
            view.fill_(fill)
        elif dtype.is_floating_point:
            view.fill_(float("nan"))
        else:
            view.fill_(torch.iinfo(dtype).max if dtype != torch.bool else True)
        self._views[id(view)] = len(self.regions)
        self._data[len(self.regions)] = nbytes
        self.regions.append((buf, padded, ""))
        self._keep.append(view)
        return view

    def raw(self, data: bytes | int, name: str) -> int:
        """A GM buffer of `data` (or of that many zero bytes): the tiling, the workspace."""
        nbytes = data if isinstance(data, int) else len(data)
        buf = self._buffer(nbytes)
        buf[GUARD:GUARD + nbytes] = 0
        if not isinstance(data, int) and nbytes:
            ctypes.memmove(buf.data_ptr() + GUARD, data, nbytes)
        self.regions.append((buf, nbytes, name))
        return buf.data_ptr() + GUARD

    def address(self, tensor, name: str) -> int:
        """Where `tensor` lives in GM (an input is copied into a buffer of its own the first time)."""
        import torch

        region = self._views.get(id(tensor))
        if region is None:
            src = tensor.detach()
            nbytes = src.numel() * src.element_size()
            buf = self._buffer(nbytes)
            if nbytes:
                buf[GUARD:GUARD + nbytes].copy_(_as_laid_out(src, nbytes))
            region = len(self.regions)
            self.regions.append((buf, nbytes, name))
            self._views[id(tensor)] = region
            self._inputs.append((tensor, buf[GUARD:GUARD + nbytes]))
            self._keep.append(tensor)
        buf, nbytes, old = self.regions[region]
        if not old:
            self.regions[region] = (buf, nbytes, name)
        return buf.data_ptr() + GUARD

    def register(self, lib: ctypes.CDLL) -> None:
        """Tell the library the launch's GM tensors (every API access is checked against them)."""
        lib.ascendc_emu_gm_reset()
        for buf, nbytes, name in self.regions:
            lib.ascendc_emu_gm_add(buf.data_ptr() + GUARD, nbytes, name.encode())

    def buffers(self) -> list:
        """What a launch reads and writes, for the runtime guard: every GM buffer, and the caller's tensors the
        inputs were copied from (the kernel reads them through their copies, and writes them back when it updates
        one in place)."""
        return [buf for buf, _, _ in self.regions] + [orig for orig, _ in self._inputs]

    def check_guards(self) -> None:
        """A write that landed in a guard region: a crash, naming the tensor and how far outside it."""
        import torch

        for k, (buf, nbytes, name) in enumerate(self.regions):
            own = self._data.get(k, nbytes)
            for lo, hi, side in ((0, GUARD, "before the start"), (GUARD + nbytes, 2 * GUARD + nbytes, "past the end")):
                bad = torch.nonzero(buf[lo:hi] != POISON)
                if len(bad):
                    at = int(bad[0]) + nbytes - own if side == "past the end" else GUARD - int(bad[-1])
                    raise KernelFault("crash", f"ascendc-cpu: the kernel wrote GM {at} bytes {side} of {name} "
                                               f"({own} bytes), into the poisoned guard region around it; on the "
                                               "NPU this corrupts another tensor or faults")

    def copy_back_inputs(self) -> None:
        """Inputs the kernel wrote are written back, so the runtime guard sees the mutation."""
        import torch

        for orig, data in self._inputs:
            src = _as_laid_out(orig.detach(), data.numel()).contiguous()
            if _memcmp(src.data_ptr(), data.data_ptr(), src.numel()) != 0:
                with torch.no_grad():
                    if orig.is_contiguous():
                        orig.copy_(data.view(orig.dtype).view(orig.shape))
                    else:  # what the kernel wrote lands in the storage as laid out
                        storage = torch.empty(0, dtype=torch.uint8).set_(orig.untyped_storage())
                        start = orig.storage_offset() * orig.element_size()
                        n = min(data.numel(), storage.numel() - start)
                        storage[start:start + n].copy_(data[:n])


class EmulatedOp:
    """One AscendC operator, emulated: `op(plan, args)` evaluates a bound function of the binding on `args`, each
    EXEC_NPU_CMD or direct-launch call in it running the kernel over fresh guarded GM."""

    def __init__(self, lib: Library, binding: BindingProgram, kernel: str, op: str | None,
                 launch_scope: Callable | None = None, variants: list[tuple[tuple, Path]] | None = None,
                 launch_fn: str | None = None):
        self.lib, self.binding, self.kernel, self.op, self.launch_fn = lib, binding, kernel, op, launch_fn
        # a kernel built once per OpDef DataType column: (column, its library), opened when a call needs it
        self.variants = variants or []
        self._opened: dict[int, Library] = {}
        self.launch_scope = launch_scope or (lambda name, args: contextlib.nullcontext())
        self.notes: list[str] = []  # the launches' notes since the last take_notes()
        self.fault: BaseException | None = None  # the first fault of this process's kernels (sticky: see loader)
        if binding.kind == "aclnn" and lib.opdef is None:
            raise MappingError(f"{binding.cand.of('binding')[0].label()}: no OP_ADD registered an operator in the "
                               "host sources")

    def __call__(self, plan: BindingPlan, args: list) -> Any:
        try:
            return self._call(plan, args)
        except (KernelFault, MappingError) as e:
            if self.fault is None:
                self.fault = e
            raise

    def _call(self, plan: BindingPlan, args: list) -> Any:
        arena = Arena()

        def on_call(kind: str, name: str, values: list, texts: list, where: str) -> int:
            if kind == "aclnn" and name != f"aclnn{self.op}":
                op_api_unsupported(self.binding.cand, name, where)
            if kind == "aclnn" and name != f"aclnn{self.op}":
                raise MappingError(f"{where}: the binding runs {name}, another operator than the candidate's own "
                                   f"(aclnn{self.op}): on the NPU that is CANN's kernel, not the candidate's; "
                                   "ascendc-cpu runs the candidate's only")
            if kind == "launch" and name != self.launch_fn:
                raise MappingError(f"{where}: the binding calls {name}; ascendc-cpu builds one host function of a "
                                   f"direct launch, {self.launch_fn}")
            if self.variants and kind == "aclnn":
                self.lib = self._variant(values)
            entry = (self._aclnn if kind == "aclnn" else self._launch)(arena, values, texts, where)
            arena.register(self.lib.lib)
            with self.launch_scope(self.kernel, arena.buffers()):  # what runs here is the kernel's, not torch's
                rc = self.lib.lib.ascendc_emu_entry(*entry)
                self.notes.extend(n for n in self.lib.notes() if n not in self.notes)
                if rc:
                    raise KernelFault(_STATUS.get(rc, "error"), f"ascendc-cpu: {self.lib.error()}")
                arena.check_guards()
                arena.copy_back_inputs()
            return 0

        out = Evaluator(plan, arena.allocate).run(args, on_call)
        if isinstance(out, list):  # pybind11: std::vector -> list, std::tuple -> tuple
            returns = plan.unit.node_text(plan.func.node.child_by_field_name("type") or plan.func.node)
            return tuple(out) if "tuple" in returns.split("(")[0] else list(out)
        return out

    def take_notes(self) -> list[str]:
        notes, self.notes = self.notes, []
        return notes

    def _variant(self, values: list) -> Library:
        """The library built for the OpDef column that takes these inputs' and outputs' dtypes (msopgen's binary
        for them); an error naming the dtypes when no column does, as the NPU's operator would refuse them."""
        opdef = self.lib.opdef
        n_in, n_attr = len(opdef["inputs"]), len(opdef["attrs"])
        named = list(zip([d["name"] for d in opdef["inputs"]], values[:n_in])) + \
            list(zip([d["name"] for d in opdef["outputs"]], values[n_in + n_attr:]))
        have = {name: str(v.dtype).replace("torch.", "") for name, v in named if _is_tensor(v)}
        for i, (column, path) in enumerate(self.variants):
            if all(_GE.get(have[n]) == _GE_NUM[dt] for n, dt in column if n in have):
                if i not in self._opened:
                    self._opened[i] = Library(path)
                return self._opened[i]
        raise KernelFault("error", "ascendc-cpu: no DataType column of the OpDef takes " +
                          ", ".join(f"{n}: {d}" for n, d in have.items()) + " (msopgen builds the kernel for those only)")

    # msopgen: EXEC_NPU_CMD(aclnn<Op>, inputs..., attributes..., outputs...), then the host tiling, then the entry
    def _aclnn(self, arena: Arena, values: list, texts: list, where: str) -> tuple:
        opdef = self.lib.opdef
        n_in, n_attr, n_out = len(opdef["inputs"]), len(opdef["attrs"]), len(opdef["outputs"])
        if len(values) != n_in + n_attr + n_out:
            raise MappingError(
                f"{where}: EXEC_NPU_CMD passes {len(values)} arguments after aclnn{self.op}; "
                f"its OpDef has {n_in} inputs, {n_attr} attributes and {n_out} outputs, in that order")
        ins, attrs, outs = values[:n_in], values[n_in:n_in + n_attr], values[n_in + n_attr:]
        for what, group, decl in (("input", ins, opdef["inputs"]), ("output", outs, opdef["outputs"])):
            for v, d, text in zip(group, decl, texts):
                if not _is_tensor(v) and not (what == "input" and (v is None or isinstance(v, Opaque))):
                    raise MappingError(f"{where}: the OpDef's {what} {d['name']} gets "
                                       f"`{text}`, not a tensor")
        tiling = self._tiling(ins, attrs, outs)
        args = [arena.address(t, f"input {d['name']}") if _is_tensor(t) else None
                for t, d in zip(ins, opdef["inputs"])]
        args += [arena.address(t, f"output {d['name']}") for t, d in zip(outs, opdef["outputs"])]
        # the NPU's framework passes a workspace even where the tiling asks for none (the system workspace starts it:
        # GetSysWorkSpacePtr is never null there); a small one stands for it
        workspace = arena.raw(int(tiling.workspace) or _NO_WORKSPACE, "workspace")
        args += [workspace, arena.raw(bytes(self._tiling_bytes[:tiling.tiling_size]), "tiling")]
        if self.lib.arity != len(args):
            raise MappingError(f"kernel entry {self.kernel} takes {self.lib.arity} parameters; the OpDef's {n_in} "
                               f"inputs and {n_out} outputs, the workspace and the tiling make {len(args)}")
        return self._args(args), len(args), tiling.block_dim, tiling.tiling_key

    def _tiling(self, ins: list, attrs: list, outs: list) -> _Tiling:
        def desc(t) -> _TensorDesc:
            d = _TensorDesc()
            if not _is_tensor(t):
                d.ndim = -1  # an input the call leaves out (an undefined at::Tensor()): the host sees nullptr
            else:
                if t.dim() > 8:
                    raise MappingError(f"a tensor of {t.dim()} dimensions (the tiling context takes 8)")
                d.dtype, d.ndim = _GE.get(str(t.dtype).replace("torch.", ""), 28), t.dim()
                for k, s in enumerate(t.shape):
                    d.dims[k] = s
            return d

        keep = []
        attr_arr = (_Attr * max(1, len(attrs)))()
        for k, (v, decl) in enumerate(zip(attrs, self.lib.opdef["attrs"])):
            a = attr_arr[k]
            a.kind = _ATTR_KINDS.get(decl["kind"], 0)
            if isinstance(v, (list, tuple)):
                arr = (ctypes.c_int64 * len(v))(*[int(x) for x in v])
                keep.append(arr)
                a.list, a.nlist = arr, len(v)
            elif isinstance(v, str):
                a.s = v.encode()
            elif isinstance(v, (int, float, bool)):
                a.f, a.i = float(v), int(v)
        in_arr = (_TensorDesc * max(1, len(ins)))(*[desc(t) for t in ins])
        out_arr = (_TensorDesc * max(1, len(outs)))(*[desc(t) for t in outs])
        self._tiling_bytes = (ctypes.c_uint8 * _TILING_CAPACITY)()
        res = _Tiling()
        with host_output() as printed:  # OP_LOGE and the like: the host's reason for failing, said with it
            rc = self.lib.lib.ascendc_emu_tiling(in_arr, len(ins), out_arr, len(outs), attr_arr, len(attrs),
                                                 ctypes.cast(self._tiling_bytes, ctypes.c_void_p), _TILING_CAPACITY,
                                                 ctypes.byref(res))
        said = f"; it printed: {printed.text}" if printed.text else ""
        if rc:
            raise KernelFault(_STATUS.get(rc, "error"), f"ascendc-cpu: the host's TilingFunc: {self.lib.error()}{said}")
        if res.status != 0:
            name = " (GRAPH_FAILED)" if res.status == 0xFFFFFFFF else ""
            raise KernelFault("error", f"ascendc-cpu: the host's TilingFunc returned {res.status}{name}, not "
                                       f"GRAPH_SUCCESS{said}")
        if res.block_dim == 0:
            raise KernelFault("error", "ascendc-cpu: the host's TilingFunc set no block dimension "
                                       "(context->SetBlockDim)")
        if res.workspace > 1 << 32:
            raise KernelFault("error", f"ascendc-cpu: the tiling asks for a workspace of {res.workspace} bytes")
        return res

    # a direct launch: the host function's parameters in order; data_ptr()s become GM addresses
    def _launch(self, arena: Arena, values: list, texts: list, where: str) -> tuple:
        args = []
        for v, text in zip(values, texts):
            if isinstance(v, Ptr):
                args.append(arena.address(v.tensor, _name(text)))
            elif _is_tensor(v):
                args.append(arena.address(v, _name(text)))
            elif isinstance(v, Opaque):
                args.append(None)  # a stream: the emulation has none
            elif isinstance(v, (bool, int, float)):
                args.append(v)
            else:
                raise MappingError(f"{where}: ascendc-cpu cannot pass `{text}` to "
                                   f"{self.launch_fn}")
        if self.lib.arity != len(args):
            raise MappingError(f"{where}: {self.launch_fn} takes {self.lib.arity} "
                               f"parameters, the binding passes {len(args)}")
        return self._args(args), len(args), 0, 0

    @staticmethod
    def _args(values: list):
        arr = (_Arg * max(1, len(values)))()
        for a, v in zip(arr, values):
            if v is None:
                continue
            if isinstance(v, float):
                a.f = v
                a.i = int(v)
            elif isinstance(v, int):
                a.i = v
                a.f = float(v)
                if v >= 0:
                    a.p = v  # an address
        return arr


def _as_laid_out(t, nbytes: int):
    """The bytes a kernel reads from `t.data_ptr()`: its storage from its offset on, as laid out (a transposed or
    expanded view is not made contiguous on the NPU either); past the storage's end, poison."""
    import torch

    if t.is_contiguous():
        return t.reshape(-1).view(torch.uint8)
    storage = torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage())
    start = t.storage_offset() * t.element_size()
    have = storage[start:start + nbytes]
    if have.numel() == nbytes:
        return have
    out = torch.full((nbytes,), POISON, dtype=torch.uint8)
    out[:have.numel()] = have
    return out


def _memcmp(a: int, b: int, n: int) -> int:
    libc = ctypes.CDLL(None)
    libc.memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    return libc.memcmp(a, b, n) if n else 0


def _name(text: str) -> str:
    m = re.search(r"(\w+)\s*\.\s*(?:data_ptr|const_data_ptr|mutable_data_ptr)", text)
    return m.group(1) if m else text.strip()[:40]


def _is_tensor(v) -> bool:
    return type(v).__name__ == "Tensor" and hasattr(v, "shape")
