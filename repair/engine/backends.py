"""Where kernels run: a small registry of backends chosen by name.

A backend says which device tensors go to, which environment the sandboxed processes start with,
what those processes import or do before running a kernel, and whether the hardware is there.
"""
from __future__ import annotations

import importlib.util
import os
import re
from typing import ClassVar

from repair.errors import BadInput, EnvironmentMissing

# what a candidate written only for CUDA shows when its tensors are on the CPU
_CUDA_ONLY = re.compile(r"Torch not compiled with CUDA enabled|\bis_cuda\b|device=['\"]cuda|\.cuda\(\)"
                        r"|device\.type\s*[!=]=\s*['\"]cuda")
# errors that are the Triton interpreter's limits, not the kernel's: (pattern, the construct it names)
_INTERPRETER_LIMITS = [
    (r"libdevice \S+ has no implementation on the Triton interpreter", "a libdevice call without a numpy counterpart"),
    (r"mask has unsupported dtype", "a load/store mask of a non-bool dtype"),
    (r"inline_asm", "tl.inline_asm_elementwise (device assembly)"),
    (r"NotImplementedError\(.{0,80}interpret", "a construct the interpreter does not implement"),
]


class Backend:
    name: ClassVar[str] = ""
    device: ClassVar[str] = "cpu"
    env: ClassVar[dict[str, str]] = {}  # set in the sandbox processes' environment
    env_remove: ClassVar[tuple[str, ...]] = ()  # removed from it
    env_defaults: ClassVar[dict[str, str]] = {}  # set there unless the user's environment sets them
    preload: ClassVar[tuple[str, ...]] = ("torch", "triton", "triton.language")  # imported once, before forking
    child_imports: ClassVar[tuple[str, ...]] = ()  # imported in each forked process (not fork-safe to preload)
    # how the candidate's memory limit is enforced: "as" caps its address space (RLIMIT_AS), "data" its
    # private writable memory (RLIMIT_DATA: what malloc, mmap'd heaps and host tensors use, not the huge
    # PROT_NONE ranges a GPU driver reserves), None leaves it unlimited
    memory_rlimit: ClassVar[str | None] = "as"
    warm_kernel: ClassVar[bool] = False  # the fork server may launch a tiny kernel (no device context to inherit)
    # candidates confine themselves (capabilities dropped, Landlock: repair/engine/confine/policy.py) unless
    # REPAIR_CONFINE says otherwise; a backend whose driver or compiler has not run confined keeps this off
    confine_default: ClassVar[bool] = False
    # a confined candidate may start processes only where the backend's own toolchain does (ptxas on a GPU)
    spawns_processes: ClassVar[bool] = True
    languages: ClassVar[tuple[str, ...]] = ("python",)  # the candidates it runs: python (Triton) or ascendc
    emulated: ClassVar[bool] = False  # its results come from an emulation of the hardware, and say so
    timed: ClassVar[bool] = False  # kernels run on the device they were written for: their times mean something
    build_s: ClassVar[float] = 0.0  # seconds a candidate process may take to build the candidate, beyond --timeout

    def candidate_loader(self, path: str):
        """How a candidate process gets a candidate that is not a Python file to import (None: import it): an
        object with `writable` (directories Landlock leaves writable), `build()` (its toolchain, run before seccomp
        forbids new processes; no candidate code runs) and `load()` (a module-like object with ModelNew)."""
        return None

    def check_available(self) -> None:
        """Raise EnvironmentMissing, with what to do about it, when this backend cannot run here."""

    def prepare_server(self) -> None:
        """In the fork server, after its imports and before any fork: fill the per-process caches every
        child would otherwise fill on its own (nothing here may start a device context)."""

    def prepare_spare(self) -> None:
        """In a spare process the fork server keeps ready (before it knows its role or candidate): start
        what every child needs and the server could not start before forking. Errors are ignored there:
        the child meets them again, where they are reported."""

    def synchronize(self) -> None:
        """Wait for queued device work (called inside sandbox processes around timed forwards)."""

    def landlock_writable(self) -> list[str]:
        """Directories a Landlock-confined candidate may write besides its own scratch directory (and /dev/null)."""
        return []

    def hint(self, message: str) -> str | None:
        """A line for a failed case whose message shows the candidate met this backend's limits, not a bug."""
        return None

    def unsupported(self, message: str, candidate: str) -> str | None:
        """For an error that is this backend's limit (a construct its emulation cannot run as the hardware would):
        the construct and the candidate's line, else None."""
        return None

    def problem_hint(self, message: str) -> str | None:
        """A few words for a problem whose code failed in the reference process on this backend's limits."""
        return None

    def confirm_unsupported(self, candidate: str, message: str) -> bool:
        """Whether the candidate really uses what its process said this backend lacks (read from its sources in
        the engine, so no candidate can claim `unsupported` to dodge a failure); nothing is, by default."""
        return False


