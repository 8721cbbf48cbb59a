"""g++ for ascendc-cpu: which compiler, its identity (part of every cache key), and running it within limits.

A compiler run is the candidate's build: it runs with the candidate process's memory budget, not beside it.
Units compile one at a time, each under an address-space limit equal to what the calling process may still map
(`ulimit -v`, as g++ starts: its own limit is not the caller's whole limit again), in a process group of its own
that is killed whole at the deadline (cc1plus with it), its output kept in a file and read back only as far as a
message needs.
"""
from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
from pathlib import Path

from repair.errors import EnvironmentMissing

FLAGS = ("-std=c++17", "-fPIC", "-fvisibility=hidden", "-w", "-pipe", "-fmax-errors=8")
# the kernel's vector loops are what runs per case; the host's tiling runs once and compiles faster unoptimised
OPT = {"ascendc_emu_kernel.cpp": "-O2", "ascendc_emu_host.cpp": "-O0"}
OUTPUT_MAX = 64 << 10  # of a compiler's output: more than any message shows
_MIN_AS = 64 << 20


@functools.cache
def compiler() -> tuple[str, str]:
    """(path, identity) of the C++ compiler: $CXX, else g++; EnvironmentMissing when there is none."""
    name = os.environ.get("CXX") or "g++"
    path = shutil.which(name)
    if path is None:
        raise EnvironmentMissing(f"backend ascendc-cpu needs a C++17 compiler with _Float16 (g++ >= 12): "
                                 f"{name} is not on PATH (set CXX, or install g++)")
    try:
        out = subprocess.run([path, "-dumpfullversion", "-dumpmachine"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvironmentMissing(f"backend ascendc-cpu: {path} does not run ({e})") from None
    return path, f"{Path(path).name} {' '.join(out.stdout.split())}"


@functools.cache
def identity() -> dict:
    """What a cache key says of the compiler: its version and target, the driver's real path and sha256, and the
    C++ front end it runs (cc1plus: path, size, mtime; 35 MB is not hashed per process)."""
    from repair.ascendc.emu.cache import file_sha256

    path, version = compiler()
    real = os.path.realpath(path)
    out = {"version": version, "driver": real, "driver_sha256": file_sha256(real)}
    try:
        cc1 = subprocess.run([path, "-print-prog-name=cc1plus"], capture_output=True, text=True, timeout=30).stdout.strip()
        st = os.stat(cc1)
        out["cc1plus"] = [os.path.realpath(cc1), st.st_size, st.st_mtime_ns]
    except (OSError, subprocess.TimeoutExpired):
        out["cc1plus"] = None
    return out


def headroom() -> int | None:
    """Bytes of address space this process may still map (its RLIMIT_AS less what it maps now); None: no limit."""
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/status") as f:
            vm = next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return soft
    return max(soft - vm, _MIN_AS)


def run(cmd: list[str], *, cwd: Path, timeout_s: float, log: Path) -> tuple[int, str]:
    """(exit status, the head of its output): the compiler within this process's memory budget, killed with its
    process group at `timeout_s` (status -9 then, and the output says so)."""
    room = headroom()
    if room is not None:  # the shell lowers the limit, then becomes the compiler
        cmd = ["/bin/sh", "-c", f'ulimit -v {room >> 10} && exec "$@"', "sh", *cmd]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, "LC_ALL": "C"}, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill(proc)
            return -signal.SIGKILL, f"the compiler took longer than {timeout_s:g}s"
    with open(log, "rb") as f:
        return code, f.read(OUTPUT_MAX).decode("utf-8", "replace")


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
