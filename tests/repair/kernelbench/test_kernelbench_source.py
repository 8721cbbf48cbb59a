"""Reading a KernelBench file's constants without running it: free ones, derived ones, the globals Model reads."""
from __future__ import annotations

import pytest

from repair.errors import BadInput
from repair.kernelbench.source import read_facts

LEVEL2 = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        def scaled(y):
            k = 2
            return y * k
        return scaled(self.conv(x) + self.bias)

batch_size = 128
in_channels = 3
out_channels = 16
height = width = 32
D, H = (8, 16)
kernel_size = 3
bias_shape = (out_channels, 1, 1)
twice = bias_shape + (1,)

def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]

def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
'''


def test_free_and_derived_constants():
    facts = read_facts(LEVEL2, "p.py")
    assert facts.free == ("batch_size", "in_channels", "out_channels", "height", "width", "D", "H", "kernel_size")
    assert [a.names for a in facts.recompute_after({"out_channels"})] == [("bias_shape",), ("twice",)]
    assert facts.recompute_after({"batch_size"}) == ()
    assert facts.model_reads == frozenset()  # parameters and a nested function's locals are not globals
    assert facts.has_get_init_inputs


def test_a_global_read_by_model_is_found():
    text = LEVEL2.replace("return scaled(self.conv(x) + self.bias)", "return scaled(self.conv(x) + self.bias)[:height]")
    assert read_facts(text, "p.py").model_reads == {"height"}


def test_a_constant_bound_twice_is_not_free():
    facts = read_facts(LEVEL2 + "\nbatch_size = 64\n", "p.py")
    assert "batch_size" not in facts.free


@pytest.mark.parametrize("text, what", [
    ("def get_inputs():\n    return []\n", "defines no Model"),
    ("class Model:\n    pass\n", "defines no get_inputs"),
    ("class Model(:\n", "does not parse"),
])
def test_not_a_kernelbench_problem(text, what):
    with pytest.raises(BadInput, match=what):
        read_facts(text, "p.py")
