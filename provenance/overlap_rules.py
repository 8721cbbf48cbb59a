"""What an overlap check decides and reports: its thresholds, the decision rule, which fingerprints compare,
and the matches and scan results (provenance.overlap computes them; see its docstring)."""
from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel, ConfigDict, Field

from provenance.errors import BadInput, StaleFingerprint
from provenance.fingerprint import PARAMS, SCHEME

REPRESENTATIONS = ("tokens", "ops")


class OverlapConfig(BaseModel):
    """Decision thresholds and boilerplate rules; part of a freeze's hashed rule parameters.

    Chosen on heldout/overlap/part1 with its own 8-operator cohort (bench/bench_overlap_heldout.py; part2 was
    not read): ops_full_weight, ops_discount and align.COMMON_WEIGHT by a small grid on part1's AUC; threshold
    0.47 = part1's highest clean score (0.37) plus a margin of 0.1, since five of its 22 clean files score
    between 0.30 and 0.37 and a threshold under 0.45 flags more independent files of the planted corpus
    (tests/provenance: conv1d.c, rmsnorm_tiled.py). tokens_alone 0.65 is the containment threshold of the rule
    before op alignment.
    """

    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(0.47, ge=0, le=1)  # a pair whose score (see `score`) is at or above this is a copy
    min_cover: int = 32  # tokens containment counts over at least this many entry tokens in shared k-grams
    paste_run: int = 150  # a shared run this long makes a tokens pair worth scoring whatever its containment
    tokens_alone: float = Field(0.65, gt=0, le=1)  # the containment that makes a copy without op evidence (t = 0)
    ops_full_weight: float = Field(6.0, gt=0)  # a cohort kernel's op weight at which its alignment is fully trusted
    ops_discount: float = Field(0.85, ge=0, le=1)  # cross-language: score = discount x trust x aligned fraction
    ops_floor: float = Field(0.2, ge=0, le=1)  # cross-language pairs are aligned from this ops 4-gram containment
    ops_same_language: bool = False  # ops pairs also within one language (tokens + ops alignment cover that)
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
    aligned: float = 0.0  # the best op-stream alignment with a kernel of the cohort file (provenance.align) ...
    aligned_weight: float = 0.0  # ... that kernel's op weight ...
    aligned_ops: int = 0  # ... and the ops matched
    aligned_unit: str = ""  # the kernel aligned with
    aligned_entry_lines: tuple[int, int] | None = None
    aligned_cohort_lines: tuple[int, int] | None = None
    score: float = 0.0  # overlap_rules.score: what the threshold is compared with
    run_entry_lines: tuple[int, int] | None = None
    run_cohort_lines: tuple[int, int] | None = None
    entry_lines: list[tuple[int, int]] = Field(default_factory=list)  # merged spans of all shared fingerprints
    cohort_lines: list[tuple[int, int]] = Field(default_factory=list)
    flagged: bool = False
    reason: str = ""  # tokens+ops | ops | ""


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


def trust(m: OverlapMatch, config: OverlapConfig) -> float:
    """How far the op alignment can be trusted: the aligned kernel's op weight over ops_full_weight, at most 1."""
    return min(1.0, m.aligned_weight / config.ops_full_weight)


def score(m: OverlapMatch, config: OverlapConfig) -> float:
    """The one number config.threshold is compared with.

    tokens (same language): T = containment (0 over fewer than min_cover tokens), A = the op alignment, t its
    trust; the score is min(T, t A + (1 - t) T threshold / tokens_alone): a copy shares both its text and its
    computation, boilerplate (wrappers, autotune lists, launch helpers) only the text and an independent kernel
    of the same family only the computation; where the ops tell nothing (t = 0), T alone must reach tokens_alone.
    ops (across languages, tokens cannot compare): ops_discount x t x A.
    """
    t = trust(m, config)
    if m.representation == "ops":
        return round(config.ops_discount * t * m.aligned, 4)
    tokens = m.containment if m.covered >= config.min_cover else 0.0
    alone = tokens * config.threshold / config.tokens_alone
    return round(min(tokens, t * m.aligned + (1 - t) * alone), 4)


RULE_TEXT = ("score >= {cfg.threshold}; same language: min(T, t*A + (1-t)*T*{cfg.threshold}/{cfg.tokens_alone}) with "
             "T the tokens containment (over "
             ">= {cfg.min_cover} covered tokens), A the op-stream alignment with a cohort kernel, t = min(1, its op "
             "weight / {cfg.ops_full_weight}); across languages: {cfg.ops_discount} * t * A")


def rule_terms(m: OverlapMatch, config: OverlapConfig, fires: bool | None = None) -> str:
    """The score's terms for one pair, and how far it is from the threshold (the audit and `kb overlap` print it)."""
    s, t = score(m, config), trust(m, config)
    fires = s >= config.threshold if fires is None else fires
    where = f" with {m.aligned_unit}" if m.aligned_unit else ""
    aligned = f"aligned {m.aligned:.3f} ({m.aligned_ops} ops{where}, trust {t:.2f})"
    if m.representation == "ops":
        terms = f"{aligned} -> {config.ops_discount} * {t:.2f} * {m.aligned:.3f} = {s:.3f}"
    else:
        tokens = m.containment if m.covered >= config.min_cover else 0.0
        cover = "" if m.covered >= config.min_cover else f", covered {m.covered} of {config.min_cover} tokens: T = 0"
        terms = f"T {tokens:.3f}{cover}, {aligned} -> score {s:.3f}"
    return terms + (f" >= {config.threshold}" if fires else f", {config.threshold - s:.3f} under {config.threshold}")


def decide(m: OverlapMatch, config: OverlapConfig) -> tuple[bool, str]:
    """Is this pair a copy? (flag, which rule)."""
    ok = score(m, config) >= config.threshold
    return ok, ("tokens+ops" if m.representation == "tokens" else "ops") if ok else ""


def check_key(scheme: str, representation: str, k: int, w: int) -> None:
    """Refuse a fingerprint of another scheme, or of other k/w, than the one in use (StaleFingerprint)."""
    if representation not in PARAMS:
        raise BadInput(f"unknown fingerprint representation {representation!r}")
    if (scheme, k, w) != (SCHEME, *PARAMS[representation]):
        raise StaleFingerprint(
            f"fingerprint of scheme {scheme} (k={k}, w={w}) cannot be compared with scheme {SCHEME} "
            f"(k={PARAMS[representation][0]}, w={PARAMS[representation][1]}): re-fingerprint the KB")
