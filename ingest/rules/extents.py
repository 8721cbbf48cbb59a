"""Which extent a kernel parameter, a pointer's index and a launch grid stand for, read by value flow through the launch.

A mask must compare an index with the extent of the dimension it walks. That extent is rarely named the same way
twice (`N`, `n_cols`, `D`, `row_len`), so it is read from meaning instead: the host passes `x.shape[1]`, or `N`
from `M, N = x.shape`, or `x.numel()` for a kernel parameter; an index is scaled by a parameter the host binds to
`x.stride(1)`, or added unscaled after a row offset (the last dimension), or alone (the flat element count); an
index built from `tl.program_id(a) * BLOCK` spans what the grid's axis `a` divides (`triton.cdiv(n, BLOCK)`); an
index built from a loop variable spans that loop's stop. ingest.rules.facts_mask turns these into masks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.rules.flow import named, reaches, span
from ingest.rules.program import Kernel, Launch, Module

_SHAPE = re.compile(r"^(\w+)\.(?:shape\[(-?\d+)\]|size\((-?\d+)\))$")
_NUMEL = re.compile(r"^(\w+)\.(?:numel\(\)|nelement\(\))$")
_STRIDE = re.compile(r"^(\w+)\.stride\((-?\d+)\)$")
_LIKE = re.compile(r"^(?:torch\.)?(?:empty|zeros|ones|full|rand|randn)_like\((\w+)")
_SHAPED = re.compile(r"^(?:torch\.(?:empty|zeros|ones|full)|\w+\.new_(?:empty|zeros|ones|full))\((.*)\)$", re.S)
_VIEW = re.compile(r"^(\w+)\.(?:contiguous|float|half|to|clone|detach)\(.*\)$")
_RESHAPE = re.compile(r"^(\w+)\.(?:view|reshape)\((.*)\)$", re.S)
_CDIV = re.compile(r"^(?:triton\.|tl\.)?cdiv\((.+?),\s*[^,]+\)$|^\(?\((.+?)\s*\+\s*.+?-\s*1\)\s*//.+$|^(.+?)\s*//.+$"
                   r"|^math\.ceil\((.+?)\s*/.+\)$|^-\(-(.+?)\s*//.+\)$")
MAX_DEPTH = 4


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@dataclass(frozen=True)
class Extent:
    tensor: str
    dim: int | str  # a dimension index (negative: from the end), or "numel"


@dataclass
class Host:
    """What the launching function says about names and tensors: assignments, shapes, aliases."""

    names: dict[str, str] = field(default_factory=dict)  # name -> the expression last assigned to it (squashed)
    ndim: dict[str, int] = field(default_factory=dict)  # tensor -> number of dimensions, where it is known
    like: dict[str, str] = field(default_factory=dict)  # tensor -> the tensor it was made like (empty_like, contiguous)
    dims: dict[str, list[str]] = field(default_factory=dict)  # tensor -> its shape expressions (torch.empty((M, N)))

    def resolve(self, text: str, depth: int = 0) -> str:
        text = squash(text)
        while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            text = text[1:-1]
        if depth < MAX_DEPTH and text in self.names:
            return self.resolve(self.names[text], depth + 1)
        m = re.fullmatch(r"int\((.+)\)", text)
        return self.resolve(m.group(1), depth + 1) if m and depth < MAX_DEPTH else text

    def root(self, tensor: str) -> str:
        seen = set()
        while tensor in self.like and tensor not in seen:
            seen.add(tensor)
            tensor = self.like[tensor]
        return tensor

    def norm(self, tensor: str, dim: int | str) -> int | str:
        """A negative dimension counted from the end, where the tensor's rank is known."""
        n = self.ndim.get(tensor) or self.ndim.get(self.root(tensor))
        return dim + n if isinstance(dim, int) and dim < 0 and n else dim

    def extents(self, text: str) -> set[Extent]:
        """The extents an expression (a launch argument) is: x.shape[1], N from `M, N = x.shape`, x.numel(), a
        dimension of a tensor made with that size (torch.empty((M, N)))."""
        out: set[Extent] = set()
        value = self.resolve(text)
        m = _SHAPE.match(value)
        if m:
            t, d = m.group(1), int(m.group(2) or m.group(3))
            out.add(Extent(self.root(t), self.norm(t, d)))
        m = _NUMEL.match(value)
        if m:
            out.add(Extent(self.root(m.group(1)), "numel"))
        for t, exprs in self.dims.items():
            for d, e in enumerate(exprs):
                if e and (self.resolve(e) == value or squash(e) == squash(text)):
                    out.add(Extent(self.root(t), d))
        return out

    def stride(self, text: str) -> Extent | None:
        m = _STRIDE.match(self.resolve(text))
        if not m:
            return None
        t = m.group(1)
        return Extent(self.root(t), self.norm(t, int(m.group(2))))


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False
    return depth == 0


