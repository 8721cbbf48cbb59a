/*
 * Depthwise (groups == C) 1-D convolution, host implementation.
 *   x : [B, C, L_in], w : [C, K], bias : [C] or NULL, y : [B, C, L_out]
 * Same blocking as the GPU launch: one "program" per (batch*channel row,
 * BLOCK_L output positions), taps unrolled in the inner loop.
 */
#include <stddef.h>

#define BLOCK_L 256

static void dwconv1d_program(const float *x, const float *w, const float *bias, float *y,
                             int C, int L_in, int L_out, int stride, int padding, int dilation,
                             int ksize, int row, int pid_l)
{
    const int ch = row % C;
    const float *x_row = x + (size_t)row * L_in;
    float acc[BLOCK_L];

    for (int i = 0; i < BLOCK_L; ++i)
        acc[i] = 0.0f;

    for (int k = 0; k < ksize; ++k) {
        const float wk = w[ch * ksize + k];
        for (int i = 0; i < BLOCK_L; ++i) {
            int offs = pid_l * BLOCK_L + i;
            int pos = offs * stride - padding + k * dilation;
            int valid = offs < L_out && pos >= 0 && pos < L_in;
            float xv = valid ? x_row[pos] : 0.0f;
            acc[i] += xv * wk;
        }
    }

    if (bias) {
        const float bv = bias[ch];
        for (int i = 0; i < BLOCK_L; ++i)
            acc[i] += bv;
    }

    for (int i = 0; i < BLOCK_L; ++i) {
        int offs = pid_l * BLOCK_L + i;
        if (offs < L_out)
            y[(size_t)row * L_out + offs] = acc[i];
    }
}

int dwconv1d_out_len(int L, int K, int stride, int padding, int dilation)
{
    return (L + 2 * padding - dilation * (K - 1) - 1) / stride + 1;
}

void depthwise_conv1d(const float *x, const float *w, const float *bias, float *y,
                      int B, int C, int L_in, int K, int stride, int padding, int dilation)
{
    const int L_out = dwconv1d_out_len(L_in, K, stride, padding, dilation);
    const int n_lblk = (L_out + BLOCK_L - 1) / BLOCK_L;
    for (int row = 0; row < B * C; ++row)
        for (int pid_l = 0; pid_l < n_lblk; ++pid_l)
            dwconv1d_program(x, w, bias, y, C, L_in, L_out, stride, padding, dilation, K,
                             row, pid_l);
}
