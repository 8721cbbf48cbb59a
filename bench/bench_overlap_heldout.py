"""Overlap detection on the overlap sets under heldout/, under heldout/README.md's protocol, Dolos beside.

    .venv/bin/python bench/bench_overlap_heldout.py                     # rules on the tune halves, then every half
    .venv/bin/python bench/bench_overlap_heldout.py --dolos-dir DIR     # Dolos from DIR (npm i @dodona/dolos-lib@3.5.1)
    .venv/bin/python bench/bench_overlap_heldout.py --install-dolos     # install it into a temporary directory first
    .venv/bin/python bench/bench_overlap_heldout.py --roc roc.csv       # ROC points of every detector, per half

The sets: heldout/overlap (dev: part1 its tune half, part2 "the developers' held-out half", whose per-file outcomes
were seen while developing) and heldout/overlap2 (held-out, split by operator). Each set is one cohort, as in a
freeze: every entry is scored against every cohort file of its set. The operating point is chosen by two rules
stated here, on the tune halves of both sets together, and nothing else:
  RULE_NULL       choose_ops_null: ops_null = the highest op-stream alignment (provenance.align) across languages
                  reached by a clean entry of the tune halves with a kernel whose alignment is trusted at all
                  (op weight above ops_min_weight), rounded up to 2 decimals (what independent implementations
                  of a formula reach in another language);
  RULE_THRESHOLD  choose_threshold: the lowest threshold, in steps of 0.001, at which at most 3% of the tune
                  halves' clean entries are flagged (the most leaks caught at that false-positive budget).
provenance/operating_point.py ships the values; this bench prints both and fails (exit 1) when they differ, and
tests/provenance/test_overlap_operating_point.py re-runs the rules on the committed tune halves.

Printed: the rules and their choices; the planted corpus (tests/provenance/planted_corpus.py) at the chosen
operating point; per half, caught / total by kind for ours at the chosen threshold, Dolos at the threshold the
same 3% rule picks for it on the tune halves and at Dolos' similarity 0.5, AUC for each. Never a per-file outcome
of a held-out half. Dolos (@dodona/dolos-lib 3.5.1, node): its defaults (k-gram 23, window 17, comments ignored),
one language at a time (a port to another language scores 0), an entry's score its best similarity with a cohort
file of its set. Without node or the package, a Dolos-equivalent in Python (tree-sitter node types, the same k and
w, Dice) is shown instead and labelled so.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_protocol import HELDOUT, load_split  # noqa: E402

SETS = ("overlap", "overlap2")
LEAK_KINDS = ["light", "type3", "embedded", "port"]
CLEAN_KINDS = ["same-family", "boilerplate", "independent"]
LANG = {".py": "python", ".c": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cu": "cpp", ".h": "cpp", ".hpp": "cpp"}
MAX_FP = 0.03
DOLOS_VERSION = "3.5.1"


# -- the sets --------------------------------------------------------------------------------------------------

def load(set_dir: Path):
    """(cohort {path: (code, language, operator)}, entries [dict: id, code, language, label, kind, half]) of a set.

    Two layouts: parts (heldout/overlap: <part>/labels.yaml with `cohort` and `entries`) and operators
    (<operator>/labels.yaml with `operator`, `cohort` files and `entries`)."""
    import yaml

    split = load_split(set_dir)
    cohort, entries = {}, []
    for labels in sorted(set_dir.glob("*/labels.yaml")):
        unit_dir = labels.parent
        doc = yaml.safe_load(labels.read_text())
        ops = doc["cohort"] if "operator" not in doc else [{"id": doc["operator"], "files": doc["cohort"]}]
        for op in ops:
            for f in op["files"]:
                p = unit_dir / f
                cohort[str(p.relative_to(set_dir))] = (p.read_text(), LANG[p.suffix], op["id"])
        for e in doc["entries"]:
            p = unit_dir / e["file"]
            entries.append({"id": f"{set_dir.name}/{p.relative_to(set_dir)}", "code": p.read_text(),
                            "language": LANG[p.suffix], "label": e["label"], "kind": e["kind"],
                            "half": split.half(unit_dir.name), "set": set_dir.name})
    return cohort, entries


def load_all(names=SETS, root: Path = HELDOUT):
    """{set: (cohort, entries)} of the overlap sets."""
    return {n: load(root / n) for n in names}


# -- ours -------------------------------------------------------------------------------------------------------

def matches(cohort, entries):
    """Every pair the detector aligns or scores (report floor 0), from one scan of the set against its cohort."""
    from provenance.fingerprint import fingerprints
    from provenance.overlap import OverlapIndex
    from provenance.overlap_rules import OverlapConfig

    config = OverlapConfig(report_floor=0.0, report_min_shared=1)
    index = OverlapIndex.build({k: (c, lang) for k, (c, lang, _) in cohort.items()}, config,
                               operators={k: op for k, (_, _, op) in cohort.items()})
    return index.scan((e["id"], {"source": fingerprints(e["code"], e["language"])}) for e in entries).matches


def scores(pairs, entries, config) -> dict[str, float]:
    """entry id -> provenance.overlap_rules.score of its best pair under config (0 with none)."""
    from provenance.overlap_rules import score

    best: dict[str, float] = defaultdict(float)
    for m in pairs:
        best[m.entry_id] = max(best[m.entry_id], score(m, config))
    return {e["id"]: best[e["id"]] for e in entries}


def choose_ops_null(pairs, entries) -> float:
    """RULE_NULL: the highest cross-language alignment a clean entry reaches with a trusted kernel, rounded up to
    2 decimals (an alignment of trust 0 scores nothing whatever the null: it is not evidence of what they reach)."""
    from provenance.overlap_rules import OverlapConfig, trust

    config = OverlapConfig()
    clean = {e["id"] for e in entries if e["label"] == "clean"}
    top = max((m.aligned for m in pairs if m.representation == "ops" and m.entry_id in clean
               and trust(m, config) > 0), default=0.0)
    return min(0.99, math.ceil(round(top * 100, 6)) / 100)


def choose_threshold(entry_scores: dict[str, float], entries, max_fp: float = MAX_FP) -> float:
    """RULE_THRESHOLD: the lowest threshold (a multiple of 0.001) at which at most max_fp of the clean entries score
    at or above it."""
    clean = sorted((entry_scores[e["id"]] for e in entries if e["label"] == "clean"), reverse=True)
    allowed = int(max_fp * len(clean))
    if allowed >= len(clean):
        return 0.0
    return round(math.floor(round(clean[allowed] * 1000, 6)) / 1000 + 0.001, 3)


def operating_point(data) -> tuple[float, float, dict]:
    """(ops_null, threshold) the rules choose on the tune halves of data ({set: (cohort, entries)}), and the pairs."""
    from provenance.overlap_rules import OverlapConfig

    pairs = {n: matches(c, es) for n, (c, es) in data.items()}
    half = {e["id"]: e["half"] for _, es in data.values() for e in es}
    tune_pairs = [m for ms in pairs.values() for m in ms if half[m.entry_id] == "tune"]
    tune = [e for _, es in data.values() for e in es if e["half"] == "tune"]
    null = choose_ops_null(tune_pairs, tune)
    config = OverlapConfig(ops_null=null)
    s = {}
    for n, (_, es) in data.items():
        s.update(scores(pairs[n], es, config))
    return null, choose_threshold(s, tune), pairs


# -- Dolos --------------------------------------------------------------------------------------------------------

DOLOS_JS = """
import { Dolos } from "@dodona/dolos-lib";
const [language, listFile] = process.argv.slice(2);
const fs = await import("fs");
const paths = JSON.parse(fs.readFileSync(listFile, "utf8"));
const report = await new Dolos({ language }).analyzePaths(paths);
const out = report.allPairs().map(p => [p.leftFile.path, p.rightFile.path, p.similarity]);
console.log(JSON.stringify(out));
"""


def install_dolos(into: Path) -> Path:
    """npm install @dodona/dolos-lib into `into` (its parsers build with node-gyp); returns the directory."""
    into.mkdir(parents=True, exist_ok=True)
    (into / "package.json").write_text('{"name": "dolos-bench", "private": true, "type": "module"}\n')
    run = dict(cwd=into, check=True, capture_output=True, timeout=900)
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", f"@dodona/dolos-lib@{DOLOS_VERSION}"], **run)
    subprocess.run(["npm", "install-scripts", "approve", "--all"], **{**run, "check": False})
    subprocess.run(["npm", "rebuild"], **run)
    return into


def dolos(data, dolos_dir: Path) -> dict[str, float]:
    """entry id -> its best Dolos similarity with a cohort file of its set in its language."""
    out: dict[str, float] = {}
    (dolos_dir / "dolos_pairs.mjs").write_text(DOLOS_JS)
    for name, (cohort, entries) in data.items():
        for lang, ext, dl in (("python", ".py", "python"), ("cpp", ".cpp", "cpp")):
            with tempfile.TemporaryDirectory() as tmp:
                files, kind = [], {}
                for i, (path, (code, language, _)) in enumerate(cohort.items()):
                    if language == lang:
                        files.append(_write(Path(tmp) / f"c{i}{ext}", code))
                        kind[files[-1]] = ("cohort", path)
                for i, e in enumerate(entries):
                    if e["language"] == lang:
                        files.append(_write(Path(tmp) / f"e{i}{ext}", e["code"]))
                        kind[files[-1]] = ("entry", e["id"])
                if not any(k == "cohort" for k, _ in kind.values()):
                    continue
                lst = Path(tmp) / "files.json"
                lst.write_text(json.dumps(files))
                res = subprocess.run(["node", str(dolos_dir / "dolos_pairs.mjs"), dl, str(lst)], cwd=dolos_dir,
                                     check=True, capture_output=True, text=True, timeout=900)
                for left, right, sim in json.loads(res.stdout):
                    a, b = kind.get(left), kind.get(right)
                    for x, y in ((a, b), (b, a)):
                        if x and y and x[0] == "entry" and y[0] == "cohort":
                            out[x[1]] = max(out.get(x[1], 0.0), float(sim))
    return {e["id"]: out.get(e["id"], 0.0) for _, es in data.values() for e in es}


def _write(p: Path, text: str) -> str:
    p.write_text(text)
    return str(p)


def dolos_equivalent(data) -> dict[str, float]:
    """Dolos' method in Python (node types in pre-order with open/close marks, k=23, w=17, Dice per pair)."""
    out = {}
    for cohort, entries in data.values():
        fps = {k: (_dolos_fingerprints(c, lang), lang) for k, (c, lang, _) in cohort.items()}
        for e in entries:
            mine = _dolos_fingerprints(e["code"], e["language"])
            out[e["id"]] = max((2 * len(mine & theirs) / (len(mine) + len(theirs))
                                for theirs, lang in fps.values() if lang == e["language"] and (mine or theirs)),
                               default=0.0)
    return out


