import torch
import torch.nn as nn

class Model(nn.Module):
    """
    C = A @ B for A of shape (M, K) and B of shape (K, N).
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)

M = 1024 * 4
K = 2048 * 2
N = 8192

def get_inputs():
    A = torch.randn(M, K)
    B = torch.randn(K, N)
    return [A, B]

def get_init_inputs():
    return []
