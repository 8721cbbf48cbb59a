"""A tiny Triton kernel launched ahead of any candidate: by the fork server under the interpreter, so that
triton's lazy first-launch imports are paid before forking rather than in every candidate process; on a
GPU by each spare process (repair.engine.backends.Cuda.prepare_spare), which creates its device context."""
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):  # a loop with a runtime bound, as most reductions have
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(dst + offs, tl.load(src + offs, mask=mask, other=0.0), mask=mask)


def _broken_interpreter(e: Exception) -> str | None:
    """What is wrong when the interpreter itself fails on that loop (the kernel is correct), else None."""
    if "only 0-dimensional arrays can be converted" not in repr(e):
        return None
    import numpy

    # triton <= 3.6's interpreter turns a runtime loop bound into an int with int(1-element array), an
    # error since numpy 2.4 (later tritons squeeze first): every candidate with such a loop would "error"
    return (f"triton {triton.__version__}'s interpreter (TRITON_INTERPRET=1) cannot run a loop with a runtime "
            f"bound under numpy {numpy.__version__}: upgrade triton or install numpy<2.4")


def launch_once(device: str = "cpu") -> None:
    import torch

    src = torch.arange(8, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    try:
        _copy_kernel[(1,)](src, dst, 8, BLOCK=8)
    except Exception as e:
        if (why := _broken_interpreter(e)) is not None:
            from repair.errors import EnvironmentMissing

            raise EnvironmentMissing(why) from e
        raise
    if device != "cpu":
        dst.cpu()  # waits for the kernel
