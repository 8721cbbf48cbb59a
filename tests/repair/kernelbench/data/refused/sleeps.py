import time

import torch
import torch.nn as nn

time.sleep(600)

class Model(nn.Module):
    def forward(self, x):
        return x

size = 4096

def get_inputs():
    return [torch.randn(size)]
