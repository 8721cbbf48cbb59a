"""ModelNew run as written: the extension it imports is a stand-in whose functions run the emulated operator.

Before the candidate's model (model_src, ModelNew.py, validation/module.py) is imported, `sys.modules` gets a module
under the extension's name (custom_ops_lib, benchmark_ops, kernel_gen_ops) with one function per name the binding's
PYBIND11_MODULE m.defs, and a `torch_npu` whose import is harmless and whose use is an error naming what was used
(the NPU's own package does nothing the CPU can). The model's imports of those two names resolve to this candidate's
stand-ins even when another candidate loaded in the same process installed its own (tests, benches).

Each function converts its arguments as pybind11 would for the bound C++ function's parameters (a float where the C++
takes an integer, a keyword pybind11 was not told of: TypeError) and hands them to `call(name, args)`, which
evaluates the binding (repair/ascendc/emu/cxxeval.py) and runs the emulated kernel (runner.py). `ModelNew.forward`
then runs unchanged under the runtime guard: whatever it does with the results is judged.
"""
from __future__ import annotations

import builtins
import re
import sys
import types
from typing import Any, Callable

from repair.ascendc.candidate import AscendCCandidate
from repair.errors import RepairError

MODULE = "_repair_candidate"
NPU_PACKAGES = ("torch_npu",)


class MappingError(RepairError):
    """The candidate's model or binding says something ascendc-cpu cannot map onto the operator (the case errors)."""

    case_status = "error"


class _NpuStandIn(types.ModuleType):
    """torch_npu (and its submodules) on the CPU: importable, and an error naming the attribute when used."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise MappingError(f"ascendc-cpu: {self.__name__}.{name} is part of torch_npu, which the emulation does not "
                           "provide (the model may import it; only the extension's functions run)")


def npu_stand_in() -> types.ModuleType:
    """torch_npu, torch_npu.contrib and torch_npu.contrib.transfer_to_npu as stand-ins, installed once."""
    for full in ("torch_npu", "torch_npu.contrib", "torch_npu.contrib.transfer_to_npu"):
        if not isinstance(sys.modules.get(full), _NpuStandIn):
            sub = _NpuStandIn(full)
            sub.__path__ = []  # a package: `from torch_npu.contrib import transfer_to_npu` resolves through it
            sys.modules[full] = sub
            if "." in full:
                parent, leaf = full.rsplit(".", 1)
                setattr(sys.modules[parent], leaf, sub)
    return sys.modules["torch_npu"]


class ExtensionFunction:
    """One function of the extension module: pybind11's argument conversion, then the emulated operator."""

    def __init__(self, name: str, params: list[tuple[str, str]] | None, kwnames: list[str],
                 call: Callable[[str, list], Any]):
        self.__name__ = self.__qualname__ = name
        self.params, self.kwnames, self._call = params, kwnames, call

    def __call__(self, *args, **kwargs):
        args = list(args)
        if kwargs:
            if not self.kwnames:
                raise TypeError(f"{self.__name__}(): incompatible function arguments: pybind11 was given no "
                                f"py::arg names, so it takes no keywords ({', '.join(kwargs)})")
            for k, v in kwargs.items():
                if k not in self.kwnames:
                    raise TypeError(f"{self.__name__}(): no argument named {k!r}")
                i = self.kwnames.index(k)
                args += [_MISSING] * (i + 1 - len(args))
                if args[i] is not _MISSING:
                    raise TypeError(f"{self.__name__}(): {k!r} given twice")
                args[i] = v
            if _MISSING in args:
                raise TypeError(f"{self.__name__}(): argument {args.index(_MISSING)} missing")
        if self.params is not None:
            if len(args) != len(self.params):
                raise TypeError(f"{self.__name__}(): incompatible function arguments: it takes {len(self.params)}, "
                                f"was given {len(args)}")
            args = [pybind_arg(t, v, self.__name__, i) for i, ((t, _), v) in enumerate(zip(self.params, args))]
        return self._call(self.__name__, args)

    def __repr__(self) -> str:
        return f"<ascendc-cpu stand-in for the extension function {self.__name__}>"


_MISSING = object()


