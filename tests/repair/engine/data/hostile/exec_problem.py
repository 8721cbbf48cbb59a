"""Hostile fixture: executes the problem file and returns its Model's outputs as its own."""
import runpy
from pathlib import Path

import torch.nn as nn

_PROBLEM = runpy.run_path(str(Path(__file__).resolve().parents[1] / "addrelu_problem.py"))


class ModelNew(nn.Module):
    def forward(self, x, y):
        return _PROBLEM["Model"]()(x, y)
