"""`kb overlap FILE --cohort MANIFEST`: whether `kb freeze` would exclude a file for code overlap, and why.

The file is fingerprinted as ingest would (a repair record: its source and repaired kernels; a kernel file:
the file) and scanned with the freeze's own OverlapIndex, config and decide, so the verdict is the
freeze's for this file. One difference it cannot see: a freeze also ignores, as boilerplate, hashes held by
more than 5% (and 50) of the KB's entries; that only ever removes shared fingerprints.

Scores are reported against every fingerprintable cohort file: the freeze's match where it records one
(at or above the report floor, or flagged), else the best pair a scan with no report floor finds (the
same scores; the freeze would not record them). Each pair says which rule fires, or how far it is from firing.
"""
from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from provenance.errors import BadInput
from provenance.fragments import LEGEND, Fragment, fragment
from provenance.overlap_rules import REPRESENTATIONS, RULE_TEXT, OverlapConfig, OverlapMatch, rule_terms, score

MAX_FILE_BYTES = 16 * 1024 * 1024
RECORD_SCHEMA_PREFIX = "repair.record/"


@dataclass
class Subject:
    """The file under question: its language and the code of each part the freeze would check."""

    path: str
    language: str
    parts: dict[str, str]  # part -> code ("file", or a record's "source" and "repaired")
    kind: str  # "kernel" | "record"
    hashes: dict[str, str] = field(default_factory=dict)  # what the provenance rule compares: part/problem -> sha256
    operator_id: str | None = None


@dataclass
class PairScore:
    """One (cohort file, representation): the best match, and what the rule makes of it."""

    cohort_file: str
    operator_id: str
    representation: str
    match: OverlapMatch | None  # None: no shared fingerprint
    recorded: bool  # the freeze would record it (flagged, or at or above the report floor)
    fires: bool
    rule: str  # the rule that fires, or how far the pair is from firing

    def as_dict(self, config: OverlapConfig) -> dict:
        m = self.match
        return {"cohort_file": self.cohort_file, "operator_id": self.operator_id, "representation": self.representation,
                "fires": self.fires, "recorded_by_freeze": self.recorded, "rule": self.rule,
                "score": round(score(m, config), 4) if m else 0.0,
                "match": m.model_dump(mode="json", exclude={"entry_id"}) if m else None}


@dataclass
class Explanation:
    subject: Subject
    cohort: str
    cohort_sha256: str
    frozen_at: str
    config: OverlapConfig
    pairs: list[PairScore]
    fragments: list[Fragment]
    notes: list[str]  # other rules that would exclude it whatever its code (provenance, temporal)

    @property
    def excluded(self) -> bool:
        """Would the overlap rule exclude the file?"""
        return any(p.fires for p in self.pairs)

    def as_dict(self) -> dict:
        s = self.subject
        return {"file": s.path, "kind": s.kind, "language": s.language, "parts": sorted(s.parts),
                "cohort": self.cohort, "cohort_sha256": self.cohort_sha256, "frozen_at": self.frozen_at,
                "config": self.config.model_dump(mode="json"), "excluded": self.excluded,
                "fired": [p.as_dict(self.config) for p in self.pairs if p.fires],
                "pairs": [p.as_dict(self.config) for p in self.pairs],
                "fragments": [f.as_dict() for f in self.fragments], "notes": self.notes}

    def lines(self) -> list[str]:
        """The human report: verdict, a score table, the fragments side by side, other rules."""
        s, cfg = self.subject, self.config
        verdict = ("EXCLUDED: the overlap rule fires" if self.excluded
                   else "not excluded: no overlap rule fires")
        out = [*_fold(f"{s.path} ({s.kind}, {s.language}; parts {', '.join(sorted(s.parts))}) vs cohort {self.cohort} "
                      f"({len({p.cohort_file for p in self.pairs})} files): {verdict}"),
               *_fold(f"rule: {RULE_TEXT.format(cfg=cfg)}"), ""]
        head = ("cohort file", "repr", "part", "containment", "covered", "aligned", "weight", "score", "decision")
        rows = [(p.cohort_file + (f"::{p.match.cohort_unit}" if p.match.cohort_unit else ""), p.representation,
                 p.match.entry_part, f"{p.match.containment:.3f}", str(p.match.covered), f"{p.match.aligned:.3f}",
                 f"{p.match.aligned_weight:.1f}", f"{score(p.match, cfg):.3f}", ("FIRES: " if p.fires else "") + p.rule)
                for p in self.pairs if p.match]
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head[:-1])]
        for r in [head, *rows] if rows else []:
            left = "  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  "
            if len(left) + len(r[-1]) <= WIDTH:
                out.append(left + r[-1])
            else:  # the decision, whole, under its row: a terminal is 100 columns
                out += [left.rstrip(), *_fold(r[-1], indent="    ")]
        rest = len(self.pairs) - len(rows)
        if rest:
            out.append(f"({rest} {'other ' if rows else ''}cohort file / representation pairs: no shared fingerprints)")
        if not self.pairs:
            out.append("(no fingerprintable cohort file)")
        for f in self.fragments:
            out += ["", *f.text()]
        if self.fragments:
            out += ["", f"({LEGEND})"]
        elif self.pairs:
            out += ["", f"(no pair reaches the report floor, containment {cfg.report_floor}: nothing to show side by side)"]
        out += [f"note: {n}" for n in self.notes]
        return out


