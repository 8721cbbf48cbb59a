"""The `rules` worker: apply every rule-carrying pattern's executable rules, one candidate per proposal, zero tokens.

Rules cost nothing to try, so the worker offers every pattern that carries rules (the loop hands it the
retriever's whole ranking as `rule_patterns`; -k bounds what a model is shown, not which free rules
run), and the attempt bound stops it as before. Candidates are ordered by how well the failing
evaluation's symptoms fit the rule's bug class (the cues each rule carries), then by retrieval rank,
then by size (fewest changed lines). The engine evaluates each one; the worker only tracks which
kernel to rewrite next: after an improving attempt it builds on the improved kernel (a fix that needs
two rules), otherwise it goes on with the remaining candidates of the kernel it started from.
`rules+litellm` hands over to the LLM once the rules have nothing left to propose.

An AscendC candidate's working text is a bundle of C++ files (repair.ascendc.bundle): the worker applies the C++
rules to each of its C++ files and proposes the whole bundle with that file rewritten.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from ingest.rules import BadRule, RuleApplication, apply_rule, rules_of
from ingest.rules.engine import MAX_EVERY_SITE_WAYS, changed_lines, program_key
from ingest.rules.evidence import FAULT_CUES, fit as explanation_fit
from repair.workers.base import FailureLabels, Pattern, Proposal, Usage, WorkerContext, WorkerExhausted, WorkerInfo

# how much an observed failure cue says about a bug class: specific cues weigh more than generic ones
CUE_WEIGHTS = {"nan": 3, "layout": 3, "param": 3, "nan-introduced": 3, "zero-output": 2, "tail-localized": 2,
               "tail-columns": 2, "tail-rows": 2, "last-block": 2, "uniform-drift": 2, "queue": 4,
               "datacopy-align": 4, "local-bounds": 3, "gm-bounds": 3, "gm-race": 4}
_GENERIC = 1


@dataclass(frozen=True)
class Candidate:
    application: RuleApplication
    pattern: Pattern
    rank: int  # retrieval rank of the pattern
    fit: int = 0  # how well the failure cues fit the rule's bug class
    explained: bool | None = None  # the rule's explanation fits the evaluated cases (None: it states none)


def failure_cues(labels: FailureLabels, problem_text: str = "") -> set[str]:
    """Cues of the failing evaluation, from the loop's labels: diagnosis labels and locations, `nan`, `layout` (a
    transposed or strided input case fails), `param` (a case that sets a constructor argument fails), and the
    protocol a fault message names."""
    cues: set[str] = set()
    init_only = _init_only_params(problem_text)
    for case in labels.cases:
        cues.update((case.symptom, case.location))
        if case.nan_count or case.inf_count:
            cues.add("nan")
        cues.update(cue for cue, rx in FAULT_CUES if case.message and re.search(rx, case.message))
        params = case.param_dict
        if any(re.search(r"transpos|layout|stride|permut|contig", f"{k} {v}") for k, v in params.items()):
            cues.add("layout")
        if init_only & set(params):
            cues.add("param")
    return cues - {"none", ""}


def _init_only_params(problem_text: str) -> set[str]:
    """Constructor arguments a case may set: get_init_inputs's named parameters that get_inputs does not take."""
    try:
        tree = ast.parse(problem_text or "")
    except SyntaxError:
        return set()
    names: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in ("get_init_inputs", "get_inputs"):
            names[node.name] = {a.arg for a in node.args.args + node.args.kwonlyargs}
    return names.get("get_init_inputs", set()) - names.get("get_inputs", set())


def fit(rule_symptoms, cues: set[str]) -> int:
    """Weighted overlap of a rule's symptoms with the observed cues (0 when the rule names none)."""
    named = set(rule_symptoms)
    return sum(CUE_WEIGHTS.get(c, _GENERIC) for c in cues if c in named)


def _bundle(text: str):
    """The AscendC bundle `text` is, or None for a plain source."""
    from repair.ascendc import BundleError, is_bundle, parse_bundle

    if not is_bundle(text):
        return None
    try:
        return parse_bundle(text)
    except BundleError:
        return None


def rule_language(text: str, language: str = "python") -> str:
    """The ast-grep language of the rules that apply to `text`: a bundle's are C++ (LANGUAGES["ascendc"])."""
    return _language_of(_bundle(text), language)


def _language_of(bundle, language: str) -> str:
    return "cpp" if language == "ascendc" or bundle is not None else language


