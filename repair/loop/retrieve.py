"""Where the loop's patterns come from: a small Retriever protocol and its adapters (none, fixed list, KB, snapshot)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from repair.errors import BadInput
from repair.engine import EvalResult
from repair.workers import Pattern


class LeakageRefused(BadInput):
    """--eval-mode: the snapshot's excluded cohort does not contain the operator under repair."""


@dataclass(frozen=True)
class RetrievalSource:
    snapshot_id: str | None = None
    kb_version: int | None = None
    kb_path: str | None = None


@runtime_checkable
class Retriever(Protocol):
    source: RetrievalSource

    def query(self, result: EvalResult, code: str, k: int) -> list[Pattern]:
        """The best k patterns for this failing evaluation of this kernel code, best first."""
        ...


def rule_patterns(retriever, result: EvalResult, code: str, k: int) -> list[Pattern]:
    """Every rule-carrying pattern the retriever knows, best first (else those of its top k)."""
    ranked = getattr(retriever, "rule_patterns", None)
    if ranked is not None:
        return ranked(result, code)
    return [p for p in retriever.query(result, code, k) if p.rules]


class NoRetriever:
    """No knowledge base: the worker gets no patterns."""

    source = RetrievalSource()

    def query(self, result: EvalResult, code: str, k: int) -> list[Pattern]:
        return []

    def rule_patterns(self, result: EvalResult, code: str) -> list[Pattern]:
        return []


class FixedRetriever:
    """Always the same patterns, best first (tests, and callers that retrieved elsewhere)."""

    def __init__(self, patterns: list[Pattern], source: RetrievalSource | None = None):
        self.patterns = list(patterns)
        self.source = source or RetrievalSource()

    def query(self, result: EvalResult, code: str, k: int) -> list[Pattern]:
        return self.patterns[:k]

    def rule_patterns(self, result: EvalResult, code: str) -> list[Pattern]:
        return [p for p in self.patterns if p.rules]


class KBRetriever:
    """The live knowledge base through kbstore.retrieve: hybrid dense + BM25 over the symptom text and the code."""

    def __init__(self, kb: Path, *, index: str = "exact", language: str | None = None):
        from kbstore.retrieve import Retriever as KBIndex

        self._kb = KBIndex.open(kb, index=index)
        self.language = language  # only patterns of this language (an AscendC run: ascendc); None: any
        src = self._kb.source
        self.source = RetrievalSource(snapshot_id=src.get("snapshot_id"), kb_version=src.get("kb_version"),
                                      kb_path=src.get("kb_path"))
        self.last_query = ""

    def query(self, result: EvalResult, code: str, k: int) -> list[Pattern]:
        from repair.loop.symptom import symptom_query

        q = symptom_query(result)  # the same query `kb query --symptom EVAL.json` builds
        self.last_query = q.text
        return [_pattern(h) for h in self._kb.query(q.text, k=k, code=q.code or code, language=self.language)]

    def rule_patterns(self, result: EvalResult, code: str) -> list[Pattern]:
        """Every distinct set of rules the KB holds, from its best-ranked entry, in the order the same query ranks
        every entry (rules cost no tokens). An entry whose rules equal a better-ranked one's is left out: the rules
        worker would drop its applications as programs already proposed (kbstore.retrieve.Retriever.rule_hits), and
        only the returned entries are read."""
        from repair.loop.symptom import symptom_query

        q = symptom_query(result)
        return [_pattern(h) for h in self._kb.rule_hits(q.text, code=q.code or code, language=self.language)]


def _pattern(h) -> Pattern:
    return Pattern(id=h.id, score=h.score, title=h.title, bug_class=h.bug_class, fix=h.fix, before=h.before,
                   after=h.after, rules=tuple(h.rules))


