// Softmax port, one CUDA thread per row; the exponentials are recomputed in the last pass.
__global__ void softmax_row(const float* in, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* x = in + r * cols;
    float mx = x[0];
    for (int j = 1; j < cols; ++j) mx = max(mx, x[j]);
    float sum = 0.f;
    for (int j = 0; j < cols; ++j) sum += __expf(x[j] - mx);
    for (int j = 0; j < cols; ++j) out[r * cols + j] = __expf(x[j] - mx) / sum;
}
