import torch
import triton
import triton.language as tl


@triton.jit
def _layernorm_fwd_welford(X, W, B, Y, Mean, Rstd, stride, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride

    # chunked Welford so very wide rows don't need a second read for the variance
    count = tl.zeros([BLOCK_N], dtype=tl.float32)
    mean = tl.zeros([BLOCK_N], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        valid = cols < N
        x = tl.load(X + cols, mask=valid, other=0.0).to(tl.float32)
        new_count = count + valid.to(tl.float32)
        delta = x - mean
        mean = tl.where(valid, mean + delta / tl.maximum(new_count, 1.0), mean)
        m2 = tl.where(valid, m2 + delta * (x - mean), m2)
        count = new_count

    # merge the per-lane partial statistics
    tot = tl.sum(count, axis=0)
    mu = tl.sum(mean * count, axis=0) / tot
    var = (tl.sum(m2, axis=0) + tl.sum(count * (mean - mu) * (mean - mu), axis=0)) / tot
    rstd = 1.0 / tl.sqrt(var + eps)
    tl.store(Mean + row, mu)
    tl.store(Rstd + row, rstd)

    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        valid = cols < N
        x = tl.load(X + cols, mask=valid, other=0.0).to(tl.float32)
        w = tl.load(W + cols, mask=valid, other=1.0)
        b = tl.load(B + cols, mask=valid, other=0.0)
        tl.store(Y + cols, ((x - mu) * rstd * w + b).to(Y.dtype.element_ty), mask=valid)


def layer_norm(x, weight, bias, eps=1e-5):
    shape = x.shape
    x2 = x.reshape(-1, shape[-1]).contiguous()
    M, N = x2.shape
    y = torch.empty_like(x2)
    mean = torch.empty(M, device=x.device, dtype=torch.float32)
    rstd = torch.empty(M, device=x.device, dtype=torch.float32)
    BLOCK_N = min(1024, triton.next_power_of_2(N))
    _layernorm_fwd_welford[(M,)](x2, weight, bias, y, mean, rstd, x2.stride(0), N, eps,
                                 BLOCK_N=BLOCK_N, num_warps=4)
    return y.view(shape), mean, rstd


class ModelNew(torch.nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim))
        self.bias = torch.nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def forward(self, x):
        return layer_norm(x, self.weight, self.bias, self.eps)[0]
