import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x + 1

batch_size = 4096
dim = 65536

def get_inputs():
    return [torch.randn(batch_size, dim).cuda()]

def get_init_inputs():
    return []
