"""AscendC C++ through tree-sitter-cpp: qualifiers and launches blanked in place, so the parse is clean and
offsets hold; functions, calls, macros and what a function reaches."""
from __future__ import annotations

from ascendc_fixtures import SUITE
from repair.ascendc import Program, Unit, load_candidate
from repair.ascendc.cxx import blank

SRC = """template <typename T>
__global__ __aicore__ void k(GM_ADDR x, int n) { AscendC::DataCopy(a, b, n); }
std::vector<std::vector<std::vector<int>>> nested;
#define LAUNCH(...) launch_k(__VA_ARGS__)
extern "C" void launch_k(GM_ADDR x, int n, void *stream)
{
    k<float><<<n, nullptr, stream>>>(x, n);
}
void bind(GM_ADDR x) { LAUNCH(x, 8, nullptr); }
"""


def test_blanking_keeps_every_offset_and_line():
    parsed, quals, launches = blank(SRC)
    assert len(parsed.encode()) == len(SRC.encode()) and parsed.count("\n") == SRC.count("\n")
    assert sorted(quals.values()) == ["__aicore__", "__global__"]
    assert len(launches) == 1 and ">>>" in parsed  # a nested template's >>> is not a launch


def test_functions_calls_and_launches():
    u = Unit(SRC)
    assert u.errors() == []
    k = next(f for f in u.funcs if f.name == "k")
    assert k.is_global and k.params == ["x", "n"] and k.line == 2
    launch = next(c for c in u.calls() if c.launch)
    assert (launch.name, launch.line, launch.args) == ("k", 7, ["n", "nullptr", "stream"])
    assert u.macros["LAUNCH"] == ["launch_k"]


def test_reach_expands_macros_and_stops_at_launches_unless_asked():
    p = Program([Unit(SRC)])
    bind = p.by_name["bind"]
    funcs, calls = p.reach(bind)
    assert [f.name for f in funcs] == ["bind", "launch_k"] and any(c.launch for _, c in calls)
    funcs, calls = p.reach(bind, through_launches=True)
    assert [f.name for f in funcs] == ["bind", "launch_k", "k"]
    assert any(c.name == "DataCopy" for _, c in calls)


def test_the_suite_parses_clean_but_the_tiling_macros():
    for cand_path in [SUITE / d / "correct.py" for d in ("add", "layer_norm", "row_sum")]:
        for s in load_candidate(cand_path).sources:
            if s.role in ("host_operator", "kernel", "binding"):
                assert Unit(s.text).errors() == [], (cand_path, s.name)
