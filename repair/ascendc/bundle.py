"""An AscendC candidate as one plain-text bundle: its source files by name, so a worker, a diff, a rewrite rule or
a prompt sees real C++ files with real names, whatever format the candidate came in.

    //@ ascendc-bundle/v1 format=<mkb-sources|mkb-direct|npukernelbench>
    //@ file <name> role=<role>
    ...that source's text, verbatim...

A file whose text does not end with a newline says so (`//@ file <name> role=<role> noeol`), so a bundle renders
back to exactly the sources it was made of. Names are the format's own (`kernel/add_custom_kernel.cpp`,
`op_kernel/add_custom.cpp`); a six-source .py's strings get the names msopgen's project gives them
(`op_kernel/add_custom.cpp` for `kernel_src`). `write_candidate` materialises a bundle in the candidate's original
format, so the evaluation path takes it unchanged. `apply_diff` applies a unified diff whose `---/+++` headers name
bundle files (`a/op_kernel/add_custom.cpp`), file by file.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
from dataclasses import dataclass, replace as _replace
from pathlib import Path, PurePosixPath
from typing import Callable, get_args

from repair.ascendc.candidate import CPP_ROLES, AscendCCandidate, Format, Role, snake
from repair.ascendc.load import MKB_SOURCES, find_validation
from repair.errors import BadInput

BUNDLE_SCHEMA = "ascendc-bundle/v1"
FORMATS, ROLES = get_args(Format), get_args(Role)
_HEAD = re.compile(r"^//@ ascendc-bundle/v1 format=(\S+)[ \t]*$")
_FILE = re.compile(r"^//@ file (\S+) role=(\w+)( noeol)?[ \t]*$")
_MARK = "//@ "
# a six-source .py's variables by role, and the names the bundle gives them
_MKB_VARS = {role: var for var, role in MKB_SOURCES.items()}
_MKB_NAMES = {"project_json": "{s}.json", "host_tiling": "op_host/{s}_tiling.h", "host_operator": "op_host/{s}.cpp",
              "kernel": "op_kernel/{s}.cpp", "binding": "CppExtension/csrc/op.cpp", "model": "model.py"}


class BundleError(BadInput):
    """A bundle, or a change to one, that cannot be read or applied; `reason` is a short code."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class BundleFile:
    name: str  # relative POSIX path: op_kernel/add_custom.cpp
    role: str
    text: str


@dataclass(frozen=True)
class Bundle:
    format: str
    files: tuple[BundleFile, ...]

    @property
    def text(self) -> str:
        """The bundle rendered; parse_bundle(b.text) == b."""
        out = [f"//@ {BUNDLE_SCHEMA} format={self.format}\n"]
        for f in self.files:
            eol = f.text.endswith("\n") or not f.text
            out.append(f"//@ file {f.name} role={f.role}{'' if eol else ' noeol'}\n")
            out.append(f.text if eol else f.text + "\n")
        return "".join(out)

    def names(self) -> list[str]:
        return [f.name for f in self.files]

    def file(self, name: str) -> BundleFile:
        for f in self.files:
            if f.name == name:
                return f
        raise BundleError("unknown-file", f"the bundle has no file {name} (it has {', '.join(self.names())})")

    def replace(self, name: str, new_text: str) -> Bundle:
        """The bundle with file `name`'s text replaced (BundleError when there is no such file)."""
        self.file(name)
        return _replace(self, files=tuple(_replace(f, text=new_text) if f.name == name else f for f in self.files))

    def cpp_files(self) -> tuple[BundleFile, ...]:
        """The C++ sources (kernel, host tiling and operator, launch header, binding), in bundle order."""
        return tuple(f for f in self.files if f.role in CPP_ROLES)

    def of(self, *roles: str) -> tuple[BundleFile, ...]:
        return tuple(f for f in self.files if f.role in roles)


# -- candidate <-> bundle ------------------------------------------------------------------------------

def to_bundle(candidate: AscendCCandidate) -> str:
    """The candidate's sources as a bundle's text, in the candidate's source order."""
    files = []
    for s in candidate.sources:
        name = _MKB_NAMES[s.role].format(s=snake(candidate.op)) if candidate.format == "mkb-sources" else s.name
        for line in s.text.splitlines():
            if line.startswith(_MARK):
                raise BadInput(f"{s.label()}: a line starts with {_MARK!r}, which a bundle reserves for its headers")
        files.append(BundleFile(name, s.role, s.text))
    return Bundle(candidate.format, tuple(files)).text


