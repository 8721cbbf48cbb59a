import torch
import torch_npu
import torch.nn as nn


class Model(nn.Module):
    """RMSNorm over the last dimension, computed in float32: x * rsqrt(mean(x^2) + epsilon) * gamma."""

    def __init__(self, epsilon=1e-6):
        super().__init__()
        self.epsilon = epsilon

    def forward(self, x, gamma):
        xf = x.float()
        rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + self.epsilon)
        return (xf * rstd * gamma.float()).to(x.dtype)


class ModelNew(nn.Module):
    def __init__(self, epsilon=1e-6):
        super().__init__()
        self.epsilon = epsilon

    def forward(self, x, gamma):
        import kernel_gen_ops
        return kernel_gen_ops.rms_norm(x, gamma, self.epsilon)
