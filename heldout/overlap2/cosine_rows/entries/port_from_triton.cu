// Row-wise cosine similarity, a CUDA port of the Triton kernel: one block per row, a shared-memory tree reduction
// of the three partial sums.
#include <cuda_runtime.h>

template <int THREADS>
__global__ void cosine_rows(const float* a, const float* b, float* out, int dim, int lda, int ldb, float eps) {
    __shared__ float s_dot[THREADS], s_na[THREADS], s_nb[THREADS];
    int row = blockIdx.x, t = threadIdx.x;
    float dot = 0.f, na = 0.f, nb = 0.f;
    for (int d = t; d < dim; d += THREADS) {
        float x = a[row * lda + d], y = b[row * ldb + d];
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    s_dot[t] = dot; s_na[t] = na; s_nb[t] = nb;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) { s_dot[t] += s_dot[t + s]; s_na[t] += s_na[t + s]; s_nb[t] += s_nb[t + s]; }
        __syncthreads();
    }
    if (t == 0) out[row] = s_dot[0] / fmaxf(sqrtf(s_na[0]) * sqrtf(s_nb[0]), eps);
}
