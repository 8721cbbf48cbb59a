"""What an overlap check decides and reports: its thresholds, the decision rule, which fingerprints compare,
and the matches and scan results (provenance.overlap computes them; see its docstring)."""
from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel, ConfigDict, Field

from provenance.errors import BadInput, StaleFingerprint
from provenance.fingerprint import PARAMS, SCHEME
from provenance.operating_point import OPS_NULL, THRESHOLD

REPRESENTATIONS = ("tokens", "ops")


class OverlapConfig(BaseModel):
    """Decision thresholds and boilerplate rules; part of a freeze's hashed rule parameters.

    threshold and ops_null are the bench's rules' choices (provenance.operating_point). ops_full_weight 6 is the
    previous rule's (a softmax, 7 ops, fully trusted); ops_min_weight 3 is the op weight of a dot product (LOAD LOAD
    MUL REDUCE_SUM STORE), which any reduction of a product performs: provenance.opstream's measured limit (kernels
    of fewer than 7 ops are not told apart across languages) as a trust of 0.
    """

    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(THRESHOLD, ge=0, le=1)  # a pair whose score (see `score`) is at or above this is a copy
    min_cover: int = 32  # tokens containment counts over at least this many entry tokens in shared k-grams
    paste_run: int = 150  # a shared run this long makes a tokens pair worth scoring whatever its containment
    ops_min_weight: float = Field(3.0, ge=0)  # a cohort kernel's op weight up to which its alignment tells nothing ...
    ops_full_weight: float = Field(6.0, gt=0)  # ... and from which it is fully trusted (t rises linearly between)
    ops_null: float = Field(OPS_NULL, ge=0, lt=1)  # the op alignment independent implementations reach across languages
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
    """How far the op alignment can be trusted: 0 up to the aligned kernel's op weight ops_min_weight, 1 from
    ops_full_weight, linear between (a kernel that only loads, reduces and stores tells nothing by its ops)."""
    span = max(config.ops_full_weight - config.ops_min_weight, 1e-9)
    return min(1.0, max(0.0, (m.aligned_weight - config.ops_min_weight) / span))


def excess(aligned: float, config: OverlapConfig) -> float:
    """The op alignment beyond what independent implementations of the same formula reach (ops_null), on [0, 1]."""
    return max(0.0, aligned - config.ops_null) / (1.0 - config.ops_null)


def score(m: OverlapMatch, config: OverlapConfig) -> float:
    """The one number config.threshold is compared with (it does not depend on the threshold).

    tokens (same language): T = containment (0 over fewer than min_cover tokens), A = the op alignment, t its
    trust; the score is min(T, t A + (1 - t) T) = T - t max(0, T - A): a copy shares both its text and its
    computation, boilerplate (wrappers, autotune lists, launch helpers) only the text, so a trusted alignment can
    only lower the text's score; where the ops tell nothing (t = 0) the text alone decides.
    ops (across languages, tokens cannot compare): t x excess(A). Independent implementations of one formula in
    two languages align as far as ops_null (measured: an independent C Welford LayerNorm inside an RMSNorm kernel,
    an independent Triton AdamW inside a C Adam step): only a port closer than that is evidence of copying.
    """
    t = trust(m, config)
    if m.representation == "ops":
        return round(t * excess(m.aligned, config), 4)
    tokens = m.containment if m.covered >= config.min_cover else 0.0
    return round(min(tokens, t * m.aligned + (1 - t) * tokens), 4)


RULE_TEXT = ("score >= {cfg.threshold}; same language: min(T, t*A + (1-t)*T) with T the tokens "
             "containment (over >= {cfg.min_cover} covered tokens), A the op-stream alignment with a cohort kernel, "
             "t = its op weight from {cfg.ops_min_weight} (0) to {cfg.ops_full_weight} (1); across languages: "
             "t * max(0, A - {cfg.ops_null}) / (1 - {cfg.ops_null})")


def rule_terms(m: OverlapMatch, config: OverlapConfig, fires: bool | None = None) -> str:
    """The score's terms for one pair, and how far it is from the threshold (the audit and `kb overlap` print it)."""
    s, t = score(m, config), trust(m, config)
    fires = s >= config.threshold if fires is None else fires
    where = f" with {m.aligned_unit}" if m.aligned_unit else ""
    aligned = f"aligned {m.aligned:.3f} ({m.aligned_ops} ops{where}, trust {t:.2f})"
    if m.representation == "ops":
        terms = f"{aligned}, beyond {config.ops_null}: {excess(m.aligned, config):.3f} -> {t:.2f} * {excess(m.aligned, config):.3f} = {s:.3f}"
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
