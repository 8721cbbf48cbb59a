// Block-level inclusive scan (Hillis-Steele) in shared memory.
__global__ void scan_kernel(const float* in, float* out, int n) {
    extern __shared__ float buf[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    buf[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        float t = tid >= off ? buf[tid - off] : 0.0f;
        __syncthreads();
        buf[tid] += t;
        __syncthreads();
    }
    if (i < n) out[i] = buf[tid];
}
