"""Generate kbstore/shipped_origins.json: the content hashes of the repair records shipped with the tool.

    python -m ingest.origins [--check]

The starter records (repair/rules/starter/*.json) ship in the package and were made before any cohort a user
freezes against; their sha256 (ingest.entry.record_sha256, the hash `kb ingest` records as evidence) fixes their
content, their recorded `finished_at` included. `kb freeze`'s temporal rule dates an entry by the earliest of its
first ingestion and the recorded time of any shipped record behind it (kbstore.origins), so ingesting the starter
patterns after `repair import` wrote a cohort does not lose them to the ingest clock. --check exits 1 when the
file is not what this generates (tests/kbstore/test_shipped_origins.py runs it).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("repair/rules/starter",)
TARGET = ROOT / "kbstore" / "shipped_origins.json"
GENERATOR = "python -m ingest.origins"


def build() -> dict:
    from ingest.entry import record_sha256
    from ingest.load import load_record

    records = {}
    for source in SOURCES:
        for path in sorted((ROOT / source).glob("*.json")):
            record = load_record(path).record
            records[record_sha256(record)] = {"path": f"{source}/{path.name}", "recorded_at": record.finished_at}
    return {"schema": "kb.shipped-origins/v1", "generator": GENERATOR, "records": dict(sorted(records.items()))}


def render(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=GENERATOR, description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the file differs from what this generates")
    args = ap.parse_args(argv)
    text = render(build())
    if args.check:
        same = TARGET.is_file() and TARGET.read_text() == text
        if not same:
            print(f"{TARGET} is stale: run `{GENERATOR}`", file=sys.stderr)
        return 0 if same else 1
    TARGET.write_text(text)
    print(f"wrote {TARGET} ({len(json.loads(text)['records'])} records)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
