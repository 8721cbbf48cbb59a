"""Hostile fixture: enters a user namespace of its own (unshare(CLONE_NEWUSER)), where it would be root with every
capability, and a new network namespace; raises what it managed."""
import ctypes
import os

import torch.nn as nn

CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000


class ModelNew(nn.Module):
    def forward(self, x, y):
        libc = ctypes.CDLL(None, use_errno=True)
        done, refused = [], []
        for name, flags in (("unshare(CLONE_NEWUSER)", CLONE_NEWUSER), ("unshare(CLONE_NEWUSER|CLONE_NEWNET)",
                                                                        CLONE_NEWUSER | CLONE_NEWNET)):
            if libc.unshare(flags) == 0:
                done.append(name)
            else:
                refused.append(f"{name} ({os.strerror(ctypes.get_errno())})")
        raise RuntimeError(f"entered: {', '.join(done) or 'none'}; refused: {', '.join(refused)}")
