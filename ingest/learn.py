"""Learning at ingest: the fixes of a bug class the KB holds, generalised into rules the zero-token worker can use.

When `kb ingest` admits repair records, the fixes (near-miss -> repaired kernel) of each Triton bug class they
bring are anti-unified with the fixes of that class the KB already has (ingest.rules.generalize: the most general
rule that reproduces every fix of its group and rewrites no kernel of the correct corpus, by default the example
suite's `correct.py` files). Each such rule becomes a derived entry, a pattern whose rules have origin "learned",
whose evidence is that of every record it reproduces (so it inherits their cohort exposure: `kb freeze
--exclude-cohort` leaves it out when any source is tied to the cohort), and whose provenance says which entries
and records it was derived from.

Only a record without rules of its own starts learning (a hand-written rule is already general), and a group of
one fix learns only from such a record; hand-written fixes take part in the groups it forms. At most MAX_FIXES fixes a class (the newest) are generalised, so the cost
of an ingest stays bounded however big the KB grows. AscendC bundles and other languages are not learned from.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ingest.entry import Pattern, PatternSymptom
from ingest.patch import snippets, unified_diff
from ingest.record import RepairRecord

MAX_FIXES = 8  # fixes of one class generalised per ingest (the newest): generalisation is quadratic in them
LEARNED_LANGUAGES = ("triton",)
LEARNED_TITLE = "Learned rule: "  # a derived entry's title begins so (the KB's own fixes are read without them)
DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / "examples"  # the example suite, where the tool is checked out


@dataclass(frozen=True)
class Fix:
    entry_id: str  # the entry the record was admitted to
    record_sha256: str
    record: RepairRecord
    new: bool  # admitted by this ingest


@dataclass
class Learned:
    pattern: Pattern
    sources: list[Fix]  # the fixes its rule reproduces (every one it was generalised from)

    @property
    def id(self) -> str:
        return self.pattern.id


def correct_corpus(root: str | Path | None = DEFAULT_CORPUS) -> list[str]:
    """The correct kernels a learned rule must leave alone: every `correct.py` under root (the example suite's
    layout); [] when there is none."""
    if root is None or not Path(root).is_dir():
        return []
    return [p.read_text() for p in sorted(Path(root).glob("*/correct.py"))]


def learnable(record: RepairRecord) -> bool:
    return record.language in LEARNED_LANGUAGES and bool(record.diagnosis.bug_class.strip())


def learn(fixes: list[Fix], corpus: list[str]) -> list[Learned]:
    """Derived entries for the classes this ingest's new fixes bring: one per generalised rule that reproduces a
    new fix (with the older fixes of its class it anti-unifies with)."""
    by_class: dict[tuple[str, str], list[Fix]] = {}
    for f in fixes:
        if learnable(f.record):
            by_class.setdefault((f.record.language, f.record.diagnosis.bug_class.strip()), []).append(f)
    out: list[Learned] = []
    for (language, bug_class), mine in sorted(by_class.items()):
        if not any(f.new and not f.record.rules for f in mine):  # nothing new to learn from (hand rules are general)
            continue
        newest = sorted(mine, key=lambda f: (f.new, f.record.finished_at))[-MAX_FIXES:]
        out += _learn_class(language, bug_class, newest, corpus)
    return out


def _learn_class(language: str, bug_class: str, fixes: list[Fix], corpus: list[str]) -> list[Learned]:
    from ingest.rules import Rule, RuleError
    from ingest.rules.generalize import generalize
    from ingest.rules.hooks import reproduces

    try:
        rules = generalize([(f.record.source.code, f.record.repaired.code) for f in fixes], language,
                           bug_class=bug_class, corpus=corpus)
    except RuleError:
        return []
    out = []
    for rule in rules:
        try:
            sources = [f for f in fixes if reproduces([rule], f.record.source.code, f.record.repaired.code)]
        except RuleError:
            continue
        if not any(f.new for f in sources) or (len(sources) == 1 and sources[0].record.rules):
            continue
        cues = sorted({c for f in sources for c in (f.record.symptom.label, f.record.symptom.location)
                       if c and c != "none"})
        learned = Rule.model_validate({**rule.to_dict(), "id": rule.id.replace("distilled/", "learned/", 1),
                                       "origin": "learned", "symptoms": cues})
        out.append(Learned(_pattern(learned, sources), sources))
    return out


def _pattern(rule, sources: list[Fix]) -> Pattern:
    """The derived entry: the rule, with the words and one worked example (the newest source's diff)."""
    example = sources[-1].record
    d, s = example.diagnosis, example.symptom
    symptom = Counter((f.record.symptom.label, f.record.symptom.location, f.record.symptom.failed_tier)
                      for f in sources).most_common(1)[0][0]
    operators = sorted({f.record.operator.id for f in sources})
    families = {f.record.operator.family for f in sources}
    diff = unified_diff(example.source.code, example.repaired.code)
    before, after = snippets(diff)
    return Pattern(
        title=f"{LEARNED_TITLE}{d.title.strip()}", bug_class=d.bug_class.strip(),
        root_cause=d.root_cause.strip(),
        fix=f"{d.fix.strip()} (generalised from {len(sources)} repairs of {', '.join(operators)})",
        symptom=PatternSymptom(label=symptom[0], location=symptom[1], failed_tier=symptom[2] or s.failed_tier),
        before=before, after=after, diff=diff, language=example.language, backend=example.backend,
        family=families.pop() if len(families) == 1 else None, rules=[rule.to_dict()])
