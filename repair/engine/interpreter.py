"""What the triton-cpu backend adds to Triton's interpreter (TRITON_INTERPRET=1) so that candidates written for a
GPU run there as they would on one: two things a GPU gives Triton and the interpreter lacks.

`@triton.autotune` with several configs benchmarks each through the active driver's benchmarker; under the
interpreter there is no driver, and the first call fails with "0 active drivers". Here each config runs once
(a config that fails, fails as it would on a GPU) and every timing is equal, so the autotuner keeps the first
config left after pruning: timings mean nothing on the interpreter, and the choice is the same on every run.

libdevice (`from triton.language.extra import libdevice`) is a module of stubs that the compiler maps to the
device's library; the interpreter calls the stubs, which return None. Here its math runs through numpy.

The fork server of triton-cpu applies both before forking (TritonCPU.prepare_server).
"""
from __future__ import annotations

import functools


def bench_once(kernel_call, quantiles=None, **_ignored):
    """A do_bench for the interpreter: run the config once; the same 'time' for every config."""
    kernel_call()
    return [1.0] * len(quantiles) if quantiles else 1.0


def autotune_without_benchmarks() -> bool:
    """Make every Autotuner made from now on (in this process and its forks) use bench_once unless it names its own
    do_bench. False when this triton's autotuner does not take a do_bench (nothing changed)."""
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:
        return False
    init = Autotuner.__init__
    if getattr(init, "_repair_bench_once", False):
        return True
    try:
        import inspect

        if "do_bench" not in inspect.signature(init).parameters:
            return False
    except (TypeError, ValueError):
        return False

    @functools.wraps(init)
    def __init__(self, *args, do_bench=None, **kwargs):
        init(self, *args, do_bench=do_bench if do_bench is not None else bench_once, **kwargs)

    __init__._repair_bench_once = True
    Autotuner.__init__ = __init__
    return True


# -- libdevice -----------------------------------------------------------------------------------

def _vectorized(f):
    import numpy as np

    v = np.vectorize(f, otypes=[np.float64])
    return lambda x: v(x.astype(np.float64))


def _libdevice_ops() -> dict:
    """numpy for libdevice's math, by base name (the CUDA symbol without __nv_, its f/d suffix or rounding mode)."""
    import math

    import numpy as np

    def c_round(x):  # half away from zero, as C's round
        return np.copysign(np.floor(np.abs(x) + 0.5), x)

    return {
        "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh,
        "atanh": np.arctanh, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
        "atan": np.arctan, "atan2": np.arctan2, "sinpi": lambda x: np.sin(np.pi * x),
        "cospi": lambda x: np.cos(np.pi * x), "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x),
        "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt,
        "rsqrt": lambda x: 1 / np.sqrt(x), "frsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt,
        "rcbrt": lambda x: 1 / np.cbrt(x), "pow": np.power, "powi": np.power, "fabs": np.abs, "abs": np.abs,
        "llabs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
        "nearbyint": np.rint, "round": c_round, "fmax": np.fmax, "fmin": np.fmin, "max": np.maximum,
        "min": np.minimum, "fmod": np.fmod, "remainder": _vectorized(math.remainder), "hypot": np.hypot,
        "copysign": np.copysign, "fma": lambda a, b, c: a * b + c, "fdim": lambda a, b: np.maximum(a - b, 0),
        "erf": _vectorized(math.erf), "erfc": _vectorized(math.erfc), "lgamma": _vectorized(math.lgamma),
        "tgamma": _vectorized(math.gamma), "normcdf": lambda x: 0.5 * _vectorized(math.erfc)(-x / math.sqrt(2)),
        "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "finite": np.isfinite,
        "signbit": np.signbit, "saturate": lambda x: np.clip(x, 0, 1), "fast_exp": np.exp, "fast_exp10":
        lambda x: np.power(10.0, x), "fast_log": np.log, "fast_log2": np.log2, "fast_log10": np.log10,
        "fast_pow": np.power, "fast_sin": np.sin, "fast_cos": np.cos, "fast_tan": np.tan,
        "fast_fdivide": np.divide, "fdiv": np.divide, "ddiv": np.divide, "frcp": lambda x: 1 / x,
        "drcp": lambda x: 1 / x, "fsqrt": np.sqrt, "dsqrt": np.sqrt, "fadd": np.add, "dadd": np.add,
        "fsub": np.subtract, "dsub": np.subtract, "fmul": np.multiply, "dmul": np.multiply,
        "ldexp": np.ldexp, "scalbn": np.ldexp,
    }


def _base_name(symbol: str, ops: dict) -> str | None:
    name = symbol.removeprefix("__nv_")
    for suffix in ("_rn", "_rz", "_rd", "_ru"):  # rounding modes: numpy rounds to nearest
        name = name.removesuffix(suffix)
    for candidate in (name, name[:-1] if name[-1:] in ("f", "d") else None):
        if candidate in ops:
            return candidate
    return None


def kernel_line() -> str:
    """file:line of the innermost frame that is the kernel's own code (not triton's, not this module's)."""
    import sys

    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if "/triton/" not in name and name != __file__ and "/numpy/" not in name:
            return f"{name}:{f.f_lineno}"
        f = f.f_back
    return "an unknown line"