def _dolos_fingerprints(code: str, language: str, k: int = 23, w: int = 17) -> set[int]:
    from provenance.parsing import parse

    toks, stack = [], [(parse(code, language).root_node, False)]
    while stack:
        node, closing = stack.pop()
        if closing:
            toks.append(")")
            continue
        if not node.is_named or node.type == "comment":
            continue
        toks.append("(" + node.type)
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(node.children))
    hs = [int.from_bytes(hashlib.blake2b("\0".join(toks[i:i + k]).encode(), digest_size=8).digest(), "little")
          for i in range(len(toks) - k + 1)]
    if len(hs) <= w:
        return {min(hs)} if hs else set()
    keep, last = set(), -1
    for i in range(len(hs) - w + 1):
        win = hs[i:i + w]
        j = i + max(range(w), key=lambda x: (-win[x], x))  # rightmost minimum
        if j != last:
            keep.add(hs[j])
            last = j
    return keep


# -- figures ------------------------------------------------------------------------------------------------------

def auc(s: dict[str, float], entries) -> float:
    pos = [s[e["id"]] for e in entries if e["label"] == "leak"]
    neg = [s[e["id"]] for e in entries if e["label"] == "clean"]
    if not pos or not neg:
        return float("nan")
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def roc(s: dict[str, float], entries) -> list[tuple[float, float, float]]:
    """(threshold, false-positive rate, recall) at every distinct score (aggregate: no entry is named)."""
    pos = [s[e["id"]] for e in entries if e["label"] == "leak"]
    neg = [s[e["id"]] for e in entries if e["label"] == "clean"]
    return [(t, sum(n >= t for n in neg) / len(neg), sum(p >= t for p in pos) / len(pos))
            for t in sorted(set(pos + neg), reverse=True)]


