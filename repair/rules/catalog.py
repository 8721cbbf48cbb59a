"""The hand-written starter patterns: one per common near-miss bug class of LLM-written Triton kernels.

Each StarterPattern becomes one repair record (worker kind "hand") whose evidence comes from
evaluating its rules on a real near-miss (the example suite, else the rules' own development set in
tests/repair/rules/data/dev): see repair.rules.build_starter. The classes are the failure modes kernel
benchmarks report for LLM-written kernels: reduction identities and initial values, masks and loop
bounds that stop a block or an element short, fp16 accumulation and missing upcasts, unstable exp,
eps placement, biased vs unbiased variance, the online-softmax rescale, ignored constructor
parameters, swapped arguments, strides and row offsets. Each rule carries the symptoms its class
shows (the diagnosis labels of repair.engine.diagnose, or `layout` / `param` for failures only on
transposed inputs or non-default constructor arguments), which the rules worker ranks by.

ASCENDC_STARTER does the same for AscendC (language "ascendc", C++ rules in repair.rules.ascendc): the work
split, the tail, DataCopy alignment, the queue protocol, reduction identities, offsets and buffer sizes. Its
records are judged on ascendc-cpu and named ascendc-<bug class> (StarterPattern.key), beside the Triton ones.
"""
from __future__ import annotations

from dataclasses import dataclass

from ingest.rules.model import Rule, Signature
from repair.rules import (ascendc, ascendc_buffers, ascendc_reduce, ascendc_split, ascendc_sync, bounds, layout,
                          masking, numerics, params)

# symptom cues: diagnosis labels and locations (repair.engine.diagnose), `nan`, `layout`, `param`
TAIL = ("tail-localized", "tail-columns", "tail-rows", "last-block")
SCALED = ("scaled-output", "row-scaled-output", "offset-output")
WRONG = ("all-wrong", "partially-wrong", "everywhere", "scattered", "sparse-outliers", "sparse", "single-row",
         "row-localized")
NAN = ("nan-introduced", "nan")
DRIFT = ("uniform-drift",)


@dataclass(frozen=True)
class StarterPattern:
    bug_class: str
    title: str
    root_cause: str
    fix: str
    rules: tuple[Rule, ...]
    examples: tuple[str, ...]  # near-miss files or task directories (relative to the repository) the rules repair
    language: str = "triton"  # the record's language: triton, or ascendc (C++ rules over a candidate's sources)

    @property
    def key(self) -> str:
        """Unique across languages (a bug class may have a Triton and an AscendC pattern): the record's file stem."""
        return pattern_key(self.bug_class, self.language)


def pattern_key(bug_class: str, language: str) -> str:
    """The bug class, prefixed by its language unless Triton (StarterPattern.key, a record's file stem)."""
    return bug_class if language == "triton" else f"{language}-{bug_class}"


def _pattern(bug_class, title, root_cause, fix, rules, examples, symptoms, language="triton",
             explains=()) -> StarterPattern:
    """The pattern, each of its rules carrying the cues (symptoms) its class shows and the evaluations it explains."""
    extra = {"explains": [e.model_dump(exclude_defaults=True) for e in explains]} if explains else {}
    tagged = tuple(Rule.model_validate({**r.to_dict(), "symptoms": list(symptoms), **extra}) for r in rules)
    return StarterPattern(bug_class, title, root_cause, fix, tagged, tuple(examples), language)


DEV = "tests/repair/rules/data/dev"

