"""AscendC integrity: the chain from ModelNew.forward to a kernel launch that copies and computes, link by link."""
from __future__ import annotations

import ast
import re

from repair.ascendc import (TILING_REGISTER, AscendCCandidate, Program, SourceFile, callee_name, strip_comments,
                            unit)
from repair.integrity.model import ModuleModel
from repair.integrity.reach import KERNEL, reachable
from repair.integrity.verdict import IntegrityFinding

CHAIN = "static.ascendc-chain"
COPIES = frozenset({"DataCopy", "DataCopyPad"})
# AscendC instructions that compute (vector, cube, the high-level math APIs) and the scalar path's SetValue
COMPUTE = frozenset("""
Add Sub Mul Div Max Min And Or Not Adds Subs Muls Divs Maxs Mins Exp Ln Log Abs Reciprocal Sqrt Rsqrt Relu
LeakyRelu ShiftLeft ShiftRight Axpy Cast CastDeq Compare CompareScalar Select ReduceSum ReduceMax ReduceMin
WholeReduceSum WholeReduceMax WholeReduceMin BlockReduceSum BlockReduceMax BlockReduceMin PairReduceSum
RepeatReduceSum Sum Mean MulAddDst FusedMulAdd AddRelu SubRelu MulCast AddReluCast SubReluCast Mmad Matmul
IterateAll Iterate SoftMax SoftmaxFlash SoftmaxFlashV2 SimpleSoftMax LogSoftMax LayerNorm RmsNorm
BatchNorm Sigmoid Tanh Sin Cos Tan Asin Acos Atan Sinh Cosh Gelu FasterGelu Silu Swish Power Erf Erfc Floor
Ceil Round Trunc Sign Frac Exp2 Log2 Log10 Clamp ClampMax ClampMin Where Xor Cumsum SetValue
""".split())


def check_chain(cand: AscendCCandidate, tree: ast.Module) -> list[IntegrityFinding]:
    """A `static.ascendc-chain` finding per broken link, `static.kernel-not-launched` per kernel nothing launches."""
    return _Chain(cand, tree).check()


