"""Runtime guards run inside the sandboxed candidate process around ModelNew.forward.

`with RuntimeGuard(rules_off) as guard: out = model(*inputs)` records the aten ops the forward
executes (TorchDispatchMode: torch.*, F.*, tensor methods, `@` and C++ `at::` calls all land
there) and every Triton kernel launch (the `run` of each KernelInterface class: JITFunction on a
GPU, InterpretedFunction under TRITON_INTERPRET=1, autotuners counted once at the outermost call).
Ops executed inside a launch (the interpreter's host copies) are not the candidate's.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from repair.integrity.rules import EPILOGUE_MAX_SHARE, PROLOGUE_MAX_SHARE, resolve_rules_off


@dataclass
class RuntimeFinding:
    """A finding made inside a sandboxed process; the engine validates it as a repair.engine.result.IntegrityFinding
    (a plain dataclass here: the fork server that runs this module then needs no pydantic)."""

    rule: str
    message: str
    evidence: str = ""
    phase: str = "runtime"
    line: int | None = None
    level: str | None = None  # None: the rule's own level (repair.integrity.rules.default_level)
    share: float | None = None
    input_index: int | None = None  # the input the finding is about (an output's alias, a mutated input)

# aten ops a kernel wrapper may run: allocation, views, copies, fills and metadata queries.
ALLOCATION_OPS = frozenset("""
empty empty_like empty_strided empty_permuted new_empty new_empty_strided zeros zeros_like new_zeros
ones ones_like new_ones full full_like new_full scalar_tensor arange fill fill_ zero_ resize_ resize_as_
randn rand randint randperm randn_like rand_like randint_like normal_ uniform_ random_
""".split())  # the random creators fill a fresh tensor of a shape (normal_/uniform_/random_ are how they do it)
VIEW_OPS = frozenset("""
view _unsafe_view reshape _reshape_alias permute transpose transpose_ t t_ expand expand_as squeeze squeeze_
unsqueeze unsqueeze_ flatten unflatten as_strided as_strided_ select slice narrow split split_with_sizes
unsafe_split chunk unbind detach detach_ alias view_as movedim diagonal unfold lift_fresh set_
""".split())
COPY_OPS = frozenset("""
clone copy_ _to_copy to contiguous lift_fresh_copy _copy_from _copy_from_and_resize cat stack
_local_scalar_dense pin_memory _pin_memory
""".split())
META_OPS = frozenset("""
sym_size sym_stride sym_numel sym_storage_offset size stride numel dim is_contiguous is_same_size
_has_compatible_shallow_copy_type
""".split())
ALLOWED_OPS = ALLOCATION_OPS | VIEW_OPS | COPY_OPS | META_OPS

_ACTIVE: list["RuntimeGuard"] = []  # the guard receiving launch events (innermost last)


def op_name(func: Any) -> str:
    """`aten::_softmax` → ("aten", "_softmax") joined as `aten::_softmax`; custom namespaces kept."""
    try:
        return func._schema.name
    except AttributeError:
        return str(func)


def is_allowed_op(name: str) -> bool:
    ns, _, base = name.partition("::")
    return ns == "aten" and base in ALLOWED_OPS


def iter_tensors(obj: Any):
    """Every tensor in a (nested) tuple/list/dict output or argument list."""
    import torch

    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from iter_tensors(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from iter_tensors(o)
    else:  # TensorWrapper / TensorDescriptor style objects carry a base tensor
        base = getattr(obj, "base", None)
        if base is not None and base is not obj:
            yield from iter_tensors(base)


def _storage_span(t) -> tuple[int, int]:
    s = t.untyped_storage()
    return s.data_ptr(), s.nbytes()


def _kernel_classes() -> list[type]:
    """Every loaded triton KernelInterface subclass that defines its own `run`."""
    try:
        from triton.runtime.jit import KernelInterface
    except Exception:  # no triton: nothing to hook; the no-launch rule then speaks
        return []
    try:
        import triton.runtime.interpreter  # noqa: F401  (InterpretedFunction must be registered)
    except Exception:
        pass
    found, stack = [], [KernelInterface]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                stack.append(sub)
    return [c for c in found if "run" in c.__dict__]


@contextmanager
def _launching(guard: "RuntimeGuard", kernel, args, kwargs) -> Iterator[None]:
    """Inside one kernel launch: the outermost is recorded, and the ops it runs itself (the interpreter's host
    copies) are not the candidate's, so they run outside the guard's mode."""
    if guard._depth == 0:
        guard._record_launch(kernel, args, kwargs)
    guard._depth += 1
    try:
        # its shape, outside the mode (a grid function's ops are the launch's); the innermost run (an autotuner's
        # chosen config) has the last word
        if guard._mode is None or guard._depth > 1:
            guard._note_shape(kernel, args, kwargs)
            yield
        else:
            from torch.utils._python_dispatch import _disable_current_modes

            with _disable_current_modes():
                guard._note_shape(kernel, args, kwargs)
                yield
    finally:
        guard._depth -= 1
        if guard._depth == 0:
            guard._commit_shape()


def _counting_run(orig):
    def run(self, *args, **kwargs):
        guard = _ACTIVE[-1] if _ACTIVE else None
        # A launch whose grid is empty (a floor-divided grid on a tiny case) still counts: the candidate did call
        # its kernel, and the unwritten output fails the numerics. Flagging it would taint an honest near-miss's
        # integrity history, which the KB's quality gate must be able to trust.
        if guard is None or kwargs.get("warmup"):
            return orig(self, *args, **kwargs)
        with _launching(guard, self, args, kwargs):
            return orig(self, *args, **kwargs)

    run.__wrapped__ = orig
    return run


@contextmanager
def foreign_launch(name: str, args) -> Iterator[None]:
    """A kernel launch that is not Triton's (ascendc-cpu's emulated AscendC kernel): the active guard records it
    as a launch of `name` over the tensors in `args`, and the ops run inside it are not the candidate's."""
    guard = _ACTIVE[-1] if _ACTIVE else None
    if guard is None:
        yield
        return
    with _launching(guard, SimpleNamespace(__name__=name), args, {}):
        yield


