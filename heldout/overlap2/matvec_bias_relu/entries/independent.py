"""EmbeddingBag(mode='sum') with per-sample weights: out[b] = sum_i w_i * E[idx_i] over the bag's offsets."""
import torch
import triton
import triton.language as tl


@triton.jit
def embedding_bag_sum(emb_ptr, idx_ptr, psw_ptr, off_ptr, out_ptr, dim, stride_e, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)
    d = tl.arange(0, BLOCK_D)
    acc = tl.zeros([BLOCK_D], tl.float32)
    for i in range(start, end):
        row = tl.load(idx_ptr + i)
        w = tl.load(psw_ptr + i)
        acc += w * tl.load(emb_ptr + row * stride_e + d, mask=d < dim, other=0.0)
    tl.store(out_ptr + bag * dim + d, acc, mask=d < dim)


def bag_sum(table, indices, offsets, weights):
    bags = offsets.numel() - 1
    out = torch.empty(bags, table.shape[1], device=table.device)
    embedding_bag_sum[(bags,)](table, indices, weights, offsets, out, table.shape[1], table.stride(0),
                               BLOCK_D=triton.next_power_of_2(table.shape[1]))
    return out