_FOUND: set[str] = set()  # modules found importable once (the engine checks before every evaluation)


def _need(module: str, why: str) -> None:
    if module not in _FOUND:
        try:  # a module without a spec in sys.modules is a stand-in (ascendc-cpu's torch_npu), not the real one
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise EnvironmentMissing(why)
        _FOUND.add(module)


class TritonCPU(Backend):
    """Triton kernels under the interpreter (TRITON_INTERPRET=1) on CPU tensors."""

    name = "triton-cpu"
    device = "cpu"
    env = {"TRITON_INTERPRET": "1"}
    confine_default = True  # the interpreter writes nothing: the candidate may write its scratch directory only
    spawns_processes = False  # nor does it start a process: a confined candidate may not either (threads may)
    # One thread per process: the interpreter's numpy work and torch's small CPU ops gain nothing from
    # a thread pool, and creating one costs every fresh process ~12 ms on its first op over 32k elements
    env_defaults = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    warm_kernel = True

    def hint(self, message: str) -> str | None:
        if _CUDA_ONLY.search(message):
            return ("hint: the candidate assumes CUDA tensors; on triton-cpu, the CPU stand-in, every tensor is on "
                    "the CPU, so .cuda(), device='cuda', torch.cuda.* and is_cuda checks fail here: take the "
                    "device from the inputs (x.device) and leave synchronisation to the harness")
        if "active drivers" in message:
            return ("hint: the candidate asks triton's GPU driver for something (triton.runtime.driver.active: "
                    "device properties, the current target); on triton-cpu, the CPU stand-in, the interpreter has "
                    "no driver")
        return None

    def unsupported(self, message: str, candidate: str) -> str | None:
        found = next(((m, name) for pattern, name in _INTERPRETER_LIMITS if (m := re.search(pattern, message))), None)
        if found is None:
            return None
        construct = f"{found[1]} ({found[0].group(0)[:80]})"
        base = re.escape(os.path.basename(candidate))
        at = re.search(r"called at [^\s:]*" + base + r":(\d+)", message)  # the kernel's line, where the shim saw it
        lines = [at.group(1)] if at else re.findall(r'File "[^"]*' + base + r'", line (\d+)', message)
        where = f"{candidate}:{lines[-1]}" if lines else candidate
        return (f"unsupported on the Triton interpreter: {construct} at {where} (repair/engine/interpreter.py names "
                "what it runs faithfully; run it with --backend cuda on a GPU)")

    def problem_hint(self, message: str) -> str | None:
        if _CUDA_ONLY.search(message):
            return ("the problem builds CUDA tensors, and on triton-cpu, the CPU stand-in, every tensor is on the "
                    "CPU: run it with --backend cuda on a GPU machine, or have it build CPU tensors")
        return None

    def prepare_server(self) -> None:
        # what a GPU gives Triton and the interpreter lacks: a benchmarker for @triton.autotune, libdevice; and what
        # the interpreter does differently from a GPU, done as a GPU does it (bf16 dot, mask dtypes, float args)
        from repair.engine.interpreter import autotune_without_benchmarks, faithful_interpreter, libdevice_on_interpreter

        autotune_without_benchmarks()
        libdevice_on_interpreter()
        faithful_interpreter()

    def check_available(self) -> None:
        _need("triton", "backend triton-cpu needs the triton package (pip install triton)")
        _need("torch", "backend triton-cpu needs torch")