def source_key(text: str, language: str = "python") -> str:
    """program_key of a source, or of each C++ file of a bundle (formatting and comments aside)."""
    bundle = _bundle(text)
    if bundle is None:
        return program_key(text, language)
    cpp = {f.name for f in bundle.cpp_files()}
    return "\x01".join(f"{f.name}\x02{program_key(f.text, 'cpp') if f.name in cpp else f.text}"
                        for f in bundle.files)


def _applications(rule, source: str, bundle, reference: str | None) -> list[RuleApplication]:
    """The rule's applications to a source, or to each C++ file of its bundle (`bundle`, as whole bundles); a rule
    that fires in several files also rewrites them all at once (each file's every-site rewrite)."""
    if bundle is None:
        return apply_rule(rule, source, reference=reference)
    out, touched = [], []
    files = bundle.cpp_files()
    for f in files:
        apps = apply_rule(rule, f.text, reference=reference, companions=tuple(g.text for g in files if g is not f))
        if apps:
            touched.append((f, apps))
        for app in apps:
            out.append(replace(app, patched_source=bundle.replace(f.name, app.patched_source).text,
                               location=f"{f.name}:{app.location}"))
    if len(touched) > 1:
        # each file's every-site rewrite (else its one site) with its first way to fire, then its second, third
        options = [(f, [a for a in apps if a.location.startswith("all:")] or apps) for f, apps in touched]
        for k in range(min(MAX_EVERY_SITE_WAYS, max(len(o) for _f, o in options))):
            combined, lines, where = bundle, 0, []
            for f, opts in options:
                app = opts[k] if k < len(opts) else opts[0]
                combined = combined.replace(f.name, app.patched_source)
                lines += app.changed_lines
                where.append(f"{f.name}:{app.location}")
            out.append(RuleApplication(rule.id, combined.text, "files:" + ";".join(where), (), lines))
    return out


def _combined(source: str, rules: list, reference: str | None) -> RuleApplication | None:
    """The rules of one pattern applied one after another, each at every site it fires (its every-site rewrite, else
    its one), on an AscendC bundle: None when that is no more than one of them alone."""
    text, used = source, []
    for rule in rules:
        try:
            apps = _applications(rule, text, _bundle(text), reference)
        except BadRule:
            continue
        if not apps:
            continue
        app = next((a for a in apps if _every_site(a)), apps[0])
        text = app.patched_source
        used.append(f"{rule.id.rsplit('/', 1)[-1]}@{app.location}")
    if len(used) < 2:
        return None
    return RuleApplication(rules[0].id, text, "rules:" + ";".join(used), (), changed_lines(source, text))


def _every_site(app: RuleApplication) -> bool:
    return app.location.startswith(("all:", "files:", "rules:")) or ":all:" in app.location


def candidates(source: str, patterns: tuple[Pattern, ...] | list[Pattern], language: str = "python", *,
               reference: str | None = None, cues: set[str] = frozenset(), cases=(),
               backend: str | None = None) -> list[Candidate]:
    """Every rule application of every pattern on source (a bundle: on each of its C++ files), best first, one per
    distinct program.

    With the evaluated `cases` (repair.workers.CaseView), a rule whose explanation (its signatures) they contradict is
    not tried at all, and one whose explanation they fit comes before the rest. Then: the highest symptom fit, the
    best retrieval rank, a rule's every-site rewrite, the fewest changed lines. On an AscendC bundle, the rules of
    one pattern whose explanations the cases fit are also applied together, after that pattern's single rewrites.
    """
    bundle = _bundle(source)  # parsed once, not once per rule
    language = _language_of(bundle, language)
    found: list[tuple[tuple, Candidate]] = []
    for rank, pattern in enumerate(patterns):
        try:
            rules = rules_of({"rules": list(pattern.rules)}, where=f"pattern {pattern.id}")
        except BadRule:
            continue  # a pattern with a broken rule still serves as text guidance; its rules are skipped
        fired: list[tuple] = []  # (best key, rule, explained, fit) of each rule of the pattern that fires
        for index, rule in enumerate(rules):
            if rule.language != language:
                continue
            explained = explanation_fit(rule, cases, backend)
            if explained is False:
                continue  # its bug would not fail these cases this way
            try:
                apps = _applications(rule, source, bundle, reference)
            except BadRule:
                continue
            score = fit(rule.symptoms, cues)
            keys = []
            for site, app in enumerate(apps):
                # a rule that fires at several sites fixes them all at once first (a bug repeated in each pass)
                key = (explained is not True, -score, rank, not _every_site(app), app.changed_lines, index, site)
                keys.append(key)
                found.append((key, Candidate(app, pattern, rank, score, explained)))
            if keys and explained is True:  # only rules the evaluation confirms are composed
                fired.append((min(keys), rule, explained, score))
        if bundle is not None and len(fired) > 1:
            combined = _combined(source, [r for _, r, _, _ in fired], reference)
            if combined is not None:
                best = min(fired, key=lambda f: f[0])
                # after the pattern's single rewrites, before the next pattern's: one bug whose sites need
                # different forms of one fix (a copy-in and a copy-out, each too short to be whole blocks)
                key = (best[0][0], best[0][1], rank, 2, combined.changed_lines, 0, 0)
                found.append((key, Candidate(combined, pattern, rank, best[3], best[2])))
    out, seen = [], set()
    for _, cand in sorted(found, key=lambda kc: kc[0]):
        key = source_key(cand.application.patched_source, language)
        if key not in seen:
            seen.add(key)
            out.append(cand)
    return out


