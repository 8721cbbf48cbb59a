import torch
import torch_npu
import torch.nn as nn


class Model(nn.Module):
    """FastGelu, computed in float32: x * exp(0.851 * (x - |x|)) / (1 + exp(-1.702 * |x|))."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        xf = x.float()
        ax = torch.abs(xf)
        y = xf * torch.exp(0.851 * (xf - ax)) / (1.0 + torch.exp(-1.702 * ax))
        return y.to(x.dtype)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        import kernel_gen_ops
        return kernel_gen_ops.fast_gelu(x)