def check_eval_mode(manifest: dict, operator_id: str, *, where: str = "snapshot manifest") -> None:
    """Refuse unless the snapshot was frozen against a cohort that contains this operator."""
    operators = excluded_operators(manifest)
    if operator_id not in operators:
        raise LeakageRefused(
            f"{where}: --eval-mode refuses to run: operator {operator_id!r} is not in the snapshot's excluded cohort "
            f"({len(operators)} operators); freeze a snapshot against a cohort containing it"
        )


def excluded_operators(manifest: dict) -> set[str]:
    cohort = manifest.get("cohort")
    if not isinstance(cohort, dict) or not isinstance(cohort.get("operators"), list):
        raise BadInput("snapshot manifest has no cohort.operators list; cannot check for leakage")
    ids = set()
    for op in cohort["operators"]:
        ids.add(op if isinstance(op, str) else str(op.get("id")))
    return ids


def open_retriever(kb: Path | None = None, snapshot: str | None = None, *, eval_mode: bool = False,
                   operator_id: str | None = None, language: str | None = None) -> Retriever:
    """The retriever for `repair run`'s --kb / --snapshot options (eval-mode checked here, before any work);
    `language`: only that language's patterns (an AscendC candidate gets AscendC patterns, never Triton ones)."""
    if eval_mode and snapshot is None:
        raise BadInput("--eval-mode needs --snapshot ID (a live KB has no excluded cohort)")
    if snapshot is not None:  # with --kb, the snapshot is looked up in that KB (else under $KB_PATH)
        return _open_snapshot(snapshot, kb=kb, eval_mode=eval_mode, operator_id=operator_id, language=language)
    if kb is not None:
        return _open_kb(Path(kb), language)
    return NoRetriever()


def _open_kb(path: Path, language: str | None = None) -> Retriever:
    if not path.is_dir():
        raise BadInput(f"{path}: no such knowledge base (create one with `kb init` / `kb ingest`)")
    return KBRetriever(path, language=language)


class SnapshotRetriever(KBRetriever):
    """A frozen snapshot (kbstore.snapshot): only its included entries, exact dense search, its BM25 cache."""

    def __init__(self, snapshot, language: str | None = None):
        self._kb = snapshot.retriever()
        self.language = language
        self.source = RetrievalSource(snapshot_id=snapshot.id, kb_version=snapshot.manifest.kb_version,
                                      kb_path=snapshot.manifest.kb_path)
        self.last_query = ""


def check_derivation(path: Path, manifest, kb: Path | None) -> None:
    """An evaluation uses a snapshot only when freezing its KB again gives it (kbstore.rederive): IntegrityFailure,
    exit 1, naming the first difference, otherwise."""
    from kbstore.errors import IntegrityFailure
    from kbstore.rederive import rederive_problems
    from kbstore.snapshot import home_kb

    problems = rederive_problems(path, manifest, home_kb(path, kb))
    if problems:
        detail = problems[1] if len(problems) > 1 and problems[0].startswith("re-derived") else problems[0]
        raise IntegrityFailure(f"snapshot {manifest.id[:12]} ({manifest.name}) is not what its KB and cohort manifest "
                               f"freeze to: {detail} (`kb verify {manifest.id[:12]}` lists every difference); "
                               "--eval-mode refuses it")


def _open_snapshot(snapshot: str, *, kb: Path | None, eval_mode: bool, operator_id: str | None,
                   language: str | None = None) -> Retriever:
    """The snapshot by id, prefix, name (in --kb, else $KB_PATH) or directory; in eval mode the cohort is checked first."""
    from kbstore.snapshot import Snapshot, read_manifest, resolve_snapshot

    path = resolve_snapshot(snapshot, kb)
    if eval_mode:
        manifest = read_manifest(path)
        check_eval_mode(manifest.dump(), operator_id or "", where=f"snapshot {manifest.id[:12]} ({manifest.name})")
        check_derivation(path, manifest, kb)
    return SnapshotRetriever(Snapshot.open(path), language)