WIDTH = 100


def _fold(text: str, indent: str = "") -> list[str]:
    """text in lines of at most WIDTH columns (continuations indented), nothing cut."""
    import textwrap

    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "    ",
                         break_long_words=False, break_on_hyphens=False) or [indent]


def read_subject(path: str | os.PathLike) -> Subject:
    """A kernel file (language from its extension) or a repair record (.json); every problem is a BadInput naming it."""
    from provenance.canonical import sha256_text
    from provenance.cohort import language_for_path
    from provenance.parsing import normalize_language

    p = Path(path)
    try:
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{p}: not a regular file")
        if st.st_size > MAX_FILE_BYTES:
            raise BadInput(f"{p}: {st.st_size / 2**20:.1f} MiB is more than the {MAX_FILE_BYTES // 2**20} MiB limit")
        data = p.read_bytes()
    except FileNotFoundError:
        raise BadInput(f"{p}: no such file") from None
    except OSError as e:
        raise BadInput(f"{p}: cannot read: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{p}: not UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})") from None
    if p.suffix.lower() == ".json":
        return _record(p, text)
    language = language_for_path(p.name)
    if language == "other":
        raise BadInput(f"{p}: cannot tell the language from the extension {p.suffix or '(none)'!r} "
                       "(.py, .c, .cc, .cpp, .cu, .h, ...; or a repair record .json)")
    normalize_language(language)
    return Subject(str(p), language, {"file": text}, "kernel", {"file": sha256_text(data)})


def _record(p: Path, text: str) -> Subject:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{p}: malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    ok = isinstance(raw, dict) and str(raw.get("schema", "")).startswith(RECORD_SCHEMA_PREFIX) and all(
        isinstance(raw.get(r), dict) and isinstance(raw[r].get("code"), str) for r in ("source", "repaired"))
    if not ok:
        raise BadInput(f"{p}: a .json that is not a repair record (schema repair.record/v1 with source.code and "
                       "repaired.code)")
    from provenance.parsing import normalize_language

    language = str(raw.get("language", "triton"))
    try:
        normalize_language(language)
    except BadInput as e:
        raise BadInput(f"{p}: {e}") from None
    op = raw.get("operator") if isinstance(raw.get("operator"), dict) else {}
    hashes = {"problem_sha256": op.get("problem_sha256"), "source_sha256": raw["source"].get("sha256"),
              "repaired_sha256": raw["repaired"].get("sha256")}
    return Subject(str(p), language, {"source": raw["source"]["code"], "repaired": raw["repaired"]["code"]}, "record",
                   {k: v for k, v in hashes.items() if isinstance(v, str)}, op.get("id"))


