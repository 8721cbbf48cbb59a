"""How a candidate process gets an AscendC candidate's ModelNew on ascendc-cpu: read, build, then import the model.

The engine's candidate process calls the steps at their places in its confinement: the loader is made (the
candidate read, its binding read, the build cache checked) before anything is confined; `build()` runs g++ once
Landlock lets it write only its scratch and the build cache, and before seccomp forbids new processes; `load()` opens
the library and imports the candidate's model with the extension's stand-in installed (forward.py): the candidate's
own code first runs here, once everything is confined and the cache is no longer writable.
"""
from __future__ import annotations

import types
from pathlib import Path
from typing import Callable

from repair.ascendc.emu.binding import binding_program, launch_function
from repair.ascendc.emu.build import build_library, plan_emu_build, prepare_pch, writable_dirs
from repair.ascendc.emu.forward import MappingError, bound_names, extension_module, import_model
from repair.ascendc.emu.runner import EmulatedOp, Library
from repair.ascendc.load import load_candidate


class EmulatedLoader:
    """An AscendC candidate for one candidate process: `writable`, then `build()`, then `load()`."""

    def __init__(self, path: str | Path, *, launch_scope: Callable | None = None):
        self.cand = load_candidate(path)
        self.binding = binding_program(self.cand)
        self.launch_fn = launch_function(self.cand)
        self.build_plan = plan_emu_build(self.cand, launch_fn=self.launch_fn)
        self.writable = writable_dirs()  # the build cache, while it builds (candidate_role gives it up after)
        self.launch_scope = launch_scope
        self.library: Path | None = None
        self.op: EmulatedOp | None = None

    def build(self) -> None:
        """g++, or the cache: CompileError (a `compile-error` result) when the candidate does not build."""
        self.library = build_library(self.build_plan)
        for name in bound_names(self.cand):  # a binding over the candidate's own op-API layer: unsupported
            try:
                found = self.binding.plan(name)
            except MappingError:
                continue  # the call says why
            found.check_op_api()

    def load(self) -> types.ModuleType:
        """The candidate's model module, imported with the extension's stand-in: its ModelNew runs as written."""
        if self.library is None:
            self.build()
        kernel = self.launch_fn if self.binding.kind == "launch" else self.cand.kernel
        variants = [(column, self.library.parent / self.build_plan.library_name(i))
                    for i, column in enumerate(self.build_plan.variants)]
        self.op = EmulatedOp(Library(self.library), self.binding, kernel, self.cand.op, self.launch_scope, variants,
                             self.launch_fn)
        plans: dict = {}

        def plan(name: str):
            if name not in plans:
                found = self.binding.plan(name)
                found.check_reaches_operator()
                plans[name] = found
            return plans[name]

        def params_of(name: str):
            try:
                return plan(name).params
            except MappingError:
                return None  # the call itself says why

        def call(name: str, args: list):
            return self.op(plan(name), args)

        return import_model(self.cand, extension_module(self.cand, params_of, call))

    def take_fault(self) -> BaseException | None:
        """The first fault a kernel of this candidate made (sticky: a forward that catches it still fails the
        case, as the NPU's error would not be undone by the Python that called it)."""
        fault = self.op.fault if self.op is not None else None
        if self.op is not None:
            self.op.fault = None
        return fault

    def take_notes(self) -> list[str]:
        """What the emulation noticed during the kernels run since the last call (a case's forward: the candidate
        process reports them beside the case's numbers)."""
        return self.op.take_notes() if self.op is not None else []


def emulate(path: str | Path, *, launch_scope: Callable | None = None) -> type:
    """ModelNew for an AscendC candidate, built and loaded in this process (tests and benches; the engine runs the
    same steps inside a confined candidate process)."""
    prepare_pch()
    return EmulatedLoader(path, launch_scope=launch_scope).load().ModelNew
