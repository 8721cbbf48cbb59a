"""The text of an imported problem.py: upstream's file unchanged, then the cases and the builders that set them."""
from __future__ import annotations

import textwrap
from typing import Any

from repair.kernelbench.source import Assignment

BEGIN = "# ---- upstream file, unchanged: "
END = "# ---- written by `repair import kernelbench` "
HELPERS = ("_kb_torch", "_kb_upstream_get_inputs", "_kb_upstream_get_init_inputs", "_kb_recompute", "_kb_build",
           "_kb_strided", "_KB_TUPLES", "_KB_DERIVED", "UPSTREAM", "OPERATOR", "CASES", "TOLERANCE")
# KernelBench's own check (src/eval.py): torch.allclose(output, output_new, atol=1e-02, rtol=1e-02). The engine's
# rule (an element fails when its error exceeds atol AND rtol*|ref|) with these values is at most twice as strict
# as allclose's (atol + rtol*|ref|): what passes here passes KernelBench's check.
TOLERANCE = {"atol": 1e-2, "rtol": 1e-2}

_BUILDERS = '''

def _kb_build(build, case):
    """Run an upstream input builder with the case's size constants set, then put upstream's values back."""
    g = globals()
    saved = {n: g[n] for n in (*UPSTREAM["sizes"], *_KB_DERIVED) if n in g}
    try:
        for n in UPSTREAM["sizes"]:
            if n in case:
                g[n] = tuple(case[n]) if n in _KB_TUPLES else case[n]
        _kb_recompute()
        return list(build())
    finally:
        g.update(saved)


def _kb_strided(values):
    """The same values, each tensor every other element of storage twice its size: none is contiguous."""
    out = []
    for v in values:
        if isinstance(v, _kb_torch.Tensor) and v.numel() > 1:
            buf = v.new_empty(*v.shape, 2)
            buf[..., 0] = v
            v = buf[..., 0]
        out.append(v)
    return out


def get_inputs(**case):
    inputs = _kb_build(_kb_upstream_get_inputs, case)
    return _kb_strided(inputs) if case.get("layout") == "strided" else inputs


def get_init_inputs(**case):
    return _kb_build(_kb_upstream_get_init_inputs, case)
'''


def render_problem(*, upstream_text: str, file: str, sha256: str, operator_id: str, family: str,
                   sizes: dict[str, Any], kept: dict[str, str], recompute: tuple[Assignment, ...],
                   cases: list[dict[str, Any]], summary: str, has_get_init_inputs: bool) -> str:
    """problem.py for one upstream file. `sizes`: upstream's values of the constants the cases set."""
    head = (f'"""KernelBench problem {operator_id}, imported by `repair import kernelbench`.\n\n'
            + textwrap.fill(f"{file} follows unchanged (sha256 {sha256}). After it, CASES set its size constants "
                            f"({', '.join(sizes) or 'none'}): get_inputs(**case) and get_init_inputs(**case) run "
                            "upstream's with them set (and what upstream computes from them), then put upstream's "
                            "values back; a strided case hands every input over in non-contiguous storage.",
                            width=116, break_on_hyphens=False)
            + "\n\n" + textwrap.fill(summary, width=116, break_on_hyphens=False) + '\n"""\n')
    derived = tuple(n for a in recompute for n in a.names)
    tuples = tuple(n for n, v in sizes.items() if isinstance(v, tuple))
    upstream = {"file": file, "sha256": sha256, "sizes": {n: list(v) if isinstance(v, tuple) else v
                                                          for n, v in sizes.items()}, "kept": kept}
    if recompute:
        body = (f"    global {', '.join(derived)}\n"
                + "".join(textwrap.indent(a.source, "    ") + "\n" for a in recompute))
    else:
        body = "    pass\n"
    init = ("_kb_upstream_get_init_inputs = get_init_inputs\n" if has_get_init_inputs else
            "\n\ndef _kb_upstream_get_init_inputs():\n    return []\n")
    tail = (f"{END}{'-' * (116 - len(END))}\n"
            "import torch as _kb_torch\n\n"
            f"OPERATOR = {{'id': {operator_id!r}, 'family': {family!r}}}\n"
            f"UPSTREAM = {_pretty(upstream)}\n"
            "CASES = [\n" + "".join(f"    {c!r},\n" for c in cases) + "]\n"
            f"TOLERANCE = {TOLERANCE!r}  # KernelBench's check: torch.allclose(atol=1e-02, rtol=1e-02)\n"
            f"_KB_TUPLES = {tuples!r}  # upstream writes these as tuples, a case as lists\n"
            f"_KB_DERIVED = {derived!r}  # upstream computes these from the sizes\n"
            "_kb_upstream_get_inputs = get_inputs\n" + init +
            "\n\ndef _kb_recompute():\n"
            '    """Upstream\'s assignments that read a size constant, run again once a case has set it."""\n'
            + body + _BUILDERS)
    return f"{head}{BEGIN}{file} {'-' * max(4, 116 - len(BEGIN) - len(file))}\n{upstream_text}\n{tail}"


def upstream_of(problem_text: str) -> str | None:
    """The upstream file embedded in an imported problem.py, byte for byte (None: not one)."""
    start = problem_text.find(BEGIN)
    end = problem_text.rfind("\n" + END)
    if start < 0 or end < 0:
        return None
    start = problem_text.index("\n", start) + 1
    return problem_text[start:end]


def _pretty(value: dict) -> str:
    """A dict one key a line."""
    return "{\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in value.items()) + "}"
