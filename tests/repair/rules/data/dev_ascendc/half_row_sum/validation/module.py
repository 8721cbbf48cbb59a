import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    """Sum over the last dimension of a half tensor (the output drops it)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=-1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        import kernel_gen_ops
        return kernel_gen_ops.half_row_sum_custom(x)