STARTER: tuple[StarterPattern, ...] = (
    _pattern("mask-off-by-one", "Mask admits one lane too many or too few",
             "The boundary mask compares with <= (or against n + 1, n - 1, or offset + 1), so the lane at the end is "
             "read and written out of bounds, or the last element is dropped; a causal mask includes or excludes "
             "the diagonal by one comparison.",
             "Compare offsets with a strict < against the element count (offs < n), whatever the mask is called.",
             masking.mask_off_by_one(),
             ["examples/sum_lastdim/nearmiss_2.py", f"{DEV}/bias_add_rows/nearmiss_mask.py",
              f"{DEV}/block_sum/nearmiss_mask.py"], TAIL + SCALED + WRONG),
    _pattern("missing-mask", "A load or store whose block runs past the end has no mask",
             "tl.load/tl.store without mask= (or with other= but no mask, which pads nothing): the lanes of the last "
             "block past the row or tensor read the next row or whatever memory follows (a reduction or dot sums "
             "them), and write over the next row's start; a 2-D tile needs a bound on each of its indices. Common "
             "in LLM-written kernels (TritonBench; arXiv:2606.20128; arXiv:2605.19652) and review threads "
             "(unmasked tl.load/tl.store for arbitrary n_elements; triton-lang/triton#630).",
             "Mask every access whose pointer moves with the block: index < extent of the dimension it walks (the "
             "row length for a row's columns, numel for a flat index, (rows[:, None] < M) & (cols[None, :] < N) for "
             "a tile), and give a load other= the identity of the reduction it feeds (-inf for max, 0 for sum).",
             masking.missing_mask(),
             [f"{DEV}/mask_l2norm_rows/nearmiss_load.py", f"{DEV}/mask_l2norm_rows/nearmiss_load_other.py",
              f"{DEV}/mask_rowmax_chunks/nearmiss_load.py", f"{DEV}/mask_flip_rows/nearmiss_store.py",
              f"{DEV}/mask_flip_rows/nearmiss_both.py", f"{DEV}/mask_add_2d/nearmiss_store.py",
              f"{DEV}/mask_matmul_tiles/nearmiss_load2d.py",
              f"{DEV}/mask_rowmax_tiles/nearmiss_load2d.py", f"{DEV}/mask_rowmax_tiles/nearmiss_load2d_other.py"],
             TAIL + SCALED + WRONG + NAN),
    _pattern("mask-wrong-dim", "A mask compares an index with another dimension's extent",
             "The boundary mask bounds the column index by the row count (or a tile's row index by N and its "
             "column index by M): lanes past the real extent are read and written, or real ones dropped, whenever "
             "the two extents differ (arXiv:2606.20128; arXiv:2605.19652, boundary guards).",
             "Compare each index with the extent of the dimension it walks: the one its stride, its grid axis or "
             "its loop says (cols < n_cols, rows < n_rows).",
             masking.mask_wrong_dim(),
             [f"{DEV}/mask_scale_rows/nearmiss_wrongdim.py", f"{DEV}/mask_add_2d/nearmiss_wrongdim.py"],
             TAIL + WRONG + SCALED + NAN),
    _pattern("missing-other", "Masked load without the reduction's identity as other=",
             "Masked-off lanes read 0 (or garbage), which wins a max/min, or adds exp(0 - max) to a softmax "
             "denominator, on partial blocks; upcasting or scaling the loaded value does not change this.",
             "Give the masked load other= the identity of the reduction its value reaches: -inf for max and "
             "anything exponentiated, +inf for min, 0.0 for sum and dot, 1.0 for product.",
             masking.missing_other(),
             ["examples/max_lastdim/nearmiss_1.py", "examples/softmax/nearmiss_2.py",
              f"{DEV}/logsumexp_rows/nearmiss_other.py"], TAIL + SCALED + WRONG),
    _pattern("wrong-fill-value", "Masked lanes are filled with the wrong value for the reduction",
             "A masked load's other= or a tl.where fill is 0 where the value reaches a max or exp (it must be -inf), "
             "0 where it reaches a min (+inf), or -inf where it is summed (0).",
             "Fill masked lanes with the identity of the reduction they reach: -inf for max/softmax, +inf for min, "
             "0 for sum.",
             masking.wrong_fill(),
             [f"{DEV}/logsumexp_rows/nearmiss_fill.py", f"{DEV}/min_max_norm/nearmiss_fill.py"],
             TAIL + SCALED + WRONG),
    _pattern("unmasked-padding", "Padded lanes are not re-masked before a reduction",
             "Padding lanes hold 0 after the load, but a later step (x - mean, exp) makes them non-zero, and they are "
             "summed with the real elements: a variance or softmax denominator grows with the padding.",
             "Re-mask the derived value before reducing: tl.where(mask, x - mean, 0.0).",
             masking.unmasked_padding(), [f"{DEV}/layernorm_rows/nearmiss_pad.py"], SCALED + WRONG + DRIFT),
    _pattern("reduction-init", "Running max/min/product accumulator starts at 0",
             "The accumulator starts at 0 instead of the reduction's identity, so all-negative (max) or "
             "all-positive (min) rows report 0, and a running softmax max of 0 underflows far-negative rows.",
             "Initialise the accumulator with the identity: tl.full(shape, -inf/+inf/1, dtype), or -float('inf').",
             numerics.reduction_init(),
             ["examples/max_lastdim/nearmiss_2.py", f"{DEV}/online_softmax/nearmiss_init.py",
              f"{DEV}/min_max_norm/nearmiss_init.py"], WRONG + SCALED + NAN + ("zero-output",)),
    _pattern("grid-floor-div", "Launch grid rounds the program count down",
             "n // BLOCK programs (however the count is spelt or stored) leave the last partial block unprocessed.",
             "Launch triton.cdiv(n, BLOCK) programs (and mask the tail inside the kernel).",
             bounds.grid_floor_div(),
             ["examples/add_relu/nearmiss_1.py", "examples/min_lastdim/nearmiss_1.py",
              f"{DEV}/col_mean/nearmiss_grid.py", f"{DEV}/clamp_scale/nearmiss_grid.py"], TAIL + NAN),
    _pattern("loop-tail", "Chunk loop skips the partial last chunk",
             "The loop bound rounds down (n // BLOCK, n - BLOCK, n - BLOCK + 1, n - 1), directly or through a "
             "variable, so the tail chunk is never processed.",
             "Loop over range(0, n, BLOCK), or tl.cdiv(n, BLOCK) chunks, with a masked tail.",
             bounds.loop_tail(),
             ["examples/log_softmax/nearmiss_1.py", "examples/matmul/nearmiss_1.py",
              f"{DEV}/col_mean/nearmiss_loop.py", f"{DEV}/sum_half/nearmiss_ktail.py"], TAIL + NAN + SCALED + WRONG),
    _pattern("fp16-accumulation", "Accumulating in fp16",
             "An fp16/bf16 accumulator (or terms rounded to half precision before the add, or a dot with a half "
             "out_dtype) loses about three digits and overflows past 65504.",
             "Accumulate in tl.float32 and add the unrounded terms; cast once at the store if needed.",
             numerics.fp16_accumulation(),
             ["examples/rowwise_dot/nearmiss_1.py", f"{DEV}/sum_half/nearmiss_acc.py"], DRIFT + NAN + WRONG),
    _pattern("missing-upcast", "Half-precision input reduced without an fp32 upcast",
             "fp16/bf16 values are squared, summed, exponentiated or divided in half precision: digits are lost "
             "and squares overflow past 65504.",
             "Upcast at the load: tl.load(...).to(tl.float32); cast back at the store.",
             numerics.missing_upcast(), [f"{DEV}/rmsnorm_half/nearmiss_upcast.py"], DRIFT + NAN + WRONG),
    _pattern("missing-max-subtraction", "Softmax/log-sum-exp without subtracting the row max",
             "exp of large inputs overflows to inf, giving nan after the normalisation.",
             "Subtract the row max before exp (and add it back for log-sum-exp).",
             numerics.missing_max_subtraction(),
             ["examples/softmax/nearmiss_1.py", f"{DEV}/logsumexp_rows/nearmiss_maxsub.py"], NAN),
    _pattern("exp-overflow", "exp-based formula overflows (sigmoid, tanh, softplus, SiLU)",
             "exp(x) is inf for x > 88: e/(1+e), (e-1)/(e+1) and log(1+e) become inf/inf = nan or inf.",
             "Use the stable forms: tl.sigmoid(x); tanh = 1 - 2/(exp(2x)+1); softplus = max(x,0) + log(1+exp(-|x|)).",
             numerics.exp_overflow(),
             ["examples/sigmoid/nearmiss_1.py", f"{DEV}/gelu_tanh/nearmiss_tanh.py",
              f"{DEV}/softplus_beta/nearmiss_overflow.py"], NAN),
    _pattern("missing-online-rescale", "Online softmax does not rescale its running sum",
             "When a later block raises the running max, the running sum (and output accumulator) computed against "
             "the old max is not multiplied by exp(m_old - m_new).",
             "l = l * exp(m_old - m_new) + sum(exp(x - m_new)); acc = acc * alpha[:, None] + ...",
             numerics.online_rescale(), [f"{DEV}/online_softmax/nearmiss_rescale.py"], SCALED + WRONG),
    _pattern("eps-placement", "eps added in the wrong place",
             "eps is added to the standard deviation instead of the variance (or the reverse of what the reference "
             "does), or added to a norm the reference clamps: visible when the variance or norm is small.",
             "Put eps where the reference does: rsqrt(var + eps) for LayerNorm/RMSNorm/BatchNorm.",
             numerics.eps_placement(),
             [f"{DEV}/layernorm_rows/nearmiss_eps.py", f"{DEV}/rmsnorm_half/nearmiss_eps.py"],
             DRIFT + SCALED + WRONG + ("param",)),
    _pattern("variance-divisor", "Biased vs unbiased variance",
             "The variance divides by n - 1 where the reference is biased (LayerNorm, BatchNorm, unbiased=False), "
             "or by n where it is unbiased (torch.var/std default).",
             "Divide the sum of squared deviations by n for normalisation layers, by n - 1 for torch.var/std.",
             numerics.variance_divisor(),
             [f"{DEV}/layernorm_rows/nearmiss_unbiased.py", f"{DEV}/row_var/nearmiss_biased.py"],
             SCALED + DRIFT + WRONG),
    _pattern("wrong-divisor", "Mean divides by the wrong count",
             "The mean divides by the padded BLOCK, or by the size of another dimension, instead of the number of "
             "elements reduced.",
             "Divide by the element count the reduction's mask compares against on the reduced axis.",
             numerics.wrong_divisor(),
             ["examples/mean_lastdim/nearmiss_1.py", f"{DEV}/layernorm_rows/nearmiss_divblock.py",
              f"{DEV}/col_mean/nearmiss_div.py"], SCALED + WRONG),
    _pattern("one-pass-variance", "Variance as E[x^2] - E[x]^2",
             "The one-pass formula cancels catastrophically when the mean is large against the spread.",
             "Compute the mean first, then the mean of tl.where(mask, x - mean, 0) squared.",
             numerics.one_pass_variance(), [f"{DEV}/layernorm_rows/nearmiss_onepass.py"], DRIFT + WRONG + NAN),
    _pattern("wrong-stride", "Pointer offset uses the wrong stride",
             "A tile index is scaled by the other axis's stride, by a size (n_cols, BLOCK) where the tensor's stride "
             "belongs, or the kernel indexes an input as contiguous while the forward never makes it so.",
             "Scale each index by its own axis's stride (passed from x.stride(d)), or make the input contiguous.",
             layout.wrong_stride(),
             ["examples/matmul/nearmiss_2.py", "examples/sum_lastdim/nearmiss_1.py",
              f"{DEV}/scale_rows_2d/nearmiss_contig.py", f"{DEV}/scale_rows_2d/nearmiss_shape.py"],
             ("layout",) + WRONG + SCALED),
    _pattern("missing-offset", "A row or block offset is missing from the pointer",
             "One pointer leaves out the program's row offset (row * stride) or block offset (pid * BLOCK), so every "
             "program reads the first row or block.",
             "Add the program id times the row stride (or block size) to the offsets.",
             layout.missing_offset(),
             [f"{DEV}/bias_add_rows/nearmiss_rowoff.py", f"{DEV}/block_sum/nearmiss_blockoff.py"], WRONG + SCALED),
    _pattern("ignored-parameter", "A constructor parameter is ignored",
             "The kernel or the launch hard-codes the default of a constructor parameter (eps, slope, beta, scale) "
             "instead of using it: right only for models built with the default.",
             "Pass the constructor's value (self.<param>) to the kernel and use it there.",
             params.ignored_parameter(),
             ["examples/batchnorm_inference/nearmiss_1.py", "examples/leaky_relu/nearmiss_1.py",
              f"{DEV}/softplus_beta/nearmiss_beta.py", f"{DEV}/clamp_scale/nearmiss_scale.py",
              f"{DEV}/layernorm_rows/nearmiss_epsconst.py"], ("param",) + WRONG + SCALED + DRIFT),
    _pattern("swapped-parameters", "Two arguments are passed in each other's place",
             "A launch passes two arguments in the other's position (b for a, max for min, rows for columns).",
             "Pass each argument in its parameter's position (match the kernel's signature by name).",
             params.swapped_parameters(),
             ["examples/tanh_scaled/nearmiss_1.py", f"{DEV}/clamp_scale/nearmiss_swap.py"],
             WRONG + SCALED + ("param",)),
)

