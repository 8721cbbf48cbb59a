"""The candidate role: imports only the candidate file (after its limits and confinement), runs ModelNew.

It returns its outputs and the runtime guard's findings; it never sees the problem's module or the expected
outputs.
"""
from __future__ import annotations

import os
import time
from contextlib import nullcontext
from dataclasses import asdict

from repair.engine.confine.limits import file_limit
from repair.engine.memfd import SHARE_MIN, payload_size, write_parts
from repair.engine.role import Role, as_output_list, failure_reply, import_file, runtime_guard, seed_all, to_device
from repair.engine.timing import timed
from repair.engine.values import encode_parts


class CandidateRole(Role):
    """Runs ModelNew on the inputs the reference built (confined first, where it is asked to be)."""

    accept_shared = True  # its case's inputs, from the reference
    loader = None  # an AscendC candidate's loader (ascendc-cpu, npu); None for a Python file

    def start(self) -> bool:
        import tempfile

        cwd, path = self.config["cwd"], self.config["path"]
        os.environ["TMPDIR"] = tempfile.tempdir = cwd  # its temporary files go to its scratch directory
        confine = self.config.get("confine")
        try:  # a candidate that is not a Python file (AscendC on ascendc-cpu) is read here; none of its code runs
            loader = self.backend.candidate_loader(path)
        except BaseException as e:  # noqa: BLE001
            return self._failed("reading the candidate failed", e)
        self.loader = loader
        writable = loader.writable if loader is not None else []
        if confine and not self._confine(lambda: self._restrict_files(cwd, writable)):
            return False
        if not confine and not self._confine(self._drop_privileges):
            return False
        try:
            if loader is not None:
                loader.build()  # its toolchain (g++), before seccomp forbids new processes
        except BaseException as e:  # noqa: BLE001
            return self._failed("building the candidate failed", e, before_code=True)
        # a second Landlock layer on the first: what the build needed to write (the build cache) is not the
        # candidate's to write once its own code runs (a library's constructors run at load)
        if confine and writable and not self._confine(lambda: self._seal_build(cwd)):
            return False
        if confine and not self._confine(self._restrict_calls):
            return False
        try:
            self.module = loader.load() if loader is not None else import_file(path, "_repair_candidate")
        except BaseException as e:  # noqa: BLE001
            return self._failed("importing the candidate failed", e)
        if not isinstance(getattr(self.module, "ModelNew", None), type):
            self.reply({"status": "bad-input", "error": "defines no class ModelNew"})
            return False
        self.reply({"status": "ready"})
        return True

    def _restrict_files(self, cwd: str, writable: list[str]) -> None:
        from repair.engine.confine import landlock
        from repair.engine.confine.capabilities import drop_capabilities

        # before its code runs: no privilege; read anywhere, write only to cwd (and what its backend needs)
        drop_capabilities()
        landlock.restrict([cwd, *self.backend.landlock_writable(), *writable])

    def _drop_privileges(self) -> None:
        from repair.engine.confine.capabilities import drop_capabilities

        # unconfined (cuda, npu, REPAIR_CONFINE=off) still gives up every capability: root keeps its uid but cannot
        # read the engine's /proc entries (not dumpable while it holds a key), lift its limits or load modules
        drop_capabilities()

    def _seal_build(self, cwd: str) -> None:
        from repair.engine.confine import landlock

        landlock.restrict([cwd, *self.backend.landlock_writable()])

    def _restrict_calls(self) -> None:
        from repair.engine.confine import seccomp

        seccomp.restrict(processes=self.backend.spawns_processes)  # no sockets; no processes where the backend says

    def _confine(self, step) -> bool:
        try:
            step()
            return True
        except OSError as e:  # the environment's failure, not the candidate's
            self.reply({"status": "environment", "error": f"confining the candidate failed: {e} "
                                                          "(REPAIR_CONFINE=off runs it unconfined)"})
            return False

    def _failed(self, what: str, e: BaseException, *, before_code: bool = False) -> bool:
        """A candidate that cannot start: every case gets the status its failure says (a compile error is
        `compile-error` with the compiler's message, an API the backend lacks `unsupported`; a Python import's
        failure `error` with its traceback)."""
        self.reply(failure_reply(e, f"{what}: ", before_code=before_code))
        return False

    def _notes(self) -> list[str]:
        """What the backend noticed during the forward (ascendc-cpu's loader offers take_notes)."""
        take = getattr(self.loader, "take_notes", None) if self.backend.emulated else None
        return [str(n)[:500] for n in take()][:16] if callable(take) else []

    def op_run(self, header: dict) -> tuple:
        sink = header.pop("_sink", None)
        try:
            return self._run(header, sink)
        finally:
            if sink is not None:
                os.close(sink)

    def _run(self, header: dict, sink: int | None) -> tuple:
        import torch

        init, inputs = self.unpack(header["values"])
        device = self.backend.device
        init, inputs = to_device(init, device), to_device(inputs, device)
        guard = runtime_guard(self.config.get("rules_off", []))
        # what the mutation check compares the inputs with after the forward (a copy; a big input's digest)
        if guard is not None:
            from repair.integrity import snapshot
        before = [snapshot(x) if isinstance(x, torch.Tensor) else x for x in inputs] \
            if guard is not None and guard.active("runtime.input-mutated") else None
        if hasattr(self.loader, "take_fault"):
            self.loader.take_fault()  # a fault of an earlier case's forward is that case's
        with torch.no_grad():
            seed_all(header["seed"], device)
            model = self.module.ModelNew(*init)  # outside the guard: weight init is not the forward's compute
            if device != "cpu":
                model = model.to(device)
            self.backend.synchronize()
            with guard if guard is not None else nullcontext():
                t0 = time.perf_counter()  # the guard's own set-up and tear-down are not the forward's time
                out = model(*inputs)
                self.backend.synchronize()
                seconds = time.perf_counter() - t0
        fault = self.loader.take_fault() if hasattr(self.loader, "take_fault") else None
        if fault is not None:  # an emulated kernel's fault fails the case even where forward caught it
            raise fault
        outs = as_output_list(out)
        findings, log = [], None
        if guard is not None:
            found = guard.findings(inputs_before=before, inputs_after=inputs, outputs=out)
            findings = [asdict(f) for f in found]
            log = guard.log() if hasattr(guard, "log") else None
        desc, parts = encode_parts(outs, keep_layout=False)
        reply = {"status": "ok", "outputs": desc, "seconds": seconds, "findings": findings, "guard_log": log,
                 "notes": self._notes()}
        if header.get("time"):  # after the checked forward, outside the guard: KernelBench's timing protocol
            reply.update(timed(model, inputs, self.backend, header["time"]))
        nbytes = payload_size(parts)
        if sink is not None and SHARE_MIN <= nbytes <= file_limit():
            reply["_in_sink"] = write_parts(sink, parts)  # the engine seals it and hands it to the reference
            return (reply,)
        return reply, parts
