// ambiguous: a port of rowwise_dot, whose op stream (LOAD LOAD MUL REDUCE_SUM STORE) is any dot product's (matmul's and the independent conv1d.c's too)
/* Row-wise dot product of two matrices. */
void row_dot(const float *x, const float *y, float *out, int n_rows, int n_cols,
             int x_row_stride, int y_row_stride)
{
    for (int row = 0; row < n_rows; ++row) {
        float acc = 0.0f;
        for (int col = 0; col < n_cols; ++col)
            acc += x[row * x_row_stride + col] * y[row * y_row_stride + col];
        out[row] = acc;
    }
}
