"""The `rules` worker: apply the retrieved patterns' executable rules, one candidate per proposal, zero tokens.

Candidates come cheapest first (fewest changed lines, then retrieval rank). The engine evaluates
each one; the worker only tracks which kernel to rewrite next: after an improving attempt it
builds on the improved kernel (a fix that needs two rules), otherwise it goes on with the
remaining candidates of the kernel it started from. `rules+litellm` hands over to the LLM once
the rules have nothing left to propose.
"""
from __future__ import annotations

from dataclasses import dataclass

from ingest.rules import BadRule, RuleApplication, apply_rule, rules_of
from ingest.rules.engine import changed_lines, program_key
from repair.workers.base import Pattern, Proposal, Usage, WorkerContext, WorkerExhausted, WorkerInfo


@dataclass(frozen=True)
class Candidate:
    application: RuleApplication
    pattern: Pattern
    rank: int  # retrieval rank of the pattern


def candidates(source: str, patterns: tuple[Pattern, ...] | list[Pattern], language: str = "python") -> list[Candidate]:
    """Every rule application of every pattern on source, cheapest first, one per distinct program."""
    found: list[tuple[tuple, Candidate]] = []
    for rank, pattern in enumerate(patterns):
        try:
            rules = rules_of({"rules": list(pattern.rules)}, where=f"pattern {pattern.id}")
        except BadRule:
            continue  # a pattern with a broken rule still serves as text guidance; its rules are skipped
        for index, rule in enumerate(rules):
            if rule.language != language:
                continue
            try:
                apps = apply_rule(rule, source)
            except BadRule:
                continue
            for site, app in enumerate(apps):
                found.append(((app.changed_lines, rank, len(app.sites), index, site), Candidate(app, pattern, rank)))
    out, seen = [], set()
    for _, cand in sorted(found, key=lambda kc: kc[0]):
        key = program_key(cand.application.patched_source, language)
        if key not in seen:
            seen.add(key)
            out.append(cand)
    return out


class RulesWorker:
    def __init__(self, language: str = "python"):
        self.language = language
        self.info = WorkerInfo(kind="rules")
        self.bases: list[str] = []  # kernels to rewrite, newest last
        self.proposed: set[str] = set()  # program keys already handed to the engine
        self.last: str | None = None
        self._cache: dict[tuple[str, tuple[str, ...]], list[Candidate]] = {}

    def propose(self, ctx: WorkerContext) -> Proposal:
        self._track(ctx)
        ids = tuple(p.id for p in ctx.patterns)
        for base in reversed(self.bases):
            key = (base, ids)
            if key not in self._cache:
                self._cache[key] = candidates(base, ctx.patterns, self.language)
            for cand in self._cache[key]:
                text = cand.application.patched_source
                pkey = program_key(text, self.language)
                if pkey in self.proposed or any(program_key(b, self.language) == pkey for b in self.bases):
                    continue
                self.proposed.add(pkey)
                self.last = text
                return _proposal(cand, base)
        raise WorkerExhausted(f"no untried rule application left ({len(self.proposed)} proposed from "
                              f"{sum(1 for p in ctx.patterns if p.rules)} patterns with rules)")

    def _track(self, ctx: WorkerContext) -> None:
        current = ctx.candidate_text
        improved = bool(ctx.history) and ctx.history[-1].outcome == "improved"
        if not self.bases or (improved and current == self.last) or (
                current not in self.bases and program_key(current, self.language) not in self.proposed):
            if current not in self.bases:
                self.bases.append(current)


def _proposal(cand: Candidate, base: str) -> Proposal:
    app, pattern = cand.application, cand.pattern
    return Proposal(
        candidate=app.patched_source,
        cited=(pattern.id,),
        usage=Usage(),
        turns=0,
        diagnosis={
            "title": pattern.title or app.rule_id,
            "bug_class": pattern.bug_class or "unknown",
            "root_cause": f"matched rule {app.rule_id} of pattern {pattern.id}",
            "fix": pattern.fix or f"applied rule {app.rule_id}",
        },
        note=f"rule {app.rule_id} at {app.location} ({changed_lines(base, app.patched_source)} lines)",
    )


class ChainWorker:
    """Ask each worker in turn; move to the next when one is exhausted (rules first, then an LLM)."""

    def __init__(self, workers: list, kind: str):
        self.workers = list(workers)
        self.position = 0
        self.info = WorkerInfo(kind=kind, model=next((w.info.model for w in self.workers if w.info.model), None),
                               prompt_template_sha256=next((w.info.prompt_template_sha256 for w in self.workers
                                                            if w.info.prompt_template_sha256), None))

    def propose(self, ctx: WorkerContext) -> Proposal:
        while self.position < len(self.workers):
            try:
                return self.workers[self.position].propose(ctx)
            except WorkerExhausted:
                self.position += 1
        raise WorkerExhausted(f"all {len(self.workers)} workers of {self.info.kind} are exhausted")


def from_options(options) -> RulesWorker:
    return RulesWorker(language=(options.extra or {}).get("language", "python"))


def rules_then_litellm(options):
    from repair.workers.registry import make_worker

    return ChainWorker([from_options(options), make_worker("litellm", options)], kind="rules+litellm")
