"""How a candidate process gets an AscendC candidate's ModelNew on ascendc-cpu: read, map, build, load.

The engine's candidate process calls the steps at their places in its confinement: the loader is made (the
candidate read, its model and binding mapped, the build cache checked) before anything is confined; `build()`
runs g++ once Landlock lets it write only its scratch and the build cache, and before seccomp forbids new
processes; `load()` opens the library (the candidate's own code first runs here) once everything is confined and
the cache is no longer writable.
"""
from __future__ import annotations

import types
from pathlib import Path
from typing import Callable

from repair.ascendc.emu.binding import binding_plan
from repair.ascendc.emu.forward import forward_call
from repair.ascendc.emu.build import build_library, plan_emu_build, prepare_pch, writable_dirs
from repair.ascendc.emu.runner import EmulatedOp, Library, model_class
from repair.ascendc.load import load_candidate


class EmulatedLoader:
    """An AscendC candidate for one candidate process: `writable`, then `build()`, then `load()`."""

    def __init__(self, path: str | Path, *, launch_scope: Callable | None = None):
        self.cand = load_candidate(path)
        self.forward = forward_call(self.cand)
        self.plan = binding_plan(self.cand, self.forward.function)
        self.build_plan = plan_emu_build(self.cand, launch_fn=self.plan.launch_fn)
        self.writable = writable_dirs()  # the build cache, while it builds (candidate_role gives it up after)
        self.launch_scope = launch_scope
        self.library: Path | None = None

    def build(self) -> None:
        """g++, or the cache: CompileError (a `compile-error` result) when the candidate does not build."""
        self.library = build_library(self.build_plan)

    def load(self) -> types.SimpleNamespace:
        """A module-like object whose ModelNew runs the emulated operator."""
        if self.library is None:
            self.build()
        kernel = self.plan.launch_fn if self.plan.kind == "launch" else self.cand.kernel
        variants = [(column, self.library.parent / self.build_plan.library_name(i))
                    for i, column in enumerate(self.build_plan.variants)]
        op = EmulatedOp(Library(self.library), self.plan, kernel, self.cand.op, self.launch_scope, variants)
        # case_notes: what the emulation noticed during a case's forward (the candidate process reports them)
        return types.SimpleNamespace(ModelNew=model_class(self.forward, op), __file__=self.cand.path,
                                     case_notes=op.take_notes)


def emulate(path: str | Path, *, launch_scope: Callable | None = None) -> type:
    """ModelNew for an AscendC candidate, built and loaded in this process (tests and benches; the engine runs the
    same steps inside a confined candidate process)."""
    prepare_pch()
    return EmulatedLoader(path, launch_scope=launch_scope).load().ModelNew
