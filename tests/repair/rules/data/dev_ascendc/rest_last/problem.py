"""NPUKernelBench task rest_last, imported by `repair import npukernelbench`.

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
    """y = 2 |x|, elementwise."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.abs() * 2.0


# -- validation/prepare_inputs.py ----------------------------------------------------------------

import torch


def _task_get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    return (torch.randn(shape, device=device, dtype=torch.float32),)


def _task_get_init_inputs(param, device=None):
    return []


# -- written by the import ------------------------------------------------------------------------

OPERATOR = {'id': 'rest_last', 'family': 'elementwise'}
TOLERANCE = {'atol': 0.001, 'rtol': 0.001}
COMPARE = {'promote': True}
CASES = [
    {'tier': 'full', 'case_id': 0, 'shape': '[3, 999]'},
    {'tier': 'compact', 'case_id': 1, 'shape': '[2051]'},
    {'tier': 'full', 'case_id': 2, 'shape': '[7, 3001]'},
    {'tier': 'compact', 'case_id': 3, 'shape': '[5]'},
    {'tier': 'full', 'case_id': 4, 'shape': '[96, 8193]'},
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
