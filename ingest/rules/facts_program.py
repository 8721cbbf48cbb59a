"""Facts read from launches and the constructor: which argument feeds which kernel parameter, what a parameter defaults to.

A constructor default hard-coded where the parameter belongs, a parameter threaded through kernel and
launch, launch arguments in each other's place, a stride or a row offset the kernel receives but never
uses, an input indexed as contiguous that the forward never makes so.
"""
from __future__ import annotations

import re

from ingest.rules.facts import FACTS, PASS, Edit, FactContext, Option, fact, mask_definition, mask_of
from ingest.rules.flow import named, reaches, span
from ingest.rules.program import Module, first_statement, number, positional

__all__ = ["FACTS"]


def _ctor_attrs(mod: Module, value: float) -> list[str]:
    """Attributes (self.<attr>) that store a constructor parameter whose default equals value."""
    out = []
    for attr, param in mod.attrs.items():
        default = number(mod.init_defaults.get(param) or "")
        if default is not None and value == default:
            out.append(attr)
    return out


def _reads_attr(node, attr: str) -> bool:
    return any(a.field("attribute").text() == attr and a.field("object").text() == "self"
               for a in node.find_all(kind="attribute"))


@fact("constructor-attribute")
def _constructor_attribute(ctx: FactContext, args: dict) -> list[Option]:
    """Host side: a literal equal to a constructor parameter's default the forward never reads: `self.<attr>`."""
    lit = ctx.node(args.get("of"))
    mod, value = ctx.module, number(lit.text())
    if value is None or mod.forward is None or ctx.module.kernel_of(lit) is not None:
        return []
    s0, s1 = span(mod.forward)
    if not (s0 <= span(lit)[0] < s1):
        return []
    return [Option(f"self.{attr}") for attr in _ctor_attrs(mod, value) if not _reads_attr(mod.forward, attr)]


@fact("constructor-parameter")
def _constructor_parameter(ctx: FactContext, args: dict) -> list[Option]:
    """Kernel side: a literal equal to a constructor parameter's default stands where that parameter belongs.

    Either a kernel parameter the kernel never reads already receives `self.<attr>` (bind its name), or
    none does and the forward does not pass it: then the parameter is threaded through (added to the
    kernel's signature before its first constexpr, passed at every launch), and its name is bound.
    """
    lit = ctx.node(args.get("of"))
    mod, value = ctx.module, number(lit.text())
    kernel = mod.kernel_of(lit)
    if value is None or kernel is None or mod.forward is None:
        return []
    launches = mod.launches_of(kernel)
    if not launches:
        return []
    out: list[Option] = []
    for attr in _ctor_attrs(mod, value):
        receiving = [p for p in kernel.params if p.name == attr or any(
            (a := ln.arg_for(p.name)) is not None and (_reads_attr(a, attr) or a.text() == f"self.{attr}")
            for ln in launches)]
        unused = [p for p in receiving if p.name not in kernel.reads]
        if unused:
            out += [Option(p.name) for p in unused]
        elif not receiving and not _reads_attr(mod.forward, attr):
            threaded = _thread(ctx, kernel, launches, attr)
            if threaded is not None:
                out.append(threaded)
    return out


def _thread(ctx: FactContext, kernel, launches, attr: str) -> Option | None:
    """Add parameter `attr` to the kernel (before its first constexpr) and `self.<attr>` to each launch."""
    names = {p.name for p in kernel.params} | kernel.reads
    name = attr if attr not in names else f"{attr}_value"
    index = next((i for i, p in enumerate(kernel.params) if p.constexpr or p.default is not None), len(kernel.params))
    edits: list[Edit] = []
    if index < len(kernel.params):
        edits.append((span(kernel.params[index].node)[0], span(kernel.params[index].node)[0], f"{name}, "))
    elif kernel.params:
        end = span(kernel.params[-1].node)[1]
        edits.append((end, end, f", {name}"))
    else:
        return None
    for ln in launches:
        given = positional(ln.args)
        if len(given) != index:  # the constexprs are passed by position too, or the launch is short
            if len(given) < index:
                return None
            at = span(given[index])[0]
            edits.append((at, at, f"self.{attr}, "))
        elif given:
            end = span(given[-1])[1]
            edits.append((end, end, f", self.{attr}"))
        else:
            return None
    return Option(name, tuple(edits))


def _arg_name(text: str) -> str:
    text = re.sub(r"^self\.", "", text.strip())
    return re.sub(r"(_ptr|_p)$", "", text)


@fact("swapped-launch-args")
def _swapped_launch_args(ctx: FactContext, args: dict) -> list[Option]:
    """The match is a launch whose positional arguments i and j are named as the kernel's parameters j and i."""
    launch = ctx.module.launch_at(ctx.match)
    if launch is None:
        return []
    given = positional(launch.args)
    params = launch.kernel.params
    out = []
    for i in range(min(len(given), len(params))):
        for j in range(i + 1, min(len(given), len(params))):
            ai, aj = _arg_name(given[i].text()), _arg_name(given[j].text())
            pi, pj = _arg_name(params[i].name), _arg_name(params[j].name)
            if ai == aj or pi == pj or not ai.isidentifier() or not aj.isidentifier():
                continue
            if ai == pj and aj == pi:
                out.append(_swap_edits(given[i], given[j]))
    return out