ASC = "examples/ascendc"
DEV_ASC = "tests/repair/rules/data/dev_ascendc"


def _ascendc(bug_class, title, root_cause, fix, rules, examples, symptoms, explains=()) -> StarterPattern:
    return _pattern(bug_class, title, root_cause, fix, rules, examples, symptoms, language="ascendc",
                    explains=explains)


def _on_cpu(**kw) -> Signature:
    """How a bug shows on ascendc-cpu, the emulation (an NPU shows it otherwise: no fault, wrong values)."""
    return Signature(backends=["ascendc-cpu"], **kw)


# What ascendc-cpu shows. Every output starts as NaN there, so elements no core writes stay NaN (`unwritten`); the
# protocol faults are named in the case's message (repair.workers.rules_worker's FAULT_CUES).
LOST = _on_cpu(statuses=["mismatch"], cues=["unwritten", "zero-output"])  # some elements never written
GM_FAULT = _on_cpu(cues=["gm-bounds"])  # an access outside every GM tensor, or past one's end
UB_FAULT = _on_cpu(cues=["local-bounds"])  # past a LocalTensor's or a TBuf's end, or the UB's
ALIGN_FAULT = _on_cpu(cues=["datacopy-align"])
QUEUE_FAULT = _on_cpu(cues=["queue"])
GM_RACE = _on_cpu(cues=["gm-race"])  # two blocks write one GM range
PIPE_RACE = _on_cpu(cues=["pipe-race"])  # two pipes hand a UB buffer over unordered (a build with auto-sync off)
MISMATCH = _on_cpu(statuses=["mismatch"])  # values wrong (written or not), no fault
WRONG_VALUES = _on_cpu(statuses=["mismatch"], absent=["unwritten"])  # every element written, some wrong
NONFINITE = _on_cpu(statuses=["mismatch"], cues=["nan"])


