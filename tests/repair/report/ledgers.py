"""Campaign ledgers written directly, for the report tests (a unique module name: tests/ are not packages)."""
from pathlib import Path

from repair.campaign.ledger import Ledger
from repair.campaign.outcome import FindingRow, PatternRow, RunOutcome
from repair.campaign.spec import CampaignConfig, GenerationCost, RunSpec


def make_ledger(out: Path, kind: str, outcomes: dict[str, dict], *, trials: int = 1, ablations=(), pending=(),
                generation: dict[str, tuple[int, str | None]] | None = None, cohort: str | None = None,
                backend: str = "triton-cpu", policy: str = "strict") -> Path:
    """A campaign ledger written directly: {key: RunOutcome fields}; keys listed in `pending` stay unfinished;
    `generation`: {key: (tokens, model)} as a cohort manifest's generation_cost gives it; `cohort`: its hash;
    an outcome's `rules` are rule ids or (rule id, level) pairs."""
    config = CampaignConfig(kind=kind, manifest=f"/m/{out.name}.yaml", manifest_sha256=cohort, trials=trials,
                            ablations=list(ablations), backend=backend, policy=policy)
    keys = list(outcomes) + list(pending)
    gen = {k: GenerationCost(tokens=t, model=m) for k, (t, m) in (generation or {}).items()}
    specs = [RunSpec(k, k.split("/")[0], "fam", Path("/p/problem.py"),
                     None if kind == "regenerate" else Path(f"/p/{k.split('/')[1]}.py"),
                     int(k.split("-")[-1]) if kind == "regenerate" else 0, gen.get(k)) for k in keys]
    ledger = Ledger(out)
    ledger.open_campaign(config, specs)
    done = []
    for key, fields in outcomes.items():
        fields = dict(fields)
        cited = fields.pop("cited", [])
        fields.setdefault("status", "failed")
        o = RunOutcome(key=key, patterns=[PatternRow(entry_id=c, rank=i, cited=True) for i, c in enumerate(cited)],
                       findings=[FindingRow(attempt=1, rule=r) if isinstance(r, str) else
                                 FindingRow(attempt=1, rule=r[0], level=r[1]) for r in fields.pop("rules", [])],
                       **fields)
        done.append(o)
    ledger.record(*done)
    return out