def _kernel_name(kernel) -> str:
    """The kernel's function name, through the wrappers around it (@triton.autotune, @triton.heuristics)."""
    for _ in range(8):
        if hasattr(kernel, "__name__") or not hasattr(kernel, "fn"):
            break
        kernel = kernel.fn
    return getattr(kernel, "__name__", type(kernel).__name__)


class RuntimeGuard:
    """Context manager recording ops and launches of one forward; `findings()` judges them."""

    def __init__(self, rules_off=()):
        self.rules_off = resolve_rules_off(rules_off)
        self.ops: Counter[str] = Counter()
        self.compute_ops: Counter[str] = Counter()
        self.launches = 0
        self.kernels: Counter[str] = Counter()
        self._depth = 0
        # ("launch", ptrs) / ("copy", src ptrs, dst ptrs) / ("compute", src ptrs, dst ptrs, name), in order
        self._events: list[tuple] = []
        self.kernel_elements = 0  # elements of the tensors handed to launches
        self.compute_elements: Counter[str] = Counter()  # elements each framework op read
        self._storages: dict[int, Any] = {}
        self._patched: list[tuple[type, Any]] = []
        self._mode = None
        self.tracked_ops = False  # whether a dispatch mode recorded this forward
        self.shapes: list[dict] = []  # each launch's grid, blocks and warps (repair.integrity.launchshape)
        self._shape: dict | None = None  # the launch under way's

    def active(self, rule: str) -> bool:
        return rule not in self.rules_off

    def __enter__(self) -> "RuntimeGuard":
        wanted = [r for r in ("runtime.no-launch", "runtime.output-not-from-kernel", "runtime.framework-compute")
                  if self.active(r)]
        if not wanted:
            return self  # every runtime rule off: pay nothing
        for cls in _kernel_classes():
            orig = cls.__dict__["run"]
            self._patched.append((cls, orig))
            setattr(cls, "run", _counting_run(orig))
        _ACTIVE.append(self)
        if self.active("runtime.framework-compute") or self.active("runtime.output-not-from-kernel"):
            self._mode = _make_mode(self)
            self._mode.__enter__()
            self.tracked_ops = True
        return self

    def __exit__(self, *exc) -> None:
        if self._mode is not None:
            self._mode.__exit__(*exc)
            self._mode = None
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        for cls, orig in reversed(self._patched):
            setattr(cls, "run", orig)
        self._patched.clear()

    def _record_launch(self, kernel, args, kwargs) -> None:
        self.launches += 1
        self.kernels[_kernel_name(kernel)] += 1
        self.kernel_elements += sum(t.numel() for t in iter_tensors((args, kwargs)))
        self._events.append(("launch", self._ptrs((args, kwargs))))

    def _note_shape(self, kernel, args, kwargs) -> None:
        from repair.integrity.launchshape import launch_shape

        shape = launch_shape(kernel, args, kwargs)
        if shape is not None:
            self._shape = shape

    def _commit_shape(self) -> None:
        from repair.integrity.launchshape import add_shape

        shape, self._shape = self._shape, None
        if shape is not None:
            add_shape(self.shapes, shape)

    def _record_op(self, func, args, kwargs, out) -> None:
        if self._depth:
            return  # inside a launch: the interpreter's own host copies
        name = op_name(func)
        self.ops[name] += 1
        if name == "aten::_local_scalar_dense":  # a number read back to the host (.item(), float(), an if)
            self._events.append(("scalar", self._ptrs((args, kwargs))))
            return
        if not is_allowed_op(name):
            self.compute_ops[name] += 1
            self.compute_elements[name] += sum(t.numel() for t in iter_tensors((args, kwargs)))
            self._events.append(("compute", self._ptrs((args, kwargs)), self._ptrs(out), name))
            return
        if self._events:  # a copy of kernel-written storage is still the kernel's result
            self._events.append(("copy", self._ptrs((args, kwargs)), self._ptrs(out)))

    def _ptrs(self, obj) -> frozenset[int]:
        ptrs = set()
        for t in iter_tensors(obj):
            s = t.untyped_storage()
            self._storages.setdefault(s.data_ptr(), s)  # kept alive: no address reuse within a forward
            ptrs.add(s.data_ptr())
        return frozenset(ptrs)

    def kernel_storages(self, inputs) -> set[int]:
        """Storages a launch could have written (forward inputs excluded), closed over later copies."""
        input_ptrs = {t.untyped_storage().data_ptr() for t in iter_tensors(inputs)}
        return self._taint(inputs)[0]

    def _taint(self, inputs) -> tuple[set[int], set[int], set[str], set[str], set[str]]:
        """Storages a launch wrote (closed over copies) and storages framework ops computed from those; then the
        names of framework ops that read only what no launch wrote, in three kinds by where their results went
        (through later ops and copies): to a launch that read nothing else of the inputs (the framework computed
        what the kernel only moves: a cheat); to a launch that also read an input no framework op had read (a
        framework prologue the kernel combines with data of its own: policy); to no launch (a scalar prologue,
        read back as host numbers by `.item()` or an assert, or not at all)."""
        input_ptrs = {t.untyped_storage().data_ptr() for t in iter_tensors(inputs)}
        tainted: set[int] = set()
        derived: set[int] = set()
        foreign: set[str] = set()
        upstream: dict[int, set[str]] = {}  # storage a foreign op wrote -> the foreign ops it came from
        read_by_foreign: set[int] = set()  # input storages a foreign op read
        fed: set[str] = set()
        combined: set[str] = set()
        for ev in self._events:
            src_ops = set().union(*(upstream[p] for p in ev[1] if p in upstream))
            if ev[0] == "launch":
                tainted |= ev[1] - input_ptrs
                (combined if ev[1] & (input_ptrs - read_by_foreign) else fed).update(src_ops)
            elif ev[0] == "copy" and ev[1] & (tainted | derived):
                (tainted if ev[1] & tainted else derived).update(ev[2])
            elif ev[0] == "copy" and src_ops:
                upstream.update({p: src_ops for p in ev[2]})
            elif ev[0] == "compute":
                if ev[1] & (tainted | derived):
                    derived |= ev[2]
                else:
                    foreign.add(ev[3])
                    read_by_foreign |= ev[1] & input_ptrs
                    upstream.update({p: src_ops | {ev[3]} for p in ev[2]})
        fed &= foreign
        combined = (combined & foreign) - fed
        return tainted, derived - tainted, fed, combined, foreign - fed - combined

    def epilogue(self, inputs) -> tuple[bool, float, float, set[str], set[str]]:
        """Whether every framework op of the forward read kernel-written storage (an epilogue over kernel
        outputs), made a tensor a kernel combined with inputs of its own (a framework prologue) or made host
        scalars no launch read (a scalar prologue); the share of elements the framework ops read among all the
        forward touched; the share it may reach and stay policy; the prologue's and the scalar prologue's ops."""
        fw = sum(self.compute_elements.values())
        share = fw / (fw + self.kernel_elements) if fw + self.kernel_elements else 1.0
        _, _, fed, prologue, scalar = self._taint(inputs)
        bound = PROLOGUE_MAX_SHARE if prologue else EPILOGUE_MAX_SHARE
        return not fed and self.launches > 0, share, bound, prologue, scalar

    def host_rebuilt(self, inputs) -> bool:
        """Whether the forward read numbers back to the host only from storage a launch wrote or an epilogue
        computed from it (an output then built from host numbers is a host epilogue, not data from elsewhere)."""
        tainted, derived = self._taint(inputs)[:2]
        reads = [ev[1] for ev in self._events if ev[0] == "scalar"]
        return bool(reads) and all(r and r <= tainted | derived for r in reads)

    def log(self) -> dict:
        """What the guard saw, for the candidate's guard log."""
        return {"launches": self.launches, "kernels": dict(self.kernels), "ops": dict(self.ops),
                "compute_ops": dict(self.compute_ops), "rules_off": list(self.rules_off), "shapes": self.shapes}

    def findings(self, inputs_before, inputs_after, outputs) -> list[RuntimeFinding]:
        """Judge the recorded forward; inputs_before are clones taken before it ran."""
        out: list[RuntimeFinding] = []
        small = not self.compute_ops  # no framework op: host arithmetic alone, if anything, made the rest
        if self.compute_ops:
            epilogue, share, bound, prologue, scalar = self.epilogue(inputs_after)
            small = epilogue and share <= bound
        if self.active("runtime.framework-compute") and self.compute_ops:
            ops = ", ".join(f"{k} x{v}" for k, v in sorted(self.compute_ops.items()))
            parts = ["a framework epilogue over kernel outputs"] if set(self.compute_ops) - prologue - scalar else []
            parts += [f"a framework prologue whose result a kernel combined with inputs no framework op read "
                      f"({', '.join(sorted(prologue))})"] if prologue else []
            parts += [f"a scalar prologue read back as host numbers ({', '.join(sorted(scalar))})"] if scalar else []
            what = "; ".join(parts)
            if small:
                f = _finding("runtime.framework-compute", f"{what} ({share:.1%} of the "
                             f"elements the forward touched)", ops)
                f.level, f.share = "policy", round(share, 4)
            else:
                why = (f"({what}), but {share:.1%} of the elements the forward touched (policy up to {bound:.0%})"
                       if epilogue else "on data no kernel wrote")
                f = _finding("runtime.framework-compute", f"forward executed framework compute ops {why}", ops)
                f.share = round(share, 4)
            out.append(f)
        if self.active("runtime.no-launch") and self.launches == 0:
            out.append(_finding("runtime.no-launch", "forward launched no kernel", "0 launches"))
        mutated = mutation_findings(inputs_before, inputs_after) if self.active("runtime.input-mutated") else []
        out += output_findings(inputs_after, outputs, self, epilogue_ok=small, in_place=bool(mutated))
        out += mutated
        self._events.clear()
        self._storages.clear()
        return out


