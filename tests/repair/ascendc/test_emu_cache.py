"""The ascendc-cpu build cache trusts nothing it did not make (#30): a root only this user can change, entries
checked before use (no symlink, sizes, the headers the compiler read), builds staged and renamed, a size cap with
LRU eviction (`repair cache info|prune`), and includes that would read outside the candidate refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascendc_fixtures import SUITE, variant
from repair.ascendc import CompileError, load_candidate, plan_emu_build
from repair.ascendc.emu import cache
from repair.ascendc.emu.binding import launch_function
from repair.ascendc.emu.build import build_library, prepare_pch, usable_pch
from repair.ascendc.emu.includes import refused_includes
from repair.cli import cli

ADD = SUITE / "add"
NOBODY = 65534


def _plan(path: Path):
    c = load_candidate(path)
    return plan_emu_build(c, launch_fn=launch_function(c))


@pytest.fixture
def unique(tmp_path, request):
    """The correct add with a comment naming the test: a key of its own in the session's cache (whose precompiled
    headers every build here shares), so what a test does to its entry touches no other test's."""
    prepare_pch()
    return variant(ADD / "correct.py", tmp_path / "unique",
                   ("constexpr int32_t BUFFER_NUM = 2;", f"constexpr int32_t BUFFER_NUM = 2;  // {request.node.name}"))


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("REPAIR_ASCENDC_CACHE", str(root))
    return root


def test_a_fresh_root_is_made_private(own_cache):
    assert cache.checked_root() == own_cache and (own_cache.stat().st_mode & 0o777) == 0o700


@pytest.mark.parametrize("how", ["world-writable", "group-writable", "other-user", "beneath-writable", "symlink"])
def test_a_root_another_user_could_change_is_refused_in_one_line(tmp_path, monkeypatch, how):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    if how == "world-writable":
        root.chmod(0o777)
    elif how == "group-writable":
        root.chmod(0o770)
    elif how == "other-user":
        if os.geteuid() != 0:
            pytest.skip("only root can give a directory to another user")
        os.chown(root, NOBODY, NOBODY)
    elif how == "beneath-writable":
        shared = tmp_path / "shared"
        shared.mkdir()
        shared.chmod(0o777)  # writable by all, not sticky: anyone may rename what is in it
        root = shared / "cache"
        root.mkdir(mode=0o700)
    else:
        if os.geteuid() != 0:
            pytest.skip("only root can make a symlink owned by another user")
        link = tmp_path / "link"
        link.symlink_to(root)
        os.lchown(link, NOBODY, NOBODY)
        root = link
    monkeypatch.setenv("REPAIR_ASCENDC_CACHE", str(root))
    with pytest.raises(cache.CacheRefused) as e:
        cache.checked_root()
    assert str(root) in str(e.value) and "\n" not in str(e.value) and e.value.exit_code == 3
    r = CliRunner().invoke(cli, ["cache", "info"])
    assert r.exit_code == 3 and "mode 700" in r.output


def _fake(root: Path, name: str, nbytes: int, age_s: float) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "lib.so").write_bytes(b"\0" * nbytes)
    cache.write_meta(d, name, deps=[])
    t = time.time() - age_s
    os.utime(d / cache.META, (t, t))
    return d


