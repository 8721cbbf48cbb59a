"""Test programs against the ascendc-cpu emulation's headers: a C++ file compiled once for the session into a library
of exported functions, each run on guarded GM copies of torch tensors (test_emu_api.py, test_emu_lib.py)."""
from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import torch

from repair.ascendc.emu.build import FLAGS, INCLUDE, compiler
from repair.ascendc.emu.runner import Arena

DATA = Path(__file__).parent / "data"


def build(out: Path, *sources: str) -> ctypes.CDLL:
    """The library of `sources` (files under data/), configured as the default chip (40 cores, 192 KB of UB)."""
    r = subprocess.run([compiler()[0], *FLAGS, "-O1", "-shared", "-I", str(INCLUDE), "-I", str(DATA),
                        *(str(DATA / s) for s in sources), "-o", str(out), "-Wl,--no-undefined"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    cdll = ctypes.CDLL(str(out))
    cdll.ascendc_emu_gm_add.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p]
    cdll.ascendc_emu_configure.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64]
    cdll.ascendc_emu_error.restype = ctypes.c_char_p
    cdll.ascendc_emu_notes.restype = ctypes.c_char_p
    cdll.ascendc_emu_configure(40, 20, 192 * 1024)
    return cdll


def call(lib, fn: str, head: list, tensors: list, tail: list = (), outputs=()) -> int:
    """fn(head..., GM addresses of tensors..., tail...) on guarded copies; outputs copied back; the fault kind."""
    arena = Arena()
    addrs = [ctypes.c_void_p(arena.address(t, f"arg{i}")) for i, t in enumerate(tensors)]
    arena.register(lib)
    rc = getattr(lib, fn)(*head, *addrs, *tail)
    arena.check_guards()
    for i in outputs:
        buf, nbytes, _ = arena.regions[i]
        tensors[i].reshape(-1).view(torch.uint8).copy_(buf[4096:4096 + nbytes])
    return rc
