"""Synthetic, valid repair records for tests and benchmarks (their failing evaluations: repair.loop.make_eval_result).

Each bug class has a near-miss Triton kernel and its repair, a symptom as the harness labels it, and a
diagnosis. `make_record(i, bug_class=...)` varies operator, identifiers and block size with `i`, so
distinct `i` give distinct entries; the same arguments always give the same record.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ingest.patch import unified_diff
from ingest.record import (Code, Diagnosis, Evidence, IntegrityAttempt, Operator, RepairRecord, Retrieval, Symptom,
                           Worker)
from provenance.canonical import sha256_text


@dataclass(frozen=True)
class BugClass:
    family: str
    symptom: str
    location: str
    title: str
    root_cause: str
    fix: str
    body_bad: str  # kernel body lines (4-space indented inside the @triton.jit function)
    body_good: str


_ROW = ("    row = tl.program_id(0)\n"
        "    offs = tl.arange(0, BLOCK)\n")

BUG_CLASSES: dict[str, BugClass] = {
    "mask-off-by-one": BugClass(
        "softmax", "tail-localized", "tail-columns", "Mask drops the last column",
        "the column mask compares against n_cols - 1, so the final column is never loaded or stored",
        "compare offsets against n_cols: mask = offs < n_cols",
        _ROW + "    mask = offs < n_cols - 1\n    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float('inf'))\n"
        "    y = tl.exp(x - tl.max(x, axis=0))\n    tl.store(out_ptr + row * stride + offs, y / tl.sum(y, axis=0), mask=mask)\n",
        _ROW + "    mask = offs < n_cols\n    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float('inf'))\n"
        "    y = tl.exp(x - tl.max(x, axis=0))\n    tl.store(out_ptr + row * stride + offs, y / tl.sum(y, axis=0), mask=mask)\n"),
    "missing-other": BugClass(
        "softmax", "nan-introduced", "tail-columns", "Masked load without other poisons the row max",
        "tl.load with a mask but no other value leaves garbage in masked lanes, which then enter tl.max and tl.sum",
        "give masked loads a neutral value: other=-float('inf') for a max, 0.0 for a sum",
        _ROW + "    mask = offs < n_cols\n    x = tl.load(x_ptr + row * stride + offs, mask=mask)\n"
        "    y = tl.exp(x - tl.max(x, axis=0))\n    tl.store(out_ptr + row * stride + offs, y / tl.sum(y, axis=0), mask=mask)\n",
        _ROW + "    mask = offs < n_cols\n    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float('inf'))\n"
        "    y = tl.exp(x - tl.max(x, axis=0))\n    tl.store(out_ptr + row * stride + offs, y / tl.sum(y, axis=0), mask=mask)\n"),
    "reduction-init": BugClass(
        "max_reduce", "uniform-drift", "everywhere", "Max reduction starts from zero",
        "the running max is initialised with tl.zeros, so rows of negative values reduce to 0",
        "initialise the accumulator with -inf: tl.full([BLOCK], -float('inf'), tl.float32)",
        _ROW + "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n    for start in range(0, n_cols, BLOCK):\n"
        "        m = start + offs < n_cols\n        acc = tl.maximum(acc, tl.load(x_ptr + row * stride + start + offs, mask=m, other=-float('inf')))\n"
        "    tl.store(out_ptr + row, tl.max(acc, axis=0))\n",
        _ROW + "    acc = tl.full([BLOCK], -float('inf'), tl.float32)\n    for start in range(0, n_cols, BLOCK):\n"
        "        m = start + offs < n_cols\n        acc = tl.maximum(acc, tl.load(x_ptr + row * stride + start + offs, mask=m, other=-float('inf')))\n"
        "    tl.store(out_ptr + row, tl.max(acc, axis=0))\n"),
    "grid-floor-div": BugClass(
        "elementwise", "zero-output", "last-block", "Grid rounds down and skips the last block",
        "the launch grid uses n // BLOCK, so the trailing partial block is never launched",
        "round the grid up: triton.cdiv(n, BLOCK)",
        _ROW + "    mask = row * BLOCK + offs < n_cols\n    x = tl.load(x_ptr + row * BLOCK + offs, mask=mask)\n"
        "    tl.store(out_ptr + row * BLOCK + offs, tl.maximum(x, 0.0), mask=mask)\n",
        _ROW + "    mask = row * BLOCK + offs < n_cols\n    x = tl.load(x_ptr + row * BLOCK + offs, mask=mask)\n"
        "    tl.store(out_ptr + row * BLOCK + offs, tl.maximum(x, 0.0), mask=mask)\n"),
    "accumulator-dtype": BugClass(
        "sum_reduce", "small-value-error", "everywhere", "Accumulator in float16 loses precision",
        "the sum accumulates in tl.float16, so long rows drift from the float32 reference",
        "accumulate in tl.float32 and cast only the final value",
        _ROW + "    acc = tl.zeros([BLOCK], dtype=tl.float16)\n    for start in range(0, n_cols, BLOCK):\n"
        "        m = start + offs < n_cols\n        acc += tl.load(x_ptr + row * stride + start + offs, mask=m, other=0.0).to(tl.float16)\n"
        "    tl.store(out_ptr + row, tl.sum(acc, axis=0))\n",
        _ROW + "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n    for start in range(0, n_cols, BLOCK):\n"
        "        m = start + offs < n_cols\n        acc += tl.load(x_ptr + row * stride + start + offs, mask=m, other=0.0).to(tl.float32)\n"
        "    tl.store(out_ptr + row, tl.sum(acc, axis=0))\n"),
    "unstable-softmax": BugClass(
        "logsumexp", "inf-introduced", "sparse", "Exponent overflows without max subtraction",
        "tl.exp is applied to raw inputs, which overflows to inf for large values",
        "subtract the row max before tl.exp and add it back after tl.log",
        _ROW + "    mask = offs < n_cols\n    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float('inf'))\n"
        "    s = tl.sum(tl.exp(x), axis=0)\n    tl.store(out_ptr + row, tl.log(s))\n",
        _ROW + "    mask = offs < n_cols\n    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float('inf'))\n"
        "    m = tl.max(x, axis=0)\n    s = tl.sum(tl.exp(x - m), axis=0)\n    tl.store(out_ptr + row, tl.log(s) + m)\n"),
    "loop-tail": BugClass(
        "rownorm", "tail-localized", "tail-rows", "Loop stops one block early",
        "the column loop runs range(0, n_cols - BLOCK, BLOCK) and skips the tail block",
        "loop over range(0, n_cols, BLOCK) with a mask on the tail",
        _ROW + "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n    for start in range(0, n_cols - BLOCK, BLOCK):\n"
        "        m = start + offs < n_cols\n        v = tl.load(x_ptr + row * stride + start + offs, mask=m, other=0.0)\n        acc += v * v\n"
        "    tl.store(out_ptr + row, tl.sqrt(tl.sum(acc, axis=0)))\n",
        _ROW + "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n    for start in range(0, n_cols, BLOCK):\n"
        "        m = start + offs < n_cols\n        v = tl.load(x_ptr + row * stride + start + offs, mask=m, other=0.0)\n        acc += v * v\n"
        "    tl.store(out_ptr + row, tl.sqrt(tl.sum(acc, axis=0)))\n"),
    "stride-misuse": BugClass(
        "transpose_copy", "all-wrong", "everywhere", "Row offset uses n_cols instead of the stride",
        "the row offset multiplies by n_cols, which is wrong for non-contiguous inputs",
        "index rows with the tensor's stride: row * stride",
        _ROW + "    mask = offs < n_cols\n    x = tl.load(x_ptr + row * n_cols + offs, mask=mask)\n"
        "    tl.store(out_ptr + row * n_cols + offs, x * 2.0, mask=mask)\n",
        _ROW + "    mask = offs < n_cols\n    x = tl.load(x_ptr + row * stride + offs, mask=mask)\n"
        "    tl.store(out_ptr + row * n_cols + offs, x * 2.0, mask=mask)\n"),
}

_TEMPLATE = '''import torch
import triton
import triton.language as tl


@triton.jit
def {kernel}(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
{body}

class ModelNew(torch.nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        grid = ({grid},)
        {kernel}[grid](x, out, n_cols, x.stride(0), BLOCK={block})
        return out
'''


def kernel_pair(i: int, bug_class: str) -> tuple[str, str]:
    """(near-miss, repaired) source for variant i of a bug class."""
    b = BUG_CLASSES[bug_class]
    kernel, block = f"{b.family}_kernel_{i}", 2 ** (4 + i % 4)
    bad_grid = good_grid = "n_rows"
    if bug_class == "grid-floor-div":
        bad_grid, good_grid = f"n_cols // {block}", f"triton.cdiv(n_cols, {block})"
    bad = _TEMPLATE.format(kernel=kernel, body=b.body_bad, grid=bad_grid, block=block)
    good = _TEMPLATE.format(kernel=kernel, body=b.body_good, grid=good_grid, block=block)
    return bad.replace("x_ptr", f"in{i}_ptr"), good.replace("x_ptr", f"in{i}_ptr")


def make_record(i: int = 0, *, bug_class: str | None = None, operator_id: str | None = None, family: str | None = None,
                backend: str = "cpu", run_id: str | None = None, status: str = "repaired", full: tuple[int, int] = (20, 20),
                verdicts: tuple[str, ...] = ("clean",), worker_kind: str = "scripted", model: str | None = "scripted-v1",
                source: str | None = None, repaired: str | None = None, started_at: str | None = None,
                rules: list[dict] | None = None) -> RepairRecord:
    names = sorted(BUG_CLASSES)
    bug_class = bug_class or names[i % len(names)]
    b = BUG_CLASSES[bug_class]
    family = family or b.family
    operator_id = operator_id or f"{family}_op{i}"
    bad, good = kernel_pair(i, bug_class)
    source, repaired = source if source is not None else bad, repaired if repaired is not None else good
    passed, total = full
    minute = i % 60
    started_at = started_at or f"2026-01-01T{(i // 60) % 24:02d}:{minute:02d}:00Z"
    finished_at = started_at[:-3] + "30Z" if started_at.endswith(":00Z") else started_at
    return RepairRecord(
        run_id=run_id or f"run-{bug_class}-{i}", status=status,
        operator=Operator(id=operator_id, family=family, problem_sha256=sha256_text(f"problem {operator_id}")),
        backend=backend, language="triton",
        source=Code(code=source, sha256=sha256_text(source)), repaired=Code(code=repaired, sha256=sha256_text(repaired)),
        diff=unified_diff(source, repaired),
        symptom=Symptom(label=b.symptom, location=b.location, failed_tier="compact", max_abs_err=0.5 + i % 7,
                        max_rel_err=1.0, mismatch_frac=0.01 * (1 + i % 5), statuses={"mismatch": 3, "pass": 5}),
        diagnosis=Diagnosis(title=f"{b.title} in {b.family}_kernel_{i}", bug_class=bug_class, root_cause=f"{b.root_cause} (in {b.family}_kernel_{i})",
                            fix=b.fix),
        evidence=Evidence(compact_passed=8, compact_total=8, full_passed=passed, full_total=total,
                          match=passed / total if total else 0.0, case_set_sha256=sha256_text(f"cases {operator_id}"),
                          backend=backend, seed=0),
        integrity_history=[IntegrityAttempt(attempt=n + 1, verdict=v) for n, v in enumerate(verdicts)],
        worker=Worker(kind=worker_kind, model=model, prompt_template_sha256=sha256_text("template v1"),
                      prompt_tokens=1200, completion_tokens=300),
        retrieval=Retrieval(kb_version=None), rules=list(rules or []),
        tool_version="0.1.0", started_at=started_at, finished_at=finished_at,
    )


def write_record(record: RepairRecord, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record.to_json(), encoding="utf-8")
    return path


def write_records(directory: Path, records: list[RepairRecord]) -> list[Path]:
    return [write_record(r, Path(directory) / f"{n:05d}-{r.run_id}.json") for n, r in enumerate(records)]
