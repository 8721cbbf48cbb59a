"""NPUKernelBench task tril, imported by `repair import npukernelbench`.

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
    """The lower triangle of each matrix in the last two dimensions, from the given diagonal; zeros above it."""

    def __init__(self, diagonal=0):
        super().__init__()
        self.diagonal = diagonal

    def forward(self, x):
        return torch.tril(x, self.diagonal)


# -- validation/prepare_inputs.py ----------------------------------------------------------------

import torch


def _task_get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1, 1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    return [torch.randn(shape, device=device, dtype=dtype)]


def _task_get_init_inputs(param, device=None):
    return [int(param.get('diagonal', 0))]


# -- written by the import ------------------------------------------------------------------------

OPERATOR = {'id': 'tril', 'family': 'mask'}
TOLERANCE = {'atol': 0.001, 'rtol': 0.001}
COMPARE = {'promote': True}
CASES = [
    {'tier': 'compact', 'case_id': 0, 'shape': '[16, 16]', 'dtype': 'float32', 'diagonal': 0},
    {'tier': 'compact', 'case_id': 1, 'shape': '[8, 32]', 'dtype': 'float16', 'diagonal': 2},
    {'tier': 'full', 'case_id': 2, 'shape': '[100, 100]', 'dtype': 'float32', 'diagonal': 5},
    {'tier': 'full', 'case_id': 3, 'shape': '[2, 3, 64, 200]', 'dtype': 'float16', 'diagonal': -1},
    {'tier': 'full', 'case_id': 4, 'shape': '[3, 50, 17]', 'dtype': 'float32', 'diagonal': 0},
    {'tier': 'full', 'case_id': 5, 'shape': '[1000, 64]', 'dtype': 'float16', 'diagonal': 10},
    {'tier': 'full', 'case_id': 6, 'shape': '[5, 64, 64]', 'dtype': 'float32', 'diagonal': -8},
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
