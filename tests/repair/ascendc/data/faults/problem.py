"""z = x + y, where each case tells the candidate (tests/repair/ascendc/data/faults/faulty_add.json) which fault to
make: 0 none, 1 a buffer past the UB used, 2 a DataCopy of a partial 32-byte block, 3 a DataCopyPad past z's allocation, 4 a raw store past it, 5 a DeQue of
an empty queue, 6 a loop that never ends, 7 none (the engine survived), 8 a segfault."""
import torch


class Model(torch.nn.Module):
    def __init__(self, mode):
        super().__init__()

    def forward(self, x, y):
        return x + y


def get_inputs(n=1000, mode=0):
    return [torch.randn(n), torch.randn(n)]


def get_init_inputs(n=1000, mode=0):
    return [mode]


OPERATOR = {"id": "faulty_add", "family": "elementwise"}
CASES = [{"tier": "compact", "mode": 0}] + [{"tier": "full", "mode": m, "n": 1001 if m == 2 else 1000} for m in range(1, 9)]
