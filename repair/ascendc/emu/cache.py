"""The ascendc-cpu build cache: a directory of this user's, entries checked before they are used, a size cap.

What a user expects of a build cache (ccache, sccache, Bazel's disk cache), and what a cache that every later
build trusts needs:
- The root ($REPAIR_ASCENDC_CACHE, else $XDG_CACHE_HOME/nearmiss/ascendc-cpu, else ~/.cache/nearmiss/ascendc-cpu)
  belongs to this user with mode 700 (made so), and neither it nor a directory above it may be changed by another
  user (provenance.runtime.dir_problem): otherwise it is refused in one line (CacheRefused, exit 3), since another
  local user could plant a library under a near-miss's key (it would pass) or precompiled headers into every build.
- An entry (`<key>/`: lib.so, lib-N.so per dtype column, or error.txt, and meta.json) is built beneath `tmp/`
  and renamed into place whole, then made read-only; it is used only while it is a plain directory of plain files
  (no symlink anywhere it is read), its files have the sizes meta.json records, and every header the compiler read
  that is not the candidate's or the emulation's own (meta.json's `deps`, from g++'s dependency output) still
  hashes as it did. Its key (build.plan_emu_build) covers the candidate's files, the emulation's headers, the
  compiler's identity and the flags.
- Size: an entry may hold REPAIR_ASCENDC_ENTRY_MAX_MB (128), the whole cache REPAIR_ASCENDC_CACHE_MAX_MB (2048);
  past that the least recently used entries and precompiled-header directories go (`repair cache prune`).
- `tmp/` holds builds under way, each named for its process: one whose process is gone (a build killed with its
  candidate) is removed by the next build, `repair cache prune` or the fork server's start.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

from provenance.runtime import dir_problem, process_running
from repair.errors import BadInput, EnvironmentMissing

ROOT_ENV = "REPAIR_ASCENDC_CACHE"
MAX_ENV = "REPAIR_ASCENDC_CACHE_MAX_MB"
ENTRY_MAX_ENV = "REPAIR_ASCENDC_ENTRY_MAX_MB"
DEFAULT_MAX_MB = 2048
DEFAULT_ENTRY_MAX_MB = 128
META = "meta.json"
SCHEMA = "ascendc-cpu.cache-entry/v1"
TMP = "tmp"
KEY = re.compile(r"[0-9a-f]{64}|[0-9a-f]{40}")  # an entry (40: made before the key was whole)
PCH = re.compile(r"pch-[0-9a-f]{24}")
_META_MAX = 1 << 20


class CacheRefused(EnvironmentMissing):
    """The cache directory is not safely this user's: exit 3, one line saying why."""


