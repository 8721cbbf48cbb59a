import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_rows(X, Y, M, N, sxm, sym, ROWS: tl.constexpr, COLS: tl.constexpr):
    pid = tl.program_id(axis=0)
    rm = pid * ROWS + tl.arange(0, ROWS)
    rn = tl.arange(0, COLS)
    msk = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + rm[:, None] * sxm + rn[None, :], mask=msk, other=-float("inf"))
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    den = tl.sum(num, axis=1)[:, None]
    tl.store(Y + rm[:, None] * sym + rn[None, :], num / den, mask=msk)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        ROWS = 4
        softmax_rows[(triton.cdiv(M, ROWS),)](x, y, M, N, x.stride(0), y.stride(0), ROWS=ROWS,
                                              COLS=triton.next_power_of_2(N))
        return y
