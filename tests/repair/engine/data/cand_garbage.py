"""Test fixture: writes garbage into every writable descriptor it has (its reply pipe included)."""
import os

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        for fd in os.listdir("/proc/self/fd"):
            try:
                os.write(int(fd), b"\xff" * 64)
            except OSError:
                pass
        return x
