import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    """y = alpha * x + 1, elementwise, alpha a float attribute."""

    def __init__(self, alpha=1.5):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return x * self.alpha + 1.0


class ModelNew(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        import kernel_gen_ops
        return kernel_gen_ops.scale_shift_custom(x, self.alpha)
