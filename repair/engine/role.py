"""What both sandbox roles share: the request loop of a forked child, and the seeding and moving of values."""
from __future__ import annotations

import importlib.util
import random
import sys
import traceback

from repair.engine.memfd import Shared
from repair.engine.values import decode_values
from repair.engine.wire import recv_frame, send_frame
from repair.engine.wire_errors import is_oom


def seed_all(seed: int, device: str = "cpu") -> None:
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


def tb_tail(limit_lines: int = 25, limit_chars: int = 3000) -> str:
    lines = traceback.format_exc().rstrip().splitlines()
    return "\n".join(lines[-limit_lines:])[-limit_chars:]


def import_file(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # triton's jit looks functions up through their module
    spec.loader.exec_module(module)
    return module


def to_device(values, device: str):
    import torch

    if device == "cpu":
        return values
    if isinstance(values, torch.Tensor):
        return values.to(device)
    if isinstance(values, (list, tuple)):
        return type(values)(to_device(v, device) for v in values)
    return values


def as_output_list(out) -> list:
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)) and out and all(isinstance(o, torch.Tensor) for o in out):
        return list(out)
    raise TypeError(f"forward returned {type(out).__name__}, not a tensor or a tuple/list of tensors")


FAILED_STATUSES = ("error", "crash", "timeout", "compile-error", "unsupported-on-interpreter")
UNJUDGED = "unsupported"  # a build the backend cannot make of what the candidate uses (not the candidate's failure)


def case_status(e: BaseException, *, before_code: bool = False) -> str | None:
    """The case status an exception says it means (ascendc-cpu's faults and compile errors carry one); only a
    failure's status is taken, so nothing a candidate raises can claim a pass. `unsupported` is taken only from a
    step before any of the candidate's code ran (`before_code`: its build), and the engine checks it again."""
    status = getattr(e, "case_status", None)
    if status == UNJUDGED and before_code:
        return status
    return status if status in FAILED_STATUSES else None


def failure_reply(e: BaseException, what: str = "", *, before_code: bool = False) -> dict:
    """The reply for a failure: the status it says it means with its message (a compile error, an emulated fault),
    else `oom` or `error` with its traceback."""
    status = case_status(e, before_code=before_code)
    if status is not None:
        return {"status": status, "error": str(e)[:4000]}
    return {"status": "oom" if is_oom(e) else "error", "error": f"{what}{type(e).__name__}: {e}"[:500],
            "traceback": tb_tail()}


def runtime_guard(rules_off: list[str]):
    """The integrity package's runtime guard around a forward, or None where it is missing."""
    try:
        from repair.integrity import RuntimeGuard
    except ImportError:
        return None
    return RuntimeGuard(rules_off)


class Role:
    """A sandbox process's part: it answers the engine's requests (its `op_<name>` methods) until told to exit."""

    share_from: int | None = None  # replies with a payload of at least this size share it (repair/engine/memfd.py)
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
                self.reply(failure_reply(e))

    def start(self) -> bool:
        return True