# AscendC: what ascendc-cpu's forensics show. An output element no core writes stays at the emulator's poison
# (nan): a dropped tail, tile or core share is `nan-introduced`, at the last block when it is the end that is lost,
# scattered or everywhere when each core loses its later tiles or whole cores are never launched; a broken
# protocol (queue order, DataCopy alignment, a buffer overrun) is an emulator fault (repair.workers.rules_worker).
ASC_TAIL_LOST = ("last-block", "tail-localized", "tail-rows", "tail-columns", "nan-introduced", "nan", "gm-bounds")
ASC_TILES_LOST = ("scattered", "everywhere", "partially-wrong", "tail-columns", "nan-introduced", "nan")
ASC_SHARES_LOST = ("scattered", "everywhere", "partially-wrong", "last-block", "tail-localized", "nan-introduced",
                   "nan", "gm-bounds")
ASCENDC_STARTER: tuple[StarterPattern, ...] = (
    _ascendc("tail-tile-dropped", "The remainder tile is skipped on some core",
             "The tail tile (length % tile elements) is processed under a condition on the core index (only on "
             "cores before the last), or each core's share is the length divided by the blocks launched rounded "
             "down, so the last elements of the output are never written. Two forms of the big/small-core split "
             "(NPUKernelBench's answers, CANN's samples): the branch for a block's last tile keeps the full tile's "
             "length while the tail's length the kernel computed is never read, so the last tile is copied whole, "
             "past the block's share and at the last block past the tensor's end; or each block's length is the "
             "share its offset strides by and the remainder the host computed for the last block (total - cores * "
             "share) is never read.",
             "Process the tail tile on every core whose share has one (guard it by the remainder alone); round each "
             "core's share up and let the last core take what is left: in the last tile's branch take the tail's "
             "length; give the last block share + remainder.",
             ascendc.tail_tile_dropped() + ascendc_split.tail_length_dropped() + ascendc_split.last_core_remainder(),
             [f"{ASC}/add/nearmiss_tail.py", f"{ASC}/add/npukb/nearmiss_tail", f"{DEV_ASC}/axpb/nearmiss_tail.py",
              f"{DEV_ASC}/axpb/nearmiss_floor_share.py", f"{DEV_ASC}/big_small/nearmiss_last_full.py",
              f"{DEV_ASC}/rest_last/nearmiss_rest_dropped.py"],
             ASC_TAIL_LOST,
             # a last tile copied whole (or a last block's share cut short to zero tiles) reaches past a GM tensor
             explains=(LOST, GM_FAULT)),
    _ascendc("tile-loop-bound", "The tile loop stops early",
             "The loop over a core's tiles is capped at a constant (only the first tile runs), or counts the tiles "
             "before the double-buffer split (tileNum where tileNum * BUFFER_NUM tiles were cut), so the rest of "
             "each core's share is never written.",
             "Loop over every tile of the core's share: drop the cap; count tileNum * BUFFER_NUM tiles.",
             ascendc.tile_loop_bound(),
             [f"{ASC}/add/nearmiss_first_tile.py", f"{ASC}/add/npukb/nearmiss_first_tile",
              f"{DEV_ASC}/axpb/nearmiss_first_tile.py", f"{DEV_ASC}/relu_tiles/nearmiss_buffer_num.py"],
             ASC_TILES_LOST,
             explains=(LOST,)),
    _ascendc("wrong-core-count", "The share's divisor is not the number of blocks launched",
             "The tiling splits the work over every core of the chip (GetCoreNumAiv) while SetBlockDim launches "
             "fewer blocks, so the shares of the cores never launched are never computed.",
             "Divide the work by the block count given to SetBlockDim (or launch as many blocks as shares).",
             ascendc.wrong_core_count(),
             [f"{ASC}/add/nearmiss_core_count.py", f"{ASC}/add/npukb/nearmiss_core_count",
              f"{ASC}/bias_add/nearmiss_core_count.py", f"{ASC}/bias_add/npukb/nearmiss_core_count",
              f"{DEV_ASC}/axpb/nearmiss_core_count.py", f"{DEV_ASC}/row_max/nearmiss_core_count.py"],
             ASC_SHARES_LOST,
             explains=(LOST, GM_FAULT)),
    _ascendc("unaligned-datacopy", "DataCopy with a length that is not a multiple of 32 bytes",
             "DataCopy between global and local memory moves whole 32-byte blocks: a row or tail whose byte length "
             "is not a multiple of 32 reads the next row's elements or writes past its own.",
             "Use DataCopyPad with DataCopyExtParams{1, count * sizeof(T), 0, 0, 0} (and DataCopyPadExtParams<T> "
             "on the way in).",
             ascendc.unaligned_datacopy(),
             [f"{ASC}/cast/nearmiss_unaligned.py", f"{ASC}/cast/npukb/nearmiss_unaligned",
              f"{ASC}/softmax/nearmiss_unaligned.py", f"{ASC}/softmax/npukb/nearmiss_unaligned",
              f"{DEV_ASC}/axpb/nearmiss_unaligned.py", f"{DEV_ASC}/row_max/nearmiss_unaligned.py"],
             ("datacopy-align", "local-bounds") + WRONG + TAIL + NAN + SCALED,
             explains=(ALIGN_FAULT,)),
    _ascendc("queue-out-of-order", "A queue's tensor is handed on before its last use",
             "EnQue passes a tensor to the next stage before the statements that write it, or FreeTensor returns "
             "it to its queue before the statements that read it: the copy races the vector unit.",
             "Move the EnQue (FreeTensor) after the last statement that uses the tensor.",
             ascendc.queue_out_of_order(),
             [f"{ASC}/bias_add/nearmiss_queue_order.py", f"{ASC}/bias_add/npukb/nearmiss_queue_order",
              f"{ASC}/layer_norm/nearmiss_queue_order.py", f"{ASC}/layer_norm/npukb/nearmiss_queue_order",
              f"{DEV_ASC}/axpb/nearmiss_enque.py", f"{DEV_ASC}/row_max/nearmiss_free.py"],
             ("queue",) + WRONG + SCALED + NAN,
             explains=(QUEUE_FAULT,)),
    # before reduction-init: a reset the file writes in the wrong place is a closer explanation than a fill it lacks
    # (reduction-init's missing-fill rule leaves a sum a helper fills alone: cpp-accumulated-by-call)
    _ascendc("accumulator-reset-per-tile", "A running sum is reset inside the tile loop",
             "The accumulator a core adds its tiles into (a TBuf tensor filled with 0 by Duplicate, or a scalar set "
             "to 0) is reset inside the tile loop, or in the helper each tile calls, while only the code after the "
             "loop reads it: each core's partial sum keeps its last tile alone, so inputs of one tile per core pass "
             "and longer ones come out too small.",
             "Reset the accumulator once, before the tile loop, and only add into it inside the loop.",
             ascendc_reduce.accumulator_reset_per_tile(), [f"{DEV_ASC}/sum_all/nearmiss_reset_in_helper.py"],
             WRONG + SCALED + DRIFT, explains=(WRONG_VALUES,)),
    _ascendc("reduction-init", "Reduction accumulator does not start at the identity",
             "A running sum starts at a value other than 0 (the first element, a stale value), or a running max is "
             "filled with 0 (or never filled): rows are offset, or all-negative rows report 0.",
             "Start a sum at 0 and a max at the lowest float (Duplicate(acc, -3.40282347e+38f, n) for a vector).",
             ascendc.reduction_init() + ascendc_buffers.accumulator_filled_elsewhere(),
             [f"{ASC}/row_sum/nearmiss_init.py", f"{ASC}/row_sum/npukb/nearmiss_init",
              f"{DEV_ASC}/row_max/nearmiss_init_scalar.py"],
             WRONG + SCALED + DRIFT + ("zero-output",),
             explains=(MISMATCH,)),
    _ascendc("missing-block-offset", "A global buffer misses the core's offset",
             "One GlobalTensor is set on the tensor's start while the others add the core's offset "
             "(blockLength * GetBlockIdx()), so every core reads or writes the first core's share. In a big/small-core "
             "split (the first N blocks take one unit more), a block past them starts big * idx - (big - small) * "
             "(idx - N) in; scaled by the bare index, the correction moves each small block's share back over its "
             "neighbour's (a GM race between blocks) and leaves the end unwritten.",
             "Add the same per-core offset to every per-core buffer's address; past the big blocks, scale the "
             "correction by the index less their count N (the bound of the branch's condition).",
             ascendc.missing_block_offset() + ascendc_split.core_offset_unused() + ascendc_buffers.core_offset_stride()
             + ascendc_split.small_core_offset(),
             [f"{DEV_ASC}/axpb/nearmiss_offset.py", f"{DEV_ASC}/big_small/nearmiss_small_offset.py"],
             WRONG + NAN + SCALED + ("gm-bounds", "gm-race"),
             # a wrong offset also moves a core's share past the tensor's end (the last core's, shifted by one share)
             explains=(MISMATCH, GM_RACE, GM_FAULT)),
    _ascendc("missing-max-subtraction", "Softmax exp of a row not shifted by its max",
             "Exp of the raw row overflows to inf for inputs above about 88, and the normalisation gives inf / inf = "
             "nan on those rows.",
             "ReduceMax the row, read the max (after the vector-to-scalar sync), Adds(-max), then Exp.",
             ascendc.missing_max_subtraction(), [f"{DEV_ASC}/row_softmax/nearmiss_maxsub.py"], NAN + WRONG,
             explains=(NONFINITE,)),
    _ascendc("buffer-bytes", "A queue buffer is sized in elements, not bytes",
             "InitBuffer takes a length in bytes; passing the element count makes each buffer too small for its "
             "tile, so tiles overlap in local memory.",
             "Size the buffer as count * sizeof(T).",
             ascendc.buffer_bytes(), [f"{DEV_ASC}/axpb/nearmiss_bytes.py"], ("local-bounds",) + WRONG + NAN + SCALED,
             explains=(UB_FAULT, MISMATCH)),
    _ascendc("tile-count-floored", "The host's tile count or data length rounds down",
             "The tiling tells the kernel how many tiles (or 32-byte blocks) to process as a floor division of the "
             "data: a copy of n / tile where the remainder n % tile still holds data, or a length aligned down to "
             "whole blocks. The last partial tile is never processed, so the end of the output is never written.",
             "Count the partial tile: tiles = (n % tile) == 0 ? n / tile : n / tile + 1 (or (n + tile - 1) / tile); "
             "align lengths up: ((n + b - 1) / b) * b.",
             ascendc_split.tile_count_floored() + ascendc_buffers.block_dim_floored(),
             [f"{DEV_ASC}/scale_shift/nearmiss_tile_count.py", f"{DEV_ASC}/clamp_half/nearmiss_launch_floor.py"],
             ASC_TAIL_LOST, explains=(LOST,)),
    _ascendc("loop-off-by-one", "The tile loop's bound is one off",
             "The loop over a core's tiles stops one tile short (i < n - 1 with nothing after it to process the "
             "last tile) or runs one too many (i <= n), or its bound is not the index the code after the loop "
             "processes: a tile is never written, or one is read and written past the end of the core's share.",
             "Loop while i < n over n tiles; when the last tile is handled after the loop (CopyIn(n - 1)), loop "
             "while i < n - 1.",
             ascendc_split.loop_bound_off_by_one(), [f"{DEV_ASC}/scale_shift/nearmiss_loop_short.py"],
             ASC_TAIL_LOST + ("gm-bounds", "local-bounds"), explains=(LOST, GM_FAULT, UB_FAULT)),
    _ascendc("block-count", "SetBlockDim launches the chip's cores, not the blocks the work was split over",
             "The host narrows the core count to what the data needs (min(cores, n / per-core minimum)) and computes "
             "each block's share from it, but SetBlockDim is given the chip's core count: the extra blocks compute "
             "offsets past the end of the data, and the last real block no longer takes the remainder.",
             "Launch the narrowed count the shares were computed from: SetBlockDim(usedCores).",
             ascendc_split.block_count(), [f"{DEV_ASC}/scale_shift/nearmiss_launch_all.py"],
             ASC_SHARES_LOST + ("gm-bounds",), explains=(GM_FAULT, MISMATCH)),
    _ascendc("attribute-misread", "A float attribute is carried by an integer tiling field",
             "The host reads a float attribute (GetAttrs()->GetFloat, GetAttrPointer<float>) and stores it with "
             "set_<field>() into a tiling field declared as an integer: the fraction is dropped on the way to the "
             "kernel, so every output is off wherever the attribute is not a whole number.",
             "Declare the tiling field with the attribute's type: TILING_DATA_FIELD_DEF(float, field).",
             ascendc_split.attribute_misread(), [f"{DEV_ASC}/scale_shift/nearmiss_alpha_int.py"],
             WRONG + SCALED + DRIFT + ("param",), explains=(WRONG_VALUES,)),
    _ascendc("buffer-dtype", "A buffer is sized for another element type than its tensors",
             "InitBuffer takes bytes; a scratch buffer the kernel reads as float (Get<float>()) sized as n * "
             "sizeof(T) for a half T holds half the tile, so the cast into it runs past its end (CANN's InitBuffer: "
             "len is each block's size in bytes, https://www.hiascend.com/document/detail/en/canncommercial/850/API/"
             "ascendcopapi/atlasascendc_api_07_0110.html ; Cast between half and float: https://www.hiascend.com/"
             "document/detail/en/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0073.html ; the "
             "precision-debug symptom table's \"FP16 fails, FP32 passes\": https://www.skill4agent.com/en/skill/"
             "ascend-agent-skills/ascendc-operator-precision-debug/compare).",
             "Size the buffer by the element type of the tensors taken from it: n * sizeof(float) for a float "
             "scratch.",
             ascendc_buffers.buffer_dtype(), [f"{DEV_ASC}/clamp_half/nearmiss_scratch_half.py"],
             ("local-bounds",) + WRONG + NAN, explains=(UB_FAULT, _on_cpu(statuses=["mismatch"],
                                                                           low_precision_only=True))),
    _ascendc("missing-enque", "A tensor filled for the next stage is never enqueued",
             "CopyIn allocates a tensor from its queue and fills it but never EnQue's it, so the DeQue of the next "
             "stage finds the queue empty: a hang on the NPU, a fault on the CPU (CANN's memory management and "
             "synchronization control: https://www.hiascend.com/document/detail/en/canncommercial/800/opdevg/"
             "Ascendcopdevg/atlas_ascendc_10_0027.html ; DeQue: https://www.hiascend.com/document/detail/en/"
             "canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0152.html ; CANN's FAQ on AllocTensor/"
             "FreeTensor failures that hang the NPU: https://www.hiascend.com/doc_center/source/zh/"
             "CANNCommunityEdition/82RC1alpha001/opdevg/Ascendcopdevg/atlas_ascendc_10_0107.html).",
             "EnQue the tensor on its queue after the last statement that writes it.",
             ascendc_buffers.missing_enque(), [f"{DEV_ASC}/clamp_half/nearmiss_no_enque.py"],
             ("queue",) + WRONG + NAN, explains=(QUEUE_FAULT,)),
    _ascendc("ub-overallocated", "The UB is split over the queues, not over their buffers",
             "The host sizes a tile as the UB divided by the number of queues, forgetting that InitBuffer(q, "
             "BUFFER_NUM, len) gives each queue BUFFER_NUM blocks of len bytes: the queues ask for BUFFER_NUM times "
             "the UB (InitBuffer: https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/"
             "atlasascendc_api_07_0110.html ; a UB over-allocation shows only at run time on the NPU: "
             "https://anabel.icu/blog/prevent-ub-memory-allocation-errors ; this project's measurement of "
             "NPUKernelBench's published Neg and Gelu answers, README).",
             "Divide the UB by the number of queues times each queue's buffer count: ub / (QUEUE_NUM * BUFFER_NUM).",
             ascendc_buffers.ub_overallocated(), [f"{DEV_ASC}/clamp_half/nearmiss_ub_queues.py"],
             ("local-bounds",) + WRONG + NAN, explains=(UB_FAULT,)),
    _ascendc("mean-divisor", "A mean divides by a split or padded length",
             "The scale of a mean, 1 / L, takes a length computed from the data by a split or an alignment (one "
             "core's share, the row padded to whole 32-byte blocks) where the data's own length is the count being "
             "averaged: every output is off by the same factor (the precision-debug symptom table's \"all wrong, "
             "cosine about 1: systematic error\", https://www.skill4agent.com/en/skill/ascend-agent-skills/"
             "ascendc-operator-precision-debug/compare ; padding to 32 bytes for DataCopy: CANN's non-aligned "
             "scenarios, https://www.hiascend.com/doc_center/source/zh/CANNCommunityEdition/82RC1alpha001/opdevg/"
             "Ascendcopdevg/atlas_ascendc_10_0034.html).",
             "Divide by the length read from the input's shape that the split or padded one was computed from.",
             ascendc_buffers.mean_divisor(), [f"{DEV_ASC}/numel_scale/nearmiss_share_divisor.py"],
             WRONG + SCALED + DRIFT, explains=(WRONG_VALUES,)),
    _ascendc("clamp-bounds-swapped", "A clamp's lower and upper bounds are swapped",
             "A clamp written as Maxs(y, x, lower) then Mins(y, y, upper) is given the upper bound in the Maxs and "
             "the lower in the Mins, so every element comes out as one bound (the same slip in other code: "
             "openmv/openmv#80 https://github.com/openmv/openmv/pull/80 , CleverRaven/Cataclysm-DDA#38924 "
             "https://github.com/CleverRaven/Cataclysm-DDA/pull/38924 , Osmantic/ODS#5622 "
             "https://github.com/Osmantic/ODS/pull/5622).",
             "Give the Maxs the lower bound and the Mins the upper one (the names and the values they are read from "
             "say which is which).",
             ascendc_buffers.clamp_bounds_swapped(), [f"{DEV_ASC}/clamp_half/nearmiss_swap_bounds.py"],
             WRONG + SCALED, explains=(WRONG_VALUES,)),
    _ascendc("missing-pipe-sync", "A buffer is handed between pipes with no SetFlag/WaitFlag",
             "The pipes of an AI core run asynchronously (MTE2 copies GM -> UB, the vector pipe computes, MTE3 copies "
             "UB -> GM, the scalar unit reads and writes single elements): a TBuf filled by a DataCopy and read by a "
             "vector instruction, a vector result read by GetValue or copied out, a SetValue copied out, each needs "
             "SetFlag/WaitFlag<HardEvent::SRC_DST> between the two when the kernel is built without the compiler's "
             "--cce-auto-sync, and a queue orders only the copy pipes and the vector pipe. Missing, the second pipe "
             "may read the buffer before the first has written it: results that differ run to run on the NPU, a "
             "pipe race on ascendc-cpu with REPAIR_ASCENDC_AUTO_SYNC=off (CANN's synchronisation control: "
             "https://www.hiascend.com/document/detail/en/canncommercial/800/opdevg/Ascendcopdevg/"
             "atlas_ascendc_10_0027.html ; the BiSheng option "
             "--cce-auto-sync the custom operator project turns on: README, \"Pipes as the hardware has them\").",
             "Order the two pipes before the statement that takes the buffer over: event_t id = static_cast<event_t>("
             "GetTPipePtr()->FetchEventID(HardEvent::SRC_DST)); SetFlag<HardEvent::SRC_DST>(id); "
             "WaitFlag<HardEvent::SRC_DST>(id); (or the file's own wait macro).",
             ascendc_sync.missing_pipe_sync(), [f"{DEV_ASC}/half_row_sum/nearmiss_no_mte2_v.py"],
             ("pipe-race",) + WRONG + NAN, explains=(PIPE_RACE,)),
    _ascendc("missing-atomic-accumulate", "The cores' partial sums overwrite one output",
             "Each core reduces its share and copies the partial result into the same GM range (a sum's one output "
             "element) with a plain DataCopy: without atomic accumulation the last core's write wins, a GM race "
             "between blocks on ascendc-cpu (CANN's SetAtomicAdd: https://www.hiascend.com/document/detail/en/"
             "canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0209.html ; the output must be zeroed "
             "before the kernel, SetAtomicAdd does not clear GM).",
             "SetAtomicAdd<T>() before the copy of the partial result into the shared output, SetAtomicNone() "
             "after it; zero the output before the launch.",
             ascendc_reduce.missing_atomic_accumulate(), [f"{DEV_ASC}/sum_all/nearmiss_no_atomic.py"],
             WRONG + SCALED + ("gm-race",), explains=(GM_RACE,)),
)

STARTER = STARTER + ASCENDC_STARTER


def starter_rules() -> list[Rule]:
    return [r for p in STARTER for r in p.rules]
