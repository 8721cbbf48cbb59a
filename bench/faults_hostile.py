"""bench_faults.py's hostile-input scenarios (#30): the AscendC build cache and the importers, run as a user runs them.

Each scenario runs the real command (`repair eval`, `repair import kernelbench|npukernelbench`) in a process started
with provider keys in its environment and a mark (REPAIR_BENCH_MARK, which the sandbox's allow-list passes on, so
every process the command starts carries it, a daemon in a session of its own included). Counted: keys seen (a
thief's report holding a key, hex-encoded), bytes written outside (files the hostile code wrote where it may not:
beside itself, in $HOME, /tmp, the build cache), processes left (carrying the token once the command has exited and
a grace period passed; then killed), and peak memory (resident, summed over the token's processes, sampled; the
compilers' alone for the build scenarios) against the limit the command was given.
Targets: 0 keys seen, 0 bytes written outside, 0 processes left, peak within the limit.
"""
from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ESCAPED = "repair-hostile-escaped.txt"
HOSTILE_PROBLEM = ROOT / "tests" / "repair" / "engine" / "data" / "hostile" / "problem_file.py"
ADD = ROOT / "examples" / "ascendc" / "add"
KEYS = {"OPENAI_API_KEY": f"sk-bench-{secrets.token_hex(12)}", "ANTHROPIC_API_KEY": f"sk-ant-bench-{secrets.token_hex(8)}"}
GRACE_S = 3.0
BOMB = "".join(f"#define B{i} {','.join([f'B{i - 1}'] * 16) if i else ','.join(['1'] * 16)}\n" for i in range(8)) + \
    "static const int g_bomb[] = {B7};\n"
CACHE_WRITE = """#include <fcntl.h>
#include <unistd.h>
#include <dlfcn.h>
#include <libgen.h>
#include <cstring>
#include <cstdio>
static bool hostile() {
    Dl_info info;
    if (!dladdr((void *)&hostile, &info) || !info.dli_fname) return false;
    char dir[4096]; strncpy(dir, info.dli_fname, sizeof dir - 1); dir[sizeof dir - 1] = 0;
    char path[4200]; snprintf(path, sizeof path, "%s/planted.bin", dirname(dir));
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return false;
    static char block[1 << 20]; long long wrote = 0;
    while (wrote < (2LL << 30)) { ssize_t n = write(fd, block, sizeof block); if (n <= 0) break; wrote += n; }
    close(fd);
    return wrote > 0;
}
"""


@dataclass
class Row:
    scenario: str
    exit_code: int | None = None
    expected: str = ""  # what the command should say (exit status, status of the case)
    got: str = ""
    keys_seen: int = 0
    bytes_outside: int = 0
    processes_left: int = 0
    peak_mb: float = 0.0
    limit_mb: int | None = None
    wall_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    def met(self) -> bool:
        within = self.limit_mb is None or self.peak_mb <= self.limit_mb
        return self.keys_seen == 0 and self.bytes_outside == 0 and self.processes_left == 0 and within \
            and self.got == self.expected


def _token_pids(token: str) -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if f"REPAIR_BENCH_MARK={token}".encode() in (d / "environ").read_bytes():
                state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    pids.append(int(d.name))
        except (OSError, IndexError):
            continue
    return pids


