"""What a forked sandbox process does: the reference role and the candidate role.

The reference imports the problem, builds each case's constructor arguments and inputs from a
seed, and later runs `Model` on its own pristine copy of them and compares the candidate's outputs
with its own (which never leave it). The candidate imports only the
candidate file (after its limits are set), builds `ModelNew` under the same seed and returns its
outputs and the runtime guard's findings. Neither sees the other's module; the candidate never
sees expected outputs.
"""
from __future__ import annotations

import faulthandler
import importlib.util
import os
import random
import resource
import sys
import time
import traceback
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path

from repair.engine.wire import (SHARE_MIN, Shared, decode_values, encode_parts, encode_values, is_oom, payload_size,
                          recv_frame, send_frame, write_parts)
from repair.engine.backends import get_backend
from repair.engine.sandbox import apply_limits, memory_ceiling, prctl, set_parent_death_signal

_PKG_ROOT = str(Path(__file__).resolve().parents[2])
_BUILD_SLACK = 512 << 20  # what building a case may take beyond the limit on its tensors (threads, temporaries)


def warm_up(backend) -> None:
    """Run in the fork server once: pay the lazy imports every child would otherwise repeat.

    The first interpreted Triton launch imports ~50 modules, the first seeding numpy.random; doing
    them here keeps every candidate process's first case as fast as its last.
    Only tiny single-threaded work runs here (no OpenMP pool, no device context before forking).
    """
    if "torch" not in sys.modules:
        return
    import torch

    _deterministic()
    _seed_all(0)  # numpy.random is imported lazily by its first use (~10 ms in every child otherwise)
    desc, data = encode_values([torch.zeros(2), torch.zeros(2, 3).t()])
    decode_values(desc, bytearray(data))
    for name in ("repair.integrity.runtime", "repair.integrity.rules"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    guard = _runtime_guard([])
    with torch.no_grad(), (guard if guard is not None else nullcontext()):
        out = torch.zeros(8) + 1  # the guard's dispatch mode (and its launch hook, below) used once
        if backend.warm_kernel:
            from repair.engine.warmkernel import launch_once

            launch_once()
    if guard is not None:
        guard.findings(inputs_before=[], inputs_after=[], outputs=out)


def child_main(role: str, config: dict, rfd: int, wfd: int, log_path: str | None) -> int:
    os.setsid()  # own process group: the engine kills the child and anything it started at once
    set_parent_death_signal()
    if log_path:
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    faulthandler.enable(file=sys.stderr)  # a segfault leaves its Python stack in the log
    os.chdir(config["cwd"])
    backend = get_backend(config["backend"])
    for name in backend.child_imports:
        importlib.import_module(name)
    _deterministic()  # torch.empty comes back NaN-filled: unwritten outputs show
    apply_limits(mem_limit_mb=config.get("mem_limit_mb"), memory_rlimit=backend.memory_rlimit,
                 cpu_seconds=config.get("cpu_seconds"), fsize_mb=config.get("fsize_mb"))
    while _PKG_ROOT in sys.path:  # the repository (examples/, tests/) is not importable from a sandbox
        sys.path.remove(_PKG_ROOT)
    role_cls = {"reference": _Reference, "candidate": _Candidate}[role]
    return role_cls(config, backend, rfd, wfd).serve()


def _deterministic() -> None:
    import torch

    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is not None:  # the public wrapper also imports torch._inductor (~2 s, ~900 modules)
        setter(True, warn_only=True)
    else:
        torch.use_deterministic_algorithms(True, warn_only=True)


def _not_dumpable() -> None:
    prctl(4, 0)  # PR_SET_DUMPABLE


def _seed_all(seed: int, device: str = "cpu") -> None:
    import torch

    random.seed(seed)
    if device == "cpu":
        # torch.manual_seed also queues a seed for every not-yet-initialised device, formatting a stack
        # trace each time (~1 ms a call); on the CPU backend every random draw uses the default generator
        torch.default_generator.manual_seed(seed)
    else:
        torch.manual_seed(seed)  # seeds every device too
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(seed % (1 << 32))


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
                _seed_all(seed)
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


def _file_limit() -> int:
    """The largest file this process may write (RLIMIT_FSIZE; a memfd counts)."""
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return soft if soft != resource.RLIM_INFINITY else 1 << 62


def _tb_tail(limit_lines: int = 25, limit_chars: int = 3000) -> str:
    lines = traceback.format_exc().rstrip().splitlines()
    return "\n".join(lines[-limit_lines:])[-limit_chars:]


def _import_file(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # triton's jit looks functions up through their module
    spec.loader.exec_module(module)
    return module


def _to_device(values, device: str):
    import torch

    if device == "cpu":
        return values
    if isinstance(values, torch.Tensor):
        return values.to(device)
    if isinstance(values, (list, tuple)):
        return type(values)(_to_device(v, device) for v in values)
    return values


def _as_output_list(out) -> list:
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)) and out and all(isinstance(o, torch.Tensor) for o in out):
        return list(out)
    raise TypeError(f"forward returned {type(out).__name__}, not a tensor or a tuple/list of tensors")