def explain(path: str | os.PathLike, manifest_path: str | os.PathLike, *, overlap_threshold: float | None = None,
            allow_outside: bool = False) -> Explanation:
    """Fingerprint the file as ingest would, scan it as kb freeze would, and explain the verdict (module docstring)."""
    from provenance.cohort import load_manifest, manifest_hash
    from provenance.fingerprint import fingerprints
    from provenance.fingerprint_store import pack_fingerprints
    from provenance.overlap import OverlapIndex, cohort_units

    if overlap_threshold is not None and not 0.0 <= overlap_threshold <= 1.0:
        raise BadInput(f"--overlap-threshold {overlap_threshold} is outside [0, 1]")
    config = OverlapConfig() if overlap_threshold is None else OverlapConfig(threshold=overlap_threshold)
    subject = read_subject(path)
    cohort = load_manifest(manifest_path, allow_outside=allow_outside)
    # stored as ingest stores them (pack_fingerprints bytes) and in the freeze's order (by role: a tie between two
    # parts goes to the first), so the scan reads them as a freeze does
    parts = {name: pack_fingerprints(fingerprints(subject.parts[name], subject.language)) for name in sorted(subject.parts)}
    every_file = cohort.files()
    files = [f for f in every_file if f.language != "other"]  # as OverlapIndex.from_manifest
    units = [u for f in files for u in cohort_units(f.path, f.operator_id, f.code, f.language)]
    freeze_scan = OverlapIndex(units, config).scan([(subject.path, parts)])
    every = config.model_copy(update={"report_floor": 0.0, "report_min_shared": 1})
    all_scan = OverlapIndex(units, every).scan([(subject.path, parts)])

    recorded = {(m.cohort_file, m.representation): m for m in freeze_scan.matches}
    best = {(m.cohort_file, m.representation): m for m in all_scan.matches}
    pairs, seen = [], set()
    for f in files:
        for r in REPRESENTATIONS:
            if r == "ops" and f.language == subject.language and not config.ops_same_language:
                continue  # ops compare across languages only (tokens are stricter within one)
            if (f.path, r) in seen:  # a file two operators list
                continue
            seen.add((f.path, r))
            m = recorded.get((f.path, r)) or best.get((f.path, r))
            fires = (f.path, r) in recorded and m.flagged
            pairs.append(PairScore(f.path, f.operator_id, r, m, (f.path, r) in recorded, fires, _rule(m, config, fires)))
    pairs.sort(key=lambda p: (not p.fires, -(score(p.match, config) if p.match else 0.0), p.cohort_file, p.representation))
    code = {f.path: f.code for f in files}
    frags = [fragment(p.match, subject.parts[p.match.entry_part], code[p.cohort_file],
                      entry_label=f"{Path(subject.path).name} {p.match.entry_part}")
             for p in pairs if p.recorded and p.match]
    return Explanation(subject, cohort.cohort, manifest_hash(cohort), _iso(cohort.frozen_at), config, pairs, frags,
                       _other_rules(subject, cohort, every_file))


def _rule(m: OverlapMatch | None, cfg: OverlapConfig, fires: bool) -> str:
    """Which rule fires, or how far the pair is from firing, with the terms of its score."""
    if m is None:
        return "no shared fingerprints"
    return rule_terms(m, cfg, fires)


def _other_rules(subject: Subject, cohort, files) -> list[str]:
    """The freeze's other rules that would exclude the file whatever its overlap: a cohort hash or operator, frozen_at."""
    out = []
    by_sha = {f.sha256: f.path for f in files}
    for what, digest in sorted(subject.hashes.items()):
        if digest in by_sha:
            out.append(f"provenance: the {what.replace('_sha256', '')} sha256 is cohort file {by_sha[digest]}'s")
    if subject.operator_id and subject.operator_id in cohort.operator_ids():
        out.append(f"provenance: the record names cohort operator {subject.operator_id}")
    if datetime.now(timezone.utc) > cohort.frozen_at:
        out.append(f"temporal: the cohort froze at {_iso(cohort.frozen_at)}; an entry ingested now is excluded "
                   "by the temporal rule whatever its code (this exit status reports the overlap rule only)")
    return out


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
