import torch
import torch_npu
import torch.nn as nn


class Model(nn.Module):
    """y = input_data + value * x1 * x2, elementwise; value is an attribute."""

    def __init__(self, value=1.0):
        super().__init__()
        self.value = value

    def forward(self, input_data, x1, x2):
        return input_data + x1 * x2 * self.value


class ModelNew(nn.Module):
    def __init__(self, value=1.0):
        super().__init__()
        self.value = value

    def forward(self, input_data, x1, x2):
        import kernel_gen_ops
        return kernel_gen_ops.addcmul(input_data, x1, x2, self.value)