def libdevice_on_interpreter() -> bool:
    """Let interpreted kernels call libdevice (`from triton.language.extra import libdevice`, or its CUDA module):
    on a GPU the compiler maps those calls to CUDA's libdevice; the interpreter leaves the stubs, which return
    None ("cannot convert None ... to tensor"). Here the CUDA module's functions run through the interpreter,
    and their symbols (__nv_tanhf, ...) through numpy. A symbol without a numpy counterpart (bit tricks,
    conversions with a rounding mode, Bessel functions) raises NotImplementedError naming it. False when this
    triton lacks the pieces (nothing changed)."""
    try:
        from triton.language import core
        from triton.language.extra import libdevice as stub
        from triton.language.extra.cuda import libdevice as cuda
        from triton.runtime import interpreter
    except ImportError:
        return False
    builder, semantic = getattr(interpreter, "InterpreterBuilder", None), getattr(interpreter, "interpreter_semantic", None)
    if builder is None or semantic is None or getattr(builder.create_extern_elementwise, "_repair", False):
        return builder is not None and semantic is not None
    import numpy as np

    ops = _libdevice_ops()

    def create_extern_elementwise(self, lib_name, lib_path, symbol, args, ret_type, is_pure):
        base = _base_name(symbol, ops)
        if base is None:
            raise NotImplementedError(f"libdevice {symbol} has no implementation on the Triton interpreter "
                                      f"(repair/engine/interpreter.py), called at {kernel_line()}; it runs on a GPU "
                                      "backend")
        scalar = getattr(ret_type, "scalar", ret_type)
        with np.errstate(all="ignore"):  # inf and nan come out as on the device, silently
            out = np.asarray(ops[base](*[a.data for a in args]))
        return interpreter.TensorHandle(out.astype(interpreter._get_np_dtype(scalar)), scalar)

    create_extern_elementwise._repair = True
    builder.create_extern_elementwise = create_extern_elementwise

    def through_interpreter(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            kwargs.pop("_semantic", None)
            return fn(*args, **kwargs, _semantic=semantic)

        return call

    for name, fn in list(vars(cuda).items()):
        if core.is_builtin(fn):
            call = through_interpreter(fn)
            setattr(cuda, name, call)
            if hasattr(stub, name):
                setattr(stub, name, call)
    return True


# -- constructs the interpreter gets wrong, made faithful ----------------------------------------------------

def faithful_interpreter() -> list[str]:
    """What Triton 3.x's interpreter does differently from a GPU, done as the GPU does it; returns the names of the
    fixes applied (empty when this triton lacks the pieces, nothing changed):

    - `bf16-dot`: `tl.dot` of bfloat16 operands multiplies the raw 16-bit patterns (results ~1e12); here the
      operands are widened to fp32 first, as the tensor cores accumulate them.
    - `mask-dtype`: a mask built by arithmetic (`offs_mask & (scalar < scalar)`) reaches load/store as a non-bool
      array and the interpreter raises "mask has unsupported dtype"; here it is cast to bool.
    - `float-arg`: a Python float kernel argument stays a Python float (`eps.to(tl.float32)` raises AttributeError);
      on a GPU it is an fp32 scalar, and here it becomes one.
    - `bf16-cast`: `x.to(tl.bfloat16)` of fp32 truncates the mantissa (errors up to 2**-8 relative); a GPU rounds to
      nearest even, and so does this.
    - `oob-store`: a store (or atomic) past the end of the tensor its pointer points into writes into whatever host
      memory lies there: another tensor, often an input (then reported as an input the forward modified, which it
      did only by chance of allocation order), or the interpreter's own heap. On a GPU the same store faults or
      overwrites another buffer. Here it raises before anything is written, every time: see `_check_store`.
    """
    try:
        import numpy as np
        from triton.runtime import interpreter
        import triton.language as tl
    except ImportError:
        return []
    builder = getattr(interpreter, "InterpreterBuilder", None)
    handle = getattr(interpreter, "TensorHandle", None)
    if builder is None or handle is None:
        return []
    done = []
    dot = getattr(builder, "create_dot", None)
    if dot is not None:
        if not getattr(dot, "_repair", False):
            def create_dot(self, a, b, d, *args, **kwargs):
                return dot(self, _widen_bf16(a, np, tl, handle), _widen_bf16(b, np, tl, handle), d, *args, **kwargs)

            create_dot._repair = True
            builder.create_dot = create_dot
        done.append("bf16-dot")
    load, store = getattr(builder, "create_masked_load", None), getattr(builder, "create_masked_store", None)
    if load is not None and store is not None:
        if not getattr(load, "_repair", False):
            def create_masked_load(self, ptrs, mask, *args, **kwargs):
                return load(self, ptrs, _bool_mask(mask, np, handle), *args, **kwargs)

            def create_masked_store(self, ptrs, value, mask, *args, **kwargs):
                mask = _bool_mask(mask, np, handle)
                _check_store(ptrs, mask, np)
                return store(self, ptrs, value, mask, *args, **kwargs)

            create_masked_load._repair = create_masked_store._repair = True
            builder.create_masked_load, builder.create_masked_store = create_masked_load, create_masked_store
        done.append("mask-dtype")
    cast = getattr(builder, "cast_impl", None)
    if cast is not None:
        if not getattr(cast, "_repair", False):
            def cast_impl(self, src, dst_type):
                if getattr(src.dtype, "scalar", src.dtype) == tl.float32 and dst_type.scalar == tl.bfloat16:
                    return handle(_bf16_rne(np.asarray(src.data, dtype=np.float32), np), tl.bfloat16)
                return cast(self, src, dst_type)

            cast_impl._repair = True
            builder.cast_impl = cast_impl
        done.append("bf16-cast")
    cvt = getattr(interpreter, "_implicit_cvt", None)
    if cvt is not None:
        if not getattr(cvt, "_repair", False):
            def _implicit_cvt(arg):
                if isinstance(arg, float):
                    return tl.tensor(handle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
                return cvt(arg)

            _implicit_cvt._repair = True
            interpreter._implicit_cvt = _implicit_cvt
        done.append("float-arg")
    if store is not None and _refuse_stray_stores(interpreter, builder, np):
        done.append("oob-store")
    return done


def _refuse_stray_stores(interpreter, builder, np) -> bool:
    """`oob-store` (faithful_interpreter): each launch collects its tensor arguments' storages as the interpreter
    converts them, and every masked store and atomic is checked against them before it writes (`_check_store`).
    False when this triton lacks the pieces."""
    executor, rmw = getattr(interpreter, "GridExecutor", None), getattr(builder, "create_atomic_rmw", None)
    if executor is None or getattr(interpreter, "_implicit_cvt", None) is None:
        return False
    if not getattr(executor.__call__, "_repair", False):
        launch, cvt_now = executor.__call__, interpreter._implicit_cvt

        def __call__(self, *args, **kwargs):
            _SPANS.clear()  # the storages of this launch's tensor arguments, collected as they are converted
            try:
                return launch(self, *args, **kwargs)
            finally:
                _SPANS.clear()

        def _implicit_cvt_spans(arg):
            if hasattr(arg, "untyped_storage") and hasattr(arg, "data_ptr"):
                storage = arg.untyped_storage()
                if storage.nbytes():
                    _SPANS.append((storage.data_ptr(), storage.data_ptr() + storage.nbytes()))
            return cvt_now(arg)

        __call__._repair = _implicit_cvt_spans._repair = True
        executor.__call__, interpreter._implicit_cvt = __call__, _implicit_cvt_spans
        if rmw is not None:
            def create_atomic_rmw(self, op, ptr, val, mask, *args, **kwargs):
                _check_store(ptr, mask, np)
                return rmw(self, op, ptr, val, mask, *args, **kwargs)

            create_atomic_rmw._repair = True
            builder.create_atomic_rmw = create_atomic_rmw
    return True


_SPANS: list[tuple[int, int]] = []  # [start, end) of each tensor argument's storage in the running launch


def _check_store(ptrs, mask, np) -> None:
    """Raise where one store's addresses leave the storage its first address lies in: some in that tensor argument's
    storage and some outside it, or some in an argument's storage while the first is in none. A store wholly outside
    every argument (through pointers the kernel loaded from a table of addresses) is left alone: its tensors are not
    arguments of the launch, and nothing here knows their bounds."""
    if not _SPANS or ptrs is None:
        return
    addr = np.asarray(ptrs.data)
    if addr.dtype.kind not in "ui":
        return
    if mask is not None:
        active = np.broadcast_to(np.asarray(mask.data, dtype=bool), addr.shape)
        addr = addr[active]
    addr = addr.reshape(-1).astype(np.uint64)
    if not addr.size:
        return
    width = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
    first = int(addr[0])
    home = next(((lo, hi) for lo, hi in _SPANS if lo <= first < hi), None)
    if home is not None:
        lo, hi = home
        outside = int(((addr < lo) | (addr + np.uint64(width) > hi)).sum())
    else:
        inside = int(sum(((addr >= lo) & (addr < hi)).sum() for lo, hi in _SPANS))
        outside = int(addr.size) - inside if inside else 0
    if outside:
        raise IndexError(f"out-of-bounds store at {kernel_line()}: {outside} of the {addr.size} elements it writes "
                         "lie outside the tensor its pointer points into (on a GPU this faults or overwrites another "
                         "buffer; mask the store)")


def _bf16_rne(x, np):
    """fp32 -> bfloat16 bit patterns, rounded to nearest even (NaN stays NaN)."""
    bits = x.view(np.uint32).astype(np.uint64)
    out = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), out)


def _widen_bf16(t, np, tl, handle):
    if getattr(t.dtype, "scalar", t.dtype) != tl.bfloat16 or t.data.dtype != np.uint16:
        return t
    return handle((t.data.astype(np.uint32) << 16).view(np.float32), tl.float32)


def _bool_mask(mask, np, handle):
    if mask is None or getattr(mask.data, "dtype", None) == np.bool_:
        return mask
    return handle(np.asarray(mask.data).astype(bool), mask.dtype)
