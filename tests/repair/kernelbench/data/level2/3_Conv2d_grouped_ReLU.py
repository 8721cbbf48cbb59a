import torch
import torch.nn as nn

class Model(nn.Module):
    """
    A grouped 2D convolution, then ReLU.
    """
    def __init__(self, in_channels, out_channels, kernel_size, groups):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, groups=groups, bias=False)

    def forward(self, x):
        return torch.relu(self.conv(x))

batch_size = 64
in_channels = 64
out_channels = 64
kernel_size = 3
groups = 4
height, width = 256, 512

def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]

def get_init_inputs():
    return [in_channels, out_channels, kernel_size, groups]
