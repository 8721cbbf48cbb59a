"""The engine's C++ support the AscendC rules stand on: C++ patterns that are expressions or statements compile,
C++ rules derive only C++ facts, program keys ignore formatting, and the C++ facts read declarations and uses."""
from __future__ import annotations

import pytest

from ingest.rules import BadRule, Fact, Rule, apply_rule, check_rule
from ingest.rules.engine import program_key
from ingest.rules.facts_cpp import core_index_names, declared_template_arg

SRC = """class K {
    __aicore__ inline void Run(const LocalTensor<half> &src, uint32_t n)
    {
        uint32_t me = GetBlockIdx();
        LocalTensor<half> out = q.AllocTensor<half>();
        q.EnQue(out);
        Abs(out, src, n);  // writes out after its EnQue
        Muls(out, out, (half)2, n);
        out = q.DeQue<half>();
        Abs(out, out, n);
    }
    GlobalTensor<float> aGm, bGm, cGm;
    AscendC::GlobalTensor<half> dGm;
};
"""


def test_cpp_patterns_that_are_expressions_or_statements_compile():
    check_rule(Rule(id="e", language="cpp", pattern="($N + $C - 1) / $C", rewrite="$N / $C"))
    check_rule(Rule(id="s", language="cpp", pattern="$G.SetGlobalBuffer(($T)$P, $$$R)", rewrite="$G.Foo($$$R)"))
    with pytest.raises(BadRule, match="does not parse"):
        check_rule(Rule(id="bad", language="cpp", pattern="if ( {", rewrite="x"))


def test_cpp_rules_derive_cpp_facts_only():
    check_rule(Rule(id="ok", language="cpp", pattern="q.EnQue($Y);", rewrite="q.EnQue($Y);",
                    derive={"_M": Fact(fact="cpp-last-use", of="Y")}))
    with pytest.raises(BadRule, match="reads Python sources"):
        check_rule(Rule(id="py", language="cpp", pattern="$A / $B", rewrite="$A / $N",
                        derive={"N": Fact(fact="mask-bound", of="A")}))


def test_program_key_of_cpp_ignores_formatting_and_comments():
    assert program_key(SRC, "cpp") == program_key(SRC.replace("  // writes out after its EnQue", "").replace(
        "Abs(out, src, n);", "Abs( out,src,  n );"), "cpp")
    assert program_key(SRC, "cpp") != program_key(SRC.replace("(half)2", "(half)3"), "cpp")


def test_declarations_and_core_index_variables_are_read():
    assert declared_template_arg(SRC, "bGm", "GlobalTensor") == "float"
    assert declared_template_arg(SRC, "dGm", "GlobalTensor") == "half"
    assert declared_template_arg(SRC, "src", "LocalTensor") == "half"
    assert declared_template_arg(SRC, "src", "GlobalTensor") is None
    assert core_index_names(SRC) == {"me"}


def test_last_use_moves_the_statement_after_its_last_use_before_the_stop():
    rule = Rule(id="m", language="cpp", pattern="$Q.EnQue($Y);", rewrite="$Q.EnQue($Y);",
                derive={"_M": Fact(fact="cpp-last-use", of="Y", args={"until": r"\bDeQue\b"})})
    [app] = apply_rule(rule, SRC)
    lines = [ln.strip() for ln in app.patched_source.splitlines()]
    assert lines.index("q.EnQue(out);") == lines.index("Muls(out, out, (half)2, n);") + 1
    assert lines.index("q.EnQue(out);") < lines.index("out = q.DeQue<half>();")
    assert app.patched_source.count("q.EnQue(out);") == 1
