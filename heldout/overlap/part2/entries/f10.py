import torch
import triton
import triton.language as tl


@triton.jit
def row_l2norm_kernel(
    x_ptr, y_ptr, n_cols, stride_x, stride_y, eps,
    BLOCK: tl.constexpr,
):
    """y[r, :] = x[r, :] / max(||x[r, :]||_2, eps)."""
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y

    # pass 1: sum of squares
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += v * v
    inv_norm = 1.0 / tl.maximum(tl.sqrt(tl.sum(acc, axis=0)), eps)

    # pass 2: rescale
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        v = tl.load(x_row + cols, mask=m, other=0.0)
        tl.store(y_row + cols, (v.to(tl.float32) * inv_norm).to(y_ptr.dtype.element_ty), mask=m)


def l2_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    orig_shape = x.shape
    x2 = x.reshape(-1, orig_shape[-1])
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    n_rows, n_cols = x2.shape
    y = torch.empty_like(x2)
    BLOCK = min(4096, triton.next_power_of_2(n_cols))
    num_warps = 8 if BLOCK >= 2048 else 4
    row_l2norm_kernel[(n_rows,)](
        x2, y, n_cols, x2.stride(0), y.stride(0), eps,
        BLOCK=BLOCK, num_warps=num_warps,
    )
    return y.view(orig_shape)


class ModelNew(torch.nn.Module):
    def __init__(self, eps: float = 1e-12):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return l2_normalize(x, self.eps)