class _Role:
    share_from: int | None = None  # replies with a payload of at least this size share it (repair/engine/wire.py)
    accept_shared: bool = False  # requests may come with a shared payload

    def __init__(self, config: dict, backend, rfd: int, wfd: int):
        self.config, self.backend, self.rfd, self.wfd = config, backend, rfd, wfd
        self._payload = None  # the request's payload until its op takes it

    def reply(self, header: dict, payload: bytes | list = b"") -> None:
        send_frame(self.wfd, header, payload, share_from=self.share_from)

    def take_payload(self) -> bytearray | Shared:
        """The request's payload, handed over: once the op has unpacked it, nothing holds it any more (a case's
        inputs are not kept twice through its forward)."""
        payload, self._payload = self._payload, None
        return payload

    def unpack(self, desc, copy: bool = True):
        """The values of the request's payload (taken): fresh tensors, or with copy=False views of the payload."""
        payload = self.take_payload()
        if not isinstance(payload, Shared):
            return decode_values(desc, payload, copy=copy)
        try:
            if not copy:  # views of a private mapping (sealed: nobody else changes it), which they keep
                return decode_values(desc, payload.private(), copy=False)
            with payload.mapped() as view:
                return decode_values(desc, view)  # copies: the mapping goes
        finally:
            payload.close()

    def serve(self) -> int:
        if not self.start():
            return 0
        while True:
            try:
                header, self._payload = recv_frame(self.rfd, accept_shared=self.accept_shared)
            except MemoryError:  # the request's payload alone does not fit in this process's memory limit
                self.reply({"status": "oom", "error": "receiving the case's data: MemoryError"})
                return 0
            except Exception:  # noqa: BLE001 — the engine closed the socket: nothing left to do
                return 0
            op = header.get("op")
            if op == "exit":
                return 0
            try:
                self.reply(*getattr(self, "op_" + op)(header))
            except BaseException as e:  # noqa: BLE001 — every failure goes back as data
                self._payload = None
                if isinstance(e, KeyboardInterrupt):
                    raise
                self.reply({"status": "oom" if is_oom(e) else "error", "error": f"{type(e).__name__}: {e}"[:500],
                            "traceback": _tb_tail()})

    def start(self) -> bool:
        return True


class _Reference(_Role):
    share_from = SHARE_MIN  # a case's inputs: written once into a memfd, which the engine hands on unread
    accept_shared = True  # a candidate's outputs, in the sink the engine gave it and sealed

    def start(self) -> bool:
        _not_dumpable()  # other processes of this user (a candidate) cannot read its memory through /proc
        self.store: dict[str, tuple] = {}  # prepared inputs, by case key
        self.kept: dict[str, tuple] = {}  # (candidate outputs, expected outputs) kept for a second-seed run
        try:
            self.module = _import_file(self.config["path"], "_repair_reference_problem")
        except BaseException:  # noqa: BLE001
            self.reply({"status": "error", "error": "importing the problem failed", "traceback": _tb_tail()})
            return False
        if not hasattr(self.module, "Model"):
            self.reply({"status": "bad-input", "error": "defines no class Model"})
            return False
        self.reply({"status": "ready"})
        return True

    def op_spec(self, header: dict) -> tuple[dict]:
        import json

        m = self.module
        spec = {"status": "ok", "has_cases": hasattr(m, "CASES")}
        for attr in ("OPERATOR", "CASES", "TOLERANCE"):
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
        _seed_all(seed, self.backend.device)
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

        from repair.engine.wire import WireError
        from repair.engine.compare import compare_outputs
        from repair.engine.tolerance import resolve_tolerance

        init, inputs = self.store.pop(header["key"])
        device = self.backend.device
        inputs = _to_device(inputs, device)
        with torch.no_grad():
            _seed_all(header["seed"], device)
            model = self.module.Model(*init)
            if device != "cpu":
                model = model.to(device)
            self.backend.synchronize()
            t0 = time.perf_counter()
            out = model(*inputs)
            self.backend.synchronize()
            seconds = time.perf_counter() - t0
        expected = [e.detach().cpu() for e in _as_output_list(out)]
        self.reply({"status": "ok", "seconds": seconds})
        reply = {"status": "ok"}
        try:
            actual = self.unpack(header["actual"], copy=False)  # the payload is ours alone: no second copy
            if not isinstance(actual, list) or not all(isinstance(a, torch.Tensor) for a in actual):
                raise WireError("not a list of tensors")
        except (WireError, KeyError, TypeError, ValueError) as e:
            reply["malformed"] = f"malformed outputs from the candidate process: {e}"
            return (reply,)
        tolerance = header.get("tolerance")
        reply["comparison"] = compare_outputs(expected, actual, lambda d: resolve_tolerance(tolerance, d)).as_dict()
        if header.get("against"):
            from repair.integrity import insensitivity_findings

            first_actual, first_expected = self.kept.pop(header["against"], (None, None))
            if first_actual is not None:
                found = insensitivity_findings(first_actual, actual, first_expected, expected)
                reply["insensitivity"] = [asdict(f) for f in found]
        if header.get("keep"):
            self.kept[header["keep"]] = (actual, expected)
        return (reply,)


