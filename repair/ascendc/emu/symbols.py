"""Two host units defining one symbol differently, read from their ELF objects before the one link that joins them.

msopgen's project links every op_host source a library lists (its CMakeLists.txt's target_sources; all of op_host/
by default) into that library, so two different definitions of one external symbol there are a multiple-definition
error; in two libraries each keeps its own, and which one a TilingFunc registered in both units calls is theirs to
say. ascendc-cpu links every host unit into one library with --allow-multiple-definition (a function a shared host
header defines is the same code in each), which would keep the first of two different definitions silently: build.py
makes that a build error naming the symbol and both files. Identical bytes are the same definition; a function whose
bytes agree but whose calls resolve to different targets (relocations are not compared) is taken as the same.
"""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

_GLOBAL, _FUNC, _OBJECT = 1, 2, 1
_NOBITS, _SYMTAB = 8, 2


def definitions(obj: Path) -> dict[str, bytes]:
    """The strong global functions and objects an ELF64 little-endian relocatable object defines: name -> bytes
    (zeros for .bss); {} for anything else (the check then finds nothing, as the link alone would)."""
    data = obj.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return {}
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    out: dict[str, bytes] = {}
    for _name, kind, _flags, _addr, off, size, link, _info, _align, entsize in sections:
        if kind != _SYMTAB or not entsize:
            continue
        str_off = sections[link][4]
        for at in range(off, off + size, entsize):
            name_at, info, _other, shndx, value, sym_size = struct.unpack_from("<IBBHQQ", data, at)
            if info >> 4 != _GLOBAL or (info & 0xF) not in (_FUNC, _OBJECT) or not 0 < shndx < 0xFF00:
                continue
            name = data[str_off + name_at:data.index(b"\0", str_off + name_at)].decode("utf-8", "replace")
            sec = sections[shndx]
            body = bytes(sym_size) if sec[1] == _NOBITS else data[sec[4] + value:sec[4] + value + sym_size]
            out[name] = body
    return out


def conflicts(objects: dict[str, Path]) -> list[tuple[str, str, str]]:
    """(symbol, the first file defining it, another defining it differently), over `objects` (file -> object) in
    their order; the symbols demangled where c++filt is at hand."""
    first: dict[str, tuple[str, bytes]] = {}
    found = []
    for file, obj in objects.items():
        for name, body in definitions(obj).items():
            if name not in first:
                first[name] = (file, body)
            elif first[name][1] != body:
                found.append((name, first[name][0], file))
    return [(_demangle(n), a, b) for n, a, b in found]


def _demangle(name: str) -> str:
    cxxfilt = shutil.which("c++filt")
    if cxxfilt is None:
        return name
    try:
        r = subprocess.run([cxxfilt, name], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return name
    return r.stdout.strip() or name
