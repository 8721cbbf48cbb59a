"""NPUKernelBench task rms_norm, imported by `repair import npukernelbench`.

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
    """RMSNorm over the last dimension, computed in float32: x * rsqrt(mean(x^2) + epsilon) * gamma."""

    def __init__(self, epsilon=1e-6):
        super().__init__()
        self.epsilon = epsilon

    def forward(self, x, gamma):
        xf = x.float()
        rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + self.epsilon)
        return (xf * rstd * gamma.float()).to(x.dtype)


# -- validation/prepare_inputs.py ----------------------------------------------------------------

import torch


def _task_get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    x = torch.randn(shape, device=device, dtype=torch.float32) * 3
    gamma = torch.rand(shape[-1:], device=device, dtype=torch.float32) + 0.5
    return [x.to(dtype), gamma.to(dtype)]


def _task_get_init_inputs(param, device=None):
    return [float(param.get('epsilon', 1e-6))]


# -- written by the import ------------------------------------------------------------------------

OPERATOR = {'id': 'rms_norm', 'family': 'norm'}
TOLERANCE = {'atol': 0.001, 'rtol': 0.001}
COMPARE = {'promote': True}
CASES = [
    {'tier': 'compact', 'case_id': 0, 'shape': '[8, 256]', 'dtype': 'float32', 'epsilon': 1e-06},
    {'tier': 'compact', 'case_id': 1, 'shape': '[1, 8192]', 'dtype': 'float16', 'epsilon': 1e-06},
    {'tier': 'full', 'case_id': 2, 'shape': '[100, 4096]', 'dtype': 'float32', 'epsilon': 1e-05},
    {'tier': 'full', 'case_id': 3, 'shape': '[3, 5, 1000]', 'dtype': 'float16', 'epsilon': 1e-06},
    {'tier': 'full', 'case_id': 4, 'shape': '[64, 8192]', 'dtype': 'float16', 'epsilon': 1e-06},
    {'tier': 'full', 'case_id': 5, 'shape': '[6, 7, 333]', 'dtype': 'float32', 'epsilon': 1e-06},
    {'tier': 'full', 'case_id': 6, 'shape': '[45, 2048]', 'dtype': 'float16', 'epsilon': 1e-05},
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
