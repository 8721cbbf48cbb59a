"""Deriving a problem's cases by running its own code (in the probe process): sizes found, scaled, varied, measured.

A constant is a size when setting it to another value changes the shapes `get_inputs()` returns: the problem's
code says so, nothing is guessed from names. Every case is measured on the meta device (elements of inputs and
outputs, and the reference's FLOPs through torch's FlopCounterMode), so a case of 6 GiB costs nothing to size.
"""
from __future__ import annotations

import json
import types
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from repair.kernelbench.model import Budget, CaseSize, Dropped, Refused
from repair.kernelbench.sizes import FLOOR, as_case_value, is_size, odd, one, past_pow2, scalable, scale
from repair.kernelbench.source import SourceFacts

_STEPS = 4  # factors tried per halving: 1, 2^-1/4, 2^-1/2, ...


def one_line(e: BaseException, limit: int = 160) -> str:
    text = " ".join(f"{type(e).__name__}: {e}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Upstream:
    """The upstream module, loaded in this process, and its input builders run with some constants set."""

    def __init__(self, path: str, text: str, facts: SourceFacts):
        self.facts = facts
        self.module = types.ModuleType("_kb_upstream")
        self.module.__file__ = path
        exec(compile(text, path, "exec"), self.module.__dict__)  # the probe process exists to run this
        g = self.module.__dict__
        self.values = {n: g[n] for n in facts.free if n in g and is_size(g[n])}

    @contextmanager
    def setting(self, values: dict[str, Any]):
        """The module with `values` set and the assignments reading them re-run; put back afterwards."""
        g = self.module.__dict__
        redo = self.facts.recompute_after(set(values))
        saved = {n: g[n] for n in {*values, *(n for a in redo for n in a.names)} if n in g}
        try:
            for k, v in values.items():
                g[k] = tuple(v) if isinstance(self.values[k], tuple) else v
            for a in redo:
                exec(a.source, g)
            yield
        finally:
            g.update(saved)

    def build(self, values: dict[str, Any], device: str) -> tuple[list, list]:
        """(init inputs, inputs) as the problem's code builds them with `values` set, on `device`."""
        import torch

        with self.setting(values), torch.device(device):
            gi = getattr(self.module, "get_init_inputs", None)
            return (list(gi()) if gi is not None else []), list(self.module.get_inputs())

    def measure(self, values: dict[str, Any]) -> CaseSize:
        """A case's elements (inputs and outputs) and FLOPs, built and run on the meta device."""
        import torch
        from torch.utils.flop_counter import FlopCounterMode

        init, inputs = self.build(values, "meta")
        with torch.device("meta"), torch.no_grad():
            model = self.module.Model(*init)
            with FlopCounterMode(display=False) as counter:
                out = model(*inputs)
        return CaseSize(elements=numel(inputs) + numel(out), flops=int(counter.get_total_flops()))


def numel(value: Any) -> int:
    import torch

    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (list, tuple)):
        return sum(numel(v) for v in value)
    return 0


def signature(value: Any) -> Any:
    """The shapes and dtypes of a (nested) list of inputs; other values as themselves."""
    import torch

    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape), str(value.dtype))
    if isinstance(value, (list, tuple)):
        return tuple(signature(v) for v in value)
    return repr(value)


def _other(value: Any) -> Any:
    """Another value of a size constant, to see whether the shapes follow it."""
    if isinstance(value, (tuple, list)):
        return [_other(v) for v in value]
    return value // 2 if value >= 2 else 2


@dataclass
class Derived:
    """What deriving one problem found, before the written cases are checked."""

    sizes: list[str] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)
    factor: float = 1.0
    compact: dict[str, Any] = field(default_factory=dict)  # {}: upstream's own shape
    original: CaseSize = field(default_factory=CaseSize)
    compact_size: CaseSize = field(default_factory=CaseSize)
    # the full tier: (variant, values, layout, size)
    variants: list[tuple[str, dict[str, Any], str, CaseSize]] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    adjusted: dict[str, str] = field(default_factory=dict)  # variant -> the constant it keeps back, and why


