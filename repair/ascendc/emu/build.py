"""The ascendc-cpu build: a candidate's kernel, host tiling and a launcher compiled by g++ into one shared library.

The candidate's C++ sources are written as they are (a `#line` directive first, so the compiler's messages and
the emulator's faults name the candidate's own file and line; a direct launch's `k<<<blocks, l2, stream>>>(...)`
becomes `launch_blocks(blocks, &k, ...)`), beside two generated units: the kernel unit includes the emulation
(`include/kernel_operator.h`), the registered tiling struct and the kernel, then the launcher that runs the entry
once per block; the host unit (msopgen formats) includes the OpDef and TilingFunc and the C functions that run
the tiling. The library is cached (repair/ascendc/emu/cache.py) by the sha256 of everything that makes it (sources,
the emulation's headers, the compiler's identity, flags), checked against every other header g++ read; a compile
error is cached too, and comes back as a `compile-error` result. Before anything is compiled, an include that
could read outside the candidate's files and the emulation's headers is refused (repair/ascendc/emu/includes.py).
"""
from __future__ import annotations

import functools
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from provenance.canonical import content_hash, sha256_text
from repair.ascendc.candidate import AscendCCandidate, SourceFile, snake
from repair.ascendc.emu import cache
from repair.ascendc.emu.compiler import FLAGS, OPT, compiler, identity, run
from repair.errors import RepairError

ABI = "ascendc-cpu/2"
INCLUDE = Path(__file__).resolve().parent / "include"
LAUNCHER = "ascendc-cpu launcher"
_LAUNCH = re.compile(r"([A-Za-z_][\w:]*(?:\s*<[^<>;(){}]*>)?)\s*<<<([^;{}]*?)>>>\s*\(\s*(\)?)")
_TILING_INCLUDE = re.compile(r'#\s*include\s*"([\w.-]+\.h)"')
_OP_API = re.compile(r'#\s*include\s*[<"](?:opdev|aclnn|level0)/')
_TILING_DEF = re.compile(r"\b(BEGIN_TILING_DATA_DEF|REGISTER_TILING_DATA_CLASS)\b")
# a failure of the compiler or the machine, not of the candidate: not cached (the next evaluation tries again)
_UNSURE = re.compile(r"internal compiler error|out of memory|memory exhausted|took longer than|Killed signal")


class CompileError(RepairError):
    """g++ could not build the candidate: every case is a `compile-error` with the compiler's message."""

    case_status = "compile-error"


class UnsupportedApi(CompileError):
    """The candidate calls an AscendC API (or a form of one) the emulation lacks: every case is `unsupported`, which
    this environment cannot judge (exit 3), not `compile-error`; the message names the API and the line first."""

    case_status = "unsupported"


def compile_failure(message: str) -> CompileError:
    """The error a build's compiler message means: UnsupportedApi when it names an API repair.ascendc.emu.api lists
    as not emulated (or a form of a partial one), else CompileError."""
    from repair.ascendc.emu.api import unsupported_in

    found = unsupported_in(message)
    return UnsupportedApi(f"{found.message()}\n{message}") if found else CompileError(message)


@dataclass(frozen=True)
class EmuBuild:
    """What to write and compile for one candidate, and its cache key."""

    files: dict[str, str]  # path under the build directory -> text
    units: tuple[str, ...]  # the translation units
    include_dirs: tuple[str, ...]  # under the build directory
    entry: str  # the kernel entry (msopgen) or the direct launch's host function
    key: str
    # msopgen compiles a kernel once per column of its OpDef's DataType lists, with DTYPE_<NAME> defined: one
    # library per column here (lib-<i>.so), each column as ((input or output name, "DT_..."), ...); () when the
    # kernel uses no DTYPE_ macro (one library, lib.so)
    variants: tuple[tuple[tuple[str, str], ...], ...] = ()

    def library_name(self, variant: int | None = None) -> str:
        return "lib.so" if variant is None or not self.variants else f"lib-{variant}.so"


