"""Idioms every kernel shares: their fingerprints never count as overlap.

This is the seed list; overlap.OverlapIndex adds, per comparison, the fingerprints found in files of
several cohort operators and in a large share of the KB. Each idiom is written the common way; renamed
variants fingerprint the same, since identifiers are abstracted.
"""
from __future__ import annotations

from functools import lru_cache

PYTHON_IDIOMS = [
    # 1-D launch: program id, offsets, bounds mask, masked load/store
    '''
pid = tl.program_id(0)
offs = pid * BLOCK + tl.arange(0, BLOCK)
mask = offs < n
x = tl.load(x_ptr + offs, mask=mask)
tl.store(y_ptr + offs, x, mask=mask)
''',
    '''
pid = tl.program_id(axis=0)
block_start = pid * BLOCK_SIZE
offsets = block_start + tl.arange(0, BLOCK_SIZE)
mask = offsets < n_elements
x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
tl.store(output_ptr + offsets, x, mask=mask)
''',
    # row-wise launch
    '''
row = tl.program_id(0)
offs = tl.arange(0, BLOCK)
mask = offs < n_cols
x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0)
tl.store(out_ptr + row * stride + offs, x, mask=mask)
''',
    '''
row = tl.program_id(0)
cols = tl.arange(0, BLOCK)
for start in range(0, n_cols, BLOCK):
    cols = start + offs
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
''',
    # several rows per program: a 2-D block of ROWS x BLOCK
    '''
rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
cols = tl.arange(0, BLOCK)
mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
tl.store(out_ptr + rows[:, None] * stride + cols[None, :], x, mask=mask)
''',
    # tiled row reductions: the textbook running sum and running max over column tiles
    '''
row = tl.program_id(0)
offs = tl.arange(0, BLOCK)
acc = tl.zeros([BLOCK], tl.float32)
for start in range(0, n_cols, BLOCK):
    cols = start + offs
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    acc += x
total = tl.sum(acc, axis=0)
''',
    '''
row = tl.program_id(0)
offs = tl.arange(0, BLOCK)
acc = tl.full([BLOCK], -float("inf"), tl.float32)
for start in range(0, n_cols, BLOCK):
    cols = start + offs
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    acc = tl.maximum(acc, x)
top = tl.max(acc, axis=0)
''',
    # 2-D tile launch
    '''
pid_m = tl.program_id(0)
pid_n = tl.program_id(1)
offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
''',
    # host wrappers and the KernelBench scaffolding
    '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        n_rows, n_cols = x.shape
        BLOCK = triton.next_power_of_2(n_cols)
        grid = (triton.cdiv(n, BLOCK),)
        return out
''',
    '''
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        BLOCK = triton.next_power_of_2(n_cols)
        kernel[(n_rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=BLOCK)
        return out
''',
    '''
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
        return out
''',
    '''
class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
''',
]

CPP_IDIOMS = [
    '''
__global__ void kernel(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        y[idx] = x[idx];
    }
}
''',
    '''
void kernel(const float* x, float* y, int rows, int cols) {
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            y[i * cols + j] = x[i * cols + j];
        }
    }
}
''',
    '''
#include <math.h>
#include <stdlib.h>
#include <float.h>
''',
]


@lru_cache(maxsize=None)
def boilerplate_hashes(representation: str) -> frozenset[int]:
    """Every k-gram hash (not only the winnowed ones) of the seed idioms, current scheme and default k."""
    from provenance.fingerprint import PARAMS, kgram_hashes, token_stream
    from provenance.opstream import op_stream
    from provenance.parsing import normalize_language, parse

    k = PARAMS[representation][0]
    out: set[int] = set()
    for lang, idioms in (("python", PYTHON_IDIOMS), ("cpp", CPP_IDIOMS)):
        for code in idioms:
            root = parse(code, lang).root_node
            kinds = token_stream(root)[0] if representation == "tokens" else op_stream(root, normalize_language(lang))[0]
            out.update(int(h) for h in kgram_hashes(kinds, k))
    return frozenset(out)
