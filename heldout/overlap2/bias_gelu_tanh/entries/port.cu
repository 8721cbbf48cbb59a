// CUDA port of the bias + tanh-GELU Triton kernel: one thread per element of a 2-D grid of 32x8 blocks.
#include <cuda_runtime.h>

__device__ __forceinline__ float stable_tanh(float v) {
    float e = __expf(-2.0f * fabsf(v));
    float t = (1.0f - e) / (1.0f + e);
    return v >= 0.0f ? t : -t;
}

__global__ void bias_gelu_tanh(const float* __restrict__ x, const float* __restrict__ b, float* __restrict__ y,
                               int M, int N, int ld) {
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    int m = blockIdx.y * blockDim.y + threadIdx.y;
    if (m < M && n < N) {
        float h = x[m * ld + n] + b[n];
        float inner = 0.7978845608028654f * (h + 0.044715f * h * h * h);
        y[m * ld + n] = 0.5f * h * (1.0f + stable_tanh(inner));
    }
}

void launch_bias_gelu_tanh(const float* x, const float* b, float* y, int M, int N, int ld, cudaStream_t s) {
    dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
    bias_gelu_tanh<<<grid, block, 0, s>>>(x, b, y, M, N, ld);
}
