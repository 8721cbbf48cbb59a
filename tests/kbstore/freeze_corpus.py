"""A KB planted with entries each freeze rule must exclude, and entries no rule may exclude.

Code comes from the planted-copy corpus (tests/provenance/data): five cohort operators, their disguised
copies (rename, reformat, reorder, small edit, full disguise, a kernel pasted into other code, the kernel
alone) and ports to C/CUDA; independent code (other operators, other implementations of the cohort's
families, boilerplate-only files, synthetic records). Provenance positives name a cohort operator or a
cohort problem hash, temporal positives arrive in a second ingest after the cohort's frozen_at. Each
entry carries the set of rules expected to exclude it.
"""
from __future__ import annotations

import copy
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ingest.synthetic import make_record, write_record
from provenance import disguise as D
from provenance.canonical import sha256_text

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "provenance" / "data"
COHORT = {"softmax": "softmax", "layernorm": "normalization", "sum_lastdim": "reduction", "log_softmax": "softmax",
          "sigmoid": "activation"}
def kernel(op: str) -> Path:
    """The cohort kernel of op, as tests/provenance/planted_corpus.kernel_path finds it (examples/ first)."""
    example = ROOT / "examples" / op / "correct.py"
    return example if example.is_file() else DATA / "triton" / f"{op}.py"


PROBLEM = ROOT / "examples" / "sigmoid" / "problem.py"  # listed under the sigmoid operator: its hash is a cohort problem hash
COPY_KINDS = ("rename", "reformat", "reorder", "small-edit", "disguise", "paste", "kernel-only")
PORTS = ("softmax.c", "softmax__rowthread.cu", "layernorm.c", "sigmoid.c")
OTHER_OPS = ("rmsnorm", "mean_lastdim", "max_lastdim", "cross_entropy", "gelu", "add_relu", "tanh_scaled")


@dataclass
class Planted:
    name: str
    record: object  # RepairRecord
    expect: set[str] = field(default_factory=set)  # rules that must exclude it (family rule not included)
    batch: int = 1
    entry_id: str = ""


def bugged(code: str) -> str:
    """A near-miss of code (the record's source): one comparison loosened, or one line added."""
    for old, new in ((" < ", " <= "), (" + ", " - ")):
        if old in code:
            return code.replace(old, new, 1)
    return code + "\n\n"


def _record(i: int, code: str, *, family: str, language: str = "triton", **kw):
    rec = make_record(i, source=bugged(code), repaired=code, family=family, **kw)
    return rec.model_copy(update={"language": language}) if language != "triton" else rec


def _copies(op: str, code: str, host: str, seed: int) -> dict[str, str]:
    kernel = "\n\n\n".join(D.kernels(code))
    return {"rename": D.rename(code, seed), "reformat": D.reformat(code, seed), "reorder": D.reorder(code, seed),
            "small-edit": D.small_edit(code, seed), "disguise": D.disguise(code, seed), "paste": D.paste(code, host, seed),
            "kernel-only": D.rename(kernel, seed + 1)}