def plan_emu_build(cand: AscendCCandidate, *, launch_fn: str | None = None) -> EmuBuild:
    """The build of `cand`; a direct launch names the host function its binding calls (`launch_fn`)."""
    direct = cand.format == "mkb-direct"
    files: dict[str, str] = {}
    for src in cand.of("host_tiling", "host_operator", "kernel", "launch"):
        for dest in _destinations(cand, src):
            text = _launches(src.text) if src.role in ("kernel", "launch") else src.text
            files[dest] = f'#line {src.first_line} "{_c_string(src.label())}"\n{text}'
    kernels = [d for s in cand.of("kernel") for d in _destinations(cand, s) if not d.endswith((".h", ".hpp", ".hh"))]
    # the kernel sees the tiling structs only, as msopgen's kernel build does: a host header of helpers (non-inline
    # functions the host unit defines too) stays out of it
    tiling = [] if direct else [d for s in cand.of("host_tiling") if _TILING_DEF.search(s.text)
                                for d in _destinations(cand, s)[:1]]
    entry = launch_fn if direct else cand.kernel
    if entry is None:
        raise ValueError("a direct launch's build needs the host function its binding calls")
    call = (f"::ascendc_emu::run_launch(&{entry}, args, nargs)" if direct
            else f"::ascendc_emu::run_entry(&{entry}, args, nargs, blocks, tiling_key)")
    registered = []
    if not direct:
        # a CPU build, as CANN's CPU debug mode: kernels leave out their own <<<>>> launchers under #ifndef
        registered.append("#define ASCENDC_CPU_DEBUG 1\n")
        if entry in _LIBM:  # an entry named like a C math function (sqrt): its own name here, not libm's
            registered.append(f"#define {entry} ascendc_emu_entry_{entry}\n")
    # msopgen's kernel build declares the tiling structs at global scope: kernels name them unqualified
    for t in ([] if direct else cand.of("host_tiling")):
        text = t.text
        for m in re.finditer(r"\bBEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)", text):
            if re.search(r"\bnamespace\s+optiling\b", text[:m.start()]):
                registered.append(f"using optiling::{m.group(1)};\n")
    files["ascendc_emu_kernel.cpp"] = "".join(
        ['#include "ascendc_emu/kernel_unit.h"\n', *[f'#include "{t}"\n' for t in tiling], *registered,
         *[f'#include "{k}"\n' for k in kernels], f'#line 1 "{LAUNCHER}"\n',
         'ASCENDC_EMU_EXPORT int ascendc_emu_entry(const AscendcEmuArg *args, int nargs, uint32_t blocks, '
         'uint64_t tiling_key) {\n', '    (void)blocks;\n    (void)tiling_key;\n', f'    return {call};\n}}\n',
         f'ASCENDC_EMU_EXPORT int ascendc_emu_arity() {{ return ::ascendc_emu::arity(&{entry}); }}\n'])
    units = ["ascendc_emu_kernel.cpp"]
    variants = () if direct else dtype_variants(cand)
    if variants:
        kernel_unit = files.pop("ascendc_emu_kernel.cpp")
        head, rest = kernel_unit.split("\n", 1)  # the precompiled header first, as it was made (no macro before it)
        uses_orig = any("ORIG_DTYPE_" in k.text for k in cand.of("kernel"))
        units = []
        for i, column in enumerate(variants):
            defines = "".join(f"#define DTYPE_{n.upper()} {_C_TYPES[dt]}\n#define ORIG_DTYPE_{n.upper()} {_GE_NUM[dt]}\n"
                              for n, dt in column)
            if uses_orig:  # `#if ORIG_DTYPE_X == DT_FLOAT16` in a kernel: the dtypes as numbers, after the tiling
                defines += "".join(f"#define {dt} {num}\n" for dt, num in _GE_NUM.items())
            after = f'#include "{tiling[-1]}"\n' if tiling else ""  # the macros reach the kernel, not the tiling
            text = head + "\n" + (rest.replace(after, after + defines, 1) if after else defines + rest)
            files[f"ascendc_emu_kernel_{i}.cpp"] = text
            units.append(f"ascendc_emu_kernel_{i}.cpp")
    if not direct:
        # the aclnn op-API layer (op_host/*_l0.cpp on CANN's opdev headers) is another library on the NPU, not the
        # OpDef and tiling the emulation runs: left out
        hosts = [d for s in cand.of("host_operator") if not _OP_API.search(s.text) for d in _destinations(cand, s)
                 if not d.endswith((".h", ".hpp", ".hh"))]
        # msopgen compiles each op_host/*.cpp on its own (a constant two of them define is no clash there): one
        # unit per file, the first with the library's C interface
        for i, h in enumerate(hosts or [None]):
            name = "ascendc_emu_host.cpp" if i == 0 else f"ascendc_emu_host_{i}.cpp"
            head = '#include "ascendc_emu/host_unit.h"\n' if i == 0 else '#include "ascendc_emu/host.h"\n'
            files[name] = head + (f'#include "{h}"\n' if h else "")
            units.append(name)
    dirs = sorted({str(Path(p).parent) for p in files if "/" in p})
    from repair.ascendc.emu.includes import refused_includes

    refused = refused_includes(files)
    if refused:  # before the compiler opens anything: /etc/shadow, a FIFO, /proc/self/fd/1, a header outside
        raise CompileError("the candidate's C++ would make the compiler read outside its own files and the "
                           "emulation's headers:\n" + "\n".join(refused[:8]))
    extra = {"link": list(_MULTI_HOST_LINK)} if _host_units(units) > 1 else {}  # the key of one host unit unchanged
    key = content_hash({"abi": ABI, "compiler": identity(), "flags": [*FLAGS, OPT, *_DEPS], "headers": headers_digest(),
                        "files": files, "units": units, "entry": entry, "variants": variants, **extra})
    return EmuBuild(files, tuple(units), tuple(dirs), entry, key, variants)