class _Chain:
    def __init__(self, cand: AscendCCandidate, tree: ast.Module):
        self.cand, self.tree = cand, tree
        self.out: list[IntegrityFinding] = []
        self.src = {id(unit(s.text)): s for s in cand.sources if s.role not in ("project_json", "model")}
        by = lambda *roles: Program(unit(s.text) for s in cand.of(*roles))  # noqa: E731
        direct = cand.format == "mkb-direct"
        self.binding = by("binding", "launch", *(("kernel",) if direct else ()))
        self.kernels = by("kernel")
        self.host = by("host_operator", "host_tiling")

    def broken(self, link: str, source: SourceFile | None, line: int | None, message: str,
               rule: str = CHAIN) -> None:
        file, at = source.where(line) if source else (self.cand.path, None)
        ev = ""
        if source is not None and line:
            lines = source.text.splitlines()
            ev = lines[line - 1].strip()[:160] if line <= len(lines) else ""
        self.out.append(IntegrityFinding(rule=rule, message=f"{link}: {message}" if link else message, line=at,
                                         evidence=ev, phase="static", file=file))

    def source_of(self, func) -> SourceFile:
        return self.src[id(func.unit)]

    def check(self) -> list[IntegrityFinding]:
        called = self.forward_calls()
        targets = self.bound(called)
        launched = self.launches(targets)
        if self.cand.format != "mkb-direct":
            self.host_tiling()
        for k in launched:
            self.kernel(k)
        self.unlaunched(launched)
        return self.out

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
                    continue
                target = [f for f in self.binding.by_name.get(_last_name(c.args[1]), []) if f.name != "PYBIND11_MODULE"]
                if not target:
                    self.broken("extension->binding", self.src[id(u)], c.line,
                                f"m.def({c.args[0]}) binds {c.args[1]}, which no binding source defines")
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
            else:
                said = f"OP_ADD({op})" + (" and the JSON" if self.cand.format == "mkb-sources" else "") if op else \
                    "no OP_ADD (a direct launch registers no operator)"
                self.broken("op-name", self.src[id(f.unit)], c.line,
                            f"the binding runs {name}, another operator than its own ({said})")
        for f, c in direct:
            found = [k for k in self.kernels.by_name.get(c.name, []) + self.binding.by_name.get(c.name, [])
                     if k.is_global]
            if not found:
                self.broken("binding->launch", self.src[id(f.unit)], c.line,
                            f"launches {c.name}, which is no __global__ kernel of the candidate")
            kernels += found
        if not aclnn and not direct:
            what = f"calls no EXEC_NPU_CMD(aclnn{op}, ...)" if op else "reaches no <<<>>> kernel launch"
            name = getattr(first, "qualified", "the bound lambda")
            self.broken("binding->launch", where[0], where[1], f"{name} {what}: no kernel runs")
        unique = []
        for k in kernels:
            if not any(k is u for u in unique):
                unique.append(k)
        return unique

    # host -> tiling
    def host_tiling(self) -> None:
        op = self.cand.op
        hosts = self.cand.of("host_operator")
        opdef = None
        for s in hosts:
            for name, bases, body in unit(s.text).classes():
                if name == op and "OpDef" in bases:
                    opdef = (s, body)
        if opdef is None:
            self.broken("host->tiling", hosts[0], None, f"no class {op} : public OpDef defines the operator")
            return
        s, body = opdef
        sets = [c for c in unit(s.text).calls(body) if c.name == "SetTiling" and c.args]
        if not sets:
            self.broken("host->tiling", s, body.start_point[0] + 1, f"OpDef {op} registers no TilingFunc (no SetTiling)")
            return
        fname = _last_name(sets[0].args[0])
        funcs = [f for f in self.host.by_name.get(fname, [])]
        if not funcs:
            self.broken("host->tiling", s, sets[0].line, f"SetTiling({sets[0].args[0]}) names no function of the host")
            return
        struct, fields, tiling_src = self.registered_struct()
        if struct is None:
            self.broken("host->tiling", tiling_src, None, f"no REGISTER_TILING_DATA_CLASS({op}, ...) registers a "
                                                          "tiling struct")
            return
        reached, calls = self.host.reach(funcs)
        fn_src, fn = self.source_of(funcs[0]), funcs[0]
        typed = rf"\b{re.escape(struct)}\b"
        declared = any(_within(f.node, line) for f in reached for _, line in f.unit.declarations(typed))
        if not declared:
            self.broken("host->tiling", fn_src, fn.line, f"{fn.qualified} never declares the registered tiling "
                                                         f"struct {struct}")
        if not any(c.name.startswith("set_") and c.name[4:] in fields for _, c in calls):
            self.broken("host->tiling", fn_src, fn.line, f"{fn.qualified} fills no field of the registered tiling "
                                                         f"struct {struct} (no set_<field>)")
        if not any(c.name == "SaveToBuffer" for _, c in calls):
            self.broken("host->tiling", fn_src, fn.line, f"{fn.qualified} never writes {struct} to the raw tiling "
                                                         "data (no SaveToBuffer)")

    def registered_struct(self) -> tuple[str | None, set[str], SourceFile | None]:
        tilings = self.cand.of("host_tiling")
        for s in tilings:
            text = strip_comments(s.text)
            for m in TILING_REGISTER.finditer(text):
                struct = m.group(2)
                block = re.search(rf"BEGIN_TILING_DATA_DEF\s*\(\s*{re.escape(struct)}\s*\)(.*?)END_TILING_DATA_DEF",
                                  text, re.S)
                fields = set(re.findall(r"TILING_DATA_FIELD_DEF\w*\s*\([^;]*?(\w+)\s*\)\s*;",
                                        block.group(1))) if block else set()
                return struct, fields, s
        return None, set(), tilings[0] if tilings else None

    def _tiling_read_by_macro(self, k, calls) -> bool:
        """The entry invokes a macro (its own source's, expanded transitively) whose body reads the entry's tiling
        parameter with GET_TILING_DATA and uses what it read (`#define IMPL(T) do { GET_TILING_DATA(t, tiling); ...`)."""
        invoked = {c.name for f, c in calls if f is k and c.name in self.kernels.macros}
        bodies = self.kernels.macro_bodies
        return any(_tiling_get(bodies.get(m, ""), k.params) for name in invoked for m in self.kernels.expand(name))

    # kernel <- tiling, kernel -> copy, kernel -> compute
    def kernel(self, k) -> None:
        src = self.source_of(k)
        reached, calls = self.kernels.reach([k])
        if self.cand.format != "mkb-direct":
            gets = [(f, c) for f, c in calls if c.name.startswith("GET_TILING_DATA") and len(c.args) >= 2]
            if not gets and self._tiling_read_by_macro(k, calls):
                pass  # a macro the entry invokes reads the entry's tiling parameter (GET_TILING_DATA in its body)
            elif not gets:
                self.broken("kernel<-tiling", src, k.line, f"kernel entry {k.name} never reads its tiling "
                                                           "(no GET_TILING_DATA)")
            else:
                f, c = gets[0]
                # GET_TILING_DATA(var, tiling); GET_TILING_DATA_WITH_STRUCT(Struct, var, tiling)
                var, arg = c.args[-2].strip(), c.args[-1].strip()
                if f is not k or arg not in k.params:
                    self.broken("kernel<-tiling", self.source_of(f), c.line,
                                f"GET_TILING_DATA reads {arg}, not the tiling parameter of kernel entry {k.name}")
                elif _uses(k, var) < 2:
                    self.broken("kernel<-tiling", src, c.line, f"kernel entry {k.name} reads its tiling into {var} "
                                                               "and never uses it")
        gm = {name for u in self.kernels.units for name, _ in u.declarations(r"GlobalTensor")}
        copies = [c for _, c in calls if c.name in COPIES
                  and (not gm or any(re.search(rf"\b{re.escape(g)}\b", a) for a in c.args for g in gm))]
        if not copies:
            self.broken("kernel->copy", src, k.line, f"kernel {k.name} reaches no DataCopy/DataCopyPad between "
                                                     "global memory and local memory")
        if not any(c.name in COMPUTE for _, c in calls):
            self.broken("kernel->compute", src, k.line, f"kernel {k.name} reaches no compute instruction")

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


def _within(node, line: int) -> bool:
    return node.start_point[0] + 1 <= line <= node.end_point[0] + 1


def _tiling_get(body: str, params: list[str]) -> str | None:
    """The variable a macro body's GET_TILING_DATA reads one of `params` into (the kernel's own names, which the
    macro's expansion sees), if it does and uses it."""
    for m in re.finditer(r"\bGET_TILING_DATA\w*\s*\(([^()]*)\)", body):
        args = [a.strip() for a in m.group(1).split(",")]
        if len(args) >= 2 and args[-1] in params and len(re.findall(rf"\b{re.escape(args[-2])}\b", body)) >= 2:
            return args[-2]
    return None


def _uses(f, var: str) -> int:
    body = f.node.child_by_field_name("body") or f.node
    return sum(1 for m in re.finditer(rf"\b{re.escape(var)}\b", f.unit.node_text(body)))