def _rss_mb(pids: list[int], only: str | None = None) -> float:
    total = 0
    for pid in pids:
        try:
            if only and Path(f"/proc/{pid}/comm").read_text().strip() != only:
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def _command(row: Row, args: list, *, env: dict, cwd: Path, only: str | None = None, timeout_s: float = 900) -> str:
    """Run `python -m ARGS` with the keys and a token; fill the row's exit code, peak, leftovers; its output."""
    token = secrets.token_hex(8)
    env = {**env, **KEYS, "REPAIR_BENCH_MARK": token, "PYTHONPATH": str(ROOT)}
    peak, done = [0.0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_mb(_token_pids(token), only))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    t0 = time.perf_counter()
    sampler.start()
    try:
        p = subprocess.run([sys.executable, "-m", *map(str, args)], env=env, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout_s)
        row.exit_code, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        row.exit_code, out = None, f"timed out after {timeout_s:g} s: {(e.stdout or b'')[-500:]!r}"
    finally:
        done.set()
        sampler.join()
    row.wall_s = time.perf_counter() - t0
    row.peak_mb = round(peak[0], 1)
    deadline = time.monotonic() + GRACE_S
    while (left := _token_pids(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    row.processes_left = len(left)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    row.keys_seen = sum(v.encode().hex() in out or v in out for v in KEYS.values())
    return out


def _escaped(*dirs: Path) -> int:
    n = 0
    for d in {*dirs, Path.home(), Path("/tmp")}:
        p = d / ESCAPED
        if p.exists():
            n += p.stat().st_size
            p.unlink()
    return n


def _add_variant(work: Path, name: str, head: str, action: bool) -> Path:
    text = (ADD / "correct.py").read_text().replace('#include "kernel_operator.h"\nusing namespace AscendC;\n',
                                                    f'#include "kernel_operator.h"\n{head}using namespace AscendC;\n', 1)
    if action:
        text = text.replace("        Add(zLocal, xLocal, yLocal, count);",
                            "        static bool ok = hostile();\n        if (ok) Add(zLocal, xLocal, yLocal, count);", 1)
    d = work / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "correct.py").write_text(text)
    return d / "correct.py"


def cache_scenarios(work: Path, env: dict) -> list[Row]:
    rows = []
    work.mkdir(parents=True, exist_ok=True)
    cache = work / "ascendc-cache"
    env = {**env, "REPAIR_ASCENDC_CACHE": str(cache)}
    eval_args = ["repair", "eval", ADD / "problem.py"]

    row = Row("build cache: root other users may write", expected="exit 3")
    shared = work / "shared-cache"
    shared.mkdir(mode=0o700)
    shared.chmod(0o777)
    _command(row, [*eval_args, ADD / "correct.py", "--backend", "ascendc-cpu", "--tier", "compact"],
             env={**env, "REPAIR_ASCENDC_CACHE": str(shared)}, cwd=work)
    row.got = f"exit {row.exit_code}"
    rows.append(row)

    row = Row("build cache: a kernel writing 2 GB into its entry", expected="exit 1")
    cand = _add_variant(work, "cache_write", CACHE_WRITE, action=True)
    _command(row, [*eval_args, cand, "--backend", "ascendc-cpu", "--tier", "compact", "--seed", "1"], env=env, cwd=work)
    row.bytes_outside = sum(p.stat().st_size for p in cache.rglob("planted.bin"))
    row.got = f"exit {row.exit_code}"
    rows.append(row)

    row = Row("build cache: a macro bomb, --mem-limit 256", expected="exit 1", limit_mb=256)
    cand = _add_variant(work, "bomb", BOMB, action=False)
    _command(row, [*eval_args, cand, "--backend", "ascendc-cpu", "--tier", "compact", "--mem-limit", "256"], env=env,
             cwd=work, only="cc1plus")
    left = [p.name for p in (cache / "tmp").iterdir()] if (cache / "tmp").is_dir() else []
    if left:
        row.notes.append(f"left in the cache's tmp/: {left}")
        row.bytes_outside += sum(q.lstat().st_size for p in (cache / "tmp").iterdir() for q in p.rglob("*"))
    row.got = f"exit {row.exit_code}"
    rows.append(row)

    row = Row("build cache: #include of a FIFO and of /etc/shadow", expected="exit 1")
    fifo = work / "fifo"
    os.mkfifo(fifo)
    cand = _add_variant(work, "include", f'#include "{fifo}"\n#include "/etc/shadow"\n', action=False)
    out = _command(row, [*eval_args, cand, "--backend", "ascendc-cpu", "--tier", "compact"], env=env, cwd=work,
                   timeout_s=120)
    row.got = f"exit {row.exit_code}"
    if "$6$" in out or "$y$" in out:
        row.notes.append("a password hash reached the output")
        row.bytes_outside += 1
    rows.append(row)
    return rows


def importer_scenarios(work: Path, env: dict) -> list[Row]:
    rows = []
    work.mkdir(parents=True, exist_ok=True)
    row = Row("import kernelbench: hostile problem (keys, writes, sockets, daemon)", expected="exit 1",
              limit_mb=8192)
    src = work / "kb-src" / "1_Hostile.py"
    src.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HOSTILE_PROBLEM, src)
    _command(row, ["repair", "import", "kernelbench", src, "--out", work / "kb-out", "--timeout", "60"], env=env,
             cwd=work)
    row.bytes_outside = _escaped(src.parent)
    row.got = f"exit {row.exit_code}"
    rows.append(row)

    for kind in ("a symlink to /dev/zero", "a symlink to /etc/shadow", "a 200 MB test_cases.csv", "a task named .."):
        row = Row(f"import npukernelbench: {kind}", expected="exit 2", limit_mb=1024)
        base = work / f"npukb-{len(rows)}"
        task = base / "tasks" / "AddCustom"
        shutil.copytree(ADD / "validation", task / "validation")
        shutil.copytree(ADD / "answer", task / "answer")
        arg = task
        if kind == "a symlink to /dev/zero":
            (task / "answer" / "0" / "op_kernel" / "zero.h").symlink_to("/dev/zero")
        elif kind == "a symlink to /etc/shadow":
            (task / "answer" / "0" / "op_kernel" / "shadow.h").symlink_to("/etc/shadow")
        elif kind == "a 200 MB test_cases.csv":
            with open(task / "validation" / "test_cases.csv", "ab") as f:
                f.truncate(200 << 20)
        else:
            arg = task / "answer" / ".."
            (base / "tasks" / "problem.py").write_text("# the user's\n")
        out_dir = base / "out"
        _command(row, ["repair", "import", "npukernelbench", arg, "--out", out_dir], env=env, cwd=base)
        written = sum(p.lstat().st_size for p in out_dir.rglob("*")) if out_dir.exists() else 0
        row.bytes_outside = written + (0 if kind != "a task named .." or
                                       (base / "tasks" / "problem.py").read_text() == "# the user's\n" else 1)
        row.got = f"exit {row.exit_code}"
        rows.append(row)
    return rows


