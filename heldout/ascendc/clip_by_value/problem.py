"""NPUKernelBench task clip_by_value, imported by `repair import npukernelbench`.

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
    """Each element clamped into [clip_value_min, clip_value_max], both given as 0-dimensional tensors."""

    def __init__(self):
        super().__init__()

    def forward(self, x, clip_value_min, clip_value_max):
        return torch.clamp(x, min=clip_value_min, max=clip_value_max)


# -- validation/prepare_inputs.py ----------------------------------------------------------------

import torch


def _task_get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    x = torch.randn(shape, device=device, dtype=torch.float32) * 2
    lo = torch.tensor(float(param.get('lo', -1.0)), device=device, dtype=dtype)
    hi = torch.tensor(float(param.get('hi', 1.0)), device=device, dtype=dtype)
    return [x.to(dtype), lo, hi]


def _task_get_init_inputs(param, device=None):
    return []


# -- written by the import ------------------------------------------------------------------------

OPERATOR = {'id': 'clip_by_value', 'family': 'math'}
TOLERANCE = {'atol': 0.001, 'rtol': 0.001}
COMPARE = {'promote': True}
CASES = [
    {'tier': 'compact', 'case_id': 0, 'shape': '[16, 64]', 'dtype': 'float32', 'lo': -0.5, 'hi': 0.75},
    {'tier': 'compact', 'case_id': 1, 'shape': '[8, 128]', 'dtype': 'float16', 'lo': -1.0, 'hi': 0.5},
    {'tier': 'full', 'case_id': 2, 'shape': '[3, 1000]', 'dtype': 'float16', 'lo': -0.25, 'hi': 1.25},
    {'tier': 'full', 'case_id': 3, 'shape': '[64, 8192]', 'dtype': 'float32', 'lo': -1.5, 'hi': 1.5},
    {'tier': 'full', 'case_id': 4, 'shape': '[7, 333]', 'dtype': 'float32', 'lo': -0.5, 'hi': 0.5},
    {'tier': 'full', 'case_id': 5, 'shape': '[1024, 2048]', 'dtype': 'float16', 'lo': -2.0, 'hi': 0.0},
    {'tier': 'full', 'case_id': 6, 'shape': '[37, 41]', 'dtype': 'float16', 'lo': -0.125, 'hi': 0.125},
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
