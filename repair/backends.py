"""Where kernels run: a small registry of backends chosen by name.

A backend says which device tensors go to, which environment the sandboxed processes start with,
what those processes import or do before running a kernel, and whether the hardware is there.
"""
from __future__ import annotations

import importlib.util
from typing import ClassVar

from repair.errors import BadInput, EnvironmentMissing


class Backend:
    name: ClassVar[str] = ""
    device: ClassVar[str] = "cpu"
    env: ClassVar[dict[str, str]] = {}  # set in the sandbox processes' environment
    env_remove: ClassVar[tuple[str, ...]] = ()  # removed from it
    env_defaults: ClassVar[dict[str, str]] = {}  # set there unless the user's environment sets them
    preload: ClassVar[tuple[str, ...]] = ("torch", "triton", "triton.language")  # imported once, before forking
    child_imports: ClassVar[tuple[str, ...]] = ()  # imported in each forked process (not fork-safe to preload)
    limit_address_space: ClassVar[bool] = True  # RLIMIT_AS works with this runtime
    warm_kernel: ClassVar[bool] = False  # the fork server may launch a tiny kernel (no device context to inherit)

    def check_available(self) -> None:
        """Raise EnvironmentMissing, with what to do about it, when this backend cannot run here."""

    def synchronize(self) -> None:
        """Wait for queued device work (called inside sandbox processes around timed forwards)."""


_FOUND: set[str] = set()  # modules found importable once (the engine checks before every evaluation)


def _need(module: str, why: str) -> None:
    if module not in _FOUND:
        if importlib.util.find_spec(module) is None:
            raise EnvironmentMissing(why)
        _FOUND.add(module)


class TritonCPU(Backend):
    """Triton kernels under the interpreter (TRITON_INTERPRET=1) on CPU tensors."""

    name = "triton-cpu"
    device = "cpu"
    env = {"TRITON_INTERPRET": "1"}
    # One thread per process: the interpreter's numpy work and torch's small CPU ops gain nothing from
    # a thread pool, and creating one costs every fresh process ~12 ms on its first op over 32k elements
    env_defaults = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    warm_kernel = True

    def check_available(self) -> None:
        _need("triton", "backend triton-cpu needs the triton package (pip install triton)")
        _need("torch", "backend triton-cpu needs torch")


class Cuda(Backend):
    """The same Triton kernels compiled for an NVIDIA GPU."""

    name = "cuda"
    device = "cuda"
    env_remove = ("TRITON_INTERPRET",)
    # the CUDA driver reserves very large virtual ranges; an address-space limit breaks it
    limit_address_space = False

    def check_available(self) -> None:
        _need("triton", "backend cuda needs the triton package")
        import torch

        if not torch.cuda.is_available():
            raise EnvironmentMissing(
                "backend cuda: torch.cuda.is_available() is False "
                f"(torch {torch.__version__}; no NVIDIA GPU or a CPU-only torch build)")

    def synchronize(self) -> None:
        import torch

        torch.cuda.synchronize()


class Npu(Backend):
    """A torch_npu device with triton-ascend kernels."""

    name = "npu"
    device = "npu"
    env_remove = ("TRITON_INTERPRET",)
    limit_address_space = False
    preload = ("torch",)  # triton-ascend and torch_npu initialise the device: import them after fork
    child_imports = ("torch_npu", "triton", "triton.language")

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


BACKENDS: dict[str, type[Backend]] = {b.name: b for b in (TritonCPU, Cuda, Npu)}


def get_backend(name: str) -> Backend:
    try:
        return BACKENDS[name]()
    except KeyError:
        raise BadInput(f"unknown backend {name!r} (known: {', '.join(sorted(BACKENDS))})") from None