def _swap_edits(a, b) -> Option:
    (a0, a1), (b0, b1) = span(a), span(b)
    return Option("", ((a0, a1, b.text()), (b0, b1, a.text())))


@fact("contiguous-inputs")
def _contiguous_inputs(ctx: FactContext, args: dict) -> list[Option]:
    """The match is a launch that passes a forward parameter's tensor without its strides, and the forward
    never makes it contiguous: the kernel's indexing assumes a layout the input may not have."""
    mod = ctx.module
    launch = mod.launch_at(ctx.match)
    if launch is None or mod.forward is None or span(launch.host) != span(mod.forward):
        return []
    params = {p.text() for p in named(mod.forward.field("parameters")) if p.kind() == "identifier"} - {"self"}
    first = first_statement(mod.forward)
    if first is None:
        return []
    text = mod.forward.text()
    out = []
    for a in launch.args:
        name = a.text()
        if a.kind() != "identifier" or name not in params:
            continue
        if re.search(rf"\b{re.escape(name)}\.(contiguous\(|stride\(\)|stride\([1-9])", text):
            continue  # made contiguous, or every stride past the first is passed
        if not re.search(rf"\b{re.escape(name)}\.(shape\b|size\(|numel\()", text):
            continue  # only a tensor whose shape the forward reads is indexed by that shape
        at = span(first)[0]
        indent = " " * first.range().start.column
        out.append(Option("", ((at, at, f"{name} = {name}.contiguous()\n{indent}"),)))
    return out


@fact("unused-parameter")
def _unused_parameter(ctx: FactContext, args: dict) -> list[Option]:
    """A parameter of the match's kernel that the kernel never reads, whose name or launch argument matches
    `like` (a regex): bind its name."""
    kernel = ctx.module.kernel_of(ctx.match)
    if kernel is None:
        return []
    like = re.compile(str(args.get("like", ".")))
    out = []
    for p in kernel.unused():
        arg = _launch_arg(ctx, kernel, p.name) or ""
        if not p.constexpr and (like.search(p.name) or like.search(arg)):
            out.append(Option(p.name))
    return out


def _launch_arg(ctx: FactContext, kernel, name: str) -> str | None:
    """The text every launch passes for a kernel parameter (None when launches disagree or there are none)."""
    texts = {a.text() for ln in ctx.module.launches_of(kernel) if (a := ln.arg_for(name)) is not None}
    return texts.pop() if len(texts) == 1 else None


_STRIDE = re.compile(r"^(\w+)\.stride\((\d+)\)$")


@fact("stride-for")
def _stride_for(ctx: FactContext, args: dict) -> list[Option]:
    """The node scales a pointer offset by a size; bind the stride parameters the kernel receives and never reads."""
    node = ctx.node(args.get("of"))
    kernel = ctx.module.kernel_of(node)
    if kernel is None or node.kind() != "identifier":
        return []
    own = _launch_arg(ctx, kernel, node.text())
    param = kernel.param(node.text())
    if param is None or param.constexpr or own is None or _STRIDE.match(own):
        return []  # a size the launch passes (not a block size, not already a stride)
    out = []
    for p in kernel.unused():
        arg = _launch_arg(ctx, kernel, p.name)
        if arg is not None and _STRIDE.match(arg):
            out.append(Option(p.name))
    return out


def _program_ids(kernel) -> list[str]:
    """Names assigned straight from tl.program_id(...) in the kernel."""
    out = []
    for asg in kernel.node.find_all(kind="assignment"):
        left, right = asg.field("left"), asg.field("right")
        if left is not None and right is not None and left.kind() == "identifier" and right.text().startswith(
                "tl.program_id("):
            out.append(left.text())
    return out


@fact("row-offset")
def _row_offset(ctx: FactContext, args: dict) -> list[Option]:
    """The node is a pointer parameter whose offset never involves the program id while other pointers' do:
    bind `row * stride` for the program-id variable and the stride the launch passes for that tensor."""
    ptr = ctx.node(args.get("of"))
    offset = ctx.node(args.get("offset"))
    kernel = ctx.module.kernel_of(ptr)
    if kernel is None or kernel.param(ptr.text()) is None or offset is None:
        return []
    parent = ctx.match.parent()
    if parent is not None and parent.kind() == "binary_operator" and parent.field("left") is not None and span(
            parent.field("left")) == span(ctx.match):
        return []  # part of a longer pointer expression: judge the whole one
    pids = _program_ids(kernel)
    if not pids:
        return []
    scope = kernel.node
    sources = [a for a in scope.find_all(pattern="tl.program_id($$$)")]
    if reaches(scope, sources, [(offset, 0)]) or _advanced(kernel, ptr.text(), sources):
        return []
    tensor = _launch_arg(ctx, kernel, ptr.text())
    if tensor is None:
        return []
    out = []
    for p in kernel.params:
        arg = _launch_arg(ctx, kernel, p.name)
        m = _STRIDE.match(arg or "")
        if m and m.group(2) == "0" and m.group(1) == tensor:
            out += [Option(f"{pid} * {p.name}") for pid in pids[:1]]
    if not out and _shape_read_in_forward(ctx, tensor):  # no row stride passed: a contiguous row is the mask's bound
        load = next((c for c in ctx.match.ancestors() if c.kind() == "call" and c.text().startswith("tl.")), None)
        mask = mask_of(load) if load is not None and load.text().startswith("tl.load") else None
        if mask is not None:
            expr = mask_definition(mask)
            for cmp in [expr, *expr.find_all(kind="comparison_operator")]:
                kids = named(cmp) if cmp.kind() == "comparison_operator" else []
                if len(kids) == 2 and kids[1].kind() == "identifier" and kernel.param(kids[1].text()) is not None:
                    out.append(Option(f"{pids[0]} * {kids[1].text()}"))
                    break
    return out