class Deriver:
    """Finds the size constants of one upstream module and derives its compact and full cases."""

    def __init__(self, up: Upstream):
        self.up = up
        self._sizes: dict[str, CaseSize | BaseException] = {}

    def size(self, values: dict[str, Any]) -> CaseSize | BaseException:
        key = json.dumps(values, sort_keys=True)
        if key not in self._sizes:
            try:
                self._sizes[key] = self.up.measure(values)
            except Exception as e:  # noqa: BLE001 - the problem's own code: any error is a fact about this case
                self._sizes[key] = e
        return self._sizes[key]

    def find_sizes(self, out: Derived) -> None:
        """The free constants whose value changes the shapes get_inputs() returns; the rest stay as written."""
        try:
            base = signature(self.up.build({}, "meta")[1])
        except Exception as e:  # noqa: BLE001
            raise Refused(f"get_inputs() fails at upstream's sizes (on the meta device): {one_line(e)}") from None
        for name, value in self.up.values.items():
            other = _other(value)
            try:
                changed = signature(self.up.build({name: other}, "meta")[1]) != base
            except Exception as e:  # noqa: BLE001
                out.kept[name] = f"get_inputs() fails with {name}={other}: {one_line(e)}"
                continue
            if not changed:
                continue
            if name in self.up.facts.model_reads:
                out.kept[name] = "Model reads it as a global, so a case cannot set it"
            elif not scalable(value):
                out.kept[name] = f"{value} is at most {FLOOR}: small sizes stay as written"
            else:
                out.sizes.append(name)

    def written(self, sizes: list[str], values: dict[str, Any]) -> dict[str, Any]:
        """A case's values as CASES writes them: every size constant, upstream's value where `values` has none."""
        return {n: as_case_value(values.get(n, self.up.values[n])) for n in sizes}

    def scaled(self, sizes: list[str], factor: float) -> dict[str, Any]:
        return {} if factor >= 1 else {n: scale(self.up.values[n], factor) for n in sizes}

    def solve(self, sizes: list[str], budget: Budget) -> tuple[float, dict[str, Any], CaseSize] | BaseException | None:
        """The largest factor (1, 2^-1/4, 2^-1/2, ...) whose case fits the budget; None when even the smallest
        sizes do not fit, or the error of the last case the reference rejected."""
        smallest = self.scaled(sizes, 0.0)
        last_error = None
        for k in range(0, 40 * _STEPS):
            factor = 2.0 ** (-k / _STEPS)
            values = self.scaled(sizes, factor)
            size = self.size(values)
            if isinstance(size, BaseException):
                last_error = size
            elif budget.fits(size):
                return factor, values, size
            if values == smallest:
                break
        return last_error

    def derive(self, *, budget: Budget | None, full_budget: Budget, fixed: float | None, full_cases: int) -> Derived:
        out = Derived()
        original = self.size({})
        self.find_sizes(out)
        not_run = "the reference does not run on upstream's case (on the meta device)"
        if isinstance(original, BaseException) and not out.sizes:
            raise Refused(f"{not_run}: {one_line(original)}")
        out.original = original if isinstance(original, CaseSize) else CaseSize()
        if fixed is not None:
            out.factor, out.compact = fixed, self.scaled(out.sizes, fixed)
            size = self.size(out.compact)
            if isinstance(size, BaseException):
                raise Refused(f"the reference rejects the case scaled by {fixed}: {one_line(size)}")
            out.compact_size = size
        elif budget is None:
            if isinstance(original, BaseException):
                raise Refused(f"{not_run}: {one_line(original)}")
            out.compact_size = original
        else:
            solved = self.solve(out.sizes, budget)
            if isinstance(solved, BaseException):
                solved = self._keeping_one(out, budget, solved)
            if not isinstance(solved, tuple):
                raise Refused(self._why_not(out, budget, solved))
            out.factor, out.compact, out.compact_size = solved
        out.compact = self.written(out.sizes, out.compact)
        base = self.solve(out.sizes, full_budget)
        base_values = base[1] if isinstance(base, tuple) and base[0] < out.factor else out.compact
        self.add_variants(out, base_values, budget, full_cases)
        return out

    def _keeping_one(self, out: Derived, budget: Budget, error: BaseException):
        """When the reference rejects every scaled case, the solution with one size constant left as written (its
        output must keep a shape the Model fixes elsewhere, say a LayerNorm over the last dimension), if any."""
        for n in list(out.sizes):
            rest = [m for m in out.sizes if m != n]
            solved = self.solve(rest, budget)
            if isinstance(solved, tuple):
                out.sizes = rest
                out.kept[n] = f"the reference rejects the case with it scaled ({one_line(error)})"
                return solved
        return error

    def _why_not(self, out: Derived, budget: Budget, error: BaseException | None) -> str:
        if error is not None:
            return ("no scaled case both fits the budget and runs: the reference rejects the smaller ones "
                    f"({one_line(error)})")
        size = self.size(self.scaled(out.sizes, 0.0))
        what = (f"{size.elements:,} elements" if size.elements > budget.elements else f"{size.flops:,} FLOPs")
        limit = f"{budget.elements:,} elements" if size.elements > budget.elements else f"{budget.flops:,} FLOPs"
        if not out.sizes:
            hint = "no module constant changes get_inputs()'s shapes"
            kept = "; ".join(f"{k}: {v}" for k, v in out.kept.items())
            return f"{hint}{' (' + kept + ')' if kept else ''}, and upstream's case is {what}, over {limit}"
        return (f"at the smallest sizes its constants allow ({', '.join(out.sizes)} scaled to 1) a case is still "
                f"{what}, over {limit} (raise --budget/--flops, or import for --backend cuda)")

    def add_variants(self, out: Derived, base: dict[str, Any], budget: Budget | None, limit: int) -> None:
        """The full tier: odd sizes, sizes just past a power of two, strided inputs, a size of 1 per constant."""
        orig = self.up.values
        at = {n: base.get(n, orig[n]) for n in out.sizes}
        wanted: list[tuple[str, dict[str, Any], str]] = []
        if out.sizes:
            wanted.append(("odd", {n: odd(at[n], orig[n]) for n in out.sizes}, "contiguous"))
            wanted.append(("past-pow2", {n: past_pow2(at[n], orig[n]) for n in out.sizes}, "contiguous"))
        wanted.append(("strided", dict(base), "strided"))
        wanted += [(f"one-{n}", {**at, n: one(orig[n])}, "contiguous") for n in out.sizes]
        seen = {(json.dumps(self.written(out.sizes, out.compact), sort_keys=True), "contiguous"): "the compact case"}
        for name, values, layout in wanted:
            values = self.written(out.sizes, values)
            size = self.size(values)
            if isinstance(size, BaseException) and name in ("odd", "past-pow2"):
                values, size = self._one_back(out, name, values, size, at)
            key = (json.dumps(values, sort_keys=True), layout)
            if key in seen:
                out.dropped.append(Dropped(variant=name, reason=f"same sizes as {seen[key]}"))
            elif isinstance(size, BaseException):
                out.dropped.append(Dropped(variant=name, reason=f"the reference rejects it: {one_line(size)}"))
            elif budget is not None and not budget.fits(size):
                out.dropped.append(Dropped(variant=name, reason=f"over the budget ({size.elements:,} elements, "
                                                               f"{size.flops:,} FLOPs)"))
            elif len(out.variants) >= limit:
                out.dropped.append(Dropped(variant=name, reason=f"past --full-cases {limit}"))
            else:
                seen[key] = name
                out.variants.append((name, values, layout, size))

    def _one_back(self, out: Derived, name: str, values: dict[str, Any], error: BaseException,
                  at: dict[str, Any]) -> tuple[dict[str, Any], CaseSize | BaseException]:
        """A variant the reference rejects, with one constant back at its value in the other full cases (a grouped
        conv's channels must stay divisible by its groups), if that makes it run."""
        for n in out.sizes:
            retry = self.written(out.sizes, {**values, n: at[n]})
            size = self.size(retry)
            if retry != values and isinstance(size, CaseSize):
                out.adjusted[name] = f"{n}={retry[n]}, not {values[n]}: the reference rejects that ({one_line(error)})"
                return retry, size
        return values, error