class Cuda(Backend):
    """The same Triton kernels compiled for an NVIDIA GPU."""

    name = "cuda"
    device = "cuda"
    timed = True
    env_remove = ("TRITON_INTERPRET",)
    # the reference runs under torch's deterministic mode; cuBLAS needs a fixed workspace for it
    env_defaults = {"CUBLAS_WORKSPACE_CONFIG": ":4096:8"}
    # the CUDA driver reserves very large virtual ranges (an address-space limit breaks it); those are not
    # private writable memory, so host memory is capped with RLIMIT_DATA instead (device memory is not capped)
    memory_rlimit = "data"

    def check_available(self) -> None:
        _need("triton", "backend cuda needs the triton package")
        import torch

        if not torch.cuda.is_available():
            raise EnvironmentMissing(
                "backend cuda: torch.cuda.is_available() is False "
                f"(torch {torch.__version__}; no NVIDIA GPU or a CPU-only torch build)")

    def prepare_server(self) -> None:
        # Triton's first launch in a process hashes its own compiler sources, runs `ldconfig -p` and
        # `ptxas --version` (each cached for the process's life) and imports its gluon modules, none of it
        # needing CUDA: done once here, every child inherits the results (bench/bench_cuda_start.py: a fresh
        # process's first launch on an H200, triton 3.6). Best effort: triton internals move between versions.
        import importlib

        def call(module: str, name: str):
            return lambda: getattr(importlib.import_module(module), name)()

        steps = (call("triton.runtime.cache", "triton_key"), call("triton.compiler.compiler", "triton_key"),
                 call("triton.backends.nvidia.driver", "libcuda_dirs"),
                 lambda: importlib.import_module("triton.knobs").nvidia.ptxas.version,
                 lambda: importlib.import_module("triton.backends.nvidia.compiler"),
                 lambda: importlib.import_module("triton.experimental.gluon"))
        for step in steps:
            try:
                step()
            except Exception:  # noqa: BLE001 — absent from this triton version
                pass

    def prepare_spare(self) -> None:
        # A CUDA context cannot be inherited through fork, and each process's first launch also loads
        # triton's CUDA driver and launcher: ~0.3 s, done here while the spare waits for its request
        from repair.engine.warmkernel import launch_once

        launch_once("cuda")

    def synchronize(self) -> None:
        import torch

        torch.cuda.synchronize()

    def landlock_writable(self) -> list[str]:
        # not yet run confined on a GPU (REPAIR_CONFINE=on only): triton compiles through ptxas in the temporary
        # directory and writes its cache, the driver its JIT cache (~/.nv) and the device nodes
        return _gpu_writable(os.environ.get("TRITON_CACHE_DIR") or os.path.expanduser("~/.triton"),
                             os.path.expanduser("~/.nv"))


