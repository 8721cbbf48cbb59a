"""Hostile fixture: writes a 10 GiB file into its scratch directory, 16 MiB at a time."""
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x, y):
        chunk = bytes(16 << 20)
        with open("big.bin", "wb") as f:
            for _ in range(640):
                f.write(chunk)
        return x
