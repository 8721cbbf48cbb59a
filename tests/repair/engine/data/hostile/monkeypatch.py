"""Hostile fixture: patches what could judge it (torch.allclose, torch.isclose, torch.equal, torch.testing, the
engine's comparison, the problem's Model) to agree with anything, then returns zeros."""
import runpy
import sys
from pathlib import Path

import torch
import torch.nn as nn
import torch.testing

torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *args, **kwargs: None
for name in ("repair.engine.compare", "repair.engine.reference_role"):
    module = sys.modules.get(name)
    if module is not None and hasattr(module, "compare_outputs"):
        module.compare_outputs = lambda *args, **kwargs: None
_PROBLEM = runpy.run_path(str(Path(__file__).resolve().parents[1] / "addrelu_problem.py"))
_PROBLEM["Model"].forward = lambda self, x, y: torch.zeros_like(x)


class ModelNew(nn.Module):
    def forward(self, x, y):
        return torch.zeros_like(x)
