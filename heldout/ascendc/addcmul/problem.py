"""NPUKernelBench task addcmul, imported by `repair import npukernelbench`.

Reference: validation/module.py's Model without its NPU-only imports. Inputs: validation/prepare_inputs.py
(its get_inputs/get_init_inputs renamed _task_*, called with the case's test_cases.csv row). CASES: every row of
validation/test_cases.csv; the compact tier is the 2 smallest.
TOLERANCE: NPUKernelBench's default check (max_abs_error = max_rel_error = 1e-3).
COMPARE: NPUKernelBench's check computes `out - out_new`, so an output of another dtype compares in the promoted
one, and one of another shape holding the same elements (`[1]` for a scalar) too.
"""
# -- validation/module.py ------------------------------------------------------------------------

import torch
import torch.nn as nn


class Model(nn.Module):
    """y = input_data + value * x1 * x2, elementwise; value is an attribute."""

    def __init__(self, value=1.0):
        super().__init__()
        self.value = value

    def forward(self, input_data, x1, x2):
        return input_data + x1 * x2 * self.value


# -- validation/prepare_inputs.py ----------------------------------------------------------------

import torch


def _task_get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    input_data = torch.rand(shape, device=device, dtype=dtype) * 4 - 2
    x1 = torch.rand(shape, device=device, dtype=dtype) * 4 - 2
    x2 = torch.rand(shape, device=device, dtype=dtype) * 4 - 2
    return [input_data, x1, x2]


def _task_get_init_inputs(param, device=None):
    return [float(param.get('value', 1.0))]


# -- written by the import ------------------------------------------------------------------------

OPERATOR = {'id': 'addcmul', 'family': 'elementwise'}
TOLERANCE = {'atol': 0.001, 'rtol': 0.001}
COMPARE = {'promote': True}
CASES = [
    {'tier': 'compact', 'case_id': 0, 'shape': '[8, 64]', 'dtype': 'float32', 'value': 0.5},
    {'tier': 'compact', 'case_id': 1, 'shape': '[4, 128]', 'dtype': 'float16', 'value': -1.5},
    {'tier': 'full', 'case_id': 2, 'shape': '[64, 8192]', 'dtype': 'float32', 'value': 1.5},
    {'tier': 'full', 'case_id': 3, 'shape': '[40, 8192]', 'dtype': 'float32', 'value': -0.75},
    {'tier': 'full', 'case_id': 4, 'shape': '[3, 5, 333]', 'dtype': 'float32', 'value': 0.25},
    {'tier': 'full', 'case_id': 5, 'shape': '[96, 8191]', 'dtype': 'float16', 'value': 2.25},
    {'tier': 'full', 'case_id': 6, 'shape': '[40, 16384]', 'dtype': 'float16', 'value': 0.5},
    {'tier': 'full', 'case_id': 7, 'shape': '[999]', 'dtype': 'float32', 'value': -1.25},
]


def _row(case):
    """The case as the task's test_cases.csv row (a dict: the task's code reads it with .get and [])."""
    return {k: v for k, v in case.items()}


def _plain(v):
    """A numpy scalar (np.int64(n)) as the Python number it holds: what crosses to the candidate process."""
    return v.item() if type(v).__module__ == "numpy" and getattr(v, "ndim", None) == 0 else v


def get_inputs(**case):
    return [_plain(v) for v in _task_get_inputs(_row(case), device=None)]


def get_init_inputs(**case):
    return [_plain(v) for v in _task_get_init_inputs(_row(case), device=None)]
