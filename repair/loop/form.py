"""How the loop holds a candidate: its working text, the guard on proposals, and the files the judge evaluates.

A Triton candidate's working text is its .py file. An AscendC candidate's is its bundle (repair.ascendc.bundle):
its source files as one text, so workers, diffs and prompts see real C++ files with real names; each attempt is
written back in the candidate's own format (six-source .py, direct-launch .json or task directory) for the judge.
"""
from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Protocol

from repair.errors import BadInput
from repair.loop.patch import PatchRejected, apply_proposal, apply_unified_diff, make_guard
from repair.workers import Proposal

# roles a proposal may not change: ModelNew (the harness's entry) and the operator's declaration (its interface)
FIXED_ROLES = {"model": "ModelNew's module", "project_json": "the operator's declaration"}


class Form(Protocol):
    language: str  # python, ascendc (the record's language: triton, ascendc)
    source_text: str  # the near-miss as the loop's working text

    def apply(self, proposal: Proposal, current: str) -> str:
        """The working text after the proposal; PatchRejected when it is not an acceptable kernel-only change."""
        ...

    def write(self, text: str, attempts: Path, n: int) -> Path:
        """Write attempt n (0: the near-miss) under `attempts`; the path the judge evaluates."""
        ...

    def write_final(self, text: str, out: Path) -> list[Path]:
        """The run's final candidate in `out`, in the candidate's own format; the paths written."""
        ...


def make_form(problem: Path, candidate: Path, problem_text: str, read) -> Form:
    """The form for this candidate; `read(path)` reads a text file as the loop does (BadInput when it cannot)."""
    from repair.ascendc import is_ascendc_candidate

    if is_ascendc_candidate(candidate):
        return AscendCForm(problem, candidate)
    if not candidate.is_file():
        raise BadInput(f"{candidate}: no such file")
    return PythonForm(problem, candidate, problem_text, read(candidate))


class PythonForm:
    """A Triton candidate: one .py file; the guard keeps the problem's definitions and ModelNew's signature."""

    language = "python"

    def __init__(self, problem: Path, candidate: Path, problem_text: str, source_text: str):
        try:
            self.guard = make_guard(problem_text, source_text, problem.name)
        except PatchRejected as e:
            raise BadInput(f"{problem if e.reason == 'problem' else candidate}: {e.message}") from None
        self.source_text = source_text

    def apply(self, proposal: Proposal, current: str) -> str:
        return apply_proposal(proposal, current, self.guard)

    def write(self, text: str, attempts: Path, n: int) -> Path:
        path = attempts / (f"attempt_{n:03d}.py" if n else "source.py")
        path.write_text(text, encoding="utf-8")
        return path

    def write_final(self, text: str, out: Path) -> list[Path]:
        (out / "final.py").write_text(text, encoding="utf-8")
        return [out / "final.py"]


class AscendCForm:
    """An AscendC candidate as a bundle. A proposal is a whole bundle or a unified diff naming bundle files; it
    may change the candidate's C++ sources (kernel, host tiling and operator, launch header, its own binding),
    not ModelNew, the operator's JSON declaration, the task's validation files or the problem, and may not add or
    remove files."""

    language = "ascendc"

    def __init__(self, problem: Path, candidate: Path):
        from repair.ascendc import load_candidate, parse_bundle, to_bundle

        self.problem_name = PurePosixPath(problem.name).name
        self.original = candidate
        self.source_text = to_bundle(load_candidate(candidate))  # BadInput: one line naming the file
        self.bundle = parse_bundle(self.source_text)

    # -- proposals -------------------------------------------------------------------------------
    def apply(self, proposal: Proposal, current: str) -> str:
        from repair.ascendc import BundleError, apply_diff, parse_bundle, split_diff

        if proposal.candidate is not None and proposal.diff is not None:
            raise PatchRejected("ambiguous", "a proposal is a full bundle or a diff, not both")
        try:
            if proposal.candidate is not None:
                new = parse_bundle(proposal.candidate)
            elif proposal.diff is not None:
                for target, _ in split_diff(proposal.diff):
                    self._check_target(target)
                new = apply_diff(parse_bundle(current), proposal.diff, apply_unified_diff)
            else:
                raise PatchRejected("empty", "the proposal carries no bundle and no diff")
        except BundleError as e:
            raise PatchRejected("syntax" if e.reason == "bundle" else e.reason, e.message) from None
        self.check(new)
        return new.text

    def _check_target(self, target: str) -> None:
        """A diff header naming the problem or a validation file is reaching for the reference."""
        name = target[2:] if target[:2] in ("a/", "b/") else target
        if PurePosixPath(name).name == self.problem_name:
            raise PatchRejected("touches-reference", f"the diff targets the problem file {self.problem_name}")
        if name.startswith("validation/") or "/validation/" in name:
            raise PatchRejected("touches-reference", f"the diff changes {name}, a validation file of the task, "
                                "not part of the candidate")

    def check(self, new) -> None:
        """Same format and files as the near-miss; only the candidate's own C++ sources changed."""
        old = self.bundle
        if new.format != old.format:
            raise PatchRejected("files", f"the bundle's format changed from {old.format} to {new.format}")
        if [(f.name, f.role) for f in new.files] != [(f.name, f.role) for f in old.files]:
            added = sorted(set(new.names()) - set(old.names()))
            removed = sorted(set(old.names()) - set(new.names()))
            what = "; ".join([f"adds {', '.join(added)}"] * bool(added) + [f"removes {', '.join(removed)}"] * bool(removed))
            raise PatchRejected("files", f"the change {what or 'renames or reorders files or roles'}; a proposal "
                                "changes the candidate's existing sources only")
        for before in old.files:
            if new.file(before.name).text == before.text:
                continue
            if self._fixed(before):
                raise PatchRejected("touches-reference", f"the change edits {before.name}, a validation file of the "
                                    "task, not part of the candidate")
            if before.role in FIXED_ROLES:
                raise PatchRejected("signature", f"the change edits {before.name} ({FIXED_ROLES[before.role]}); "
                                    "a repair changes the C++ sources only")

    def _fixed(self, f) -> bool:
        """The task's files an NPUKernelBench candidate is evaluated with, not its own."""
        return self.bundle.format == "npukernelbench" and f.name.startswith("validation/")

    # -- files -----------------------------------------------------------------------------------
    def write(self, text: str, attempts: Path, n: int) -> Path:
        from repair.ascendc import load_candidate, parse_bundle, write_candidate

        stem = f"attempt_{n:03d}" if n else "source"
        (attempts / f"{stem}.bundle").write_text(text, encoding="utf-8")
        path = write_candidate(parse_bundle(text), attempts / stem, original=self.original)
        try:
            load_candidate(path)  # the evaluation reads it the same way; a broken chain is the proposal's fault
        except BadInput as e:
            raise PatchRejected("syntax", str(e).replace(str(path), self.original.name)) from None
        return path

    def write_final(self, text: str, out: Path) -> list[Path]:
        from repair.ascendc import parse_bundle, write_candidate

        (out / "final.bundle").write_text(text, encoding="utf-8")
        return [out / "final.bundle", write_candidate(parse_bundle(text), out, original=self.original, name="final")]
