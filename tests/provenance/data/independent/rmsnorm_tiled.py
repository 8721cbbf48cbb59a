"""RMSNorm for long rows: a tiled sum of squares, then a tiled scale; weight applied before the norm."""
import triton
import triton.language as tl


@triton.jit
def rms_tiled_kernel(X, G, Out, stride_x, ncols, eps, T: tl.constexpr):
    row = tl.program_id(0)
    ss = tl.zeros([T], dtype=tl.float32)
    for base in range(0, ncols, T):
        c = base + tl.arange(0, T)
        xv = tl.load(X + row * stride_x + c, mask=c < ncols, other=0.0).to(tl.float32)
        ss += xv * xv
    denom = tl.sqrt(tl.sum(ss, axis=0) / ncols + eps)
    for base in range(0, ncols, T):
        c = base + tl.arange(0, T)
        xv = tl.load(X + row * stride_x + c, mask=c < ncols, other=0.0).to(tl.float32)
        gv = tl.load(G + c, mask=c < ncols, other=0.0)
        tl.store(Out + row * stride_x + c, (gv * xv) / denom, mask=c < ncols)
