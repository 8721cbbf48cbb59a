"""Row L2 normalisation: x / max(||x||, eps)."""
import triton
import triton.language as tl


@triton.jit
def l2norm_kernel(x_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < n_cols
    v = tl.load(x_ptr + r * stride + c, mask=m, other=0.0)
    norm = tl.sqrt(tl.sum(v * v, axis=0))
    tl.store(y_ptr + r * stride + c, v / tl.maximum(norm, eps), mask=m)
