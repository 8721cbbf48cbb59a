"""A freeze after an import is not silently empty (issue 37): the starter patterns shipped with the tool are dated by
their shipped records, `kb freeze --frozen-at` is recorded and shown, and an emptied snapshot says so on stderr."""
import json
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbstore.cli import cli
from kbstore.origins import shipped

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "repair" / "rules" / "starter"
# the cohort froze after the tool's records were made (an import with this release), before their ingestion
FROZEN = (datetime.fromisoformat(max(v["recorded_at"] for v in shipped().values())) + timedelta(hours=1)
          ).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_shipped_origins_are_what_the_generator_writes():
    r = subprocess.run([sys.executable, "-m", "ingest.origins", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(shipped()) == len(list(STARTER.glob("*.json")))


@pytest.fixture(scope="module")
def starter_kb(tmp_path_factory):
    """The README's flow: a cohort written now (as `repair import` does), then the starter patterns ingested."""
    d = tmp_path_factory.mktemp("origins")
    (d / "relu.py").write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                               "        return torch.relu(x)\n")
    (d / "cohort.yaml").write_text(f'cohort: kernelbench\nfrozen_at: "{FROZEN}"\n'
                                   "operators:\n  - id: relu\n    files: [relu.py]\n")
    kb = d / "kb"
    r = CliRunner().invoke(cli, ["ingest", str(STARTER), "--kb", str(kb)], env={"KB_EMBEDDER": "hash"})
    assert r.exit_code == 0, r.output
    n = len(list(STARTER.glob("*.json")))  # progress on stderr, one line a stage (issue 37)
    assert re.search(rf"^kb ingest \[\d+s\] reading and gating {n} records$", r.stderr, re.M), r.stderr
    assert "] updating the index" in r.stderr
    assert r.stdout.startswith(f"{n} records: {n} admitted")
    return d, kb


def _freeze(d, kb, *extra):
    r = CliRunner().invoke(cli, ["freeze", "--exclude-cohort", str(d / "cohort.yaml"), "--kb", str(kb),
                                                 *extra], env={"KB_EMBEDDER": "hash"})
    assert r.exit_code == 0, (r.stdout, r.stderr)
    return r


def test_starter_patterns_ingested_after_the_cohort_are_kept(starter_kb):
    d, kb = starter_kb
    r = _freeze(d, kb, "--json")
    report = json.loads(r.stdout)
    n = len(list(STARTER.glob("*.json")))
    assert report["counts"]["kb_entries"] == n
    assert report["rules"]["temporal"]["excluded"] == 0, report["rules"]
    assert report["counts"]["included"] == n - report["rules"]["overlap"]["excluded"], report["rules"]
    assert r.stderr == ""


def test_frozen_at_before_the_starter_records_is_recorded_and_warned(starter_kb):
    d, kb = starter_kb
    r = _freeze(d, kb, "--frozen-at", "2026-11-01T00:00:00Z", "--name", "early")
    n = len(list(STARTER.glob("*.json")))
    assert f"keeps none of the KB's {n} entries (excluded by temporal {n} ({n} alone))" in r.stderr
    assert f"the temporal rule alone excludes {n} of {n} entries" in r.stderr and "--frozen-at" in r.stderr
    assert "frozen_at  2026-11-01T00:00:00Z" in r.stdout
    assert re.search(rf"^kb freeze \[\d+s\] scanning {n} entries for overlap with the cohort$", r.stderr, re.M)
    snap = [ln for ln in r.stdout.splitlines() if ln.startswith("snapshot ")][0].split()[1]
    audit = CliRunner().invoke(cli, ["audit", snap, "--kb", str(kb)], env={"KB_EMBEDDER": "hash"})
    assert audit.exit_code == 0, audit.output
    assert (f"2026-11-01T00:00:00Z (kb freeze --frozen-at; the cohort manifest says {FROZEN})"
            in audit.output)
    verify = CliRunner().invoke(cli, ["verify", snap, "--kb", str(kb)], env={"KB_EMBEDDER": "hash"})
    assert verify.exit_code == 0, verify.output  # the override is re-derived, not a difference


def test_frozen_at_needs_a_zone(starter_kb):
    d, kb = starter_kb
    r = CliRunner().invoke(cli, ["freeze", "--exclude-cohort", str(d / "cohort.yaml"), "--kb",
                                                 str(kb), "--frozen-at", "2026-11-01"])
    assert r.exit_code == 2 and "--frozen-at" in r.stderr and "time zone" in r.stderr
