"""NPUKernelBench task layer_norm, imported by `repair import npukernelbench`.

Reference: validation/module.py's Model without its NPU-only imports. Inputs: validation/prepare_inputs.py
(its get_inputs/get_init_inputs renamed _task_*, called with the case's test_cases.csv row). CASES: every row of
validation/test_cases.csv; the compact tier is the 2 smallest.
TOLERANCE: custom_check_precision in prepare_inputs.py (per dtype: the case's `dtype`, as the check reads it).
COMPARE: NPUKernelBench's check computes `out - out_new`, so an output of another dtype compares in the promoted
one, and one of another shape holding the same elements (`[1]` for a scalar) too.
"""
# -- validation/module.py ------------------------------------------------------------------------

import torch
import torch.nn as nn


class Model(nn.Module):
    """Layer norm over the last dimension with an elementwise affine (gamma, beta)."""

    def __init__(self, eps: float):
        super().__init__()
        self.eps = eps

    def forward(self, x, gamma, beta):
        return torch.nn.functional.layer_norm(x, x.shape[-1:], gamma, beta, self.eps)


# -- validation/prepare_inputs.py ----------------------------------------------------------------

import torch


def _task_get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1, 1]'))
    x = torch.randn(shape, device=device, dtype=torch.float32)
    gamma = torch.rand(shape[-1:], device=device, dtype=torch.float32) + 0.5
    beta = torch.randn(shape[-1:], device=device, dtype=torch.float32)
    return (x, gamma, beta)


def _task_get_init_inputs(param, device=None):
    return [float(param.get('eps', 1e-5))]


def custom_check_precision(param, outputs, outputs_new):
    dtype = getattr(torch, param.get('dtype', 'float32'))
    if dtype == torch.float16:
        RTOL_GENERAL = 1 / 512
    elif dtype == torch.bfloat16:
        RTOL_GENERAL = 1 / 256
    elif dtype == torch.float32:
        RTOL_GENERAL = 1 / 2048 + 1 / 16384
    outputs = outputs if isinstance(outputs, list) else [outputs]
    outputs_new = outputs_new if isinstance(outputs_new, list) else [outputs_new]
    is_pass, abs_diffs, rel_diffs = 1, [], []
    for out, out_new in zip(outputs, outputs_new):
        abs_diff = torch.abs(out - out_new)
        abs_diffs.append(abs_diff.view(-1))
        rel_diffs.append((abs_diff / (torch.abs(out) + 1e-7)).view(-1))
        if torch.any(abs_diff > RTOL_GENERAL * torch.clamp(torch.abs(out), min=1.0)):
            is_pass = 0
    return is_pass, torch.cat(abs_diffs), torch.cat(rel_diffs)


# -- written by the import ------------------------------------------------------------------------

OPERATOR = {'id': 'layer_norm', 'family': 'normalization'}
TOLERANCE = {'bfloat16': {'atol': 0.00390625, 'rtol': 0.00390625},
 'float16': {'atol': 0.001953125, 'rtol': 0.001953125},
 'float32': {'atol': 0.00054931640625, 'rtol': 0.00054931640625}}
TOLERANCE_KEY = 'dtype'
COMPARE = {'promote': True}
CASES = [
    {'tier': 'compact', 'case_id': 0, 'shape': '[4, 64]', 'dtype': 'float32', 'eps': 1e-05},
    {'tier': 'compact', 'case_id': 1, 'shape': '[8, 100]', 'dtype': 'float32', 'eps': 1e-05},
    {'tier': 'full', 'case_id': 2, 'shape': '[3, 1000]', 'dtype': 'float32', 'eps': 1e-06},
    {'tier': 'full', 'case_id': 3, 'shape': '[2, 1025]', 'dtype': 'float32', 'eps': 1e-05},
    {'tier': 'full', 'case_id': 4, 'shape': '[128, 32, 768]', 'dtype': 'float32', 'eps': 1e-05},
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
