"""Hostile AscendC candidates (#30): the C++ kinds an attacker tried on ascendc-cpu, with the status each gets and
nothing left behind (no file outside, nothing written into the build cache, no process, no temporary build).

Compile-time kinds are refused before g++ reads anything (an include of an absolute path, a FIFO, /proc/self/fd/1)
or stop at the candidate's memory budget (a macro bomb). Run-time kinds run in the library's static constructor or
in the kernel: each computes the operator only when what it tried worked, so a refused attempt leaves the output
unwritten (NaN): `mismatch`.
"""
from __future__ import annotations

import os
import platform
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from repair.ascendc.emu import cache
from repair.engine import sandbox
from repair.engine.backends import get_backend
from repair.engine.confine import landlock
from repair.engine.confine.policy import confine_candidates
from repair.engine.harness import evaluate
from repair.engine.sandbox import ForkServer

ADD = Path(__file__).resolve().parents[3] / "examples" / "ascendc" / "add"
ESCAPED = "repair-hostile-escaped.txt"
HEADERS = """#include <fcntl.h>
#include <unistd.h>
#include <dlfcn.h>
#include <libgen.h>
#include <cstring>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
"""
ACTIONS = {
    # a static constructor runs when the library is loaded: after the sandbox is complete
    "static-constructor": """
static bool g_escaped = false;
__attribute__((constructor)) static void hostile_ctor() {
    int fd = open("ESCAPE_PATH", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd >= 0) { write(fd, "escaped", 7); close(fd); g_escaped = true; }
}
static bool hostile() { return g_escaped; }
""",
    "syscall-socket": """
static bool hostile() { return syscall(SYS_socket, AF_INET, SOCK_STREAM, 0) >= 0; }
""",
    "socket-connect": """
static bool hostile() {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return false;
    sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(PORT); a.sin_addr.s_addr = htonl(0x7f000001);
    return connect(s, (sockaddr *)&a, sizeof a) == 0;
}
""",
    "fork": """
static bool hostile() {
    pid_t p = fork();
    if (p == 0) _exit(0);
    if (p < 0) return false;
    waitpid(p, nullptr, 0);
    return true;
}
""",
    "inline-asm": """
static bool hostile() {  // socket(AF_INET, SOCK_STREAM, 0) by the syscall instruction itself, past the C library
    long r;
    asm volatile("syscall" : "=a"(r) : "0"(41L), "D"(2L), "S"(1L), "d"(0L) : "rcx", "r11", "memory");
    return r >= 0;
}
""",
    # into the directory of its own library, in the build cache: 2 GB, as far as the file-size limit lets it
    "cache-write-2gb": """
static bool hostile() {
    Dl_info info;
    if (!dladdr((void *)&hostile, &info) || !info.dli_fname) return false;
    char dir[4096];
    strncpy(dir, info.dli_fname, sizeof dir - 1); dir[sizeof dir - 1] = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/planted.bin", dirname(dir));
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return false;
    static char block[1 << 20];
    long long wrote = 0;
    while (wrote < (2LL << 30)) { ssize_t n = write(fd, block, sizeof block); if (n <= 0) break; wrote += n; }
    close(fd);
    return wrote > 0;
}
""",
}


@dataclass(frozen=True)
class Kind:
    status: str
    says: str = ""
    mem_limit_mb: int = 512


COMPILE = {
    "include-absolute": Kind("compile-error", "an absolute path"),
    "include-fifo": Kind("compile-error", "an absolute path"),
    "include-proc-fd": Kind("compile-error", "an absolute path"),
    # the preprocessor's expansion grows until the compiler's share of the memory budget is gone
    "compile-bomb": Kind("compile-error", "memory", mem_limit_mb=256),
}
RUNTIME = {name: Kind("mismatch") for name in ACTIONS}
BOMB = "".join(f"#define B{i} {','.join([f'B{i - 1}'] * 16) if i else ','.join(['1'] * 16)}\n" for i in range(8)) + \
    "static const int g_bomb[] = {B7};\n"


