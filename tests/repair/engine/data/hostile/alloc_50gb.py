"""Hostile fixture: asks for 50 GB in one allocation (and would touch every byte of it)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x, y):
        hoard = torch.ones(50 << 30, dtype=torch.uint8)
        return x + hoard[0]
