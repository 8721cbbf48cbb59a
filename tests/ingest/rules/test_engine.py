"""apply_rule: one candidate per match site plus one with every site; constraints and contexts hold."""
from __future__ import annotations

import pytest

from ingest.rules import BadRule, BadSource, MetaConstraint, Rule, apply_rule, apply_rules, equivalent

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs <= n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(x_ptr + offs, mask=offs <= n)
    tl.store(out_ptr, tl.max(x, axis=0) + tl.sum(y, axis=0))


def host(x, n):
    ok = n <= 4
    grid = (n // 128,)
    return ok, grid
'''


def test_one_candidate_per_site_and_one_with_all_sites():
    rule = Rule(id="le", pattern="$A <= $B", rewrite="$A < $B", context="kernel")
    apps = apply_rule(rule, KERNEL)
    assert [a.location for a in apps] == ["8:12", "10:36", "all:8,10"]
    assert apps[0].patched_source.count("offs < n") == 1 and apps[2].patched_source.count("offs < n") == 2
    assert all("n <= 4" in a.patched_source for a in apps)  # host code is not a kernel
    assert [a.changed_lines for a in apps] == [2, 2, 4]
    assert {a.rule_id for a in apps} == {"le"}


def test_host_context_and_no_match():
    rule = Rule(id="g", pattern="($N // $B,)", rewrite="(triton.cdiv($N, $B),)", context="host")
    (app,) = apply_rule(rule, KERNEL)
    assert "grid = (triton.cdiv(n, 128),)" in app.patched_source
    assert apply_rule(Rule(id="none", pattern="tl.dot($A, $B)", rewrite="tl.dot($B, $A)"), KERNEL) == []


def test_requires_and_forbids_read_the_enclosing_function():
    load = "$V = tl.load($P, mask=$M)"
    maxed = Rule(id="m", pattern=load, rewrite=load[:-1] + ", other=-float('inf'))", requires=["tl.max($V $$$)"])
    summed = Rule(id="s", pattern=load, rewrite=load[:-1] + ", other=0.0)", requires=["tl.sum($V $$$)"],
                  forbids=["tl.max($V $$$)"])
    (m,) = apply_rule(maxed, KERNEL)
    assert "x = tl.load(x_ptr + offs, mask=mask, other=-float('inf'))" in m.patched_source
    (s,) = apply_rule(summed, KERNEL)
    assert "y = tl.load(x_ptr + offs, mask=offs <= n, other=0.0)" in s.patched_source
    either = Rule(id="a", pattern=load, rewrite=load[:-1] + ", other=1)", requires_any=["tl.max($V $$$)",
                                                                                          "tl.sum($V $$$)"])
    assert len(apply_rule(either, KERNEL)) == 3


def test_metavariable_constraints():
    src = "def f(a):\n    x = g(a, 1)\n    y = g(a + 1, 2.5)\n    z = g(h(a), 'q')\n"
    ident = Rule(id="i", pattern="g($A, $L)", rewrite="g($L, $A)", where={"A": MetaConstraint(kind="identifier")})
    assert [a.location for a in apply_rule(ident, src)] == ["2:9"]
    num = Rule(id="n", pattern="g($A, $L)", rewrite="g($A)", where={"L": MetaConstraint(kind="number")})
    assert len(apply_rule(num, src)) == 3  # two sites and all
    call = Rule(id="c", pattern="g($A, $L)", rewrite="g($A)", where={"A": MetaConstraint(kind="call", regex="^h\\(")})
    assert [a.location for a in apply_rule(call, src)] == ["4:9"]
    neg = Rule(id="r", pattern="g($A, $L)", rewrite="g($A)", where={"L": MetaConstraint(not_regex="^[0-9]")})
    assert [a.location for a in apply_rule(neg, src)] == ["4:9"]


def test_selector_matches_a_fragment():
    rule = Rule(id="kw", pattern="f(mask=$A <= $B)", selector="keyword_argument", rewrite="mask=$A < $B")
    (app,) = apply_rule(rule, KERNEL)
    assert "mask=offs < n)" in app.patched_source and "mask = offs <= n" in app.patched_source


def test_multiline_rewrite_takes_the_site_indentation():
    rule = Rule(id="ins", pattern="$V = tl.load($$$ARGS)", rewrite="$V = tl.load($$$ARGS)\n$V = $V - tl.max($V, axis=0)",
                requires=["tl.max($V $$$)"])
    (app,) = apply_rule(rule, KERNEL)
    assert "    x = tl.load(x_ptr + offs, mask=mask)\n    x = x - tl.max(x, axis=0)\n" in app.patched_source
    assert app.changed_lines == 1


def test_variadic_metavariables_keep_their_separators():
    rule = Rule(id="v", pattern="tl.sum($V $$$R)", rewrite="tl.sum($V.to(tl.float32) $$$R)")
    (app,) = apply_rule(rule, KERNEL)
    assert "tl.sum(y.to(tl.float32), axis=0)" in app.patched_source


def test_a_rewrite_that_breaks_the_syntax_is_dropped():
    rule = Rule(id="bad", pattern="$A <= $B", rewrite="$A < < $B", context="kernel")
    assert apply_rule(rule, KERNEL) == []


def test_apply_rules_orders_cheapest_first_and_dedupes_programs():
    one = Rule(id="one", pattern="tl.max($X, axis=0)", rewrite="tl.max($X, axis=0) + 0")
    two = Rule(id="two", pattern="tl.max($X, axis=0)", rewrite="tl.max($X,\n axis=0) + 0")  # same program
    many = Rule(id="many", pattern="$A <= $B", rewrite="$A < $B")
    ins = Rule(id="ins", pattern="$V = tl.load($$$ARGS)", rewrite="$V = tl.load($$$ARGS)\nprint($V)",
               requires=["tl.max($V $$$)"])
    apps = apply_rules([many, one, two, ins], KERNEL)
    assert [a.rule_id for a in apps][:2] == ["ins", "many"]  # 1 line, then 2 lines (rule order breaks ties)
    assert sum(a.rule_id in ("one", "two") for a in apps) == 1
    assert [a.changed_lines for a in apps] == sorted(a.changed_lines for a in apps)
    assert apps[-1].location == "all:8,10,15"


def test_bad_source_and_bad_config_raise_typed_errors():
    with pytest.raises(BadSource):
        apply_rule(Rule(id="x", pattern="$A", rewrite="$A + 1"), b"bytes")
    weird = Rule(id="w", pattern="$A <= $B", rewrite="$A < $B", selector="no_such_kind")
    with pytest.raises(BadRule, match="rule w"):
        apply_rule(weird, KERNEL)


def test_equivalence_ignores_formatting_comments_and_docstrings():
    assert equivalent('"""doc"""\nx = f(a,b)  # c\n', "x = f(a, b)\n")
    assert not equivalent("x = f(a, b)\n", "x = f(b, a)\n")
    assert equivalent("int f(){return 1;}", "int f() {\n  return 1; // one\n}", "cpp")
    assert not equivalent("int f(){return 1;}", "int f(){return 2;}", "cpp")


def test_cpp_rules_apply_to_cpp_sources():
    src = "__global__ void k(float* x, int n) {\n  for (int i = 0; i <= n; ++i) { x[i] = 0; }\n}\n"
    rule = Rule(id="c", language="cpp", pattern="$I <= $N", rewrite="$I < $N", context="kernel")
    (app,) = apply_rule(rule, src)
    assert "i < n;" in app.patched_source
    assert apply_rule(rule.model_copy(update={"context": "host"}), src) == []


def test_the_every_site_rewrite_also_tries_each_sites_second_way(monkeypatch):
    """Two sites, two ways to fire at each (a fact with two options): the every-site rewrite is tried with the first
    way at both sites, then with the second at both (one derivation spelled alike at every site)."""
    from ingest.rules.facts import FACTS, Option
    from ingest.rules.model import Fact

    monkeypatch.setitem(FACTS, "test-two-ways", lambda ctx, args: [Option("first"), Option("second")])
    rule = Rule(id="x", pattern="offset = 0", rewrite="offset = $W", derive={"W": Fact(fact="test-two-ways")})
    src = "def f():\n    offset = 0\n    g(offset)\n    offset = 0\n    return offset\n"
    every = {a.location: a.patched_source for a in apply_rule(rule, src) if a.location.startswith("all:")}
    assert set(every) == {"all:2,4", "all:2,4#2"}
    assert every["all:2,4"].count("offset = first") == 2
    assert every["all:2,4#2"].count("offset = second") == 2
