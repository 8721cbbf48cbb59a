"""Hostile fixture: a fork bomb (every process forks again and again).

Bounded at 2**6 processes, in case a sandbox lets forks through: a real one loops forever.
"""
import os
import time

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x, y):
        for _ in range(6):
            os.fork()
        time.sleep(60)
        return x
