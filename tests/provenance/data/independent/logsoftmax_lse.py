"""log_softmax with a single online logsumexp pass (scalar running max and sum), then the write pass."""
import triton
import triton.language as tl


@triton.jit
def lse_log_softmax_kernel(src, dst, ncol, src_stride, dst_stride, CHUNK: tl.constexpr):
    rid = tl.program_id(0)
    run_max = -float("inf")
    run_sum = 0.0
    for c in range(0, ncol, CHUNK):
        idx = c + tl.arange(0, CHUNK)
        v = tl.load(src + rid * src_stride + idx, mask=idx < ncol, other=-float("inf"))
        new_max = tl.maximum(run_max, tl.max(v, axis=0))
        run_sum = run_sum * tl.exp(run_max - new_max) + tl.sum(tl.exp(v - new_max), axis=0)
        run_max = new_max
    lse = run_max + tl.log(run_sum)
    for c in range(0, ncol, CHUNK):
        idx = c + tl.arange(0, CHUNK)
        v = tl.load(src + rid * src_stride + idx, mask=idx < ncol)
        tl.store(dst + rid * dst_stride + idx, v - lse, mask=idx < ncol)
