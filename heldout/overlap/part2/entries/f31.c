/*
 * out[b] = A[b]^T + C[b]
 *   A   : [B, M, N]   (strides sa_b, sa_m, sa_n)
 *   C   : [B, N, M]   (strides sc_b, sc_n, sc_m)
 *   out : [B, N, M]   (strides so_b, so_n, so_m)
 * Processed tile by tile (TILE_M x TILE_N) in grouped order, same as the
 * device kernel, so that profiling runs on the host see the same access
 * pattern.
 */
#include <stddef.h>

#define TILE_M 64
#define TILE_N 64
#define GROUP_M 8

static inline int cdiv(int a, int b) { return (a + b - 1) / b; }
static inline int imin(int a, int b) { return a < b ? a : b; }

static void tile_swizzle(int pid, int num_pid_m, int num_pid_n, int *pid_m, int *pid_n)
{
    int num_pid_in_group = GROUP_M * num_pid_n;
    int group_id = pid / num_pid_in_group;
    int first_pid_m = group_id * GROUP_M;
    int group_size_m = imin(num_pid_m - first_pid_m, GROUP_M);
    *pid_m = first_pid_m + (pid % group_size_m);
    *pid_n = (pid % num_pid_in_group) / group_size_m;
}

void batched_transpose_add_f32(const float *a, const float *c, float *out,
                               int batch, int M, int N,
                               ptrdiff_t sa_b, ptrdiff_t sa_m, ptrdiff_t sa_n,
                               ptrdiff_t sc_b, ptrdiff_t sc_n, ptrdiff_t sc_m,
                               ptrdiff_t so_b, ptrdiff_t so_n, ptrdiff_t so_m)
{
    float tile[TILE_M][TILE_N];
    float tileT[TILE_N][TILE_M];
    const int num_pid_m = cdiv(M, TILE_M);
    const int num_pid_n = cdiv(N, TILE_N);

    for (int bid = 0; bid < batch; ++bid) {
        for (int pid = 0; pid < num_pid_m * num_pid_n; ++pid) {
            int pid_m, pid_n;
            tile_swizzle(pid, num_pid_m, num_pid_n, &pid_m, &pid_n);
            const int m0 = pid_m * TILE_M, n0 = pid_n * TILE_N;

            /* load A tile, zero-filled outside the matrix */
            for (int i = 0; i < TILE_M; ++i)
                for (int j = 0; j < TILE_N; ++j) {
                    int rm = m0 + i, rn = n0 + j;
                    tile[i][j] = (rm < M && rn < N) ? a[bid * sa_b + rm * sa_m + rn * sa_n] : 0.0f;
                }

            /* tl.trans */
            for (int i = 0; i < TILE_M; ++i)
                for (int j = 0; j < TILE_N; ++j)
                    tileT[j][i] = tile[i][j];

            /* add C tile and store, masked to the [N, M] output */
            for (int j = 0; j < TILE_N; ++j) {
                int rn = n0 + j;
                if (rn >= N)
                    continue;
                for (int i = 0; i < TILE_M; ++i) {
                    int rm = m0 + i;
                    if (rm >= M)
                        continue;
                    float cv = c[bid * sc_b + rn * sc_n + rm * sc_m];
                    out[bid * so_b + rn * so_n + rm * so_m] = tileT[j][i] + cv;
                }
            }
        }
    }
}
