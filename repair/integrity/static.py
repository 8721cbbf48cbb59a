"""Static integrity scan: parse the candidate and judge everything ModelNew.__init__/forward can reach.

Forward-reachable code ("strict") may allocate, view, copy and launch kernels; __init__-only code ("init")
may also initialise weights like the reference (random, nn.init, nn modules, arithmetic on them).
Module-level statements run at import and are judged too; `if __name__ == "__main__":` never runs.
"""
from __future__ import annotations

import ast
from pathlib import Path

from provenance.readfile import describe, read_text
from repair.ascendc import AscendCCandidate, is_ascendc_candidate, load_candidate
from repair.errors import BadInput
from repair.integrity.pyscan import scan_source
from repair.integrity.rules import make_verdict, resolve_rules_off
from repair.integrity.verdict import IntegrityVerdict


def scan(problem_path, candidate_path, rules_off=(), *, source: str | None = None,
         tree: ast.Module | None = None, ascendc: AscendCCandidate | None = None,
         policy: str = "strict") -> IntegrityVerdict:
    """Static verdict for a candidate file against its problem file.

    A caller that has read and parsed the candidate already (the engine) passes its text and tree, or the AscendC
    candidate it loaded.
    """
    off = resolve_rules_off(rules_off)
    problem_path, candidate_path = Path(problem_path), Path(candidate_path)
    try:
        read_text(problem_path)  # a FIFO or /dev/zero is refused, not read for ever
        if ascendc is None and source is None and is_ascendc_candidate(candidate_path):
            ascendc = load_candidate(candidate_path)
        if ascendc is not None:  # an AscendC candidate: its own chain
            from repair.integrity.ascendc import scan_ascendc

            return make_verdict(scan_ascendc(ascendc, problem_path, off), off, policy)
        if source is None:
            source = read_text(candidate_path)
    except OSError as e:
        raise BadInput(f"cannot read {describe(e)}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{candidate_path}: cannot read (not UTF-8)") from None
    return make_verdict(scan_source(source, candidate_path, problem_path, off, tree=tree), off, policy)
