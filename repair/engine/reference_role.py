"""The reference role: imports the problem, builds each case's inputs, runs Model and judges the candidate there.

The expected outputs never leave this process; the candidate never sees them.
"""
from __future__ import annotations

import os
import time
from dataclasses import asdict

from repair.engine.confine.limits import memory_ceiling, prctl, set_parent_death_signal
from repair.engine.memfd import SHARE_MIN, payload_size
from repair.engine.role import Role, as_output_list, import_file, seed_all, tb_tail, to_device
from repair.engine.timing import timed
from repair.engine.values import encode_parts
from repair.engine.wire_errors import is_oom

_BUILD_SLACK = 512 << 20  # what building a case may take beyond the limit on its tensors (threads, temporaries)


def _not_dumpable() -> None:
    prctl(4, 0)  # PR_SET_DUMPABLE


def _meta_nbytes(module, params: dict, seed: int, memory_rlimit: str | None, headroom: int,
                 timeout_s: float = 60.0) -> int | None:
    """The bytes of a case's constructor arguments and inputs as the problem's code builds them on the meta
    device, under the same seed, in a forked copy of this process: whatever that code does there (a cache of
    meta tensors, say) goes with the copy. None when that does not work (a get_inputs that reads values or moves
    tensors to a device, or that takes more than `headroom` bytes for real) or has not answered in timeout_s.
    Its first meta tensor imports sympy and more (~0.4 s), in the copy alone."""
    import select
    import signal

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the copy: answers on w, never returns
        code = 1
        try:
            os.close(r)
            set_parent_death_signal()
            import torch

            with memory_ceiling(memory_rlimit, headroom), torch.device("meta"):
                seed_all(seed)
                gi = getattr(module, "get_init_inputs", None)
                values = [list(gi(**params)) if gi is not None else [], list(module.get_inputs(**params))]
                os.write(w, str(_tensor_nbytes(values)).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = b""
    try:
        if select.select([r], [], [], timeout_s)[0]:
            data = os.read(r, 64)
    finally:
        os.close(r)
        if not data:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return int(data) if data.isdigit() else None


def _tensor_nbytes(value) -> int:
    """Bytes of every tensor in a (nested) value, as the wire would carry them (contiguous)."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_tensor_nbytes(v) for v in value)
    return 0


class ReferenceRole(Role):
    """Owns the problem: its spec, each case's inputs, Model's outputs and the verdict on the candidate's."""

    share_from = SHARE_MIN  # a case's inputs: written once into a memfd, which the engine hands on unread
    accept_shared = True  # a candidate's outputs, in the sink the engine gave it and sealed

    def start(self) -> bool:
        _not_dumpable()  # other processes of this user (a candidate) cannot read its memory through /proc
        if not self._confine():
            return False
        self.store: dict[str, tuple] = {}  # prepared inputs, by case key
        self.kept: dict[str, tuple] = {}  # (candidate outputs, expected outputs) kept for a second-seed run
        try:
            self.module = import_file(self.config["path"], "_repair_reference_problem")
        except BaseException:  # noqa: BLE001
            self.reply({"status": "error", "error": "importing the problem failed", "traceback": tb_tail()})
            return False
        if not hasattr(self.module, "Model"):
            self.reply({"status": "bad-input", "error": "defines no class Model"})
            return False
        self.reply({"status": "ready"})
        return True

    def _confine(self) -> bool:
        """A problem file is as untrusted as a candidate (both come from the same downloaded benchmark): before it
        is imported this process gives up every capability (root keeps its uid, not its privileges: it cannot
        read the engine's /proc entries), and where candidates are confined it also confines itself as they do
        (Landlock: write only its scratch; seccomp: no sockets, no namespaces), keeping what its role needs: new
        processes (a case is sized on the meta device in a forked copy) and memfds (a case's inputs travel in
        one)."""
        from repair.engine.confine.apply import confine_self

        try:
            confine_self([self.config["cwd"], *self.backend.landlock_writable()], confine=bool(self.config.get("confine")),
                         processes=True, memfd=True)
            return True
        except OSError as e:  # the environment's failure, not the problem's
            self.reply({"status": "environment", "error": f"confining the reference process failed: {e} "
                                                          "(REPAIR_CONFINE=off runs it unconfined)"})
            return False

    def op_spec(self, header: dict) -> tuple[dict]:
        import json

        m = self.module
        spec = {"status": "ok", "has_cases": hasattr(m, "CASES")}
        for attr in ("OPERATOR", "CASES", "TOLERANCE", "TOLERANCE_KEY", "COMPARE"):
            if hasattr(m, attr):
                try:
                    spec[attr] = json.loads(json.dumps(getattr(m, attr), allow_nan=False))
                except (TypeError, ValueError) as e:
                    return ({"status": "bad-input", "error": f"{attr} is not plain JSON data ({e})"},)
        spec["has_get_init_inputs"] = callable(getattr(m, "get_init_inputs", None))
        if not callable(getattr(m, "get_inputs", None)):
            return ({"status": "bad-input", "error": "defines no get_inputs()"},)
        return (spec,)

    def op_prepare(self, header: dict) -> tuple[dict, list]:
        """The case's constructor arguments and inputs, built from the seed; with max_bytes, a case whose tensors
        take more is refused ({"status": "too-large", "nbytes"}) and not kept."""
        params, seed, limit = header["params"], header["seed"], header.get("max_bytes")
        built = self._build(params, seed, limit)
        if isinstance(built, int):
            return ({"status": "too-large", "nbytes": built},)
        desc, parts = encode_parts(list(built))
        nbytes = payload_size(parts)
        if limit is not None and nbytes > limit:
            return ({"status": "too-large", "nbytes": nbytes},)
        self.store[header["key"]] = built  # our own copy: whatever the candidate does to its copy stays there
        return {"status": "ok", "values": desc}, parts

    def _build(self, params: dict, seed: int, limit: int | None) -> tuple[list, list] | int:
        """(init, inputs); or, with a limit, the bytes of a case that is sure not to fit, found without building it.

        KernelBench's problems build up to several GiB (sized for a GPU). Built under a memory ceiling of the
        limit (and some slack), one too large fails at its first allocation past it (19_ReLU's 6 GiB: refused
        after 23.7 s when built whole, 2.3 s so); it is then sized on the meta device (`_meta_nbytes`) and
        refused, or, when it fits after all (a get_inputs that needed room for a moment) or cannot be sized
        there, built again without the ceiling."""
        if limit is not None:
            try:
                with memory_ceiling(self.backend.memory_rlimit, limit + _BUILD_SLACK):
                    return self._make(params, seed)
            except Exception as e:  # noqa: BLE001
                if not is_oom(e):
                    raise
            sized = _meta_nbytes(self.module, params, seed, self.backend.memory_rlimit, limit + _BUILD_SLACK)
            if sized is not None and sized > limit:
                return sized
        return self._make(params, seed)

    def _make(self, params: dict, seed: int) -> tuple[list, list]:
        seed_all(seed, self.backend.device)
        gi = getattr(self.module, "get_init_inputs", None)
        return list(gi(**params)) if gi is not None else [], list(self.module.get_inputs(**params))

    def op_discard(self, header: dict) -> tuple[dict]:
        self.store.pop(header["key"], None)
        return ({"status": "ok"},)

    def op_judge(self, header: dict) -> tuple[dict]:
        """Run Model on the prepared copy (timed) and say so at once (the engine starts the candidate's next
        case), then compare the candidate's outputs (the payload) with it and reply again with the verdict.

        The expected outputs never leave this process. The candidate's run is over when this is asked.
        `keep` holds this case's outputs (both sides) for a later run on a second seed, which names
        them in `against`: the insensitivity check compares the two runs.
        """
        import torch

        from repair.engine.wire_errors import WireError
        from repair.engine.compare import compare_outputs
        from repair.engine.tolerance import resolve_tolerance

        init, inputs = self.store.pop(header["key"])
        device = self.backend.device
        inputs = to_device(inputs, device)
        with torch.no_grad():
            seed_all(header["seed"], device)
            model = self.module.Model(*init)
            if device != "cpu":
                model = model.to(device)
            self.backend.synchronize()
            t0 = time.perf_counter()
            out = model(*inputs)
            self.backend.synchronize()
            seconds = time.perf_counter() - t0
        expected = [e.detach().cpu() for e in as_output_list(out)]
        first = {"status": "ok", "seconds": seconds}
        if header.get("time"):  # the reference timed as the candidate was, and torch.compile's beside it
            first.update(timed(model, inputs, self.backend, header["time"], compiled=True))
        self.reply(first)
        reply = {"status": "ok"}
        try:
            actual = self.unpack(header["actual"], copy=False)  # the payload is ours alone: no second copy
            if not isinstance(actual, list) or not all(isinstance(a, torch.Tensor) for a in actual):
                raise WireError("not a list of tensors")
        except (WireError, KeyError, TypeError, ValueError) as e:
            reply["malformed"] = f"malformed outputs from the candidate process: {e}"
            return (reply,)
        tolerance = header.get("tolerance")
        promote = bool((header.get("compare") or {}).get("promote"))
        reply["comparison"] = compare_outputs(expected, actual, lambda d: resolve_tolerance(tolerance, d),
                                              promote=promote).as_dict()
        if header.get("against"):
            from repair.integrity import insensitivity_findings

            first_actual, first_expected = self.kept.pop(header["against"], (None, None))
            if first_actual is not None:
                found = insensitivity_findings(first_actual, actual, first_expected, expected)
                reply["insensitivity"] = [asdict(f) for f in found]
        if header.get("keep"):
            self.kept[header["keep"]] = (actual, expected)
        return (reply,)