_LIBM = {"sqrt", "sin", "cos", "tan", "exp", "log", "abs", "round", "floor", "ceil", "tanh", "sinh", "cosh", "erf",
         "erfc", "pow", "fabs", "atan", "asin", "acos", "atan2", "log1p", "expm1", "log2", "log10", "exp2", "rint",
         "trunc", "div", "fmod", "cbrt", "hypot", "lgamma", "tgamma", "fmax", "fmin"}
_C_TYPES = {"DT_FLOAT": "float", "DT_FLOAT16": "half", "DT_BF16": "bfloat16_t", "DT_INT8": "int8_t",
            "DT_UINT8": "uint8_t", "DT_INT16": "int16_t", "DT_UINT16": "uint16_t", "DT_INT32": "int32_t",
            "DT_UINT32": "uint32_t", "DT_INT64": "int64_t", "DT_UINT64": "uint64_t", "DT_BOOL": "bool",
            "DT_DOUBLE": "double"}
_GE_NUM = {"DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 6, "DT_UINT16": 7,
           "DT_UINT32": 8, "DT_INT64": 9, "DT_UINT64": 10, "DT_DOUBLE": 11, "DT_BOOL": 12, "DT_BF16": 27}
_OPDEF_IO = re.compile(r'\bthis\s*->\s*(?:Input|Output)\s*\(\s*"(\w+)"\s*\)([^;]*);')
_DATATYPE = re.compile(r"\.DataType\s*\(\s*\{([^}]*)\}\s*\)")
# `this->AICore().AddConfig("ascend910b", cfg)`: an OpAICoreConfig whose Input/Output lists msopgen builds for that
# SoC instead of the OpDef's own; ascendc-cpu is an Ascend 910B (platform.h's GetSocVersion)
_SOC_CONFIG = re.compile(r'\bAddConfig\s*\(\s*"ascend910b"\s*,\s*(\w+)\s*\)')


def _config_io(var: str) -> re.Pattern:
    return re.compile(rf'\b{re.escape(var)}\s*\.\s*(?:Input|Output)\s*\(\s*"(\w+)"\s*\)([^;]*);')


