"""Write the scripted repairs of the AscendC example suite's near-misses: examples/scripted/ascendc/<op>/<label>.yaml.

Each script is one step: a unified diff against the near-miss's bundle files (repair.ascendc.bundle), the
near-miss's sources to the correct kernel's in the same format (correct.py for a six-source near-miss, answer/0
for a task directory under npukb/), with a diagnosis from the suite's label (examples/ascendc/<op>/meta.yaml).

    .venv/bin/python examples/scripted/ascendc/build_scripts.py          # rewrite the scripts
    .venv/bin/python examples/scripted/ascendc/build_scripts.py --check  # exit 1 when a script is stale
"""
from __future__ import annotations

import difflib
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SUITE = ROOT / "examples" / "ascendc"

# what the fix of each bug class of the suite is, in a sentence (the near-miss's own description says the cause)
FIXES = {
    "wrong-core-count": "size each core's share by the blockDim cores SetBlockDim launches, not by every core of the chip",
    "tile-loop-bound": "loop over every tile of the core's share, not only its first",
    "tail-tile-dropped": "process the last core's tail tile as well",
    "queue-out-of-order": "compute into the output tensor before EnQue'ing it to the copy-out stage, not after",
    "unaligned-datacopy": "copy lengths that are not a multiple of 32 bytes with DataCopyPad",
    "reduction-init": "start each row's accumulator at 0, not at the row's first element (which the loop adds again)",
}


def near_misses() -> list[tuple[Path, str, dict]]:
    """(operator directory, candidate name in meta.yaml, its label) for every near-miss of the suite."""
    out = []
    for meta in sorted(SUITE.glob("*/meta.yaml")):
        for name, info in yaml.safe_load(meta.read_text())["candidates"].items():
            if info["kind"] == "near-miss":
                out.append((meta.parent, name, info))
    return out


def correct_of(op_dir: Path, name: str, info: dict) -> Path:
    return op_dir / {"mkb-sources": "correct.py", "mkb-direct": "correct.json", "npukernelbench": "answer/0"}[info["format"]]


def bundle_diff(before, after) -> str:
    """A multi-file unified diff between two bundles of the same files, naming the files a/NAME and b/NAME."""
    parts = []
    for a in before.files:
        b = after.file(a.name)
        if a.text != b.text:
            parts.extend(difflib.unified_diff(a.text.splitlines(keepends=True), b.text.splitlines(keepends=True),
                                              f"a/{a.name}", f"b/{a.name}", n=3))
    # a blank context line as an empty line (the loop's diff reader takes both), so YAML keeps the diff a literal block
    return "".join("\n" if line == " \n" else line for line in parts)


def script_text(op_dir: Path, name: str, info: dict) -> str:
    from repair.ascendc import load_candidate
    from repair.ascendc.bundle import parse_bundle, to_bundle

    before = parse_bundle(to_bundle(load_candidate(op_dir / name)))
    after = parse_bundle(to_bundle(load_candidate(correct_of(op_dir, name, info))))
    diff = bundle_diff(before, after)
    assert diff, f"{op_dir.name}/{name}: no difference from the correct kernel"
    description = " ".join(info["description"].split())
    step = {
        "note": FIXES[info["bug_class"]],
        "diagnosis": {"title": info["bug_class"].replace("-", " "), "bug_class": info["bug_class"],
                      "root_cause": description, "fix": FIXES[info["bug_class"]]},
        "diff": diff,
    }
    head = (f"# Scripted repair of examples/ascendc/{op_dir.name}/{name} ({info['format']}); written by\n"
            "# examples/scripted/ascendc/build_scripts.py from the suite's correct kernel: edit the suite and rerun.\n")
    return head + yaml.dump([step], Dumper=_Literal, sort_keys=False, width=120, allow_unicode=True)


class _Literal(yaml.SafeDumper):
    """Multi-line strings (the diffs) as literal blocks, so the scripts read as diffs."""


_Literal.add_representer(str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None))


def script_path(op_dir: Path, name: str) -> Path:
    return HERE / op_dir.name / (str(Path(name).with_suffix("")) + ".yaml")


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for op_dir, name, info in near_misses():
        path, text = script_path(op_dir, name), script_text(op_dir, name, info)
        if check:
            if not path.is_file() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if stale:
        print("stale: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
