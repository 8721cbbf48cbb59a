import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Softmax over the feature dimension of a (batch, features) tensor.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)

batch_size = 4096
dim = 262144

def get_inputs():
    x = torch.randn(batch_size, dim) * 4
    return [x]

def get_init_inputs():
    return []
