// Exact GELU as a CUDA kernel, ported from gelu_kernel.
#include <cuda_runtime.h>

__global__ void gelu_kernel(const float* inp, float* out, int numel) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < numel) {
        float v = inp[idx];
        float cdf = 0.5f * (1.0f + erff(v * 0.7071067811865476f));
        out[idx] = v * cdf;
    }
}
