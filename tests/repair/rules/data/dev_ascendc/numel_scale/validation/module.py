import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    """y = x / numel(x) + 1, elementwise (the scale of a mean)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x / x.numel() + 1.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        import kernel_gen_ops
        return kernel_gen_ops.numel_scale_custom(x)