def offered(ctx: WorkerContext) -> tuple[Pattern, ...]:
    """The patterns whose rules the worker tries: every rule-carrying one the loop offers, best first."""
    seen: set[str] = set()
    out = []
    for p in (*ctx.rule_patterns, *ctx.patterns):
        if p.rules and p.id not in seen:
            seen.add(p.id)
            out.append(p)
    return tuple(out)


class RulesWorker:
    def __init__(self, language: str = "python"):
        self.language = self.default = language  # language: of the kernel last seen (a bundle's rules are C++)
        self.info = WorkerInfo(kind="rules")
        self.bases: list[str] = []  # kernels to rewrite, newest last
        # a stepping stone (an attempt no better that fails otherwise: part of a fix) -> the pattern that made it: on
        # it only that pattern's rules are tried (the rest of the same fix), before the older bases
        self.stones: dict[str, str] = {}
        self.proposed: set[str] = set()  # program keys already handed to the engine
        self.last: str | None = None
        self.last_pattern: str | None = None
        self._cache: dict[tuple[str, tuple[str, ...]], list[Candidate]] = {}

    def propose(self, ctx: WorkerContext) -> Proposal:
        self.language = rule_language(ctx.candidate_text, "ascendc" if ctx.language == "ascendc" else self.default)
        self._track(ctx)
        patterns = offered(ctx)
        ids = tuple(p.id for p in patterns)
        cues = failure_cues(ctx.labels, ctx.problem_text)
        base_keys = {source_key(b, self.language) for b in self.bases}
        for base in reversed(self.bases):
            key = (base, ids)
            if key not in self._cache:
                # each base is ranked by the evaluation the worker saw when it first met it
                self._cache[key] = candidates(base, patterns, self.language, reference=ctx.problem_text or None,
                                              cues=cues, cases=ctx.cases, backend=ctx.backend)
            only = self.stones.get(base)
            for cand in self._cache[key]:
                if only is not None and cand.pattern.id != only:
                    continue
                text = cand.application.patched_source
                pkey = source_key(text, self.language)
                if pkey in self.proposed or pkey in base_keys:
                    continue
                self.proposed.add(pkey)
                self.last, self.last_pattern = text, cand.pattern.id
                return _proposal(cand, base)
        raise WorkerExhausted(self._exhausted(patterns))

    def _exhausted(self, patterns: tuple[Pattern, ...]) -> str:
        """Why the worker stops: which patterns' rules matched (and how often), or that none did."""
        matched: dict[str, set[str]] = {}
        for cands in self._cache.values():
            for c in cands:
                matched.setdefault(c.pattern.id, set()).add(c.application.rule_id)
        if not matched:
            return f"no rule matches: none of the {len(patterns)} patterns with rules fires on this kernel"
        said = "; ".join(f"{pid} ({', '.join(sorted(r.rsplit('/', 1)[-1] for r in rules))})"
                         for pid, rules in sorted(matched.items()))
        return (f"every rule application tried ({len(self.proposed)} proposed); of {len(patterns)} patterns with "
                f"rules, {len(matched)} matched: {said}")

    def _track(self, ctx: WorkerContext) -> None:
        current = ctx.candidate_text
        outcome = ctx.history[-1].outcome if ctx.history else ""
        built = outcome in ("improved", "changed") and current == self.last
        if not self.bases or built or (
                current not in self.bases and source_key(current, self.language) not in self.proposed):
            if current not in self.bases:
                self.bases.append(current)
                if built and outcome == "changed" and self.last_pattern is not None:
                    self.stones[current] = self.last_pattern


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
        note=f"rule {app.rule_id} at {app.location} ({changed_lines(base, app.patched_source)} lines, "
             f"symptom fit {cand.fit})",
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
