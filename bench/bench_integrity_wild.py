"""Integrity on published Triton code: `repair check` and `repair eval` beside an independent checker.

    python bench/bench_integrity_wild.py --source liger=/tmp/wild/Liger-Kernel --source attorch=/tmp/attorch \
        --traces qwen3+glm45=/tmp/mtk [--manifest bench/integrity_wild.yaml] [--only ID] [--json OUT]

Published code is never committed. `--source NAME=DIR` names a checkout of a library listed in the manifest
(bench/integrity_wild.yaml: per kernel the module inside that checkout, what to call, a torch reference, the
inputs and the ground-truth label with its source). The module is flattened into one candidate file (its own
package's imports inlined, dependencies first), a KernelBench-style problem.py and a `ModelNew` wrapper are
written into a temporary directory. `--traces NAME=DIR` reads LLM-written kernel sets laid out as JSON lists of
{pytorch_code, triton_code | final_triton_code, result | final_result} (KernelBook/KernelBench problems with a
`triton_kernel_wrapper`, the source's own GPU correctness label in `result`).

For each kernel: `repair check`, `repair eval` (triton-cpu) and, beside them, the independent checker: a plain
subprocess that imports both files under TRITON_INTERPRET=1, counts launches of interpreted kernels and compares
ModelNew's outputs with Model's by torch.allclose (no part of this engine). A kernel with no launch there is a
fallback whatever its label says. Per source it prints: honest kernels flagged as cheats (check / eval), policy
findings, numerically wrong kernels failing, fallbacks rejected, interpreter limits named, agreement with the
independent checker.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = Path(__file__).with_name("integrity_wild.yaml")


# -- building candidates ------------------------------------------------------------------------------

def _module_file(root: Path, package_roots: list[str], dotted: str) -> Path | None:
    for pr in package_roots:
        base = root / pr / Path(*dotted.split("."))
        for p in (base.with_suffix(".py"), base / "__init__.py"):
            if p.is_file():
                return p
    return None


def _resolve_from(root: Path, package_roots: list[str], here: Path, node: ast.ImportFrom) -> Path | None:
    if node.level:
        base = here.parent
        for _ in range(node.level - 1):
            base = base.parent
        dotted = node.module or ""
        target = base / Path(*dotted.split(".")) if dotted else base
        for p in (target.with_suffix(".py"), target / "__init__.py"):
            if p.is_file():
                return p
        return None
    return _module_file(root, package_roots, node.module or "")


def _keep_stmt(stmt, defs_only: bool) -> bool:
    if is_main(stmt):
        return False
    if not defs_only:
        return True
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
        return True
    return isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.Constant, ast.Lambda, ast.Dict, ast.Tuple))


def is_main(stmt) -> bool:
    return isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test)


def flatten(root: Path, module: str, package_roots: list[str], defs_only=False, drop_imports=()) -> str:
    """The module's text with its own package's imports replaced by those modules (inlined once, dependencies
    first); `from __future__` lines hoisted; imports named in drop_imports removed."""
    done: set[Path] = set()
    futures: set[str] = set()
    parts: list[str] = []

    def visit(path: Path) -> None:
        if path in done:
            return
        done.add(path)
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        lines = text.splitlines()
        out = []
        for stmt in tree.body:
            first = stmt.decorator_list[0].lineno if getattr(stmt, "decorator_list", None) else stmt.lineno
            seg = "\n".join(lines[first - 1:stmt.end_lineno])
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                futures.add(seg.strip())
                continue
            if isinstance(stmt, (ast.Import, ast.ImportFrom)) and any(
                    d in ast.unparse(stmt) for d in drop_imports):
                continue
            if isinstance(stmt, ast.ImportFrom):
                dep = _resolve_from(root, package_roots, path, stmt)
                if dep is not None and dep.name != "__init__.py":
                    visit(dep)
                    aliases = [f"{a.asname} = {a.name}" for a in stmt.names if a.asname and a.asname != a.name]
                    out += aliases
                    continue
                if dep is not None:  # a package's __init__: its names are elsewhere; leave the import out
                    continue
            if _keep_stmt(stmt, defs_only):
                out.append(seg)
        parts.append(f"# ---- {path.relative_to(root)}\n" + "\n".join(out))

    visit(root / module)
    return "\n".join(sorted(futures) + [""] + parts) + "\n"


def problem_text(params: list[str], inputs: list[str], reference: str, init: list[str] | None = None) -> str:
    sig = ", ".join(params)
    return (f'"""Generated by bench/bench_integrity_wild.py."""\nimport torch\nimport torch.nn.functional as F\n\n\n'
            f"class Model(torch.nn.Module):\n    def __init__(self, *args):\n        super().__init__()\n\n"
            f"    def forward(self, {sig}):\n        return {reference}\n\n\n"
            f"def get_inputs():\n    return [{', '.join(inputs)}]\n\n\n"
            f"def get_init_inputs():\n    return [{', '.join(init or [])}]\n")


def wrapper_text(params: list[str], call: str, prelude: str = "") -> str:
    return (f"\n\n# ---- the wrapper (bench/bench_integrity_wild.py)\n{prelude}\n"
            f"class ModelNew(torch.nn.Module):\n    def __init__(self, *args):\n        super().__init__()\n\n"
            f"    def forward(self, {', '.join(params)}):\n        return {call}\n")


def manifest_kernels(manifest: Path, sources: dict[str, Path]) -> list[dict]:
    import yaml

    data = yaml.safe_load(manifest.read_text())
    out = []
    for src_name, src in data["sources"].items():
        if src_name not in sources:
            continue
        root = sources[src_name]
        for k in src["kernels"]:
            params = [f"x{i}" for i in range(len(k["inputs"]))]
            try:
                body = flatten(root, k["module"], src.get("package_roots", ["."]), k.get("defs_only", src.get("defs_only", False)),
                               src.get("drop_imports", []))
            except (OSError, SyntaxError) as e:
                out.append({"id": f"{src_name}/{k['id']}", "source": src_name, "label": k["label"], "skip": str(e)})
                continue
            cand = src.get("preamble", "") + body + wrapper_text(params, k["call"], src.get("prelude", ""))
            out.append({"id": f"{src_name}/{k['id']}", "source": src_name, "label": k["label"],
                        "label_source": k.get("label_source", src.get("label_source", "")),
                        "problem": problem_text(params, k["inputs"], k["reference"]), "candidate": cand})
    return out


_RESULT = re.compile(r"'correctness': (True|False)")


def _required_params(code: str, name: str = "triton_kernel_wrapper") -> int | None:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and n.name == name:
            a = n.args
            return len(a.posonlyargs + a.args) - len(a.defaults)
    return None


def _model_class(code: str) -> tuple[str, int] | None:
    """KernelBook's model: the last module class with a concrete forward (an abstract base such as
    `class Regularizer(nn.Module, ABC)` with an @abstractmethod forward comes first and cannot be built)."""
    tree = ast.parse(code)
    modules: set[str] = set()
    found = None
    for n in tree.body:
        if isinstance(n, ast.ClassDef) and any(ast.unparse(b).endswith("Module") or ast.unparse(b) in modules
                                               for b in n.bases):
            modules.add(n.name)
            for f in n.body:
                if isinstance(f, ast.FunctionDef) and f.name == "forward" and not any(
                        ast.unparse(d).endswith("abstractmethod") for d in f.decorator_list):
                    found = n.name, len(f.args.args) - 1
    return found


# KernelBook problems name their module class freely and give init inputs as [args, kwargs]; KernelBench's Model takes
# positional ones: the generated problem builds the class with what get_init_inputs says, and takes none itself
_INIT_ADAPTER = """


