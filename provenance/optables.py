"""The op vocabulary's tables: which Triton, C/CUDA and AscendC calls and which operators map to which ops.

See provenance.opstream for the vocabulary and the rules; provenance.opstream_py and opstream_c use these.
"""
from __future__ import annotations

_MATH = {
    "exp": ("EXP",), "exp2": ("EXP2",), "log": ("LOG",), "log2": ("LOG2",), "log1p": ("K:1.0", "ADD", "LOG"),
    "expm1": ("EXP", "K:1.0", "SUB"), "sqrt": ("SQRT",), "rsqrt": ("SQRT", "K:1.0", "DIV"), "tanh": ("TANH",),
    "erf": ("ERF",), "abs": ("ABS",), "sin": ("SIN",), "cos": ("COS",), "pow": ("POW",),
    "fma": ("MUL", "ADD"), "sigmoid": ("NEG", "EXP", "K:1.0", "ADD", "K:1.0", "DIV"),
}
TRITON_CALLS = {
    **_MATH, "sqrt_rn": ("SQRT",), "div_rn": ("DIV",), "fdiv": ("DIV",), "maximum": ("MAX",),
    "minimum": ("MIN",), "clamp": ("MAX", "MIN"), "where": ("SELECT",), "dot": ("MUL", "REDUCE_SUM"),
    "sum": ("REDUCE_SUM",), "max": ("REDUCE_MAX",), "min": ("REDUCE_MIN",), "argmax": ("REDUCE_ARGMAX",),
    "argmin": ("REDUCE_ARGMIN",), "cumsum": ("SCAN_SUM",),
    "softmax": ("REDUCE_MAX", "SUB", "EXP", "REDUCE_SUM", "DIV"),
}
TRITON_DATA_ARGS = {"sum": 1, "max": 1, "min": 1, "argmax": 1, "argmin": 1, "cumsum": 1, "softmax": 1}
C_CALLS = {
    **{f"{n}f": ops for n, ops in _MATH.items()}, **_MATH,
    "__expf": ("EXP",), "__logf": ("LOG",), "__fsqrt_rn": ("SQRT",), "hexp": ("EXP",),
    "fmaxf": ("MAX",), "fmax": ("MAX",), "max": ("MAX",), "fminf": ("MIN",), "fmin": ("MIN",), "min": ("MIN",),
    "fabsf": ("ABS",), "fabs": ("ABS",),
}
ASCENDC_CALLS = {
    "Exp": ("EXP",), "Ln": ("LOG",), "Sqrt": ("SQRT",), "Rsqrt": ("SQRT", "K:1.0", "DIV"), "Abs": ("ABS",),
    "Add": ("ADD",), "Sub": ("SUB",), "Mul": ("MUL",), "Div": ("DIV",), "Max": ("MAX",), "Min": ("MIN",),
    "Adds": ("ADD",), "Muls": ("MUL",), "Maxs": ("MAX",), "Mins": ("MIN",), "Reciprocal": ("K:1.0", "DIV"),
    "Relu": ("MAX",), "Tanh": ("TANH",), "Select": ("SELECT",), "Compare": ("CMP",), "Compares": ("CMP",),
    "ReduceMax": ("REDUCE_MAX",), "WholeReduceMax": ("REDUCE_MAX",), "BlockReduceMax": ("REDUCE_MAX",),
    "ReduceSum": ("REDUCE_SUM",), "WholeReduceSum": ("REDUCE_SUM",), "BlockReduceSum": ("REDUCE_SUM",),
    "ReduceMin": ("REDUCE_MIN",), "Mmad": ("MUL", "REDUCE_SUM"),
}
# AscendC's vector API for its own walker (provenance.opstream_ascendc): name -> (operand kind, ops). Kinds:
# unary (dst, src), binary (dst, a, b), scalar (dst, src, scalar), reduce (dst, src, ...), select (dst, mask,
# a, b), cmp_scalar (dst, src, scalar), move (dst, src: a cast, no op), dup (dst, scalar: Duplicate).
ASCENDC_VECTOR = {
    **{n: ("unary", ops) for n, ops in {
        "Exp": ("EXP",), "Ln": ("LOG",), "Log": ("LOG",), "Log2": ("LOG2",), "Sqrt": ("SQRT",),
        "Rsqrt": ("SQRT", "K:1.0", "DIV"), "Abs": ("ABS",), "Reciprocal": ("K:1.0", "DIV"), "Relu": ("K:0.0", "MAX"),
        "Tanh": ("TANH",), "Erf": ("ERF",), "Sin": ("SIN",), "Cos": ("COS",), "Exp2": ("EXP2",),
        "Sigmoid": _MATH["sigmoid"],
    }.items()},
    **{n: ("binary", ops) for n, ops in {
        "Add": ("ADD",), "Sub": ("SUB",), "Mul": ("MUL",), "Div": ("DIV",), "Max": ("MAX",), "Min": ("MIN",),
        "Compare": ("CMP",), "Power": ("POW",), "Mmad": ("MUL", "REDUCE_SUM"),
    }.items()},
    **{n: ("scalar", ops) for n, ops in {
        "Adds": ("ADD",), "Muls": ("MUL",), "Maxs": ("MAX",), "Mins": ("MIN",), "Axpy": ("MUL", "ADD"),
        "LeakyRelu": ("K:0.0", "CMP", "MUL", "SELECT"),
    }.items()},
    **{n: ("reduce", ops) for n, ops in {
        "ReduceSum": ("REDUCE_SUM",), "WholeReduceSum": ("REDUCE_SUM",), "BlockReduceSum": ("REDUCE_SUM",),
        "ReduceMax": ("REDUCE_MAX",), "WholeReduceMax": ("REDUCE_MAX",), "BlockReduceMax": ("REDUCE_MAX",),
        "ReduceMin": ("REDUCE_MIN",), "WholeReduceMin": ("REDUCE_MIN",), "BlockReduceMin": ("REDUCE_MIN",),
    }.items()},
    "Select": ("select", ("SELECT",)), "CompareScalar": ("cmp_scalar", ("CMP",)), "Compares": ("cmp_scalar", ("CMP",)),
    "Cast": ("move", ()), "Copy": ("move", ()), "Duplicate": ("dup", ()),
}
BINOPS = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV", "//": "DIV", "%": "MOD", "**": "POW", "@": "DOT"}
CMPS = {"<", ">", "<=", ">=", "==", "!="}