def is_bundle(text: str) -> bool:
    return bool(_HEAD.match(text.split("\n", 1)[0]))


def parse_bundle(text: str) -> Bundle:
    """The bundle in `text`; BundleError (reason "bundle") naming the line when it is malformed."""
    lines = text.splitlines(keepends=True)
    head = _HEAD.match(lines[0].rstrip("\r\n")) if lines else None
    if head is None:
        raise BundleError("bundle", f"not an AscendC bundle: line 1 must be '//@ {BUNDLE_SCHEMA} format=<format>'")
    fmt = head.group(1)
    if fmt not in FORMATS:
        raise BundleError("bundle", f"line 1: unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    files: list[tuple[str, str, bool, list[str]]] = []
    for i, line in enumerate(lines[1:], 2):
        if line.startswith(_MARK):
            m = _FILE.match(line.rstrip("\r\n"))
            if m is None:
                raise BundleError("bundle", f"line {i}: a '//@' line must be '//@ file <name> role=<role>'")
            name, role = m.group(1), m.group(2)
            if role not in ROLES:
                raise BundleError("bundle", f"line {i}: unknown role {role!r} (one of {', '.join(ROLES)})")
            rel = PurePosixPath(name)
            if rel.is_absolute() or ".." in rel.parts or name.startswith("./"):
                raise BundleError("bundle", f"line {i}: file name {name!r} leaves the candidate's directory")
            if any(f[0] == name for f in files):
                raise BundleError("bundle", f"line {i}: file {name} appears twice")
            files.append((name, role, bool(m.group(3)), []))
        elif not files:
            if line.strip():
                raise BundleError("bundle", f"line {i}: text before the first '//@ file' line")
        else:
            files[-1][3].append(line)
    if not files:
        raise BundleError("bundle", "the bundle has no '//@ file' sections")
    out = []
    for name, role, noeol, body in files:
        body_text = "".join(body)
        if noeol and body_text.endswith("\n"):
            body_text = body_text[:-1]
        out.append(BundleFile(name, role, body_text))
    return Bundle(fmt, tuple(out))


def write_candidate(bundle: Bundle, dest_dir: str | Path, *, original: str | Path, name: str | None = None) -> Path:
    """The bundle as a candidate in `original`'s format under dest_dir (named like `original`, or `name` plus the
    original's suffix): a six-source .py with the changed strings replaced, a direct-launch .json with the changed
    contents replaced, or a task directory with the original's other files (and its task's validation/) copied."""
    original, dest_dir = Path(original), Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = dest_dir / ((name + original.suffix) if name else original.name)
    if bundle.format == "mkb-sources":
        target.write_text(_six_sources(bundle, original), encoding="utf-8")
    elif bundle.format == "mkb-direct":
        target.write_text(_direct(bundle, original), encoding="utf-8")
    else:
        _task_dir(bundle, original, target)
    return target


def _six_sources(bundle: Bundle, original: Path) -> str:
    text = original.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=str(original))
    by_var = {_MKB_VARS[f.role]: f for f in bundle.files}
    lines = text.splitlines(keepends=True)
    edits = []  # (start line, start col, end line, end col, new literal), columns in UTF-8 bytes as ast gives them
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        f = by_var.get(node.targets[0].id)
        v = node.value
        if f is None or not (isinstance(v, ast.Constant) and isinstance(v.value, str)) or v.value == f.text:
            continue
        old = _segment(lines, v.lineno, v.col_offset, v.end_lineno, v.end_col_offset)
        edits.append((v.lineno, v.col_offset, v.end_lineno, v.end_col_offset, _literal(f.text, old)))
    for l0, c0, l1, c1, new in sorted(edits, reverse=True):
        head = lines[l0 - 1].encode("utf-8")[:c0].decode("utf-8")
        tail = lines[l1 - 1].encode("utf-8")[c1:].decode("utf-8")
        lines[l0 - 1:l1] = [head + new + tail]
    return "".join(lines)


