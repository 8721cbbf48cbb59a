"""Starter rules for parameters: a constructor argument the kernel ignores, launch arguments passed in the wrong order.

A literal equal to a constructor parameter's default, in a model whose forward never reads that
parameter, stands where the parameter belongs; a launch argument named as another kernel parameter
(and vice versa) is swapped with it.
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint
from repair.rules.vocab import rule

_NUMBER = {"LIT": MetaConstraint(kind="number")}


def ignored_parameter() -> tuple:
    c = "ignored-parameter"
    return (
        rule("host-literal", c, "$LIT", "$ATTR", context="host", where=_NUMBER,
             derive={"ATTR": Fact(fact="constructor-attribute", of="LIT")},
             title="the forward passes a constant where the constructor's parameter belongs"),
        rule("kernel-literal", c, "$LIT", "$PARAM", context="kernel", where=_NUMBER,
             derive={"PARAM": Fact(fact="constructor-parameter", of="LIT")},
             title="the kernel hard-codes the default of a constructor parameter instead of using it"),
        rule("kernel-default", c, "$K[$G]($$$ARGS)", "$K[$G]($$$ARGS)", context="host",
             derive={"_D": Fact(fact="unpassed-default")},
             title="a kernel parameter keeps its default where the constructor's value belongs"),
    )


def swapped_parameters() -> tuple:
    c = "swapped-parameters"
    return (
        rule("launch", c, "$K[$G]($$$ARGS)", "$K[$G]($$$ARGS)", context="host",
             derive={"_S": Fact(fact="swapped-launch-args")},
             title="two launch arguments are passed in each other's place"),
    )