_RECORDER: list[type] = []  # the dispatch-mode class, built once on first use (torch imported lazily)


def _make_mode(guard: RuntimeGuard):
    if not _RECORDER:
        from torch.utils._python_dispatch import TorchDispatchMode

        class _Recorder(TorchDispatchMode):
            @classmethod
            def _should_skip_dynamo(cls) -> bool:
                # The default wraps __torch_dispatch__ in torch._disable_dynamo, whose first call imports
                # torch._dynamo (~800 modules, 2-3 s). Nothing traces this mode with dynamo: eager only.
                return False

            def __init__(self, guard: RuntimeGuard):
                super().__init__()
                self.guard = guard

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                result = func(*args, **kwargs)
                self.guard._record_op(func, args, kwargs, result)
                return result

        _RECORDER.append(_Recorder)
    return _RECORDER[0](guard)


def _finding(rule: str, message: str, evidence: str, input_index: int | None = None) -> RuntimeFinding:
    return RuntimeFinding(rule=rule, message=message, evidence=evidence[:500], input_index=input_index)


def output_findings(inputs, outputs, guard: RuntimeGuard | None = None, epilogue_ok: bool = False,
                    in_place: bool = False) -> list[RuntimeFinding]:
    """Outputs must be fresh storage (no overlap with any input) and, when a guard ran, kernel-written (or, a policy
    finding, computed by a small framework epilogue over kernel outputs). An output that is an input a kernel updated
    in place (`in_place`: an input changed, and the output's storage went to a launch) is a policy finding too."""
    rules_off = guard.rules_off if guard else ()
    found: list[RuntimeFinding] = []
    spans = [(_storage_span(t), i) for i, x in enumerate(inputs if isinstance(inputs, (list, tuple)) else [inputs])
             for t in iter_tensors(x) if t.untyped_storage().nbytes()]
    written, derived = (guard._taint(inputs)[:2] if guard is not None and guard.tracked_ops else (set(), set()))
    for i, o in enumerate(iter_tensors(outputs)):
        ptr, n = _storage_span(o)
        if not n:
            continue
        aliased = [j for (p, m), j in spans if ptr < p + m and p < ptr + n]
        if aliased:  # an alias is judged as such, nothing else
            if "runtime.output-alias" not in rules_off:
                launched = guard is not None and any(ev[0] == "launch" and ptr in ev[1] for ev in guard._events)
                if in_place and launched:
                    f = _finding("runtime.output-alias", f"output {i} is an input a kernel updated in place",
                                 f"output storage 0x{ptr:x}+{n}, input {aliased[0]}", aliased[0])
                    f.level = "policy"
                else:
                    f = _finding("runtime.output-alias", f"output {i} shares storage with an input",
                                 f"output storage 0x{ptr:x}+{n}, input {aliased[0]}", aliased[0])
                found.append(f)
        elif (guard is not None and "runtime.output-not-from-kernel" not in rules_off and guard.launches
              and guard.tracked_ops and ptr not in written):
            if ptr in derived and epilogue_ok:
                f = _finding("runtime.output-not-from-kernel", f"output {i} was computed by a framework epilogue over "
                             "kernel outputs", f"{guard.launches} launches")
                f.level = "policy"
            elif epilogue_ok and guard.host_rebuilt(inputs):
                f = _finding("runtime.output-not-from-kernel", f"output {i} was built from host numbers read back "
                             "only from kernel outputs (a host epilogue)", f"{guard.launches} launches")
                f.level = "policy"
            else:
                f = _finding("runtime.output-not-from-kernel", f"output {i} was never passed to a kernel launch",
                             f"{guard.launches} launches")
            found.append(f)
    return found