def planted() -> list[Planted]:
    out: list[Planted] = []
    i = 1000
    host = (DATA / "independent" / "attention_fwd.py").read_text()
    for n, op in enumerate(["softmax", "layernorm", "sum_lastdim"]):
        code = kernel(op).read_text()
        for kind, copy in _copies(op, code, host, seed=n).items():
            i += 1
            out.append(Planted(f"copy:{op}:{kind}", _record(i, copy, family="misc"), {"overlap"}))
    for port in PORTS:
        i += 1
        out.append(Planted(f"port:{port}", _record(i, (DATA / "ports" / port).read_text(), family="misc", language="cpp"),
                           {"overlap"}))
    for op in OTHER_OPS:  # other operators of the same author: never the cohort's
        i += 1
        out.append(Planted(f"other-op:{op}", _record(i, kernel(op).read_text(), family=op)))
    for p in sorted((DATA / "independent").iterdir()):  # other implementations, boilerplate-only files
        i += 1
        lang = "triton" if p.suffix == ".py" else "cpp"
        out.append(Planted(f"independent:{p.name}", _record(i, p.read_text(), family="misc", language=lang)))
    for j in range(16):  # the synthetic records of ingest.synthetic: 8 bug classes, two variants each
        out.append(Planted(f"synthetic:{j}", make_record(j)))
    out.append(Planted("provenance:operator", make_record(40, operator_id="sum_lastdim"), {"provenance"}))
    rec = make_record(41, operator_id="sigmoid_v2")  # another operator id, but the cohort's problem file
    rec = rec.model_copy(update={"operator": rec.operator.model_copy(update={"problem_sha256": sha256_text(PROBLEM.read_bytes())})})
    out.append(Planted("provenance:problem-hash", rec, {"provenance"}))
    # one entry, two records: the second (same pattern, another run) names a cohort operator
    out.append(Planted("provenance:second-record/a", make_record(42, run_id="run-a")))
    out.append(Planted("provenance:second-record/b", make_record(42, run_id="run-b", operator_id="softmax"), {"provenance"}))
    for j in (50, 51, 52):  # ingested after frozen_at
        out.append(Planted(f"temporal:{j}", make_record(j), {"temporal"}, batch=2))
    # a later record for an entry ingested before frozen_at: the entry predates the cohort and stays
    out.append(Planted("temporal:late-evidence", make_record(3, run_id="run-late"), batch=2))
    return out


def manifest_yaml(frozen_at: str) -> str:
    ops = []
    for op, family in COHORT.items():
        files = [str(kernel(op))] + ([str(PROBLEM)] if op == "sigmoid" else [])
        ops.append(f"  - id: {op}\n    family: {family}\n    files: [{', '.join(files)}]")
    return f'cohort: planted\nfrozen_at: "{frozen_at}"\noperators:\n' + "\n".join(ops) + "\n"


def build(root: Path) -> tuple[Path, Path, list[Planted]]:
    """Ingest the planted entries in two batches around a frozen_at; (kb, manifest, entries with their ids)."""
    from ingest.api import ingest
    from kbstore.embed import HashEmbedder

    kb, items = root / "kb", planted()
    paths = {}
    for n, p in enumerate(items):
        paths[p.name] = write_record(p.record, root / f"batch{p.batch}" / f"{n:03d}.json")
    first = ingest([root / "batch1"], kb, embedder=HashEmbedder())
    frozen_at = datetime.now(timezone.utc)
    time.sleep(0.02)
    second = ingest([root / "batch2"], kb, embedder=HashEmbedder())
    ids = {o.path: o for o in first.outcomes + second.outcomes}
    for p in items:
        o = ids[str(paths[p.name])]
        assert o.outcome == "admitted", (p.name, o.as_dict())
        p.entry_id = o.entry_id
    # an entry's expectations are the union over its records (the two-record entry)
    by_entry: dict[str, set[str]] = {}
    for p in items:
        by_entry.setdefault(p.entry_id, set()).update(p.expect)
    for p in items:
        p.expect = by_entry[p.entry_id]
    manifest = root / "cohort.yaml"
    manifest.write_text(manifest_yaml(frozen_at.isoformat().replace("+00:00", "Z")))
    return kb, manifest, items


_BUILT: dict[str, tuple[Path, Path, list[Planted]]] = {}


def build_copy(tmp_path_factory) -> tuple[Path, Path, list[Planted]]:
    """build() once per test session, then a private copy of the KB and manifest for each caller."""
    if "kb" not in _BUILT:
        _BUILT["kb"] = build(tmp_path_factory.mktemp("planted-source"))
    kb, manifest, items = _BUILT["kb"]
    dest = tmp_path_factory.mktemp("planted")
    shutil.copytree(kb, dest / "kb")
    shutil.copy(manifest, dest / manifest.name)
    return dest / "kb", dest / manifest.name, copy.deepcopy(items)
