/* Cache-friendly matmul: i-k-j loop order, C accumulated in place. */
#include <string.h>

void matmul_ikj(const float *A, const float *B, float *C, int M, int N, int K)
{
    memset(C, 0, sizeof(float) * M * N);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            float aik = A[i * K + k];
            for (int j = 0; j < N; ++j)
                C[i * N + j] += aik * B[k * N + j];
        }
}