_SPAN = 1 << 16  # elements compared at a time by _same and _constant
_DIGEST_FROM = 256 << 20  # bytes: an input this big is remembered by a digest of its bytes, not a copy


class Fingerprint:
    """A big input as it was before the forward: its shape, dtype and a digest of its bytes (a copy would double the
    candidate process's memory for the mutation check: a 1 GiB input did not fit in 4 GiB with its GM copy)."""

    def __init__(self, t):
        self.shape, self.dtype, self.digest = tuple(t.shape), t.dtype, _digest(t)

    def same(self, t) -> bool:
        return tuple(t.shape) == self.shape and t.dtype == self.dtype and _digest(t) == self.digest


def _digest(t) -> bytes:
    import hashlib

    import torch

    flat = t.detach().contiguous().reshape(-1).view(torch.uint8)
    h = hashlib.blake2b(digest_size=32)
    step = 64 << 20
    for lo in range(0, flat.numel(), step):  # piece by piece: no second copy of the whole input
        h.update(flat[lo:lo + step].cpu().numpy().tobytes())
    return h.digest()


def snapshot(t):
    """What the mutation check keeps of an input before the forward: a clone, or a Fingerprint of a big one."""
    return Fingerprint(t) if t.numel() * t.element_size() >= _DIGEST_FROM else t.clone()