def _segment(lines: list[str], l0: int, c0: int, l1: int, c1: int) -> str:
    if l0 == l1:
        return lines[l0 - 1].encode("utf-8")[c0:c1].decode("utf-8")
    return (lines[l0 - 1].encode("utf-8")[c0:].decode("utf-8") + "".join(lines[l0:l1 - 1])
            + lines[l1 - 1].encode("utf-8")[:c1].decode("utf-8"))


def _literal(text: str, old: str) -> str:
    """A Python literal for `text` in the original's style (r\"\"\"...\"\"\" as the suite writes them) when that
    round-trips, else a plain triple-quoted one, else repr."""
    m = re.match(r"^([rRuUbBfF]*)('''|\"\"\"|'|\")", old)
    prefix, quote = (m.group(1), m.group(2)) if m else ("", '"""')
    if len(quote) == 1:
        quote = quote * 3
    escaped = text.replace("\\", "\\\\").replace(quote, "\\" + quote[0] * 3)
    for literal in (f"{prefix}{quote}{text}{quote}", f"r{quote}{text}{quote}", f"{quote}{escaped}{quote}"):
        try:
            if ast.literal_eval(literal) == text:
                return literal
        except (SyntaxError, ValueError):
            continue
    return repr(text)


def _direct(bundle: Bundle, original: Path) -> str:
    data = json.loads(original.read_text(encoding="utf-8"))
    entries = data.get("sources") if isinstance(data, dict) else data
    by_name = {f.name: f for f in bundle.files}
    seen = set()
    for e in entries:
        f = by_name.get(e["path"]) or by_name.get(str(PurePosixPath(e["path"])))
        if f is not None:
            e["content"] = f.text
            seen.add(f.name)
    entries.extend({"path": f.name, "content": f.text} for f in bundle.files if f.name not in seen)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _task_dir(bundle: Bundle, original: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(original, target, symlinks=False)
    for f in bundle.files:
        if f.role in ("binding", "model") or f.name.startswith("validation/"):
            continue  # the task's fixed files: copied, never written from the bundle
        path = target / f.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f.text, encoding="utf-8")
    validation = find_validation(original)
    if validation is not None and not (target / "validation").is_dir():
        (target / "validation").mkdir()
        for name in ("module.py", "pybind.cpp"):
            shutil.copyfile(validation / name, target / "validation" / name)


# -- diffs -------------------------------------------------------------------------------------------

def apply_diff(bundle: Bundle, diff: str, apply_file: Callable[[str, str], str]) -> Bundle:
    """Apply a unified diff with `apply_file(text, one_file_diff) -> text` (the repair loop's applier tolerates
    offsets; ingest.patch's is exact): sections whose `+++` header names a bundle file (`b/op_kernel/add_custom.cpp`,
    or the name without the a/ b/ prefix) apply to that file; a diff with no file headers applies to the bundle's
    text. BundleError (reason "unknown-file") for a header naming no file of the bundle; apply_file's own errors
    pass through."""
    sections = split_diff(diff)
    if not sections:
        return parse_bundle(apply_file(bundle.text, diff))
    for target, section in sections:
        name = resolve_name(bundle, target)
        bundle = bundle.replace(name, apply_file(bundle.file(name).text, section))
    return bundle


def split_diff(diff: str) -> list[tuple[str, str]]:
    """(the `+++` target, that file's part of the diff) for each file of a multi-file diff; [] when it names none."""
    lines = diff.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines)
              if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")]
    out = []
    for n, i in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        target = lines[i + 1][4:].split("\t")[0].strip()
        if target == "/dev/null":  # a deletion names the file in its --- line
            target = lines[i][4:].split("\t")[0].strip()
        out.append((target, "".join(lines[i:end])))
    return out


def resolve_name(bundle: Bundle, target: str) -> str:
    """The bundle file a diff header names: exactly, without git's a/ or b/ prefix, or by a unique path suffix."""
    names = bundle.names()
    candidates = [target]
    if target[:2] in ("a/", "b/"):
        candidates.append(target[2:])
    for c in candidates:
        if c in names:
            return c
    for c in candidates:
        hits = [n for n in names if n.endswith("/" + c) or c.endswith("/" + n)]
        if len(hits) == 1:
            return hits[0]
    raise BundleError("unknown-file", f"the diff changes {target}, which is not a file of the candidate (its files: "
                      f"{', '.join(names)})")
