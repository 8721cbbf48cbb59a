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
"""
from __future__ import annotations

from dataclasses import dataclass

from ingest.rules.model import Rule
from repair.rules import bounds, layout, masking, numerics, params

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
    examples: tuple[str, ...]  # near-miss files (relative to the repository) the rules must repair


def _pattern(bug_class, title, root_cause, fix, rules, examples, symptoms) -> StarterPattern:
    """The pattern, each of its rules carrying the cues (symptoms) its class shows."""
    tagged = tuple(Rule.model_validate({**r.to_dict(), "symptoms": list(symptoms)}) for r in rules)
    return StarterPattern(bug_class, title, root_cause, fix, tagged, tuple(examples))


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


def starter_rules() -> list[Rule]:
    return [r for p in STARTER for r in p.rules]