def test_prune_evicts_the_least_recently_used_past_the_size(own_cache):
    root = cache.checked_root()
    old, mid, new = (_fake(root, f"{c * 64}", 300_000, age) for c, age in (("a", 300), ("b", 200), ("c", 100)))
    stale = root / cache.TMP / "build-999999999-x"  # a build whose process is gone
    stale.mkdir(parents=True)
    (stale / "half.o").write_bytes(b"x" * 1000)
    r = CliRunner().invoke(cli, ["cache", "prune", "--max-size", "700K", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["removed"] == [old.name] and out["removed_temporary"] == [stale.name]
    assert not old.exists() and mid.exists() and new.exists() and not stale.exists()
    assert cache.lookup(new.name) == new  # its use is recorded: it is now the most recent
    info = CliRunner().invoke(cli, ["cache", "info"])
    assert info.exit_code == 0 and "2 build(s)" in info.output


def test_an_entry_that_is_a_symlink_or_has_no_meta_is_not_used(unique, tmp_path):
    b = _plan(unique)
    victim = tmp_path / "root-only"
    victim.mkdir(mode=0o700)
    (cache.checked_root() / b.key).symlink_to(victim, target_is_directory=True)  # planted: the build must not write there
    assert cache.lookup(b.key) is None
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "lib.so").write_bytes(b"not a library")
    assert cache.valid(planted, key=b.key) is None  # no meta.json: not a build of ours
    lib = build_library(b)
    assert not os.path.islink(lib.parent) and lib.parent == cache.checked_root() / b.key
    assert list(victim.iterdir()) == []
    assert not [p for p in (cache.checked_root() / cache.TMP).iterdir() if p.name.split("-")[1] == str(os.getpid())]


def test_an_entry_is_used_only_while_the_headers_it_read_are_unchanged(unique, tmp_path):
    b = _plan(unique)
    d = build_library(b).parent
    assert cache.lookup(b.key) == d
    header = tmp_path / "pulled_in.h"  # as a header pulled in from outside the build would be recorded
    header.write_text("#define N 1\n")
    meta_path = d / cache.META
    meta = json.loads(meta_path.read_text())
    meta["deps"].append({"path": str(header), "sha256": cache.file_sha256(str(header))})
    os.chmod(d, 0o700), os.chmod(meta_path, 0o600)
    meta_path.write_text(json.dumps(meta))
    assert cache.lookup(b.key) == d
    header.write_text("#define N 2\n")
    assert cache.lookup(b.key) is None  # rebuilt next time, never served from the old entry


def test_planted_precompiled_headers_are_not_used(own_cache, monkeypatch):
    from repair.ascendc.emu import build

    name = "pch-" + "0" * 24
    monkeypatch.setattr(build, "_pch_name", lambda: name)
    d = cache.checked_root() / name
    (d / "include" / "ascendc_emu").mkdir(parents=True)  # planted: `ready`, a header, but not a build of ours
    (d / "include" / "ascendc_emu" / "kernel_unit.h.gch").write_bytes(b"planted")
    (d / "ready").write_text("")
    assert usable_pch() is None
    cache.write_meta(d, name, deps=[{"path": "/nonexistent/header.h", "sha256": "0" * 64}])
    assert usable_pch() is None  # a header it was made from is gone: not these headers


def test_includes_that_read_outside_the_candidate_are_refused_before_compiling(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:$6$saltsalt$hashhashhash:19000:0:99999:7:::\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for include in (f'"{secret}"', f"<{fifo}>", '"/proc/self/fd/1"', '"../../../../etc/passwd"', "SECRET_HEADER"):
        cand = variant(ADD / "correct.py", tmp_path / f"c{abs(hash(include))}",
                       ('#include "kernel_operator.h"\nusing', f'#include "kernel_operator.h"\n#include {include}\nusing'))
        with pytest.raises(CompileError) as e:
            _plan(cand)
        assert "correct.py (kernel_src):" in str(e.value) and "hashhash" not in str(e.value), include


def test_a_dot_dot_include_of_another_candidate_file_is_allowed_and_no_other():
    base = {"op_kernel/base.h": "int base;\n", "x.cpp": ""}
    ok = dict(base, **{"op_kernel/erf/a.h": '#include "../base.h"\n#include "./../erf/../base.h"\n'
                                            '#include "../../op_kernel/base.h"\n'})
    assert refused_includes(ok) == []
    for include in ('"../missing.h"', '<../base.h>', '"../../../../etc/passwd"',
                    '"../../../src/op_kernel/base.h"'):
        assert len(refused_includes(dict(base, **{"op_kernel/erf/a.h": f"#include {include}\n"}))) == 1, include
    assert len(refused_includes(dict(base, **{"op_kernel/erf/a.h": '#include_next "../base.h"\n'}))) == 1
    assert len(refused_includes(dict(base, **{"x.cpp": '#include "../x.cpp"\n'}))) == 1  # above the tree


def test_an_entry_past_its_size_limit_is_refused(unique, tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENTRY_MAX_ENV, "1")
    big = variant(unique, tmp_path, ("constexpr int32_t BUFFER_NUM = 2;",
                                                 "constexpr int32_t BUFFER_NUM = 2;\n"
                                                 "__attribute__((used)) static char g_ballast[2 << 20] = {1};"))
    with pytest.raises(CompileError, match="more than the 1 MB a cache entry may hold"):
        build_library(_plan(big))
    with pytest.raises(CompileError, match="more than the 1 MB"):  # cached as the candidate's own error
        build_library(_plan(big))


def test_a_build_killed_midway_leaves_nothing_once_the_next_one_runs(unique):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = cache.checked_root() / cache.TMP / f"build-{dead.pid}-abc"
    left.mkdir(parents=True)
    (left / "ascendc_emu_kernel.cpp.o").write_bytes(b"half")
    build_library(_plan(unique))
    assert not left.exists()
