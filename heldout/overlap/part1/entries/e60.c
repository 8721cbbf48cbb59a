/*
 * sparse_util.c -- small CSR toolkit used by the graph sampler.
 *
 * Conventions: int32 indices, float32 values, row-major dense matrices,
 * CSR arrays (indptr[n_rows + 1], indices[nnz], data[nnz]).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t n_rows;
    int32_t n_cols;
    int32_t nnz;
    int32_t *indptr;
    int32_t *indices;
    float *data;
} csr_t;

void csr_free(csr_t *m)
{
    free(m->indptr);
    free(m->indices);
    free(m->data);
    memset(m, 0, sizeof(*m));
}

/* exclusive prefix sum; returns the total */
int32_t exclusive_scan_i32(const int32_t *in, int32_t *out, int32_t n)
{
    int32_t run = 0;
    for (int32_t i = 0; i < n; ++i) {
        int32_t v = in[i];
        out[i] = run;
        run += v;
    }
    return run;
}

/* Build CSR from COO (rows need not be sorted). Returns 0 on success. */
int csr_from_coo(const int32_t *row, const int32_t *col, const float *val,
                 int32_t nnz, int32_t n_rows, int32_t n_cols, csr_t *out)
{
    out->n_rows = n_rows;
    out->n_cols = n_cols;
    out->nnz = nnz;
    out->indptr = (int32_t *)calloc((size_t)n_rows + 1, sizeof(int32_t));
    out->indices = (int32_t *)malloc(sizeof(int32_t) * (size_t)nnz);
    out->data = (float *)malloc(sizeof(float) * (size_t)nnz);
    int32_t *cursor = (int32_t *)malloc(sizeof(int32_t) * (size_t)n_rows);
    if (!out->indptr || !out->indices || !out->data || !cursor) {
        free(cursor);
        csr_free(out);
        return -1;
    }
    for (int32_t i = 0; i < nnz; ++i)
        out->indptr[row[i] + 1]++;
    for (int32_t r = 0; r < n_rows; ++r)
        out->indptr[r + 1] += out->indptr[r];
    memcpy(cursor, out->indptr, sizeof(int32_t) * (size_t)n_rows);
    for (int32_t i = 0; i < nnz; ++i) {
        int32_t p = cursor[row[i]]++;
        out->indices[p] = col[i];
        out->data[p] = val[i];
    }
    free(cursor);
    return 0;
}

/* y = A x */
void csr_spmv(const csr_t *A, const float *x, float *y)
{
    for (int32_t r = 0; r < A->n_rows; ++r) {
        float acc = 0.0f;
        for (int32_t p = A->indptr[r]; p < A->indptr[r + 1]; ++p)
            acc += A->data[p] * x[A->indices[p]];
        y[r] = acc;
    }
}

/* Y = A X, X: [n_cols, k], Y: [n_rows, k] */
void csr_spmm(const csr_t *A, const float *X, int32_t k, float *Y)
{
    for (int32_t r = 0; r < A->n_rows; ++r) {
        float *yr = Y + (size_t)r * k;
        memset(yr, 0, sizeof(float) * (size_t)k);
        for (int32_t p = A->indptr[r]; p < A->indptr[r + 1]; ++p) {
            const float *xr = X + (size_t)A->indices[p] * k;
            float a = A->data[p];
            for (int32_t j = 0; j < k; ++j)
                yr[j] += a * xr[j];
        }
    }
}

/* pool node features into per-graph features; graph g owns rows
 * [graph_ptr[g], graph_ptr[g + 1]) of feat */
void pool_sum_by_graph(const float *feat, const int32_t *graph_ptr,
                       float *pooled, int n_graphs, int dim)
{
    for (int g = 0; g < n_graphs; ++g) {
        float *dst = pooled + (size_t)g * dim;
        memset(dst, 0, sizeof(float) * (size_t)dim);

        int32_t beg = graph_ptr[g];
        int32_t end = graph_ptr[g + 1];
        for (int32_t r = beg; r < end; ++r) {
            const float *src = feat + (size_t)r * dim;
            for (int d = 0; d < dim; ++d)
                dst[d] += src[d];
        }
    }
}

/* row degrees and symmetric normalization factor 1/sqrt(deg) */
void csr_degree_norm(const csr_t *A, float *deg_inv_sqrt)
{
    for (int32_t r = 0; r < A->n_rows; ++r) {
        int32_t deg = A->indptr[r + 1] - A->indptr[r];
        deg_inv_sqrt[r] = deg > 0 ? 1.0f / __builtin_sqrtf((float)deg) : 0.0f;
    }
}

/* uniform neighbour sampling: at most `fanout` neighbours per seed row */
int32_t sample_neighbors(const csr_t *A, const int32_t *seeds, int32_t n_seeds,
                         int32_t fanout, uint64_t *rng_state,
                         int32_t *out_src, int32_t *out_dst)
{
    int32_t n_out = 0;
    for (int32_t s = 0; s < n_seeds; ++s) {
        int32_t r = seeds[s];
        int32_t beg = A->indptr[r], deg = A->indptr[r + 1] - beg;
        int32_t take = deg < fanout ? deg : fanout;
        for (int32_t t = 0; t < take; ++t) {
            int32_t pick;
            if (deg <= fanout) {
                pick = t;
            } else {
                *rng_state ^= *rng_state << 13;
                *rng_state ^= *rng_state >> 7;
                *rng_state ^= *rng_state << 17;
                pick = (int32_t)(*rng_state % (uint64_t)deg);
            }
            out_src[n_out] = A->indices[beg + pick];
            out_dst[n_out] = r;
            ++n_out;
        }
    }
    return n_out;
}
