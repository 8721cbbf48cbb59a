/* Direct 2-D convolution, NCHW input, OIHW weights, arbitrary stride/padding/
 * dilation, groups = 1.  Meant as the correctness oracle for the im2col path. */
#include <stddef.h>

typedef struct {
    int stride_h, stride_w;
    int pad_h, pad_w;
    int dil_h, dil_w;
} conv2d_params_t;

static inline int conv_out_dim(int in, int k, int stride, int pad, int dil)
{
    return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

void conv2d_direct_nchw(const float *in, const float *weight, const float *bias,
                        float *out,
                        int N, int C, int H, int W,
                        int K, int R, int S,
                        const conv2d_params_t *p)
{
    const int OH = conv_out_dim(H, R, p->stride_h, p->pad_h, p->dil_h);
    const int OW = conv_out_dim(W, S, p->stride_w, p->pad_w, p->dil_w);

    for (int n = 0; n < N; ++n) {
        for (int k = 0; k < K; ++k) {
            float *o = out + ((size_t)n * K + k) * OH * OW;
            const float b = bias ? bias[k] : 0.0f;
            for (int oh = 0; oh < OH; ++oh) {
                for (int ow = 0; ow < OW; ++ow) {
                    float acc = b;
                    for (int c = 0; c < C; ++c) {
                        const float *ic = in + ((size_t)n * C + c) * H * W;
                        const float *wk = weight + ((size_t)k * C + c) * R * S;
                        for (int r = 0; r < R; ++r) {
                            int ih = oh * p->stride_h - p->pad_h + r * p->dil_h;
                            if (ih < 0 || ih >= H)
                                continue;
                            for (int s = 0; s < S; ++s) {
                                int iw = ow * p->stride_w - p->pad_w + s * p->dil_w;
                                if (iw < 0 || iw >= W)
                                    continue;
                                acc += ic[(size_t)ih * W + iw] * wk[r * S + s];
                            }
                        }
                    }
                    o[(size_t)oh * OW + ow] = acc;
                }
            }
        }
    }
}

void conv2d_output_shape(int H, int W, int R, int S, const conv2d_params_t *p, int *OH, int *OW)
{
    *OH = conv_out_dim(H, R, p->stride_h, p->pad_h, p->dil_h);
    *OW = conv_out_dim(W, S, p->stride_w, p->pad_w, p->dil_w);
}
