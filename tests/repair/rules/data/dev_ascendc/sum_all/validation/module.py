import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    """The sum of every element of x, as a one-element tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x).reshape(1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        import kernel_gen_ops
        return kernel_gen_ops.sum_all_custom(x)