def dtype_variants(cand: AscendCCandidate) -> tuple[tuple[tuple[str, str], ...], ...]:
    """The OpDef's DataType columns, when a kernel uses DTYPE_<NAME> (msopgen defines it per column): each column
    as its inputs' and outputs' dtypes; () when no kernel does, or the lists do not form columns."""
    if not any(re.search(r"\b(ORIG_)?DTYPE_\w+", k.text) for k in cand.of("kernel")):
        return ()
    from repair.ascendc.cxx import strip_comments

    lists: dict[str, list[str]] = {}
    for host in cand.of("host_operator"):
        text = strip_comments(host.text)
        for rx in (_OPDEF_IO, *(_config_io(v) for v in _SOC_CONFIG.findall(text))):
            for m in rx.finditer(text):
                d = _DATATYPE.search(m.group(2))
                if d:
                    dts = [t.strip().split("::")[-1] for t in d.group(1).split(",") if t.strip()]
                    if dts and all(t in _C_TYPES for t in dts):
                        lists[m.group(1)] = dts  # the emulated SoC's AICore config over the OpDef's own lists
    lists = list(lists.items())
    n = max((len(d) for _, d in lists), default=0)
    if n == 0 or any(len(d) not in (1, n) for _, d in lists):
        return ()
    columns = [tuple((name, d[i] if len(d) == n else d[0]) for name, d in lists) for i in range(n)]
    return tuple(dict.fromkeys(columns))


def _destinations(cand: AscendCCandidate, src: SourceFile) -> list[str]:
    """Where a source is written: its own path, or (six sources) where msopgen's project puts it."""
    if cand.format != "mkb-sources":
        return [src.name]
    s = snake(cand.op)
    if src.role == "host_tiling":  # also under every "*.h" name the host includes (its own spelling)
        host = "\n".join(h.text for h in cand.of("host_operator"))
        names = [n for n in _TILING_INCLUDE.findall(host) if "tiling" in n]
        return list(dict.fromkeys([f"op_host/{s}_tiling.h", *(f"op_host/{n}" for n in names)]))
    return [{"host_operator": f"op_host/{s}.cpp", "kernel": f"op_kernel/{s}.cpp"}[src.role]]


def _launches(text: str) -> str:
    """`k<<<blocks, l2ctrl, stream>>>(args)` -> `::ascendc_emu::launch_blocks(blocks, &k, args)` (lines kept)."""
    def repl(m: re.Match) -> str:
        blocks = _first_argument(m.group(2))
        return f"::ascendc_emu::launch_blocks({blocks}, &{m.group(1).strip()}" + (")" if m.group(3) else ", ")

    return _LAUNCH.sub(repl, text)


def _first_argument(text: str) -> str:
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            return text[:i].strip()
    return text.strip()


