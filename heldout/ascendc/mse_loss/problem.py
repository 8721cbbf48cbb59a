"""NPUKernelBench task mse_loss, imported by `repair import npukernelbench`.

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
    """Mean squared error between predict and label: reduction 'mean', 'sum' or 'none'."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, predict, label):
        diff = (predict - label) * (predict - label)
        if self.reduction == "mean":
            return diff.mean()
        if self.reduction == "sum":
            return diff.sum()
        return diff


# -- validation/prepare_inputs.py ----------------------------------------------------------------

import torch


def _task_get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    predict = torch.rand(shape, device=device, dtype=dtype)
    label = torch.rand(shape, device=device, dtype=dtype)
    return [predict, label]


def _task_get_init_inputs(param, device=None):
    return [param.get('reduction', 'mean')]


# -- written by the import ------------------------------------------------------------------------

OPERATOR = {'id': 'mse_loss', 'family': 'loss'}
TOLERANCE = {'atol': 0.001, 'rtol': 0.001}
COMPARE = {'promote': True}
CASES = [
    {'tier': 'compact', 'case_id': 0, 'shape': '[48, 256]', 'dtype': 'float32', 'reduction': 'mean'},
    {'tier': 'compact', 'case_id': 1, 'shape': '[24, 512]', 'dtype': 'float32', 'reduction': 'sum'},
    {'tier': 'full', 'case_id': 2, 'shape': '[64, 8192]', 'dtype': 'float32', 'reduction': 'mean'},
    {'tier': 'full', 'case_id': 3, 'shape': '[3, 7, 4099]', 'dtype': 'float32', 'reduction': 'sum'},
    {'tier': 'full', 'case_id': 4, 'shape': '[48, 128, 512]', 'dtype': 'float32', 'reduction': 'none'},
    {'tier': 'full', 'case_id': 5, 'shape': '[100, 3000]', 'dtype': 'float32', 'reduction': 'mean'},
    {'tier': 'full', 'case_id': 6, 'shape': '[256, 4096]', 'dtype': 'float32', 'reduction': 'sum'},
    {'tier': 'full', 'case_id': 7, 'shape': '[50, 1001]', 'dtype': 'float32', 'reduction': 'none'},
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
