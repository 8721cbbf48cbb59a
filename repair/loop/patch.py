"""Turn a proposal into a candidate file, refusing changes that are not kernel-only.

Refused: a diff that targets the problem file or more than one file; a candidate that does not parse;
one that adds, changes or removes the reference's definitions (the problem's top-level classes and
functions, and module constants the near-miss shares with the problem); one that changes
`ModelNew.__init__`'s signature or drops `ModelNew`.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from repair.errors import RepairError
from repair.workers import Proposal

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchRejected(RepairError):
    """The proposal is not an acceptable kernel-only change; `reason` is a short code."""

    def __init__(self, reason: str, message: str):
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Guard:
    """What a proposal must leave alone, computed once per run from the problem and the near-miss."""

    problem_name: str
    protected: dict[str, str | None]  # top-level name -> ast dump in the near-miss (None: absent)
    init_signature: str | None  # ast dump of ModelNew.__init__'s arguments


def make_guard(problem_text: str, source_text: str, problem_name: str) -> Guard:
    """Raises PatchRejected (reason "problem" or "source") when either file does not parse or has no ModelNew."""
    problem = _parse(problem_text, "problem")
    source = _parse(source_text, "source")
    source_defs = _top_level(source)
    names = {n for n, node in _top_level(problem).items() if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    names |= {n for n, node in _top_level(problem).items() if isinstance(node, ast.Assign) and n in source_defs}
    names.discard("ModelNew")
    protected = {n: _dump(source_defs.get(n)) for n in sorted(names)}
    if "ModelNew" not in source_defs:
        raise PatchRejected("source", "the near-miss defines no class ModelNew")
    return Guard(PurePosixPath(problem_name).name, protected, _init_signature(source_defs["ModelNew"]))


def apply_proposal(proposal: Proposal, current: str, guard: Guard) -> str:
    if proposal.candidate is not None and proposal.diff is not None:
        raise PatchRejected("ambiguous", "a proposal is a full file or a diff, not both")
    if proposal.candidate is not None:
        text = proposal.candidate
    elif proposal.diff is not None:
        text = apply_unified_diff(current, proposal.diff, guard.problem_name)
    else:
        raise PatchRejected("empty", "the proposal carries no candidate and no diff")
    check_candidate(text, guard)
    return text


def check_candidate(text: str, guard: Guard) -> None:
    tree = _parse(text, "syntax")
    defs = _top_level(tree)
    for name, before in guard.protected.items():
        if _dump(defs.get(name)) != before:
            verb = "adds" if before is None else ("removes" if name not in defs else "changes")
            raise PatchRejected("touches-reference", f"the change {verb} {name!r}, which belongs to the problem")
    if "ModelNew" not in defs or not isinstance(defs["ModelNew"], ast.ClassDef):
        raise PatchRejected("signature", "the candidate no longer defines class ModelNew")
    if _init_signature(defs["ModelNew"]) != guard.init_signature:
        raise PatchRejected("signature", "the change alters ModelNew.__init__'s signature")


def apply_unified_diff(text: str, diff: str, problem_name: str = "") -> str:
    """Apply a one-file unified diff; hunks may sit at an offset from their stated line, never fuzzily."""
    targets = [line[4:].split("\t")[0].strip() for line in diff.splitlines() if line.startswith("+++ ")]
    if len(targets) > 1:
        raise PatchRejected("multi-file", f"the diff changes {len(targets)} files; a proposal changes the kernel file only")
    if targets and problem_name and PurePosixPath(targets[0]).name == problem_name:
        raise PatchRejected("touches-reference", f"the diff targets the problem file {problem_name}")
    lines = text.splitlines()
    out: list[str] = []
    cursor = 0
    hunks = _parse_hunks(diff)
    if not hunks:
        raise PatchRejected("diff", "no hunks found in the diff")
    for start, old, new in hunks:
        # a pure insertion "@@ -N,0" goes after line N; otherwise the hunk starts at line N
        at = _locate(lines, old, start if not old else max(start - 1, 0), cursor)
        out.extend(lines[cursor:at])
        out.extend(new)
        cursor = at + len(old)
    out.extend(lines[cursor:])
    return "\n".join(out) + ("\n" if text.endswith("\n") or not text else "")


def _parse_hunks(diff: str) -> list[tuple[int, list[str], list[str]]]:
    hunks: list[tuple[int, list[str], list[str]]] = []
    current = None
    for line in diff.splitlines():
        m = _HUNK.match(line)
        if m:
            current = (int(m.group(1)), [], [])
            hunks.append(current)
        elif current is None or line.startswith(("--- ", "+++ ", "\\")):
            continue
        elif line.startswith("+"):
            current[2].append(line[1:])
        elif line.startswith("-"):
            current[1].append(line[1:])
        elif line.startswith(" ") or line == "":
            current[1].append(line[1:])
            current[2].append(line[1:])
        else:
            raise PatchRejected("diff", f"malformed hunk line {line[:60]!r}")
    return hunks


def _locate(lines: list[str], old: list[str], expected: int, floor: int) -> int:
    n = len(old)
    for delta in range(len(lines) + 1):
        for at in (expected + delta, expected - delta):
            if floor <= at <= len(lines) - n and lines[at : at + n] == old:
                return at
    raise PatchRejected("diff", f"hunk at line {expected + 1} does not match the current kernel")


def _parse(text: str, reason: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as e:
        raise PatchRejected(reason, f"does not parse: {e.msg} (line {e.lineno})") from None


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    defs: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    defs[target.id] = node
    return defs


def _dump(node: ast.AST | None) -> str | None:
    return None if node is None else ast.dump(node, annotate_fields=True, include_attributes=False)


def _init_signature(cls: ast.AST) -> str | None:
    for node in getattr(cls, "body", []):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            return ast.dump(node.args, include_attributes=False)
    return None
