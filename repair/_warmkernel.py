"""A tiny Triton kernel launched ahead of any candidate: by the fork server under the interpreter, so that
triton's lazy first-launch imports are paid before forking rather than in every candidate process; on a
GPU by each spare process (repair.backends.Cuda.prepare_spare), which creates its device context."""
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask, other=0.0), mask=mask)


def launch_once(device: str = "cpu") -> None:
    import torch

    src = torch.arange(8, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    _copy_kernel[(1,)](src, dst, 8, BLOCK=8)
    if device != "cpu":
        dst.cpu()  # waits for the kernel
