"""The candidate's own macros expanded in place (repair.ascendc.macros): lines kept, as the preprocessor would."""
from __future__ import annotations

from repair.ascendc import Program, read_together
from repair.ascendc.macros import MAX_DEPTH, collect, expand

SRC = """#define IMPL(Cls, ...)                  \\
    do {                                \\
        Cls<__VA_ARGS__> op(&pipe);     \\
        op.Init(x, &tilingData);        \\
        RUN;                            \\
    } while (0)
#if defined(FAST)
#define RUN op.ProcessFast()
#else
#define RUN op.Process()
#endif
#define STR(a) #a
#define CAT(a, b) a ## b
void k(GM_ADDR x, GM_ADDR tiling)
{
    if (TILING_KEY_IS(1)) {
        IMPL(KernelA, DTYPE_X,
             DTYPE_Y);
    }
    const char *s = STR(a + b); CAT(Fo, o)(1); // IMPL(not, expanded) in a comment
    const char *t = "IMPL(not, expanded) in a string";
}
"""


def test_function_like_object_like_nested_variadic_and_under_if():
    out = expand(SRC, collect([SRC]))
    assert out.count("\n") == SRC.count("\n")  # every line keeps its number
    line = out.splitlines()[16]  # the invocation's first line holds the whole expansion
    assert "KernelA<DTYPE_X, DTYPE_Y> op(&pipe);" in " ".join(line.split()).replace(",  ", ", ")
    assert "op.Init(x, &tilingData);" in line and "op.ProcessFast()" in line  # the first definition of RUN
    assert out.splitlines()[17].strip() == ";"
    assert '"a + b"' in out and "Foo(1)" in out
    assert "IMPL(not, expanded) in a comment" in out and '"IMPL(not, expanded) in a string"' in out


def test_macros_of_the_sources_read_together_and_calls_inside_them():
    header = "#define RUN_ALL(op) do { op.Init(x, t); op.Process(); } while (0)\n"
    kernel = "void k(GM_ADDR x, GM_ADDR t) { Kernel op; RUN_ALL(op); }\nvoid Process() { DataCopy(a, b, 8); }\n"
    units = read_together([header, kernel])
    p = Program(units)
    funcs, calls = p.reach(p.by_name["k"])
    assert {"Init", "Process", "DataCopy"} <= {c.name for _, c in calls}


def test_a_macro_is_not_expanded_inside_itself_and_depth_is_bounded():
    rec = "#define A A + B\n#define B A\nint v = A;\n"
    assert expand(rec, collect([rec])).splitlines()[2] == "int v = A + A;"
    deep = "".join(f"#define M{i} M{i + 1}\n" for i in range(MAX_DEPTH + 5)) + "int v = M0;\n"
    assert expand(deep, collect([deep])).splitlines()[-1].startswith("int v = M")