def _same(a, b) -> bool:
    import torch

    if isinstance(a, Fingerprint) and isinstance(b, torch.Tensor):
        return a.same(b)  # bytes unchanged (a NaN rewritten as another NaN counts as a change here)
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        floating = a.is_floating_point() or a.is_complex()
        fa, fb = a.reshape(-1), b.reshape(-1)
        for lo in range(0, fa.numel(), _SPAN):  # piece by piece: two different outputs differ in the first piece
            x, y = fa[lo:lo + _SPAN], fb[lo:lo + _SPAN]
            if not torch.equal(x, y) and not (floating and bool(((x == y) | (x.isnan() & y.isnan())).all())):
                return False
        return True
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b) if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor) else False


def mutation_findings(inputs_before, inputs_after) -> list[RuntimeFinding]:
    found = []
    for i, (b, a) in enumerate(zip(inputs_before, inputs_after)):
        if not _same(b, a):
            found.append(_finding("runtime.input-mutated", f"input {i} was modified by forward", f"input {i}", i))
    return found


def _constant(t) -> bool:
    if t.numel() <= 1:
        return False
    flat = t.reshape(-1)
    return all(bool((flat[lo:lo + _SPAN] == flat[0]).all()) for lo in range(0, flat.numel(), _SPAN))


def insensitivity_findings(cand_out_a, cand_out_b, ref_out_a, ref_out_b) -> list[RuntimeFinding]:
    """Candidate outputs identical across two different inputs (or constant) where the reference's are not."""
    cands_a, cands_b = list(iter_tensors(cand_out_a)), list(iter_tensors(cand_out_b))
    refs_a, refs_b = list(iter_tensors(ref_out_a)), list(iter_tensors(ref_out_b))
    found = []
    for i, (ca, cb, ra, rb) in enumerate(zip(cands_a, cands_b, refs_a, refs_b)):
        if _same(ca, cb) and not _same(ra, rb):
            found.append(_finding("runtime.insensitive-output",
                                  f"output {i} is identical for two different inputs; the reference's differ",
                                  f"shape {list(ca.shape)}"))
        elif (_constant(ca) and _constant(cb)) and not (_constant(ra) and _constant(rb)):
            found.append(_finding("runtime.insensitive-output", f"output {i} is constant; the reference's is not",
                                  f"value {ca.reshape(-1)[0].item()!r}"))
    return found
