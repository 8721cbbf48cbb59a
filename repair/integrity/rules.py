"""The integrity rule registry: every rule's id and what it flags; switching rules off by name."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from repair.errors import BadInput

if TYPE_CHECKING:  # imported where used: sandboxed processes import this module and need no pydantic
    from repair.integrity.verdict import IntegrityFinding, IntegrityVerdict

RULES: dict[str, str] = {
    # static: what the candidate's source can reach from ModelNew.__init__/forward
    "static.framework-compute": "framework compute (torch/F/tensor methods/nn modules/@/aten) reachable from ModelNew",
    "static.dynamic-exec": "dynamic execution: exec/eval/compile/__import__/importlib/runpy",
    "static.monkey-patch": "assignment to an attribute of a module, class or builtin (setattr included)",
    "static.introspection": "introspection that can find the reference: gc, sys.modules, inspect, frames, __globals__",
    "static.reference-import": "imports or reads the problem module, its Model, CASES or get_inputs",
    "static.file-read": "file or network reads that can serve cached outputs (open, torch.load, np.load, pickle...)",
    "static.concurrency": "threads, processes, signals, subprocesses",
    "static.ctypes": "ctypes/cffi or loading native libraries",
    "static.compile-jit": "torch.compile / torch.jit / torch._dynamo / inductor",
    "static.env-check": "reads environment variables or process state that can detect evaluation",
    "static.fallback-except": "try/except around the kernel path that falls back to other code",
    "static.kernel-not-launched": "a kernel defined in the module but never launched from ModelNew",
    "static.no-kernel": "ModelNew reaches no kernel launch at all",
    "static.kernel-no-store": "a launched Triton kernel that never stores (tl.store/atomic)",
    "static.host-compute": "host-side computation on tensor data (numpy, .tolist(), .numpy(), from_numpy)",
    "static.cpp-framework-compute": "C/C++ kernel source calls torch/ATen compute (at::, torch::)",
    "static.validation-changed": "AscendC (NPUKernelBench): a benchmark-owned validation file the candidate carries "
                                 "differs from the one its task was imported with",
    "static.ascendc-chain": "AscendC: a broken link from ModelNew.forward through the binding to a kernel launch "
                            "that copies GM<->UB and computes (the finding names the link)",
    # runtime: what ModelNew.forward did inside the sandbox
    "runtime.framework-compute": "forward executed torch compute ops beyond allocation, views, copies and fills",
    "runtime.no-launch": "forward launched no kernel",
    "runtime.output-alias": "an output shares storage with an input",
    "runtime.input-mutated": "forward modified an input in place",
    "runtime.output-not-from-kernel": "an output's storage was never handed to a kernel launch (result discarded)",
    "runtime.insensitive-output": "outputs constant or identical across different inputs where the reference's differ",
}


# a framework epilogue over kernel outputs is policy while its ops read at most this share of the elements the
# forward touched (kernel launch arguments + the framework ops' inputs); past it, the framework computed the answer
EPILOGUE_MAX_SHARE = 0.25
# a framework prologue whose tensor a kernel combines with inputs no framework op read (a softmax in torch, then a
# kernel reducing it against a second input) is policy while its ops read at most half the elements: the kernel
# computes most of the answer. A prologue only a copying kernel reads stays a cheat at any share.
PROLOGUE_MAX_SHARE = 0.5


def check_policy(policy: str) -> str:
    from repair.integrity.verdict import POLICIES

    if policy not in POLICIES:
        raise BadInput(f"unknown integrity policy {policy!r} (known: {', '.join(POLICIES)})")
    return policy


def fails(finding, policy: str) -> bool:
    """Whether a finding fails the verdict under this policy."""
    return finding.level == "cheat" or finding.level == "policy" and policy == "strict"


def resolve_rules_off(names: Iterable[str]) -> tuple[str, ...]:
    """Validate rule names (exact ids, `static.*`, `runtime.*` or `*`); sorted unique ids, BadInput on unknown."""
    out: set[str] = set()
    for name in names:
        name = name.strip()
        if name in ("*", "all"):
            out.update(RULES)
        elif name.endswith(".*") and any(r.startswith(name[:-1]) for r in RULES):
            out.update(r for r in RULES if r.startswith(name[:-1]))
        elif name in RULES:
            out.add(name)
        else:
            raise BadInput(f"unknown integrity rule {name!r} (known: {', '.join(sorted(RULES))})")
    return tuple(sorted(out))


def make_verdict(findings: Iterable[IntegrityFinding], rules_off: Iterable[str] = (),
                 policy: str = "strict") -> IntegrityVerdict:
    """Drop findings of rules that are off; violation when a finding that fails under the policy remains."""
    from repair.integrity.verdict import IntegrityVerdict

    off = resolve_rules_off(rules_off)
    check_policy(policy)
    kept = [f for f in findings if f.rule not in off]
    kept.sort(key=lambda f: (f.phase, f.line or 0, f.rule, f.evidence))
    bad = any(fails(f, policy) for f in kept)
    return IntegrityVerdict(verdict="violation" if bad else "clean", findings=kept, rules_off=list(off), policy=policy)


def merge_verdicts(*verdicts: IntegrityVerdict, policy: str | None = None) -> IntegrityVerdict:
    """One verdict from several phases (static + runtime): findings concatenated, rules_off united."""
    from repair.integrity.verdict import IntegrityVerdict

    findings = [f for v in verdicts for f in v.findings]
    off = sorted({r for v in verdicts for r in v.rules_off})
    policy = policy or (verdicts[0].policy if verdicts else "strict")
    bad = any(fails(f, policy) for f in findings)
    return IntegrityVerdict(verdict="violation" if bad else "clean", findings=findings, rules_off=off, policy=policy)
