"""AscendC integrity: the chain from ModelNew.forward to a kernel launch that copies and computes, link by link.

Each link is recorded with the file and line where it was found (`chain_links`), so a reviewer can follow it; a
broken one is a `static.ascendc-chain` finding naming the link. The C++ of each side (binding, host, kernel) is read
together with its own macros expanded (repair.ascendc.read_together). The host's link is in ascendc_host.py, the
kernel's in ascendc_kernel.py. Where the model and binding are the benchmark's own, unchanged (an NPUKernelBench
task's validation/, ascendc_trust.py), their links are the benchmark's and the operator's entry is what it launches.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from repair.ascendc import AscendCCandidate, Program, SourceFile, callee_name, read_together
from repair.integrity import ascendc_host as host
from repair.integrity.ascendc_kernel import COMPUTE, copies, global_names, tiling_read, unused_input
from repair.integrity.model import ModuleModel
from repair.integrity.reach import KERNEL, reachable
from repair.integrity.verdict import IntegrityFinding

CHAIN = "static.ascendc-chain"


@dataclass
class ChainLink:
    """One link of the chain: where it was found (or where it breaks) and what the line says."""

    link: str
    ok: bool
    file: str | None
    line: int | None
    evidence: str
    message: str


def check_chain(cand: AscendCCandidate, tree: ast.Module, *, trusted: str | None = None) -> list[IntegrityFinding]:
    """A `static.ascendc-chain` finding per broken link, `static.kernel-not-launched` per kernel nothing launches.

    `trusted`: why the model and binding are the benchmark's own (None: they are the candidate's)."""
    chain = _Chain(cand, tree, trusted)
    chain.check()
    return chain.out


def chain_links(cand: AscendCCandidate, tree: ast.Module, *, trusted: str | None = None) -> list[ChainLink]:
    """Every link, found or broken, with its file and line."""
    chain = _Chain(cand, tree, trusted)
    chain.check()
    return chain.links


class _Chain:
    def __init__(self, cand: AscendCCandidate, tree: ast.Module, trusted: str | None):
        self.cand, self.tree, self.trusted = cand, tree, trusted
        self.out: list[IntegrityFinding] = []
        self.links: list[ChainLink] = []
        self.src: dict[int, SourceFile] = {}
        direct = cand.format == "mkb-direct"
        self.binding = self._program("binding", "launch", *(("kernel",) if direct else ()))
        self.kernels = self._program("kernel")
        self.host = self._program("host_operator", "host_tiling")

    def _program(self, *roles: str) -> Program:
        sources = self.cand.of(*roles)
        units = read_together(s.text for s in sources)
        for u, s in zip(units, sources):
            self.src.setdefault(id(u), s)
        return Program(units)

    def _where(self, source: SourceFile | None, line: int | None) -> tuple[str | None, int | None, str]:
        file, at = source.where(line) if source else (self.cand.path, None)
        ev = ""
        if source is not None and line:
            lines = source.text.splitlines()
            ev = lines[line - 1].strip()[:160] if line <= len(lines) else ""
        return file, at, ev

    def found(self, link: str, source: SourceFile | None, line: int | None, message: str) -> None:
        file, at, ev = self._where(source, line)
        self.links.append(ChainLink(link, True, file, at, ev, message))

    def broken(self, link: str, source: SourceFile | None, line: int | None, message: str,
               rule: str = CHAIN) -> None:
        file, at, ev = self._where(source, line)
        if link:
            self.links.append(ChainLink(link, False, file, at, ev, message))
        self.out.append(IntegrityFinding(rule=rule, message=f"{link}: {message}" if link else message, line=at,
                                         evidence=ev, phase="static", file=file))

    def source_of(self, func) -> SourceFile:
        return self.src[id(func.unit)]

    def check(self) -> None:
        if self.trusted:
            launched = self.benchmark_launch()
        else:
            launched = self.launches(self.bound(self.forward_calls()))
        if self.cand.format != "mkb-direct":
            self.host_tiling()
        for k in launched:
            self.kernel(k)
        self.unlaunched(launched)

    def benchmark_launch(self) -> list:
        """The benchmark's own ModelNew and binding (unchanged): they run the operator, whose entry msopgen names."""
        binding = self.cand.of("binding")[0]
        for link in ("forward->extension", "extension->binding", "binding->launch", "op-name"):
            self.found(link, binding, None, f"benchmark-owned: {self.trusted}")
        kernels = [k for k in self.kernels.by_name.get(self.cand.kernel, []) if k.is_global]
        if not kernels:
            self.broken("op-name", binding, None, f"the benchmark launches {self.cand.kernel}, which is no __global__ "
                                                  "kernel of the candidate")
        return kernels

    # forward -> extension
    def forward_calls(self) -> list[tuple[str, int]]:
        ext = self.cand.extension
        model = ModuleModel(self.tree)
        calls = []
        for key, ctx in reachable(model).items():
            if ctx == KERNEL:
                continue
            f = model.funcs[key]
            for n in ast.walk(f.node):
                if isinstance(n, ast.Call):
                    q = model.resolve(n.func, f) or ""
                    if ext and q.startswith(ext + ".") and q.count(".") == 1:
                        calls.append((q.split(".", 1)[1], n.lineno))
        if not calls:
            line = next(n.lineno for n in self.tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew")
            self.broken("forward->extension", self.cand.model, line,
                        f"ModelNew.forward never calls the extension module {ext or '(the binding names none)'}")
        else:
            self.found("forward->extension", self.cand.model, calls[0][1], f"forward calls {ext}.{calls[0][0]}")
        return calls

    # extension -> binding
    def bound(self, called: list[tuple[str, int]]) -> list:
        """The C++ functions (or lambdas' bodies) the called extension names are bound to."""
        defs: dict[str, list] = {}
        module = None
        for f in self.binding.functions():
            if f.name != "PYBIND11_MODULE":
                continue
            module = f
            for c in f.unit.calls(f.node):
                if c.name == "def" and len(c.args) >= 2 and c.args[0].startswith('"'):
                    defs.setdefault(c.args[0].strip('"'), []).append((c, f.unit))
        binding = (self.cand.of("binding") or [None])[0]
        if module is None:
            if called:
                self.broken("extension->binding", binding, None, "the binding has no PYBIND11_MODULE")
            return []
        out = []
        for name, line in dict(called).items():
            if name not in defs:
                self.broken("extension->binding", self.source_of(module), module.line,
                            f"ModelNew calls {self.cand.extension}.{name}, which the binding does not m.def "
                            f"(it defines {', '.join(sorted(defs)) or 'nothing'})")
                continue
            for c, u in defs[name]:
                node = c.arg_nodes[1]
                if node.type == "lambda_expression":
                    out.append(_Lambda(node, u))
                    self.found("extension->binding", self.src[id(u)], c.line, f"m.def({c.args[0]}) binds a lambda")
                    continue
                target = [f for f in self.binding.by_name.get(_last_name(c.args[1]), []) if f.name != "PYBIND11_MODULE"]
                if not target:
                    self.broken("extension->binding", self.src[id(u)], c.line,
                                f"m.def({c.args[0]}) binds {c.args[1]}, which no binding source defines")
                else:
                    self.found("extension->binding", self.src[id(u)], c.line,
                               f"m.def({c.args[0]}) binds {target[0].qualified}")
                out += target
        return out

    # binding -> launch, op-name
    def launches(self, targets: list) -> list:
        """The kernels the bound functions launch: the msopgen entry (through aclnn<Op>) or `<<<>>>` kernels."""
        if not targets:
            return []
        funcs = [t for t in targets if not isinstance(t, _Lambda)]
        reached, calls = self.binding.reach(funcs)
        for lam in (t for t in targets if isinstance(t, _Lambda)):
            lam_calls = lam.unit.calls(lam.node)
            calls += [(lam, c) for c in lam_calls]
            more, more_calls = self.binding.reach([f for c in lam_calls for f in self.binding.by_name.get(c.name, [])])
            calls += more_calls
        first = targets[0]
        where = (self.src[id(first.unit)], first.line if hasattr(first, "line") else None)
        op, kernel = self.cand.op, self.cand.kernel
        aclnn = [(f, c) for f, c in calls if "EXEC_NPU_CMD" in self.binding.expand(c.name) and c.args]
        direct = [(f, c) for f, c in calls if c.launch]
        kernels = []
        for f, c in aclnn:
            name = c.args[0].strip()
            if op is not None and name == f"aclnn{op}":
                kernels += [k for k in self.kernels.by_name.get(kernel, []) if k.is_global]
                self.found("binding->launch", self.src[id(f.unit)], c.line, f"runs {name}")
                self.found("op-name", self.src[id(f.unit)], c.line, f"{name} is OP_ADD({op})'s, entry {kernel}")
            else:
                said = f"OP_ADD({op})" + (" and the JSON" if self.cand.format == "mkb-sources" else "") if op else \
                    "no OP_ADD (a direct launch registers no operator)"
                self.broken("op-name", self.src[id(f.unit)], c.line,
                            f"the binding runs {name}, another operator than its own ({said})")
        for f, c in direct:
            found = [k for k in self.kernels.by_name.get(c.name, []) if k.is_global] or \
                [k for k in self.binding.by_name.get(c.name, []) if k.is_global]
            if not found:
                self.broken("binding->launch", self.src[id(f.unit)], c.line,
                            f"launches {c.name}, which is no __global__ kernel of the candidate")
            else:
                self.found("binding->launch", self.src[id(f.unit)], c.line, f"launches {c.name} with <<<>>>")
            kernels += found
        if not aclnn and not direct:
            what = f"calls no EXEC_NPU_CMD(aclnn{op}, ...)" if op else "reaches no <<<>>> kernel launch"
            name = getattr(first, "qualified", "the bound lambda")
            self.broken("binding->launch", where[0], where[1], f"{name} {what}: no kernel runs")
        unique, seen = [], set()
        for k in kernels:  # a direct launch's kernel is read with the binding's macros and the kernel's: once
            key = (k.name, k.line, self.source_of(k).file if id(k.unit) in self.src else "")
            if key not in seen:
                seen.add(key)
                unique.append(k)
        return unique

    # host -> tiling
    def host_tiling(self) -> None:
        op = self.cand.op
        reg, why, src, line = host.registration(self.host, lambda u: self.src[id(u)], op)
        if reg is None:
            self.broken("host->tiling", src, line, why)
            return
        fname = _last_name(reg.func)
        funcs = list(self.host.by_name.get(fname, []))
        if not funcs:
            self.broken("host->tiling", reg.source, reg.line, f"{reg.how}({reg.func}) names no function of the host")
            return
        self.found("host->tiling", reg.source, reg.line, f"{reg.how} registers {reg.func}")
        reached, calls = self.host.reach(funcs)
        more = host.templates(self.host, op, calls)
        if more:
            reached, calls = self.host.reach(funcs + more)
        fn_src, fn = self.source_of(funcs[0]), funcs[0]
        sources = self.cand.of("host_tiling", "host_operator", "kernel")
        structs = host.registered_structs(sources, op)
        plain, at = host.plain_struct(calls)
        if plain is not None:
            structs.append((plain, self.source_of(at[0]), at[1].line))
        if not structs:
            self.broken("host->tiling", fn_src, fn.line, f"no REGISTER_TILING_DATA_CLASS({op}, ...) registers a "
                                                         f"tiling struct and {fn.qualified} takes none with "
                                                         "GetTilingData<...>()")
            return
        names = ", ".join(s for s, _, _ in structs)
        self.found("host->tiling", structs[0][1], structs[0][2], f"the tiling struct: {names}")
        fields = set().union(*(host.struct_fields(sources, s, self.host.units + self.kernels.units)
                               for s, _, _ in structs))
        ok = True
        if plain is None and not any(host.declares(self.host, reached, s) for s, _, _ in structs):
            ok = False
            self.broken("host->tiling", fn_src, fn.line, f"{fn.qualified} never declares the registered tiling "
                                                         f"struct {names}")
        if not host.fills(reached, calls, fields):
            ok = False
            self.broken("host->tiling", fn_src, fn.line, f"{fn.qualified} fills no field of the registered tiling "
                                                         f"struct {names} (no set_<field>, no field written)")
        if not host.saves(calls):
            ok = False
            self.broken("host->tiling", fn_src, fn.line, f"{fn.qualified} never writes {names} to the raw tiling "
                                                         "data (no SaveToBuffer)")
        if ok:
            through = f" (through {len(reached) - 1} functions it reaches)" if len(reached) > 1 else ""
            self.found("host->tiling", fn_src, fn.line, f"{fn.qualified}{through} declares, fills and saves {names}")

    # kernel <- tiling, kernel -> copy, kernel -> compute
    def kernel(self, k) -> None:
        src = self.source_of(k)
        reached, calls = self.kernels.reach([k])
        if self.cand.format != "mkb-direct":
            read, f, line, what = tiling_read(self.kernels, k)
            if read:
                self.found("kernel<-tiling", self.source_of(f), line, f"{f.qualified} {what}")
            else:
                self.broken("kernel<-tiling", self.source_of(f), line, f"kernel entry {k.name}: {f.qualified} {what}"
                            if f is not k else f"kernel entry {k.name} {what}")
        gm = global_names(self.kernels, calls)
        moved = copies(self.kernels, calls, gm)
        if not moved:
            self.broken("kernel->copy", src, k.line, f"kernel {k.name} reaches no DataCopy/DataCopyPad between "
                                                     "global memory and local memory")
        else:
            c = moved[0]
            self.found("kernel->copy", self._source_of_call(calls, c), c.line, f"{c.callee} moves global memory")
        compute = next(((f, c) for f, c in calls if c.name in COMPUTE), None)
        if compute is not None:
            self.found("kernel->compute", self.source_of(compute[0]), compute[1].line, f"{compute[1].callee}")
            return
        lost = unused_input(self.kernels, calls, gm)
        if lost is not None:
            f, c, v = lost
            self.broken("kernel->compute", self.source_of(f), c.line,
                        f"kernel {k.name} reaches no compute instruction, and what it copies into {v} nothing reads "
                        "(no compute, no copy out)")
        else:
            self.found("kernel->compute", src, k.line, f"kernel {k.name} reaches no compute instruction and drops "
                                                       "nothing it copies in (a kernel that moves or fills data)")

    def _source_of_call(self, calls, call) -> SourceFile:
        return next(self.source_of(f) for f, c in calls if c is call)

    def unlaunched(self, launched: list) -> None:
        for f in self.kernels.functions():
            if f.is_global and not any(f is k for k in launched):
                self.broken("", self.source_of(f), f.line, f"kernel {f.name} is defined but the binding never "
                                                           "launches it", rule="static.kernel-not-launched")


class _Lambda:
    """A lambda bound with m.def: its body is the bound function."""

    def __init__(self, node, u):
        self.node, self.unit = node, u
        self.line = node.start_point[0] + 1


def _last_name(text: str) -> str:
    return callee_name(text.replace("&", " "))