def cache_root() -> Path:
    """$REPAIR_ASCENDC_CACHE, else $XDG_CACHE_HOME/nearmiss/ascendc-cpu, else ~/.cache/nearmiss/ascendc-cpu."""
    if os.environ.get(ROOT_ENV):
        return Path(os.environ[ROOT_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "nearmiss" / "ascendc-cpu"


def checked_root(*, create: bool = True) -> Path:
    """The cache root, made (mode 700) when missing, checked: CacheRefused when another user could change it."""
    r = cache_root()
    if create and not os.path.lexists(r):
        try:
            for d in reversed([r, *r.parents]):
                if not os.path.lexists(d):
                    d.mkdir(mode=0o700)
        except FileExistsError:
            pass  # made by another build at the same moment
        except OSError as e:
            raise CacheRefused(f"{r}: the ascendc-cpu build cache cannot be made ({e.strerror or e}); set "
                               f"{ROOT_ENV} to a directory of yours") from None
    problem = dir_problem(r)
    if problem is not None:
        raise CacheRefused(f"{r}: the ascendc-cpu build cache {problem}; set {ROOT_ENV} to a directory only you "
                           "can write (mode 700)")
    return r


def _megabytes(env: str, default: int) -> int:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default << 20
    if not raw.isdigit() or int(raw) <= 0:
        raise BadInput(f"{env}={raw!r}: expected a whole number of megabytes")
    return int(raw) << 20


def max_bytes() -> int:
    return _megabytes(MAX_ENV, DEFAULT_MAX_MB)


def entry_max_bytes() -> int:
    return _megabytes(ENTRY_MAX_ENV, DEFAULT_ENTRY_MAX_MB)


# -- files and their hashes ----------------------------------------------------------------------------------------

_HASHES: dict[str, tuple[tuple, str]] = {}  # path -> (stat signature, sha256): a file is hashed again when it changes


def file_sha256(path: str) -> str | None:
    """sha256 of a file's bytes (memoised by its size, mtime, ctime and inode); None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    sig = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    known = _HASHES.get(path)
    if known is not None and known[0] == sig:
        return known[1]
    if not stat.S_ISREG(st.st_mode):
        return None
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    _HASHES[path] = (sig, h.hexdigest())
    return h.hexdigest()


def dependencies(dep_files: list[Path], *, skip: list[Path]) -> list[dict]:
    """Every file g++ read (its -MD output), less those under `skip` (the build's own files, the emulation's
    headers: already in the key), each with its sha256."""
    paths: set[str] = set()
    for d in dep_files:
        try:
            text = d.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for rule in text.replace("\\\n", " ").splitlines():
            _, _, deps = rule.partition(": ")
            for dep in re.split(r"(?<!\\)\s+", deps.strip()):
                if dep:  # relative to where the compiler ran: the .d file's directory
                    paths.add(os.path.realpath(os.path.join(d.parent, dep.replace("\\ ", " ").replace("$$", "$"))))
    roots = [os.path.realpath(s) + os.sep for s in skip]
    out = []
    for p in sorted(paths):
        if any(p.startswith(r) for r in roots):
            continue
        out.append({"path": p, "sha256": file_sha256(p)})
    return out


def dependencies_hold(deps: list[dict]) -> bool:
    return all(isinstance(d, dict) and d.get("sha256") and file_sha256(str(d.get("path"))) == d["sha256"]
               for d in deps)


# -- entries -------------------------------------------------------------------------------------------------------

def _read_meta(d: Path) -> dict | None:
    """meta.json of an entry or pch directory when it is a plain file (never through a symlink)."""
    try:
        fd = os.open(d / META, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, _META_MAX + 1)
    finally:
        os.close(fd)
    try:
        meta = json.loads(data) if len(data) <= _META_MAX else None
    except ValueError:
        return None
    return meta if isinstance(meta, dict) and meta.get("schema") == SCHEMA else None


def _plain_dir(d: Path) -> bool:
    try:
        st = os.lstat(d)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()


def valid(d: Path, *, key: str | None = None) -> dict | None:
    """The meta of a usable entry or pch directory (see the module docstring), else None."""
    if not _plain_dir(d):
        return None
    meta = _read_meta(d)
    if meta is None or (key is not None and meta.get("key") != key):
        return None
    files = meta.get("files")
    if not isinstance(files, dict):
        return None
    for name, size in files.items():
        try:
            st = os.lstat(d / name)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or st.st_size != size:
            return None
    return meta if dependencies_hold(meta.get("deps", [])) else None


def lookup(key: str) -> Path | None:
    """The entry of `key` when it is there and usable (its last use recorded for the LRU), else None."""
    d = checked_root() / key
    meta = valid(d, key=key)
    if meta is None:
        return None
    touch(d)
    return d


def touch(d: Path) -> None:
    try:
        os.utime(d / META)
    except OSError:
        pass


def staging(kind: str) -> Path:
    """A fresh directory beneath tmp/ for a build under way, named for this process."""
    t = checked_root() / TMP
    t.mkdir(mode=0o700, exist_ok=True)
    clean_stale(t)
    return Path(tempfile.mkdtemp(prefix=f"{kind}-{os.getpid()}-", dir=t))


def clean_stale(t: Path | None = None) -> list[str]:
    """Remove what builds whose process is gone left beneath tmp/; their names."""
    t = t or checked_root() / TMP
    gone = []
    try:
        names = os.listdir(t)
    except OSError:
        return gone
    for name in names:
        pid = name.split("-")[1] if name.count("-") >= 2 else ""
        if pid.isdigit() and int(pid) != os.getpid() and not process_running(int(pid)):
            remove_tree(t / name)
            gone.append(name)
    return gone


def write_meta(d: Path, key: str, *, deps: list[dict], extra: dict | None = None) -> dict:
    """meta.json for a directory about to be published: its files' sizes (src/ aside), deps, its total size."""
    files = {p.relative_to(d).as_posix(): p.stat().st_size for p in sorted(d.rglob("*"))
             if p.is_file() and not p.is_symlink() and p.relative_to(d).parts[0] != "src" and p.name != META}
    total = sum(p.lstat().st_size for p in d.rglob("*"))
    meta = {"schema": SCHEMA, "key": key, "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "files": files, "deps": deps, "bytes": total, **(extra or {})}
    (d / META).write_text(json.dumps(meta, sort_keys=True, indent=1), encoding="utf-8")
    return meta


def publish(staged: Path, name: str) -> Path:
    """Rename a finished build into place as root/name, read-only; an unusable one already there is replaced,
    a usable one (another build's, just made) kept. Returns the directory in place."""
    dest = checked_root() / name
    _read_only(staged)
    for _ in range(3):
        try:
            os.rename(staged, dest)
            os.chmod(dest, 0o555)
            return dest
        except OSError:
            if valid(dest, key=None if name.startswith("pch-") else name) is not None:
                return dest
            if os.path.lexists(dest):  # an old, broken or planted one: aside, then gone
                aside = Path(tempfile.mkdtemp(prefix=f"old-{os.getpid()}-", dir=checked_root() / TMP))
                try:
                    if os.path.islink(dest) or not os.path.isdir(dest):
                        os.unlink(dest)
                    else:
                        os.chmod(dest, 0o700)
                        os.rename(dest, aside / "x")
                finally:
                    remove_tree(aside)
    raise CacheRefused(f"{dest}: cannot put a build in place in the ascendc-cpu build cache")


def _read_only(d: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(d):
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                os.chmod(p, 0o444)
        for sub in dirnames:
            p = os.path.join(dirpath, sub)
            if not os.path.islink(p):
                os.chmod(p, 0o555)


def remove_tree(p: Path) -> None:
    """rmtree, read-only directories included (this user's own, made read-only when published)."""
    if os.path.islink(p) or os.path.isfile(p):
        try:
            os.unlink(p)
        except OSError:
            pass
        return
    for dirpath, dirnames, _ in os.walk(p):
        for d in [dirpath, *(os.path.join(dirpath, n) for n in dirnames)]:
            try:
                if not os.path.islink(d):
                    os.chmod(d, 0o700)
            except OSError:
                pass
    shutil.rmtree(p, ignore_errors=True)


# -- size: info, prune, the cap ------------------------------------------------------------------------------------

def _du(p: Path) -> int:
    total = 0
    for dirpath, dirnames, filenames in os.walk(p):
        for n in filenames + dirnames:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_size
            except OSError:
                pass
    return total


def _items(r: Path) -> list[dict]:
    """The cache's entries and pch directories: name, kind, bytes, last use, whether usable."""
    out = []
    for name in sorted(os.listdir(r)):
        kind = "entry" if KEY.fullmatch(name) else "pch" if PCH.fullmatch(name) else None
        if kind is None:
            continue
        d = r / name
        meta = _read_meta(d) if _plain_dir(d) else None
        size = meta.get("bytes") if meta and isinstance(meta.get("bytes"), int) else _du(d)
        try:
            last = os.lstat(d / META).st_mtime if meta else os.lstat(d).st_mtime
        except OSError:
            last = 0.0
        out.append({"name": name, "kind": kind, "bytes": size, "last_used": last, "usable": meta is not None})
    return out


def enforce_cap(*, keep: tuple[Path, ...] = (), limit: int | None = None) -> list[dict]:
    """Remove the least recently used entries and pch directories until the cache holds at most `limit` bytes
    (max_bytes()); those in `keep` (in use now) stay. Returns what went."""
    r = checked_root()
    limit = max_bytes() if limit is None else limit
    items = _items(r)
    total = sum(i["bytes"] for i in items) + _du(r / TMP)
    gone = []
    kept = {Path(k).name for k in keep}
    for item in sorted(items, key=lambda i: (i["usable"], i["last_used"])):  # broken ones first, then LRU
        if total <= limit:
            break
        if item["name"] in kept:
            continue
        remove_tree(r / item["name"])
        total -= item["bytes"]
        gone.append(item)
    return gone


def cache_info() -> dict:
    """What `repair cache info` prints: where the cache is, what it holds, its cap."""
    r = checked_root(create=False) if os.path.lexists(cache_root()) else cache_root()
    items = _items(r) if r.is_dir() else []
    stale = sorted(os.listdir(r / TMP)) if (r / TMP).is_dir() else []
    return {"root": str(r), "entries": sum(i["kind"] == "entry" for i in items),
            "pch_dirs": sum(i["kind"] == "pch" for i in items), "unusable": sum(not i["usable"] for i in items),
            "bytes": sum(i["bytes"] for i in items) + (_du(r / TMP) if stale else 0), "max_bytes": max_bytes(),
            "entry_max_bytes": entry_max_bytes(), "temporary": stale}


def prune_cache(*, limit: int | None = None) -> dict:
    """`repair cache prune`: temporaries of builds that are gone, then least recently used entries past `limit`."""
    stale = clean_stale()
    gone = enforce_cap(limit=limit)
    return {"removed_temporary": stale, "removed": [g["name"] for g in gone],
            "freed_bytes": sum(g["bytes"] for g in gone), **cache_info()}


def parse_size(text: str) -> int:
    """`500M`, `2G`, `64K`, or a number of megabytes: bytes; BadInput otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", text, re.IGNORECASE)
    if m is None:
        raise BadInput(f"--max-size {text!r}: expected a size such as 500M or 2G")
    unit = {"": 20, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2).upper()]
    return int(float(m.group(1)) * (1 << unit))


def render_cache_info(i: dict) -> str:
    lines = [f"{i['root']}: {i['entries']} build(s), {i['pch_dirs']} precompiled-header director"
             f"{'y' if i['pch_dirs'] == 1 else 'ies'}, {i['bytes'] / 2**20:.1f} MB of {i['max_bytes'] / 2**20:.0f} MB "
             f"({MAX_ENV}); an entry may hold {i['entry_max_bytes'] / 2**20:.0f} MB ({ENTRY_MAX_ENV})"]
    if i["unusable"]:
        lines.append(f"{i['unusable']} unusable (a later build replaces each, `repair cache prune` removes them first)")
    if i["temporary"]:
        lines.append(f"temporary: {', '.join(i['temporary'][:5])} (builds under way, or killed: pruned once their "
                     "process is gone)")
    return "\n".join(lines)