def _runtime_guard(rules_off: list[str]):
    try:
        from repair.integrity import RuntimeGuard
    except ImportError:
        return None
    return RuntimeGuard(rules_off)


class _Candidate(_Role):
    accept_shared = True  # its case's inputs, from the reference

    def start(self) -> bool:
        import tempfile

        cwd = self.config["cwd"]
        os.environ["TMPDIR"] = tempfile.tempdir = cwd  # its temporary files go to its scratch directory
        if self.config.get("confine"):
            from repair.engine.confine import landlock, seccomp
            from repair.engine.sandbox import drop_capabilities

            try:  # before its code runs: no privilege; read anywhere, write only to cwd (and what its backend
                drop_capabilities()  # needs); no sockets
                landlock.restrict([cwd, *self.backend.landlock_writable()])
                seccomp.restrict(processes=self.backend.spawns_processes)
            except OSError as e:  # the environment's failure, not the candidate's
                self.reply({"status": "environment", "error": f"confining the candidate failed: {e} "
                                                              "(REPAIR_CONFINE=off runs it unconfined)"})
                return False
        try:
            self.module = _import_file(self.config["path"], "_repair_candidate")
        except BaseException as e:  # noqa: BLE001
            status = "oom" if is_oom(e) else "error"
            self.reply({"status": status, "error": f"importing the candidate failed: {type(e).__name__}: {e}"[:500],
                        "traceback": _tb_tail()})
            return False
        if not isinstance(getattr(self.module, "ModelNew", None), type):
            self.reply({"status": "bad-input", "error": "defines no class ModelNew"})
            return False
        self.reply({"status": "ready"})
        return True

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
        init, inputs = _to_device(init, device), _to_device(inputs, device)
        guard = _runtime_guard(self.config.get("rules_off", []))
        # what the mutation check compares the inputs with after the forward (a copy: memory the size of the inputs)
        before = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs] \
            if guard is not None and guard.active("runtime.input-mutated") else None
        with torch.no_grad():
            _seed_all(header["seed"], device)
            model = self.module.ModelNew(*init)  # outside the guard: weight init is not the forward's compute
            if device != "cpu":
                model = model.to(device)
            self.backend.synchronize()
            with guard if guard is not None else nullcontext():
                t0 = time.perf_counter()  # the guard's own set-up and tear-down are not the forward's time
                out = model(*inputs)
                self.backend.synchronize()
                seconds = time.perf_counter() - t0
        outs = _as_output_list(out)
        findings, log = [], None
        if guard is not None:
            found = guard.findings(inputs_before=before, inputs_after=inputs, outputs=out)
            findings = [asdict(f) for f in found]
            log = guard.log() if hasattr(guard, "log") else None
        desc, parts = encode_parts(outs, keep_layout=False)
        reply = {"status": "ok", "outputs": desc, "seconds": seconds, "findings": findings, "guard_log": log}
        nbytes = payload_size(parts)
        if sink is not None and SHARE_MIN <= nbytes <= _file_limit():
            reply["_in_sink"] = write_parts(sink, parts)  # the engine seals it and hands it to the reference
            return (reply,)
        return reply, parts
