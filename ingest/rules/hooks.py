"""What `kb ingest` asks of the rules package: check a record's rules, and the rules its entry carries.

Kept free of heavy imports: ast-grep-py is a small native module, and nothing here imports torch.
"""
from __future__ import annotations

from ingest.rules.distill import distill
from ingest.rules.engine import apply_rules, check_rule, equivalent
from ingest.rules.errors import RuleError
from ingest.rules.model import Rule, language_of, rules_of

SEARCH_DEPTH = 3  # rewrites in sequence a record's rules may take to reach its repaired code


def rule_problems(record) -> list[tuple[str, str]]:
    """(code, message) for each way a record's own rules are unfit; [] when it carries none or they are fine."""
    if not record.rules:
        return []
    try:
        rules = rules_of(record, where="rules")
    except RuleError as e:
        return [("rules-invalid", str(e))]
    try:
        language = language_of(record.language)
    except RuleError as e:
        return [("rules-invalid", str(e))]
    wrong = [r.id for r in rules if r.language != language]
    if wrong:
        return [("rules-invalid", f"rules {', '.join(wrong)} are not written for {record.language}")]
    try:
        for rule in rules:
            check_rule(rule)
        if not reproduces(rules, record.source.code, record.repaired.code):
            return [("rules-do-not-reproduce",
                     f"no sequence of up to {SEARCH_DEPTH} rewrites by the record's rules turns its source into "
                     "its repaired code")]
    except RuleError as e:
        return [("rules-invalid", str(e))]
    return []


def reproduces(rules: list[Rule], source: str, target: str, depth: int = SEARCH_DEPTH) -> bool:
    """Some sequence of at most `depth` rule applications turns source into target (modulo formatting)."""
    language = rules[0].language if rules else "python"
    frontier, seen = [source], {source}
    for _ in range(depth + 1):
        if any(equivalent(s, target, language) for s in frontier):
            return True
        nxt = []
        for s in frontier:
            for app in apply_rules(rules, s):
                if app.patched_source not in seen:
                    seen.add(app.patched_source)
                    nxt.append(app.patched_source)
        frontier = nxt[:64]  # bounded: a record's fix is a handful of rewrites, not a search problem
    return False


def rules_for_record(record) -> list[dict]:
    """The rules an admitted record's entry carries: its own, else distilled ones, else none.

    A fix no rule can express leaves the entry a text-only pattern; distillation never fails an ingest.
    """
    if record.rules:
        return [r.to_dict() for r in rules_of(record, where=f"record {record.run_id}")]
    try:
        rules = distill(record.source.code, record.repaired.code, record.language,
                        bug_class=record.diagnosis.bug_class, title=record.diagnosis.title)
    except RuleError:
        return []
    # the symptom the fix was made for: a rules worker tries first the rules whose symptoms it sees again
    cues = [c for c in (record.symptom.label, record.symptom.location) if c and c != "none"]
    return [Rule.model_validate({**r.to_dict(), "symptoms": cues}).to_dict() if cues else r.to_dict() for r in rules]