@pytest.fixture(scope="module")
def ascendc(tmp_path_factory):
    """An ascendc-cpu fork server of this module's own, over a build cache of its own (to be searched after)."""
    cache = tmp_path_factory.mktemp("cache") / "c"
    old = os.environ.get("REPAIR_ASCENDC_CACHE")
    os.environ["REPAIR_ASCENDC_CACHE"] = str(cache)
    be = get_backend("ascendc-cpu")
    server = ForkServer(be)
    before = sandbox._SERVERS.get(be.name)
    sandbox._SERVERS[be.name] = server
    try:
        yield cache
    finally:
        server.close()
        if before is not None:
            sandbox._SERVERS[be.name] = before
        else:
            sandbox._SERVERS.pop(be.name, None)
        if old is None:
            os.environ.pop("REPAIR_ASCENDC_CACHE", None)
        else:
            os.environ["REPAIR_ASCENDC_CACHE"] = old


def _candidate(tmp_path: Path, head: str, action: str | None) -> Path:
    text = (ADD / "correct.py").read_text()
    text = text.replace('#include "kernel_operator.h"\nusing namespace AscendC;\n',
                        f'#include "kernel_operator.h"\n{head}using namespace AscendC;\n{action or ""}', 1)
    if action is not None:
        text = text.replace("        Add(zLocal, xLocal, yLocal, count);",
                            "        static bool ok = hostile();\n        if (ok) Add(zLocal, xLocal, yLocal, count);", 1)
    out = tmp_path / "correct.py"
    out.write_text(text)
    return out


def _cache_files(cache: Path) -> dict[str, int]:
    return {str(p.relative_to(cache)): p.lstat().st_size for p in cache.rglob("*") if p.is_file()} if cache.exists() else {}


@pytest.mark.parametrize("name", list(COMPILE))
def test_a_hostile_compile_gets_its_status_and_leaves_nothing(ascendc, tmp_path, name):
    kind = COMPILE[name]
    secret = tmp_path / "secret.txt"
    secret.write_text("root:$6$saltsalt$hashhashhashhash:19000:0:99999:7:::\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    head = {"include-absolute": f'#include "{secret}"\n', "include-fifo": f'#include "{fifo}"\n',
            "include-proc-fd": '#include "/proc/self/fd/1"\n', "compile-bomb": BOMB}[name]
    r = evaluate(ADD / "problem.py", _candidate(tmp_path, head, None), backend="ascendc-cpu", tier="compact", seed=1,
                 integrity=False, timeout_s=30, mem_limit_mb=kind.mem_limit_mb)
    case = r.cases[0]
    assert case.status == kind.status and kind.says in case.message, case.message[-2000:]
    assert "hashhash" not in r.to_json()
    leftovers = [p.name for p in (ascendc / "tmp").iterdir()] if (ascendc / "tmp").exists() else []
    assert not [n for n in leftovers if n.startswith("build-")], leftovers


@pytest.mark.parametrize("name", list(RUNTIME))
def test_hostile_kernel_code_is_refused_at_run_time_and_leaves_nothing(ascendc, tmp_path, name):
    if not confine_candidates(get_backend("ascendc-cpu")) or landlock.abi() < 4:
        pytest.skip("ascendc-cpu candidates run unconfined here, or this kernel's Landlock has no TCP rules")
    if name == "inline-asm" and platform.machine() != "x86_64":
        pytest.skip("the asm is x86_64's")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    escaped = Path(tempfile.gettempdir()) / ESCAPED
    action = ACTIONS[name].replace("ESCAPE_PATH", str(escaped)).replace("PORT", str(listener.getsockname()[1]))
    try:
        cand = _candidate(tmp_path, HEADERS, action)
        r = evaluate(ADD / "problem.py", cand, backend="ascendc-cpu", tier="compact", seed=1, integrity=False,
                     timeout_s=30, mem_limit_mb=RUNTIME[name].mem_limit_mb)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    finally:
        listener.close()
        was_escaped = escaped.exists()
        escaped.unlink(missing_ok=True)
    assert [c.status for c in r.cases[:1]] == [RUNTIME[name].status], r.cases[0].message[-2000:]
    assert not was_escaped
    files = _cache_files(ascendc)
    assert not [f for f in files if f.endswith("planted.bin")]
    for entry in ascendc.iterdir():  # every build as it was made: its files, their sizes
        assert entry.name == "tmp" or cache.valid(entry) is not None, entry
