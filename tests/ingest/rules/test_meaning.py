"""Rules over meaning (version 2): value flow, facts, reference checks, and the version 1 form left as it was."""
from __future__ import annotations

import pytest

from ingest.rules import BadRule, Rule, apply_rule, check_rule, rule_from_dict
from ingest.rules.flow import reaches, scope_of
from ingest.rules.model import Fact, Flow, Reference

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def k(x_ptr, o_ptr, n, eps, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n).to(tl.float32)
    y = x * 2.0
    z = tl.where(offs < n, y, 0.0)
    tl.store(o_ptr + row, tl.max(y, axis=0) + tl.sum(z, axis=0))


class ModelNew:
    def __init__(self, eps=1e-5):
        self.eps = eps

    def forward(self, x):
        n_rows, n = x.shape
        out = x.new_empty(n_rows)
        k[(n_rows,)](x, out, n, self.eps, x.stride(0), BLOCK=128)
        return out
'''


def _root(src: str = KERNEL):
    from ast_grep_py import SgRoot

    return SgRoot(src, "python").root()


def test_a_loaded_value_flows_through_casts_and_arithmetic_and_a_mask_select_cuts_it():
    root = _root()
    load = root.find(pattern="tl.load($$$)")
    scope = scope_of(load)
    tmax = root.find(pattern="tl.max($$$)").field("arguments")
    tsum = root.find(pattern="tl.sum($$$)").field("arguments")
    assert reaches(scope, [load], [(tmax, 0), (tsum, 1)]) == {0}  # tl.where(mask, y, 0.0) re-masks y


def test_v1_rules_keep_their_json_and_hash_and_v2_rules_say_so():
    plain = Rule(id="x", pattern="$A <= $B", rewrite="$A < $B")
    assert plain.to_dict()["schema"] == "repair.rule/v1" and "flows" not in plain.to_dict()
    rich = Rule(id="x", pattern="$A <= $B", rewrite="$A < $B", flows=[Flow(sink=["tl.load($_, mask=$SINK)"])])
    assert rich.to_dict()["schema"] == "repair.rule/v2" and rich.sha256() != plain.sha256()
    assert Rule.model_validate(rich.to_dict()) == rich


@pytest.mark.parametrize("bad, message", [
    ({"flows": [{"source": "X"}]}, "metavariable"),
    ({"flows": [{"sink": "$Q"}]}, r"\$Q"),
    ({"derive": {"N": {"fact": "mask-bound", "of": "$Q"}}}, r"\$Q"),
    ({"reference": {"requires_any": ["("]}}, "regex"),
])
def test_v2_fields_are_validated(bad, message):
    with pytest.raises(BadRule, match=message):
        rule_from_dict({"id": "x", "pattern": "$A < $B", "rewrite": "$A <= $B", **bad})


def test_an_unknown_fact_or_a_bad_flow_pattern_is_a_bad_rule():
    with pytest.raises(BadRule, match="unknown fact"):
        check_rule(Rule(id="x", pattern="$A", rewrite="$B", derive={"B": Fact(fact="no-such-fact")}))
    with pytest.raises(BadRule, match="flow"):
        check_rule(Rule(id="x", pattern="$A < $B", rewrite="$A <= $B", flows=[Flow(sink=["tl.load("])]))


def test_a_flow_condition_keeps_the_rule_to_values_that_reach_its_sinks():
    to_max = Rule(id="x", pattern="tl.load($$$A)", rewrite='tl.load($$$A, other=-float("inf"))',
                  flows=[Flow(sink=["tl.max($SINK, $$$)"])])
    to_min = Rule(id="y", pattern="tl.load($$$A)", rewrite='tl.load($$$A, other=float("inf"))',
                  flows=[Flow(sink=["tl.min($SINK, $$$)"])])
    (app,) = apply_rule(to_max, KERNEL)
    assert 'mask=offs < n, other=-float("inf")).to(tl.float32)' in app.patched_source
    assert apply_rule(to_min, KERNEL) == []


def test_a_flow_with_then_requires_the_sink_s_result_to_reach_further():
    summed = Rule(id="x", pattern="x * 2.0", rewrite="x * 3.0", flows=[Flow(sink=["tl.where($_, $SINK, $_)"],
                                                                          then=["tl.sum($SINK, $$$)"])])
    maxed = summed.model_copy(update={"flows": [Flow(sink=["tl.where($_, $SINK, $_)"], then=["tl.max($SINK, $$$)"])]})
    assert len(apply_rule(summed, KERNEL)) == 1 and apply_rule(maxed, KERNEL) == []


def test_facts_bind_metavariables_from_the_program():
    divide = Rule(id="x", pattern="tl.max($Z, axis=0)", rewrite="tl.max($Z, axis=0) / $N",
                  derive={"N": Fact(fact="mask-bound", of="Z")})
    (app,) = apply_rule(divide, KERNEL)
    assert "(tl.max(y, axis=0) / n)" in app.patched_source
    # z is re-masked (tl.where(offs < n, y, 0.0)): no masked load reaches it, so there is no bound to bind
    assert apply_rule(divide.model_copy(update={"pattern": "tl.sum($Z, axis=0)"}), KERNEL) == []


LITERAL = Rule(id="x", pattern="$LIT", rewrite="$P", where={"LIT": {"kind": "number", "regex": "e-5"}},
               context="kernel", derive={"P": Fact(fact="constructor-parameter", of="LIT")})


def test_a_literal_equal_to_a_constructor_default_becomes_the_unused_parameter_that_receives_it():
    (app,) = apply_rule(LITERAL, KERNEL.replace("x * 2.0", "x * 1e-5"))
    assert "    y = x * eps\n" in app.patched_source and app.sites == (10,)


def test_a_fact_may_thread_a_parameter_through_the_kernel_and_its_launch():
    src = (KERNEL.replace("x * 2.0", "x * 1e-5").replace("n, eps, stride,", "n, stride,")
           .replace("n, self.eps, x.stride(0)", "n, x.stride(0)"))
    (app,) = apply_rule(LITERAL, src)
    out = app.patched_source
    assert "def k(x_ptr, o_ptr, n, stride, eps, BLOCK: tl.constexpr):" in out
    assert "y = x * eps" in out and "k[(n_rows,)](x, out, n, x.stride(0), self.eps, BLOCK=128)" in out
    assert len(app.sites) == 3  # one rewrite, shown as one diff over three lines


def test_reference_conditions_apply_only_when_the_problem_is_known():
    biased = Rule(id="x", pattern="tl.sum($Z, axis=0)", rewrite="tl.sum($Z, axis=0) * 1.0",
                  reference=Reference(requires_any=[r"LayerNorm"]))
    assert len(apply_rule(biased, KERNEL)) == 1  # unknown problem: no reference check
    assert apply_rule(biased, KERNEL, reference="torch.var(x)") == []
    assert len(apply_rule(biased, KERNEL, reference="nn.LayerNorm(n)")) == 1


def test_a_looser_rewrite_of_an_operand_is_parenthesised():
    r = Rule(id="x", pattern="tl.sum($Z, axis=0)", rewrite="tl.sum($Z, axis=0) + 1.0")
    (app,) = apply_rule(r, KERNEL)
    assert "tl.max(y, axis=0) + (tl.sum(z, axis=0) + 1.0)" in app.patched_source