# ---- generated by bench/bench_integrity_wild.py
_wild_init, _wild_cls = get_init_inputs, {cls}


class Model(_wild_cls):
    def __init__(self):
        a = _wild_init()
        args, kwargs = (a[0], a[1]) if len(a) == 2 and isinstance(a[0], list) and isinstance(a[1], dict) else (a, {{}})
        super().__init__(*args, **kwargs)


def get_init_inputs():
    return []
"""


def trace_kernels(name: str, folder: Path) -> list[dict]:
    out, seen = [], set()
    for f in sorted(folder.glob("*.json")):
        try:
            rows = json.loads(f.read_text())
        except ValueError:
            continue
        for r in rows if isinstance(rows, list) else []:
            code = r.get("triton_code") or r.get("final_triton_code")
            res = r.get("result") or r.get("final_result")
            ref = r.get("pytorch_code")
            if not code or not ref or res is None:
                continue
            res = res if isinstance(res, dict) else ast.literal_eval(res)
            key = (r.get("sample_key"), code)
            if key in seen:
                continue
            seen.add(key)
            need = _required_params(code)
            try:
                model = _model_class(ref)
            except SyntaxError:
                model = None
            if need is None or model is None or need > model[1]:
                continue  # the wrapper needs the model's weights: no honest way to hand them over here
            err = res.get("error")
            label = "honest-correct" if res.get("correctness") else "honest-wrong" if not err else "gpu-error"
            params = [f"x{i}" for i in range(model[1])]
            cand = code + wrapper_text(params, f"triton_kernel_wrapper({', '.join(params[:need])})")
            problem = ref + _INIT_ADAPTER.format(cls=model[0])
            idx = sum(1 for o in out if o["id"].startswith(f"{name}/{r.get('sample_key')}"))
            out.append({"id": f"{name}/{r.get('sample_key')}#{idx}", "source": name, "label": label,
                        "label_source": f"{f.name}: the source's GPU check ({str(err)[:60] if err else 'no error'})",
                        "problem": problem, "candidate": cand})
    return out


# -- running ------------------------------------------------------------------------------------------

def _env() -> dict:
    env = dict(os.environ, TRITON_INTERPRET="1", REPAIR_BACKEND="triton-cpu", PYTHONPATH=str(ROOT))
    return env


def _run(cmd: list[str], timeout: float) -> tuple[int, str, float]:
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env(), cwd=ROOT)
        return p.returncode, p.stdout + ("\n" + p.stderr if p.returncode not in (0, 1) else ""), time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        return 124, "timeout", time.perf_counter() - t0


def _last_json(text: str) -> dict | None:
    try:
        return json.loads(text[text.index("{"):text.rindex("}") + 1])
    except ValueError:
        return None


def independent(problem: str, candidate: str) -> dict:
    """The independent checker, run in its own process: no part of this engine."""
    import importlib.util

    import torch

    def load(path, name):
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod

    launches = [0]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        orig = InterpretedFunction.run

        def run(self, *a, **k):
            launches[0] += 1
            return orig(self, *a, **k)

        InterpretedFunction.run = run
        from triton.runtime.autotuner import Autotuner

        init = Autotuner.__init__

        def tuner(self, *a, do_bench=None, **k):  # no driver to time configs with: each runs once, the first wins
            init(self, *a, do_bench=do_bench or (lambda fn, quantiles=None, **_: (fn(), 1.0)[1]), **k)

        Autotuner.__init__ = tuner
    except ImportError:
        pass
    try:
        prob = load(problem, "wild_problem")
    except BaseException as e:  # noqa: BLE001
        return {"status": "problem-error", "error": f"{type(e).__name__}: {e}"[:200]}
    try:
        cand = load(candidate, "wild_candidate")
    except BaseException as e:  # noqa: BLE001
        return {"status": "load-error", "error": f"{type(e).__name__}: {e}"[:200]}
    torch.manual_seed(0)
    init = prob.get_init_inputs() if hasattr(prob, "get_init_inputs") else []
    inputs = prob.get_inputs()
    torch.manual_seed(1)
    ref_model = prob.Model(*init)
    torch.manual_seed(1)
    try:
        model = cand.ModelNew(*init)
    except BaseException as e:  # noqa: BLE001
        return {"status": "error", "error": f"{type(e).__name__}: {e}"[:200]}
    originals = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
    with torch.no_grad():
        expected = ref_model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
        try:
            got = model(*inputs)
        except BaseException as e:  # noqa: BLE001
            return {"status": "error", "launches": launches[0], "error": f"{type(e).__name__}: {e}"[:200]}
    mutated = any(isinstance(a, torch.Tensor) and not torch.equal(a, b) for a, b in zip(inputs, originals))

    def flat(o):
        return list(o) if isinstance(o, (tuple, list)) else [o]

    exp, out = flat(expected), flat(got)
    ok = len(exp) == len(out) and all(
        isinstance(g, torch.Tensor) and g.shape == e.shape
        and torch.allclose(g.float(), e.float(), atol=1e-2 if e.dtype in (torch.float16, torch.bfloat16) else 1e-4,
                           rtol=1e-2 if e.dtype in (torch.float16, torch.bfloat16) else 1e-4, equal_nan=True)
        for g, e in zip(out, exp) if isinstance(e, torch.Tensor))
    return {"status": "pass" if ok else "mismatch", "launches": launches[0], "mutated": mutated}


def judge(k: dict, tmp: Path, timeout: float, tier: str = "full") -> dict:
    d = tmp / re.sub(r"[^A-Za-z0-9_]+", "_", k["id"])
    d.mkdir(parents=True, exist_ok=True)
    (d / "problem.py").write_text(k["problem"])
    (d / "candidate.py").write_text(k["candidate"])
    py = sys.executable
    rc_c, out_c, t_c = _run([py, "-m", "repair", "check", str(d / "problem.py"), str(d / "candidate.py"), "--json"],
                            timeout)
    rc_e, out_e, t_e = _run([py, "-m", "repair", "eval", str(d / "problem.py"), str(d / "candidate.py"), "--json",
                             "--tier", tier, "--timeout", str(timeout), "--seed", "7"], timeout * 6)
    rc_i, out_i, _ = _run([py, __file__, "--independent", str(d / "problem.py"), str(d / "candidate.py")], timeout * 2)
    check, ev, ind = _last_json(out_c), _last_json(out_e), _last_json(out_i)
    return {"id": k["id"], "source": k["source"], "label": k["label"], "check_rc": rc_c, "eval_rc": rc_e,
            "check": check, "eval": ev, "independent": ind or {"status": "crash", "error": out_i[-200:]},
            "check_text": out_c[-300:] if check is None else "", "eval_text": out_e[-300:] if ev is None else "",
            "seconds": round(t_c + t_e, 1)}


# -- the table ----------------------------------------------------------------------------------------

def _cheats(verdict: dict | None) -> list[str]:
    """Rules of findings that fail as cheats (every finding, for verdicts without levels)."""
    if not verdict:
        return []
    return sorted({f["rule"] for f in verdict.get("findings", []) if f.get("level", "cheat") == "cheat"})


def _policy(verdict: dict | None) -> list[str]:
    if not verdict:
        return []
    return sorted({f["rule"] for f in verdict.get("findings", []) if f.get("level") == "policy"})


def classify(r: dict) -> dict:
    ind = r["independent"]
    label = r["label"]
    if ind.get("status") in ("pass", "mismatch") and ind.get("launches", 1) == 0:
        label = "fallback"  # no kernel ran in the independent checker: whatever the source says
    ev = r["eval"] or {}
    cases = ev.get("cases", [])
    statuses = sorted({c["status"] for c in cases})
    unsupported = any(c.get("status") == "unsupported-on-interpreter" for c in cases)
    ck = r["check"] if isinstance(r["check"], dict) and "verdict" in r["check"] else None
    return {**r, "truth": label, "statuses": statuses, "numerics": ev.get("numerics_passed"),
            "passed": ev.get("passed"), "check_cheats": _cheats(ck), "eval_cheats": _cheats(ev.get("integrity")),
            "policy": sorted(set(_policy(ck)) | set(_policy(ev.get("integrity")))), "unsupported": unsupported,
            "load_error": r["check_rc"] == 2 or r["eval_rc"] == 2}


def table(rows: list[dict]) -> str:
    by = defaultdict(list)
    for r in rows:
        by[r["source"]].append(r)
    head = (f"{'source':<12} {'n':>3} {'ok/wrong/fb/err':>15} {'honest cheat chk':>16} {'honest cheat eval':>17} "
            f"{'policy':>6} {'wrong fail':>10} {'fb rejected':>11} {'unsup':>5} {'agree':>7}")
    lines = [head, "-" * len(head)]
    for src, rs in sorted(by.items()):
        ok = [r for r in rs if r["truth"] == "honest-correct"]
        wrong = [r for r in rs if r["truth"] == "honest-wrong"]
        fb = [r for r in rs if r["truth"] == "fallback"]
        err = [r for r in rs if r["truth"] == "gpu-error"]
        honest = ok + wrong + err
        agree = [r for r in rs if r["independent"].get("status") in ("pass", "mismatch")
                 and r["numerics"] is not None and (r["independent"]["status"] == "pass") == bool(r["numerics"])]
        comparable = [r for r in rs if r["independent"].get("status") in ("pass", "mismatch") and r["numerics"] is not None]
        counts = f"{len(ok)}/{len(wrong)}/{len(fb)}/{len(err)}"
        wrong_fail = f"{sum(not r['passed'] for r in wrong)}/{len(wrong)}"
        fb_rej = f"{sum(not r['passed'] for r in fb)}/{len(fb)}"
        lines.append(
            f"{src:<12} {len(rs):>3} {counts:>15} "
            f"{sum(bool(r['check_cheats']) for r in honest):>9} of {len(honest):<4} "
            f"{sum(bool(r['eval_cheats']) for r in honest):>10} of {len(honest):<4} "
            f"{sum(bool(r['policy']) for r in rs):>6} {wrong_fail:>10} {fb_rej:>11} "
            f"{sum(r['unsupported'] for r in rs):>5} {f'{len(agree)}/{len(comparable)}':>7}")
    return "\n".join(lines)


def detail(r: dict) -> str:
    ind = r["independent"]
    return (f"  {r['id']:<40} {r['truth']:<15} eval={','.join(r['statuses']) or '-':<22} "
            f"passed={r['passed']!s:<5} indep={ind.get('status')}/{ind.get('launches', '-')} "
            f"cheat={'+'.join(sorted(set(r['check_cheats']) | set(r['eval_cheats']))) or '-'} "
            f"policy={'+'.join(r['policy']) or '-'}{' LOAD-ERROR' if r['load_error'] else ''}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--traces", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("--only", default=None, help="a regular expression over kernel ids")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--tier", choices=("compact", "full"), default="full",
                    help="repair eval's tier (compact: its first cases, about half the time on a busy machine)")
    ap.add_argument("--json", type=Path, default=None, help="write the per-kernel rows here")
    ap.add_argument("--keep", type=Path, default=None, help="write the generated files here (not a temp dir)")
    ap.add_argument("--independent", nargs=2, metavar=("PROBLEM", "CANDIDATE"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.independent:
        print(json.dumps(independent(*a.independent)))
        return
    sources = {s.split("=", 1)[0]: Path(s.split("=", 1)[1]) for s in a.source}
    kernels = manifest_kernels(a.manifest, sources)
    for t in a.traces:
        name, folder = t.split("=", 1)
        kernels += trace_kernels(name, Path(folder))
    if a.only:
        kernels = [k for k in kernels if re.search(a.only, k["id"])]
    skipped = [k for k in kernels if "skip" in k]
    kernels = [k for k in kernels if "skip" not in k]
    t0, c0 = time.perf_counter(), os.times()
    rows = []
    with tempfile.TemporaryDirectory(prefix="wild-") as tmp:
        base = a.keep or Path(tmp)
        for k in kernels:
            r = classify(judge(k, base, a.timeout, a.tier))
            rows.append(r)
            print(detail(r), flush=True)
    c1 = os.times()
    print()
    print(table(rows))
    print(f"\n{len(rows)} kernels, {len(skipped)} skipped; wall {time.perf_counter() - t0:.0f} s, CPU "
          f"{(c1.children_user + c1.children_system) - (c0.children_user + c0.children_system):.0f} s (children)")
    for k in skipped:
        print(f"  skipped {k['id']}: {k['skip']}")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1, default=str))


if __name__ == "__main__":
    main()
