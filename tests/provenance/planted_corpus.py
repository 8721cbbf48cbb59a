"""The planted-copy corpus: cohort kernels, disguised copies of them, and independent code.

examples/<op>/correct.py  15 operators, read in place from the example suite
data/triton/      the 5 operators written for this corpus
data/ports/       C/C++/CUDA/AscendC ports of 11 of them, written as a porting engineer would
data/ambiguous/   ports no content can attribute (kind "ambiguous"; the reason is each file's `ambiguous:` line)
data/independent/ other implementations of the same families, other operators, boilerplate-only code

entries() holds, for every operator, its file and disguised copies (labelled with the operator) and
its ports, plus the independent files (unlabelled). Against a cohort of some operators, the entries of
those operators are positives; everything else (other operators, their copies and ports, independent
code) must not be flagged, except the ambiguous entries, which are neither. Deterministic. Used by the
tests and bench/bench_overlap.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from provenance import disguise as D

DATA = Path(__file__).parent / "data"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_LANG = {".py": "python", ".c": "cpp", ".cpp": "cpp", ".cu": "cpp"}

FAMILY = {
    "softmax": "softmax", "log_softmax": "softmax", "cross_entropy": "softmax",
    "layernorm": "normalization", "rmsnorm": "normalization", "batchnorm_inference": "normalization",
    "sum_lastdim": "reduction", "mean_lastdim": "reduction", "max_lastdim": "reduction",
    "min_lastdim": "reduction", "rowwise_dot": "reduction",
    "add_relu": "activation", "leaky_relu": "activation", "sigmoid": "activation", "tanh_scaled": "activation",
    "gelu": "activation", "swiglu": "activation",
    "matmul": "matmul", "transpose_copy": "layout", "affine_scale_shift": "elementwise",
}
# two folds: each operator is a cohort member in one and "another operator" in the other,
# and every family has members on both sides
FOLDS = (
    ["softmax", "cross_entropy", "layernorm", "sum_lastdim", "max_lastdim", "add_relu", "sigmoid", "gelu",
     "matmul", "transpose_copy"],
    ["log_softmax", "rmsnorm", "batchnorm_inference", "mean_lastdim", "min_lastdim", "rowwise_dot", "leaky_relu",
     "tanh_scaled", "swiglu", "affine_scale_shift"],
)


@dataclass
class Entry:
    id: str
    parts: dict[str, tuple[str, str]]  # part -> (code, language)
    source: str | None  # the cohort operator it copies; None for independent code
    kind: str  # rename, reformat, ..., port, ambiguous, independent, boilerplate
    reason: str = ""  # why an ambiguous entry is (its file's label)


def _read(p: Path) -> tuple[str, str]:
    return p.read_text(), _LANG[p.suffix]


def kernel_path(op: str) -> Path:
    """An operator's cohort kernel: the example suite's correct.py where the suite has it, else data/triton/<op>.py."""
    example = EXAMPLES / op / "correct.py"
    return example if example.is_file() else DATA / "triton" / f"{op}.py"


def originals() -> dict[str, str]:
    return {op: kernel_path(op).read_text() for op in sorted(FAMILY)}


def ports() -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for p in sorted((DATA / "ports").iterdir()):
        out.setdefault(p.stem.split("__")[0], []).append(p)
    return out


def ambiguous() -> list[tuple[str, Path, str]]:
    """(operator, file, reason) of each ambiguous port: the operator is the file's stem, the reason its label."""
    out = []
    for p in sorted((DATA / "ambiguous").iterdir()):
        if p.suffix in _LANG:
            label = next(ln for ln in p.read_text().splitlines() if "ambiguous:" in ln)
            out.append((p.stem, p, label.split("ambiguous:", 1)[1].strip()))
    return out


def independents() -> list[Path]:
    return sorted((DATA / "independent").iterdir())


def copies(op: str, code: str, host: str, seed: int) -> list[tuple[str, dict[str, tuple[str, str]]]]:
    """The disguised copies of one operator's file: (kind, parts)."""
    py = "python"
    kernel = "\n\n".join(D.kernels(code))
    return [
        ("original", {"after": (code, py)}),
        ("rename", {"after": (D.rename(code, seed), py)}),
        ("reformat", {"after": (D.reformat(code, seed), py)}),
        ("reorder", {"after": (D.reorder(code, seed), py)}),
        ("small-edit", {"after": (D.small_edit(code, seed), py)}),
        ("disguise", {"after": (D.disguise(code, seed), py)}),
        ("paste", {"after": (D.paste(code, host, seed), py)}),
        ("kernel-only", {"after": (D.rename(kernel, seed + 1), py)}),
        ("repair-pair", {"before": (D.small_edit(D.rename(code, seed + 2), seed), py),
                         "after": (D.rename(code, seed + 2), py)}),
    ]


def entries(seed: int = 0) -> list[Entry]:
    """Every entry of the corpus: copies and ports of all 20 operators (labelled), independent code."""
    orig = originals()
    hosts = [p for p in independents() if p.suffix == ".py" and not p.stem.startswith("boiler")]
    out: list[Entry] = []
    for i, (op, code) in enumerate(orig.items()):
        host = hosts[i % len(hosts)].read_text()
        for kind, parts in copies(op, code, host, seed + i):
            out.append(Entry(f"{op}/{kind}", parts, op, kind))
    for op, paths in ports().items():
        for p in paths:
            out.append(Entry(f"{op}/port:{p.name}", {"after": _read(p)}, op, "port"))
    for op, p, reason in ambiguous():
        out.append(Entry(f"{op}/ambiguous:{p.name}", {"after": _read(p)}, op, "ambiguous", reason))
    for p in independents():
        kind = "boilerplate" if p.stem.startswith("boiler") else "independent"
        out.append(Entry(f"indep/{p.name}", {"after": _read(p)}, None, kind))
    return out


def cohort_files(ops: list[str]) -> dict[str, tuple[str, str]]:
    orig = originals()
    return {f"{op}.py": (orig[op], "python") for op in ops}


def build(cohort_ops: list[str], seed: int = 0) -> tuple[dict[str, tuple[str, str]], list[Entry]]:
    """(cohort files: id -> (code, language), KB entries); an entry is a positive iff its source is in cohort_ops."""
    return cohort_files(cohort_ops), entries(seed)
