import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    """y = x + b, b of shape [cols] broadcast over every row of x."""

    def __init__(self):
        super().__init__()

    def forward(self, x, b):
        return x + b


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x, b):
        import kernel_gen_ops
        return kernel_gen_ops.bias_add_custom(x, b)
