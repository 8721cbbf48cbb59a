import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu
import torch.nn as nn


class Model(nn.Module):
    """Layer norm over the last dimension with an elementwise affine (gamma, beta)."""

    def __init__(self, eps: float):
        super().__init__()
        self.eps = eps

    def forward(self, x, gamma, beta):
        return torch.nn.functional.layer_norm(x, x.shape[-1:], gamma, beta, self.eps)


class ModelNew(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x, gamma, beta):
        import kernel_gen_ops
        return kernel_gen_ops.layer_norm_custom(x, gamma, beta, self.eps)