def _advanced(kernel, name: str, pids: list) -> bool:
    """The pointer parameter is moved to the program's row first (`X += row * stride`, `X = X + row * stride`)."""
    for kind in ("augmented_assignment", "assignment"):
        for asg in kernel.node.find_all(kind=kind):
            left, right = asg.field("left"), asg.field("right")
            if left is not None and right is not None and left.text() == name and pids and \
                    reaches(kernel.node, pids, [(right, 0)]):
                return True
    return False


def _shape_read_in_forward(ctx: FactContext, tensor: str) -> bool:
    """The forward reads this tensor's shape (a 2-D input it unpacks), as opposed to a parameter vector."""
    fwd = ctx.module.forward
    return fwd is not None and tensor.isidentifier() and bool(
        re.search(rf"\b{re.escape(tensor)}\.(shape\b|size\()", fwd.text()))


def _single_program(ctx: FactContext, kernel) -> bool:
    """Every launch of the kernel starts one program: block offsets would be zero anyway."""
    launches = ctx.module.launches_of(kernel)
    return bool(launches) and all(ln.grid is not None and re.fullmatch(r"\(\s*1\s*,?\s*\)", ln.grid.text())
                                  for ln in launches)


@fact("unused-program-id")
def _unused_program_id(ctx: FactContext, args: dict) -> list[Option]:
    """The kernel computes a program id it never reads: bind it (the block offset that was left out)."""
    kernel = ctx.module.kernel_of(ctx.match)
    if kernel is None or not ctx.module.launches_of(kernel) or _single_program(ctx, kernel):
        return []  # offsets by block only matter where several programs are launched
    reads = [n.text() for n in kernel.node.find_all(kind="identifier")]
    if "program_id" not in reads:  # no program reads its id: every program handles block 0
        return [Option("tl.program_id(0)")]
    unused = [pid for pid in _program_ids(kernel) if reads.count(pid) == 1]
    if unused:
        return [Option(pid) for pid in unused]
    # the id is read, but no load's address depends on it (a partial sum stored per program): every program
    # loads block 0
    scope = kernel.node
    pointers = [m.get_match("SINK") for p in ("tl.load($SINK)", "tl.load($SINK, $$$)")
                for m in scope.find_all(pattern=p)]
    ids = list(scope.find_all(pattern="tl.program_id($$$)"))
    if pointers and ids and not reaches(scope, ids, [(p, 0) for p in pointers]) and reaches(
            scope, [ctx.match], [(p, 0) for p in pointers]):
        return [Option(pid) for pid in _program_ids(kernel)[:1]]
    return []


@fact("program-id")
def _program_id(ctx: FactContext, args: dict) -> list[Option]:
    """The node names a value assigned straight from tl.program_id(...)."""
    node = ctx.node(args.get("of"))
    kernel = ctx.module.kernel_of(node)
    return PASS if kernel is not None and node.text() in _program_ids(kernel) else []


@fact("unpassed-default")
def _unpassed_default(ctx: FactContext, args: dict) -> list[Option]:
    """The match is a launch that leaves a kernel parameter at its default, which equals the default of a
    constructor parameter stored as self.<attr>: pass `name=self.<attr>` (an edit inside the launch)."""
    launch = ctx.module.launch_at(ctx.match)
    if launch is None or not launch.args:
        return []
    out = []
    for p in launch.kernel.params:
        value = number(p.default or "")
        if value is None or launch.arg_for(p.name) is not None:
            continue
        for attr in _ctor_attrs(ctx.module, value):
            end = span(launch.args[-1])[1]
            out.append(Option("", ((end, end, f", {p.name}=self.{attr}"),)))
    return out


@fact("kernel-parameter")
def _kernel_parameter(ctx: FactContext, args: dict) -> list[Option]:
    """The node names a (non-constexpr) parameter of its kernel: a size the launch passes, not a local."""
    node = ctx.node(args.get("of"))
    kernel = ctx.module.kernel_of(node)
    param = kernel.param(node.text()) if kernel is not None else None
    return PASS if param is not None and not param.constexpr else []