def rates(s: dict[str, float], entries, t: float) -> dict[str, str]:
    by = defaultdict(lambda: [0, 0])
    for e in entries:
        for key in (e["kind"], "all " + e["label"] + "s"):
            by[key][0] += s[e["id"]] >= t
            by[key][1] += 1
    return {k: f"{a}/{n}" for k, (a, n) in by.items()}


def report(data, ours: dict[str, float], threshold: float, others: list[tuple[str, dict, float]]) -> list[str]:
    """The per-half tables: caught / total by kind, AUC; aggregates only."""
    halves = [("overlap", "tune", "heldout/overlap part1: tune half (dev)"),
              ("overlap", "heldout", "heldout/overlap part2: the developers' held-out half (dev: outcomes were seen)"),
              ("overlap2", "tune", "heldout/overlap2: tune half"),
              ("overlap2", "heldout", "heldout/overlap2: HELD-OUT half")]
    cols = [("ours", ours, threshold)] + others
    out = []
    for name, half, title in halves:
        if name not in data:
            continue
        part = [e for e in data[name][1] if e["half"] == half]
        table = [rates(s, part, t) for _, s, t in cols]
        out += ["", f"{title}: {len(part)} entries, flagged / total",
                f"{'kind':<16}" + "".join(f"{c[0]:>22}" for c in cols),
                f"{'threshold':<16}" + "".join(f"{c[2]:>22.3f}" for c in cols)]
        for kind in LEAK_KINDS + ["all leaks"] + CLEAN_KINDS + ["all cleans"]:
            if any(kind in t for t in table):
                out.append(f"{kind:<16}" + "".join(f"{t.get(kind, '-'):>22}" for t in table))
        out.append(f"{'AUC':<16}" + "".join(f"{auc(c[1], part):>22.3f}" for c in cols))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dolos-dir", type=Path, help="a directory where @dodona/dolos-lib is installed")
    ap.add_argument("--install-dolos", action="store_true", help="npm-install Dolos into a temporary directory")
    ap.add_argument("--no-dolos", action="store_true", help="show the Dolos-equivalent only")
    ap.add_argument("--no-planted", action="store_true", help="skip the planted corpus")
    ap.add_argument("--roc", type=Path, help="write every detector's ROC points per half here (CSV)")
    args = ap.parse_args(argv)

    from provenance import operating_point as shipped
    from provenance.overlap_rules import OverlapConfig

    data = load_all()
    t0, c0 = time.perf_counter(), time.process_time()
    null, threshold, pairs = operating_point(data)
    config = OverlapConfig(ops_null=null, threshold=threshold)
    ours = {}
    for n, (_, es) in data.items():
        ours.update(scores(pairs[n], es, config))
    t_ours, c_ours = time.perf_counter() - t0, time.process_time() - c0
    tune = [e for _, es in data.values() for e in es if e["half"] == "tune"]
    n_clean = sum(e["label"] == "clean" for e in tune)
    print("Operating point, chosen on the tune halves (heldout/overlap part1 + heldout/overlap2's tune half: "
          f"{len(tune)} entries, {n_clean} clean)")
    print(f"  RULE_NULL       highest cross-language op alignment of a clean tune entry, rounded up: ops_null = {null}")
    print(f"  RULE_THRESHOLD  lowest threshold with <= {MAX_FP:.0%} of the {n_clean} clean tune entries flagged "
          f"({int(MAX_FP * n_clean)} allowed): threshold = {threshold}")
    same = (shipped.OPS_NULL, shipped.THRESHOLD) == (null, threshold)
    print(f"  shipped (provenance/operating_point.py): ops_null = {shipped.OPS_NULL}, threshold = {shipped.THRESHOLD}"
          f" -> {'the rules choose the shipped values' if same else 'DIFFERENT from what the rules choose'}")
    print(f"  scored {sum(len(es) for _, es in data.values())} entries in {t_ours:.1f} s wall / {c_ours:.1f} s CPU")

    if not args.no_planted:
        from bench_overlap import planted_summary

        print(f"\nPlanted corpus (tests/provenance/planted_corpus.py) at ops_null {null}, threshold {threshold}")
        print(f"  {'cohorts':<12}{'copies found':>14}{'other code flagged':>20}")
        for label, found, fp in planted_summary(config):
            print(f"  {label:<12}{found:>14}{fp:>20}")

    others = []
    tune_ids = tune
    if not args.no_dolos:
        dolos_dir = args.dolos_dir
        tmp = None
        try:
            if dolos_dir is None and args.install_dolos and shutil.which("npm"):
                tmp = Path(tempfile.mkdtemp(prefix="dolos-"))
                dolos_dir = install_dolos(tmp)
            if dolos_dir is not None and shutil.which("node"):
                t0 = time.perf_counter()
                s = dolos(data, dolos_dir)
                print(f"\nDolos {DOLOS_VERSION} (node, {dolos_dir}): {time.perf_counter() - t0:.1f} s")
                others += [("Dolos @ tuned", s, choose_threshold(s, tune_ids)), ("Dolos @ 0.5", s, 0.5)]
        except (subprocess.SubprocessError, OSError, json.JSONDecodeError) as exc:
            print(f"\nDolos not run ({type(exc).__name__}: {str(exc)[:200]}); the Dolos-equivalent stands in")
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
    if not others:
        s = dolos_equivalent(data)
        others += [("Dolos-equiv @ tuned", s, choose_threshold(s, tune_ids)), ("Dolos-equiv @ 0.5", s, 0.5)]
    print("\n".join(report(data, ours, threshold, others)))
    if args.roc:
        with open(args.roc, "w") as fh:
            fh.write("detector,set,half,threshold,fpr,recall\n")
            for name, s, _ in [("ours", ours, threshold)] + others[:1]:
                for set_name, (_, es) in data.items():
                    for half in ("tune", "heldout"):
                        for t, fpr, rec in roc(s, [e for e in es if e["half"] == half]):
                            fh.write(f"{name.split(' @')[0]},{set_name},{half},{t:.4f},{fpr:.4f},{rec:.4f}\n")
        print(f"\nROC points: {args.roc}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
