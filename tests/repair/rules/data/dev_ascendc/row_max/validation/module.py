import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    """Max over the last dimension (the output drops it)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amax(x, dim=-1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        import kernel_gen_ops
        return kernel_gen_ops.row_max_custom(x)