def run_hostile(work: Path, which: str) -> list[Row]:
    env = {**os.environ, "KB_EMBEDDER": "hash", "REPAIR_SERVER_DIR": str(work / "servers")}
    work.mkdir(parents=True, exist_ok=True)
    rows = importer_scenarios(work / "importers", env) if which in ("all", "importers") else []
    if which in ("all", "cache"):
        rows += cache_scenarios(work / "cache", env)
    return rows


def print_hostile(rows: list[Row]) -> bool:
    if not rows:
        return True
    head = ["hostile input", "expected", "got", "keys seen", "bytes outside", "processes left", "peak MB", "limit MB",
            "wall s"]
    cells = [[r.scenario, r.expected, r.got, r.keys_seen, r.bytes_outside, r.processes_left, f"{r.peak_mb:.0f}",
              r.limit_mb or "-", f"{r.wall_s:.1f}"] for r in rows]
    widths = [max(len(str(c)) for c in col) for col in zip(head, *cells)]
    print()
    for line in [head, *cells]:
        print("  ".join(str(c).ljust(w) if k == 0 else str(c).rjust(w) for k, (c, w) in enumerate(zip(line, widths))))
    print("\n(peak MB: resident memory of every process the command started, sampled every 50 ms; the build "
          "scenarios' compilers alone)")
    for r in rows:
        for note in r.notes:
            print(f"  {r.scenario}: {note}")
    met = all(r.met() for r in rows)
    print(f"\ntarget 0 keys seen, 0 bytes written outside, 0 processes left, peak within the limit: "
          f"{'met' if met else 'NOT MET'}")
    return met