def _c_string(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


# -- the headers, the precompiled headers, the build ------------------------------------------------------------

_DEPS = ("-MD",)  # every unit's dependency output: the headers it read, checked when the entry is used


@functools.cache
def headers_digest() -> str:
    """sha256 over the emulation's headers (a changed header rebuilds every candidate)."""
    parts = [[str(p.relative_to(INCLUDE)), sha256_text(p.read_bytes())] for p in sorted(INCLUDE.rglob("*")) if p.is_file()]
    return content_hash(parts)


def cache_root() -> Path:
    return cache.cache_root()


def writable_dirs() -> list[str]:
    """What a confined candidate process may write while it builds (made now, checked): the cache root, where its
    build is staged and renamed into place. Only this module's code and g++ run then; once the library is built
    the candidate process gives that right up (candidate_role) before any of the candidate's code runs."""
    return [str(cache.checked_root())]


# precompiled headers: the emulation parsed once per cache, not once per candidate
PCH = {"ascendc_emu_kernel.cpp": "ascendc_emu/kernel_unit.h", "ascendc_emu_host.cpp": "ascendc_emu/host_unit.h"}
_PCH_CHECKED: set[str] = set()  # checked in this process (the fork server: its candidate processes inherit it)


def _pch_name() -> str:
    key = content_hash({"abi": ABI, "compiler": identity(), "flags": [*FLAGS, OPT], "headers": headers_digest()})
    return f"pch-{key[:24]}"


def usable_pch() -> Path | None:
    """The include directory holding the precompiled headers (a copy of the emulation's, with its .gch files), or
    None when none has been made for these headers, compiler and flags, or the one there fails its checks."""
    try:
        d = cache.checked_root() / _pch_name()
    except cache.CacheRefused:
        return None
    if str(d) in _PCH_CHECKED and (d / "ready").is_file():
        return d / "include"
    if cache.valid(d) is None or not (d / "ready").is_file():
        return None
    _PCH_CHECKED.add(str(d))
    cache.touch(d)
    return d / "include"


def prepare_pch(*, timeout_s: float = 300.0) -> Path | None:
    """Make the precompiled headers when they are missing (outside any candidate's sandbox: the fork server does it
    before its first candidate, so no candidate can write what every later build reads). None when g++ cannot,
    or the cache is refused (the engine reports that: AscendCCPU.check_available)."""
    done = usable_pch()
    if done is not None:
        return done
    try:
        work = cache.staging("pch")
    except (cache.CacheRefused, OSError):
        return None  # a cache that cannot be written: every build parses the headers itself
    try:
        entry = work / "entry"
        shutil.copytree(INCLUDE, entry / "include")
        cxx = compiler()[0]
        for unit, header in PCH.items():  # one at a time: the memory budget is one compiler's
            code, _ = run([cxx, *FLAGS, OPT[unit], "-I", str(entry / "include"), "-x", "c++-header", "-MD", "-MF",
                           str(work / f"{unit}.d"), str(entry / "include" / header), "-o",
                           str(entry / "include" / f"{header}.gch")], cwd=work, timeout_s=timeout_s,
                          log=work / f"{unit}.log")
            if code != 0:
                return None  # builds go on without them (slower); a candidate meets the same error in its own build
        (entry / "ready").write_text("", encoding="utf-8")
        deps = cache.dependencies(list(work.glob("*.d")), skip=[entry, INCLUDE])
        name = _pch_name()
        cache.write_meta(entry, name, deps=deps, extra={"compiler": identity()})
        cache.enforce_cap(keep=(cache.publish(entry, name),))
        return usable_pch()
    finally:
        cache.remove_tree(work)


def build_library(build: EmuBuild, *, timeout_s: float = 300.0) -> Path:
    """The library, from the cache or compiled now; CompileError with the compiler's message when it does not build.
    The precompiled headers are used where they have been made (prepare_pch), never made here."""
    from repair.ascendc.emu.addrspace import strict_message

    strict = strict_message(build.files)  # before the cache: what bisheng refuses, g++ would build
    if strict:
        raise CompileError(strict)
    hit = cache.lookup(build.key)
    if hit is not None:
        if (hit / "error.txt").is_file():
            raise compile_failure((hit / "error.txt").read_text(encoding="utf-8"))
        return hit / "lib.so"
    work = cache.staging("build")  # beneath the cache's tmp/: a build killed with its process is removed later
    try:
        return _build(build, work, timeout_s)
    finally:
        cache.remove_tree(work)


def _build(build: EmuBuild, work: Path, timeout_s: float) -> Path:
    src, entry = work / "src", work / "entry"
    for rel, text in build.files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    entry.mkdir()
    cxx, pch = compiler()[0], usable_pch()
    inc = ["-I", str(pch or INCLUDE), *[a for p in build.include_dirs for a in ("-I", str(src / p))], "-I", str(src)]
    failed = None
    for u in build.units:  # one compiler at a time: together they may use the candidate's memory budget once
        code, out = run([cxx, *FLAGS, _opt(u), *inc, *_DEPS, "-MF", f"{u}.d", "-c", u, "-o", f"{u}.o"], cwd=src,
                        timeout_s=timeout_s, log=work / f"{u}.log")
        if code != 0:
            failed = (code, out)
            break
    if failed is None and _host_units(build.units) > 1:
        failed = _host_conflict(build, src)
    kernels = [u for u in build.units if u.startswith("ascendc_emu_kernel")]
    others = [f"{u}.o" for u in build.units if u not in kernels]
    for i, k in enumerate(kernels if failed is None else []):  # one library per kernel unit (per dtype variant)
        # undefined symbols (a kernel entry declared, never defined) fail here, not at dlopen
        code, out = run([cxx, "-shared", "-fPIC", f"{k}.o", *others, "-o", str(entry / build.library_name(i)),
                         "-Wl,--no-undefined", *(_MULTI_HOST_LINK if _host_units(build.units) > 1 else ())],
                        cwd=src, timeout_s=timeout_s, log=work / "link.log")
        if code != 0:
            failed = (code, out)
            break
    if failed is not None:
        message = _message(failed[1], src)
        if failed[0] > 0 and not _UNSURE.search(message):  # the candidate's own error: cached
            _publish_error(build, entry, message)
        raise compile_failure(message)
    if build.variants:  # lib.so: the first variant's library, for what opens the build before a call picks one
        os.link(entry / build.library_name(0), entry / "lib.so")
    size = sum(p.stat().st_size for p in entry.iterdir())
    if size > cache.entry_max_bytes():
        message = (f"g++ could not build the candidate for ascendc-cpu: its libraries take {size / 2**20:.0f} MB, more "
                   f"than the {cache.entry_max_bytes() >> 20} MB a cache entry may hold ({cache.ENTRY_MAX_ENV})")
        _publish_error(build, work / "error", message)
        raise CompileError(message)
    shutil.copytree(src, entry / "src", ignore=shutil.ignore_patterns("*.o", "*.so", "*.d"))  # for whoever debugs it
    deps = cache.dependencies(list(src.glob("*.d")), skip=[src, INCLUDE, *([pch.parent] if pch else [])])
    cache.write_meta(entry, build.key, deps=deps, extra={"compiler": identity()})
    d = cache.publish(entry, build.key)
    cache.enforce_cap(keep=(d, *([pch.parent] if pch else [])))
    return d / "lib.so"


# msopgen's project builds op_host/ into several libraries (the OpDef into opsproto and the aclnn stub, the TilingFunc
# into optiling: the candidate's CMakeLists.txt target_sources), each with its own copy of a function a shared host
# header defines; ascendc-cpu links them into one library, where such copies are the same code: the first is kept
# (two different definitions are a build error first: _host_conflict, repair/ascendc/emu/symbols.py)
_MULTI_HOST_LINK = ("-Wl,--allow-multiple-definition",)


def _host_units(units) -> int:
    return sum(u.startswith("ascendc_emu_host") for u in units)


def _host_conflict(build: EmuBuild, src: Path) -> tuple[int, str] | None:
    """(1, the message) where two host units define one symbol differently (repair/ascendc/emu/symbols.py says why
    that is a build error), else None."""
    from repair.ascendc.emu.symbols import conflicts

    units = {}
    for u in build.units:
        if u.startswith("ascendc_emu_host"):
            names = _UNIT_SOURCE.findall(build.files[u])
            units[names[-1] if names else u] = src / f"{u}.o"
    found = conflicts(units)
    if not found:
        return None
    name, a, b = found[0]
    return 1, (f"{a} and {b} both define {name}, differently: msopgen links the op_host sources of a library "
               f"together, where that is a multiple definition (in two libraries each keeps its own), and the one "
               f"library ascendc-cpu links would keep {a}'s silently")


_UNIT_SOURCE = re.compile(r'#include "([^"]+)"')


def _publish_error(build: EmuBuild, d: Path, message: str) -> None:
    d.mkdir(exist_ok=True)
    for p in d.iterdir():
        p.unlink()
    (d / "error.txt").write_text(message, encoding="utf-8")
    cache.write_meta(d, build.key, deps=[], extra={"compiler": identity()})
    cache.publish(d, build.key)


def _opt(unit: str) -> str:
    return OPT["ascendc_emu_kernel.cpp" if unit.startswith("ascendc_emu_kernel") else "ascendc_emu_host.cpp"
               if unit.startswith("ascendc_emu_host") else unit]


def _message(output: str, work: Path) -> str:
    """The compiler's output as the user reads it: the candidate's files and lines, none of the build's paths."""
    pch = usable_pch()
    lines = [ln.replace(f"{work}/", "").replace(str(INCLUDE) + "/", "ascendc-cpu/") for ln in output.splitlines()]
    if pch is not None:
        lines = [ln.replace(str(pch) + "/", "ascendc-cpu/") for ln in lines]
    lines = [ln for ln in lines if ln.strip() and not ln.startswith(("In file included from", "                 from",
                                                                     "compilation terminated"))]
    text = "\n".join(lines[:40])
    return "g++ could not build the candidate for ascendc-cpu:\n" + (text[:4000] or "(no output)")
