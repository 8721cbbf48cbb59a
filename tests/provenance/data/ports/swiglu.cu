// SwiGLU: out = silu(a) * b with a, b the halves of each row (CUDA port).
__global__ void swiglu_kernel(const float* ab, float* out, int n_rows, int half, int stride_ab, int stride_out) {
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= half) return;
    float a = ab[r * stride_ab + c];
    float b = ab[r * stride_ab + half + c];
    float gate = a * (1.0f / (1.0f + expf(-a)));
    out[r * stride_out + c] = gate * b;
}