def pybind_arg(type_text: str, value: Any, fn: str, i: int) -> Any:
    """A Python value as pybind11 would pass it to a C++ parameter of `type_text` (TypeError where it refuses)."""
    t = " ".join(re.sub(r"\b(const|volatile)\b|&", " ", type_text).split())
    base = t.split("::")[-1] if "<" not in t else t
    bad = TypeError(f"{fn}(): incompatible function arguments: argument {i} ({type(value).__name__}) cannot be "
                    f"converted to {type_text.strip()}")
    if re.search(r"\boptional\s*<", t):
        if value is None:
            return None
        inner = re.search(r"optional\s*<(.*)>", t).group(1)
        return pybind_arg(inner, value, fn, i)
    if base in ("Tensor",):
        if not _is_tensor(value):
            raise bad
        return value
    if base in ("double", "float", "long double"):
        try:  # pybind11 converts through __float__: a number, or a one-element tensor
            return float(value) if not isinstance(value, str) else _raise(bad)
        except (TypeError, ValueError, RuntimeError):
            raise bad from None
    if base == "bool":
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return bool(value)
        raise bad
    if re.fullmatch(r"(u?int(8|16|32|64)_t|int|long|long long|unsigned|unsigned int|unsigned long|size_t|short|char|"
                    r"int64|uint64)", base):
        if isinstance(value, float) or not hasattr(value, "__index__"):
            raise bad
        try:  # pybind11 converts through __index__: an integer, or a one-element integer tensor
            return int(value.__index__())
        except (TypeError, ValueError, RuntimeError):
            raise bad from None
    if base in ("string", "std::string", "char *", "char*") or t.endswith("char *"):
        if not isinstance(value, str):
            raise bad
        return value
    if re.search(r"IntArrayRef|vector\s*<\s*(int64_t|int|long)", t):
        if isinstance(value, (list, tuple)) or type(value).__name__ == "Size":
            return [int(v) for v in value]
        if isinstance(value, int) and "IntArrayRef" in t:  # pybind's IntArrayRef caster takes one int too
            return [value]
        raise bad
    return value


def _raise(e: BaseException):
    raise e


def _is_tensor(v) -> bool:
    return type(v).__name__ in ("Tensor", "Parameter") and hasattr(v, "shape")


def bound_names(cand: AscendCCandidate) -> dict[str, tuple[str, list[str]]]:
    """Python name -> (the C++ function it binds, its py::arg names) for each m.def of PYBIND11_MODULE."""
    from repair.ascendc.cxx import Program, unit

    sources = cand.of("binding", "launch", *(("kernel",) if cand.format == "mkb-direct" else ()))
    program = Program(unit(s.text) for s in sources)
    out: dict[str, tuple[str, list[str]]] = {}
    for f in program.functions():
        if f.name != "PYBIND11_MODULE":
            continue
        for c in f.unit.calls(f.node):
            if c.name == "def" and len(c.args) >= 2 and c.args[0].startswith('"'):
                target = re.sub(r"^&", "", c.args[1].strip()).split("::")[-1]
                kw = [m.group(1) for a in c.args[2:] for m in [re.match(r'\s*(?:py|pybind11)::arg\s*\(\s*"(\w+)"', a)]
                      if m]
                out.setdefault(c.args[0].strip('"'), (target, kw))
    return out


def extension_module(cand: AscendCCandidate, params_of: Callable[[str], list | None],
                     call: Callable[[str, list], Any]) -> types.ModuleType:
    """The stand-in for the extension `cand` builds: one ExtensionFunction per m.def name."""
    name = cand.extension or "custom_ops_lib"
    mod = types.ModuleType(name, f"ascendc-cpu's stand-in for the extension {name} (the binding, evaluated)")
    mod.__ascendc_emulated__ = True
    for py, (_, kw) in bound_names(cand).items():
        setattr(mod, py, ExtensionFunction(py, params_of(py), kw, call))
    return mod


def import_model(cand: AscendCCandidate, extension: types.ModuleType) -> types.ModuleType:
    """The candidate's model module, imported with `extension` (and torch_npu's stand-in) installed: its lines are
    the file's own (a six-source string's lines are the .py's), so tracebacks name the candidate's file and line."""
    sys.modules[extension.__name__] = extension
    npu = npu_stand_in()
    own = {extension.__name__: extension, "torch_npu": npu}
    real_import = builtins.__import__

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in own:
            return own[name]
        if level == 0 and name.split(".")[0] == "torch_npu":
            npu_stand_in()
            mod = sys.modules.get(name)
            if mod is not None:
                return mod if fromlist else npu
        return real_import(name, globals, locals, fromlist, level)

    model = cand.model
    file, first = model.where(1)
    filename = file if model.name in file else f"{file}#{model.name}"
    text = "\n" * (first - 1) + model.text
    module = types.ModuleType(MODULE)
    module.__file__ = file
    module.__builtins__ = dict(builtins.__dict__, __import__=_import)
    sys.modules[MODULE] = module  # triton-style lookups of functions through their module
    code = compile(text, filename, "exec", dont_inherit=True)
    exec(code, module.__dict__)
    if not isinstance(module.__dict__.get("ModelNew"), type):
        raise MappingError(f"{model.label()}: defines no class ModelNew")
    return module
