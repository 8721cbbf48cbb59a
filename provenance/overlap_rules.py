"""What an overlap check decides and reports: its thresholds, the decision rule, which fingerprints compare,
and the matches and scan results (provenance.overlap computes them; see its docstring)."""
from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel, ConfigDict, Field

from provenance.errors import BadInput, StaleFingerprint
from provenance.fingerprint import PARAMS, SCHEME

REPRESENTATIONS = ("tokens", "ops")


class OverlapConfig(BaseModel):
    """Decision thresholds and boilerplate rules; part of a freeze's hashed rule parameters."""

    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(0.65, ge=0, le=1)  # tokens: containment at or above this ...
    min_cover: int = 32  # ... over at least this many entry tokens inside shared k-grams (about 2 lines)
    paste_run: int = 150  # a shared run this long is a copy whatever the containment
    ops_threshold: float = Field(0.9, ge=0, le=1)  # ops (cross-language): containment at or above this ...
    ops_min_run: int = 7  # ... and a shared run of at least this many ops (a softmax is 7)
    ops_same_language: bool = False  # ops also between same-language pairs (tokens are stricter there)
    report_floor: float = Field(0.3, ge=0, le=1)  # unflagged pairs are reported from this containment ...
    report_min_shared: int = 3  # ... and this many shared fingerprints (the audit's score distribution)
    boilerplate_share: float = Field(0.05, gt=0, le=1)
    boilerplate_min_entries: int = 50
    boilerplate_operator_share: float = Field(0.3, gt=0, le=1)  # a hash in the files of this share of the cohort's
    boilerplate_min_operators: int = 3  # operators (and at least this many) is an idiom, not a copy
    builtin_boilerplate: bool = True


class OverlapMatch(BaseModel):
    """One (entry, cohort file, representation) pair with its scores and the evidence."""

    entry_id: str
    entry_part: str
    cohort_file: str
    cohort_unit: str = ""  # the kernel within the cohort file; "" for the whole file
    operator_id: str | None = None
    representation: str
    containment: float
    dice: float
    shared: int
    entry_fingerprints: int
    cohort_fingerprints: int
    covered: int  # entry stream tokens inside shared k-grams
    longest_run: int  # stream tokens (ops for the ops representation)
    run_entry_lines: tuple[int, int] | None = None
    run_cohort_lines: tuple[int, int] | None = None
    entry_lines: list[tuple[int, int]] = Field(default_factory=list)  # merged spans of all shared fingerprints
    cohort_lines: list[tuple[int, int]] = Field(default_factory=list)
    flagged: bool = False
    reason: str = ""  # containment | run | ""


class OverlapScan(BaseModel):
    n_entries: int
    n_candidates: int  # entries sharing enough non-seed hashes with the cohort to be scored
    boilerplate: dict[str, int]  # representation -> cohort hashes ignored
    matches: list[OverlapMatch]  # flagged pairs and pairs at or above the report floor
    histogram: dict[str, list[int]] = Field(default_factory=dict)  # best containment per entry, 20 bins of 0.05

    def flagged(self) -> dict[str, list[OverlapMatch]]:
        """entry id -> its flagged matches."""
        out: dict[str, list[OverlapMatch]] = defaultdict(list)
        for m in self.matches:
            if m.flagged:
                out[m.entry_id].append(m)
        return dict(out)


def score(m: OverlapMatch, config: OverlapConfig) -> float:
    """The one number config.threshold is compared with: tokens containment (0 over fewer than min_cover
    tokens; 1 for a shared run of paste_run tokens), ops containment scaled so that ops_threshold maps to
    threshold (0 without a shared run of ops_min_run ops)."""
    if m.representation == "ops":
        return m.containment * config.threshold / config.ops_threshold if m.longest_run >= config.ops_min_run else 0.0
    if m.longest_run >= config.paste_run:
        return 1.0
    return m.containment if m.covered >= config.min_cover else 0.0


def decide(m: OverlapMatch, config: OverlapConfig) -> tuple[bool, str]:
    """Is this pair a copy? (flag, which rule)."""
    if m.representation == "tokens" and m.longest_run >= config.paste_run:
        return True, "run"
    ok = score(m, config) >= config.threshold
    return ok, "containment" if ok else ""


def check_key(scheme: str, representation: str, k: int, w: int) -> None:
    """Refuse a fingerprint of another scheme, or of other k/w, than the one in use (StaleFingerprint)."""
    if representation not in PARAMS:
        raise BadInput(f"unknown fingerprint representation {representation!r}")
    if (scheme, k, w) != (SCHEME, *PARAMS[representation]):
        raise StaleFingerprint(
            f"fingerprint of scheme {scheme} (k={k}, w={w}) cannot be compared with scheme {SCHEME} "
            f"(k={PARAMS[representation][0]}, w={PARAMS[representation][1]}): re-fingerprint the KB")
