import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return x * 2

size = 4096

def get_inputs():
    raise RuntimeError("this problem's inputs come from a file that is not here")

def get_init_inputs():
    return []