class Npu(Backend):
    """A torch_npu device with triton-ascend kernels, or AscendC candidates built with CANN (repair/ascendc/npu.py)."""

    name = "npu"
    device = "npu"
    timed = True
    env_remove = ("TRITON_INTERPRET",)
    memory_rlimit = None  # not tried on Ascend hardware yet: RLIMIT_DATA may suit it as it suits CUDA
    preload = ("torch",)  # triton-ascend and torch_npu initialise the device: import them after fork
    child_imports = ("torch_npu", "triton", "triton.language")
    languages = ("python", "ascendc")
    build_s = 900.0  # an AscendC operator project's CANN build and install; Triton candidates build nothing

    def candidate_loader(self, path: str):
        from repair.ascendc import NpuLoader, is_ascendc_candidate

        if not is_ascendc_candidate(path):
            return None
        return NpuLoader(path, build_timeout_s=self.build_s)

    def check_available(self) -> None:
        _need("torch_npu", "backend npu needs torch_npu and triton-ascend (Ascend CANN toolkit); "
                           "torch_npu is not importable here")
        _need("triton", "backend npu needs triton-ascend; no triton package is importable here")
        import torch
        import torch_npu  # noqa: F401  (registers torch.npu)

        if not torch.npu.is_available():
            raise EnvironmentMissing("backend npu: torch_npu is installed but torch.npu.is_available() is False")

    def synchronize(self) -> None:
        import torch

        torch.npu.synchronize()

    def landlock_writable(self) -> list[str]:
        # not yet run on Ascend hardware: the same guess as CUDA's, with CANN's log directory
        return _gpu_writable(os.environ.get("TRITON_CACHE_DIR") or os.path.expanduser("~/.triton"),
                             os.environ.get("ASCEND_PROCESS_LOG_PATH") or os.path.expanduser("~/ascend"))


def _gpu_writable(*caches: str) -> list[str]:
    import tempfile

    for d in caches:  # created now: a directory made after the confinement could not be written
        os.makedirs(d, exist_ok=True)
    return [d for d in (tempfile.gettempdir(), "/dev", *caches) if os.path.isdir(d)]


class AscendCCPU(Backend):
    """AscendC vector kernels built with g++ against an emulation of the AscendC API (repair/ascendc/emu/), run on
    CPU tensors; every result says `emulated`."""

    name = "ascendc-cpu"
    device = "cpu"
    preload = ("torch", "repair.ascendc.emu.loader")  # the reading, mapping and building, imported once
    languages = ("ascendc",)
    emulated = True
    build_s = 300.0  # a cold g++ build; a cached one takes milliseconds
    confine_default = True  # g++ writes the candidate's build directory; its kernel writes nothing
    spawns_processes = False  # g++ runs before seccomp forbids new processes; the kernel may not start one
    env_defaults = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}

    def check_available(self) -> None:
        _need("torch", "backend ascendc-cpu needs torch")
        from repair.ascendc import auto_sync, compiler, platform_config

        compiler()  # EnvironmentMissing when there is no g++
        from repair.ascendc import checked_root

        checked_root()  # CacheRefused (exit 3) when the build cache is not safely this user's
        platform_config()  # BadInput for a malformed $REPAIR_ASCENDC_CORES or $REPAIR_ASCENDC_UB_KB
        auto_sync()  # and for $REPAIR_ASCENDC_AUTO_SYNC other than on/off

    def prepare_server(self) -> None:
        from repair.ascendc import prepare_pch

        prepare_pch()  # the emulation's headers precompiled once, here: no candidate process may write them

    def candidate_loader(self, path: str):
        from repair.ascendc import EmulatedLoader
        from repair.integrity import foreign_launch

        return EmulatedLoader(path, launch_scope=foreign_launch)

    def confirm_unsupported(self, candidate: str, message: str) -> bool:
        from repair.ascendc import confirm_unsupported

        return confirm_unsupported(candidate, message)


BACKENDS: dict[str, type[Backend]] = {b.name: b for b in (TritonCPU, Cuda, Npu, AscendCCPU)}


DEFAULT_BACKEND = "triton-cpu"


def default_backend() -> str:
    """The backend used where none is named: $REPAIR_BACKEND (set it once on a GPU or NPU machine), else triton-cpu."""
    return os.environ.get("REPAIR_BACKEND") or DEFAULT_BACKEND


def get_backend(name: str | None = None) -> Backend:
    name = name or default_backend()
    try:
        return BACKENDS[name]()
    except KeyError:
        raise BadInput(f"unknown backend {name!r} (known: {', '.join(sorted(BACKENDS))})") from None