def host_of(launch: Launch) -> Host:
    """The launching function's assignments before the launch, read in order (the last one before it wins)."""
    host = Host()
    at = span(launch.call)[0]
    for asg in launch.host.find_all(kind="assignment"):
        if span(asg)[0] >= at:
            continue
        left, right = asg.field("left"), asg.field("right")
        if left is None or right is None:
            continue
        value = squash(right.text())
        if left.kind() == "identifier":
            name = left.text()
            host.names[name] = value
            _tensor_facts(host, name, value)
        elif left.kind() in ("pattern_list", "tuple_pattern"):
            targets = [t.text() for t in named(left)]
            m = re.fullmatch(r"(\w+)\.(?:shape|size\(\))", value)
            if m:  # M, N = x.shape
                host.ndim[m.group(1)] = len(targets)
                for i, t in enumerate(targets):
                    if re.fullmatch(r"\w+", t) and t != "_":
                        host.names[t] = f"{m.group(1)}.shape[{i}]"
            elif value.startswith("(") or "," in value:  # BLOCK_M, BLOCK_N = 16, 32
                parts = _split_args(value.strip("()"))
                if len(parts) == len(targets):
                    for t, v in zip(targets, parts):
                        host.names[t] = v
    return host


def _tensor_facts(host: Host, name: str, value: str) -> None:
    m = _LIKE.match(value) or _VIEW.match(value)
    if m and m.group(1) != name:
        host.like[name] = m.group(1)
        return
    m = _SHAPED.match(value)
    if m:
        args = _split_args(m.group(1))
        if args and args[0].startswith("(") and args[0].endswith(")"):
            shape = _split_args(args[0][1:-1])
        else:
            shape = [a for a in args if "=" not in a]
        if shape and not re.match(r"^\w+\.shape$", shape[0]):
            host.dims[name] = shape
            host.ndim[name] = len(shape)
        elif shape:  # torch.empty(x.shape, ...): like x
            host.like[name] = shape[0].split(".")[0]
        return
    m = _RESHAPE.match(value)
    if m:
        args = _split_args(m.group(2))
        if len(args) == 1 and args[0].startswith("("):
            args = _split_args(args[0][1:-1])
        host.dims[name] = [a if a != "-1" else "" for a in args]
        host.ndim[name] = len(args)


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def grid_axes(launch: Launch, host: Host, *, counts: bool = False) -> list[str]:
    """The host expressions each grid axis divides (`triton.cdiv(n, BLOCK)` gives n), "" where none is read; with
    counts, each axis's own expression (the number of programs along it)."""
    if launch.grid is None:
        return []
    text = host.resolve(launch.grid.text())
    m = re.fullmatch(r"lambda\w*(?:\w+)?:(.*)", text)
    if m:
        text = m.group(1)
    text = text.strip()
    if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    out = []
    for part in _split_args(text):
        part = host.resolve(part)
        if counts:
            out.append(part)
            continue
        m = _CDIV.match(part)
        out.append(host.resolve(next((g for g in m.groups() if g), "")) if m else "")
    return out


def param_extents(kernel: Kernel, launch: Launch, host: Host) -> dict[str, set[Extent]]:
    """Kernel parameter -> the extents its launch argument is (sizes only; pointers and strides have none)."""
    out = {}
    for p in kernel.params:
        arg = launch.arg_for(p.name)
        if arg is None:
            continue
        found = host.extents(arg.text())
        if found:
            out[p.name] = found
    return out


def param_tensor(launch: Launch, host: Host, name: str) -> str | None:
    """The tensor a pointer parameter receives (its root: empty_like and contiguous copies are one tensor)."""
    arg = launch.arg_for(name)
    if arg is None or arg.kind() != "identifier":
        return None
    return host.root(arg.text())


def param_stride(launch: Launch, host: Host, name: str) -> Extent | None:
    arg = launch.arg_for(name)
    return host.stride(arg.text()) if arg is not None else None


def program_ids(kernel: Kernel) -> dict[str, int]:
    """Kernel names assigned straight from tl.program_id(axis) -> the axis."""
    out = {}
    for asg in kernel.node.find_all(kind="assignment"):
        left, right = asg.field("left"), asg.field("right")
        if left is None or right is None or left.kind() != "identifier":
            continue
        m = re.fullmatch(r"tl\.program_id\((?:axis=)?(\d)\)", squash(right.text()))
        if m:
            out[left.text()] = int(m.group(1))
    return out


def loop_stops(kernel: Kernel) -> dict[str, str]:
    """Loop variables of `for v in range(a, stop[, step])` (tl.range too) -> the stop's text."""
    out = {}
    for loop in kernel.node.find_all(kind="for_statement"):
        left, right = loop.field("left"), loop.field("right")
        if left is None or right is None or left.kind() != "identifier" or right.kind() != "call":
            continue
        fn = right.field("function")
        if fn is None or fn.text() not in ("range", "tl.range", "tl.static_range"):
            continue
        args = [a for a in named(right.field("arguments")) if a.kind() != "keyword_argument"]
        if len(args) >= 2:
            out[left.text()] = args[1].text()
        elif len(args) == 1:
            out[left.text()] = args[0].text()
    return out


def definition(kernel: Kernel, name: str, before: int) -> object | None:
    """The expression last assigned to `name` in the kernel before byte offset `before` (a plain assignment)."""
    best = None
    for asg in kernel.node.find_all(kind="assignment"):
        left, right = asg.field("left"), asg.field("right")
        if left is not None and right is not None and left.text() == name and span(asg)[0] < before:
            best = right
    return best


def tainted_by(kernel: Kernel, node, pattern: str) -> bool:
    sources = list(kernel.node.find_all(pattern=pattern))
    return bool(sources) and bool(reaches(kernel.node, sources, [(node, 0)]))
