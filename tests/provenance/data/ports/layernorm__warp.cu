// LayerNorm port with one warp per row and shuffle reductions.
__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, off);
    return v;
}

__global__ void layernorm_fwd(const float* X, float* Y, const float* W, const float* B, int N, int stride, float eps) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    const float* x = X + row * stride;
    float* y = Y + row * stride;
    float s = 0.f;
    for (int c = lane; c < N; c += 32) s += x[c];
    float mean = warp_sum(s) / N;
    float v = 0.f;
    for (int c = lane; c < N; c += 32) {
        float d = x[c] - mean;
        v += d * d;
    }
    float var = warp_sum(v) / N;
    float rstd = rsqrtf(var + eps);
    for (int c = lane; c < N; c += 32)
        y[c] = (x[c] - mean) * rstd * W[c] + B[c];
}
