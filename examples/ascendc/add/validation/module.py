import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    """z = x + y, elementwise."""

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x + y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x, y):
        import kernel_gen_ops
        return kernel_gen_ops.add_custom(x, y)
