#!/usr/bin/env bash
# The demo `make demo` runs: repair the example suite's near-misses with no API key and no GPU, learn from the
# repairs, and freeze a knowledge-base snapshot that provably did not learn from the suite.
#
#   1. a fresh KB in demo-out/kb with the hand-written starter patterns (each with executable rewrite rules)
#   2. `repair campaign --worker rules`: every near-miss, repaired by the retrieved rules at zero tokens
#   3. `repair campaign --worker scripted`: the near-misses no starter rule fixes, repaired by replaying the
#      patches in examples/scripted/ (one of them goes wrong twice first, so the loop rolls back)
#   4. AscendC near-misses (six-source .py and NPUKernelBench task directories) on `--backend ascendc-cpu`, the CPU
#      emulation: a rules campaign, then the scripted worker (examples/scripted/ascendc/) for what the rules leave
#   5. `kb ingest` the Triton campaigns' repair records: repairs become patterns, failed runs are rejected with reasons
#   6. `kb freeze --exclude-cohort manifests/examples.yaml`, `kb verify`, `kb audit`
#   7. `repair report` and a per-near-miss table
#
# Every command is echoed before it runs, as you would type it (with .venv/bin on PATH). Outputs go to
# demo-out/ (git-ignored), wiped at the start, so rerunning is safe. Any failing step stops the demo.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${VENV:-.venv}"
[[ "$VENV" = /* ]] || VENV="$PWD/$VENV"
if [[ ! -x "$VENV/bin/repair" || ! -x "$VENV/bin/kb" ]]; then
    echo "demo: $VENV/bin/repair or $VENV/bin/kb is missing; run 'make setup' first" >&2
    exit 3
fi
export PATH="$VENV/bin:$PATH"
# Offline and on the CPU (the Makefile exports the same; repeated here so `bash examples/demo.sh` runs alone).
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TRITON_INTERPRET=1 \
    ANONYMIZED_TELEMETRY=False

OUT=demo-out
JOBS="${DEMO_JOBS:-2}"
T0=$SECONDS

if [[ -t 1 ]]; then BOLD=$'\033[1m' DIM=$'\033[2m' OFF=$'\033[0m'; else BOLD="" DIM="" OFF=""; fi
STEP=0
step() { STEP=$((STEP + 1)); printf '\n%s== %d. %s%s  %s(%ds)%s\n' "$BOLD" "$STEP" "$1" "$OFF" "$DIM" "$((SECONDS - T0))" "$OFF"; }
say() { printf '%s# %s%s\n' "$DIM" "$*" "$OFF"; }
shown() {  # the command as you would type it: arguments with spaces or quotes in single quotes
    local a out=()
    for a in "$@"; do
        if [[ "$a" =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then out+=("$a"); else out+=("'${a//\'/\'\\\'\'}'"); fi
    done
    printf '%s' "${out[*]}"
}
run() {
    printf '%s$ %s%s\n' "$BOLD" "$(shown "$@")" "$OFF"
    local rc=0
    "$@" || rc=$?
    if ((rc != 0)); then
        echo "demo: step $STEP failed: \`$(shown "$@")\` exited with $rc" >&2
        exit "$rc"
    fi
}

step "A fresh knowledge base with the starter patterns"
run rm -rf "$OUT"
run mkdir -p "$OUT"
run export KB_PATH="$OUT/kb"
say "hand-written repair records, one per common Triton near-miss bug class, each carrying rewrite rules"
run kb ingest repair/rules/starter

step "Rules worker over every near-miss of the example suite (zero tokens)"
say "each run: evaluate, retrieve patterns for the symptom, apply their rules, gate and re-evaluate; exit 0 even"
say "when some runs end unrepaired (\`repair report\` has the numbers)"
# every rule-carrying pattern whose rule matches is tried (rules cost no tokens); -k limits only what a model sees
run repair campaign manifests/examples.yaml --worker rules --kb "$KB_PATH" --out "$OUT/rules" --jobs "$JOBS"

step "Scripted worker over the near-misses no starter rule fixes"
say "replays examples/scripted/<operator>/<candidate>.yaml: unified diffs with a diagnosis, as a user would write"
say "them. The scripted worker consults no patterns, so no --kb (it saves loading the embedder in every run)."
run repair campaign manifests/demo-scripted.yaml --worker scripted --script examples/scripted \
    --out "$OUT/scripted" --jobs "$JOBS"
say "transpose_copy's script tries two plausible wrong fixes first; neither improves, so the loop rolls back"
say "to the best checkpoint (the near-miss itself) and the third diff applies to that restored kernel:"
run grep -E '"event": "(rollback|accept)"' "$OUT/scripted/runs/transpose_copy/nearmiss_1/trajectory.jsonl"

step "AscendC near-misses on the CPU emulation (ascendc-cpu): rules, then scripted"
say "AscendC kernels built with g++ against an emulation of the AscendC API (builds cached by content hash): every"
say "AscendC result of this demo is EMULATED on the CPU, not measured on an Ascend NPU. The loop works on a bundle of"
say "the candidate's C++ files and writes each attempt back in its own format (six-source .py, task directory)."
run repair campaign manifests/ascendc-demo.yaml --backend ascendc-cpu --worker rules --kb "$KB_PATH" \
    --out "$OUT/ascendc-rules" --jobs "$JOBS"
say "the near-misses the rules left unrepaired, as a manifest for the scripted worker:"
python - manifests/ascendc-demo.yaml "$OUT/ascendc-rules" "$OUT/ascendc-left.yaml" <<'EOF'
import json, os, sys
from pathlib import Path

import yaml

from repair.campaign.spec import load_operators

manifest, runs, left = Path(sys.argv[1]).resolve(), Path(sys.argv[2]) / "runs", Path(sys.argv[3])
ops = []
for op in load_operators(manifest):
    todo = []
    for cand in op.candidates:
        label = cand.relative_to(op.problem.parent).with_suffix("").as_posix()
        record = runs / op.id / label / "record.json"
        if not (record.is_file() and json.loads(record.read_text())["status"] == "repaired"):
            todo += sorted(f for f in cand.rglob("*") if f.is_file()) if cand.is_dir() else [cand]
    if todo:
        ops.append({"id": op.id, "family": op.family,
                    "files": [Path(os.path.relpath(f, left.parent.resolve())).as_posix() for f in [op.problem, *todo]]})
left.write_text(yaml.safe_dump({"cohort": "ascendc-examples-demo-left", "frozen_at": "2026-12-01T00:00:00Z",
                                "operators": ops}, sort_keys=False))
print(f"# {len(ops)} operators with near-misses the rules left -> {left}")
EOF
if grep -q "id:" "$OUT/ascendc-left.yaml"; then
    run repair campaign "$OUT/ascendc-left.yaml" --backend ascendc-cpu --worker scripted \
        --script examples/scripted/ascendc --out "$OUT/ascendc-scripted" --jobs "$JOBS"
else
    say "the rules repaired every AscendC near-miss; nothing is left for the scripted worker"
fi
python - "$OUT" <<'EOF'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
rows = {}
for worker in ("rules", "scripted"):
    runs = out / f"ascendc-{worker}" / "runs"
    for record in sorted(runs.glob("**/record.json")):
        r = json.loads(record.read_text())
        key = record.parent.relative_to(runs).as_posix()
        if key not in rows or rows[key][1] != "repaired":
            rows[key] = (worker, r["status"], r["backend"], r.get("emulated", False))
print(f"{'AscendC near-miss':34} {'worker':9} {'repaired':8} backend")
for key, (worker, status, backend, emulated) in sorted(rows.items()):
    print(f"{key:34} {worker:9} {'yes' if status == 'repaired' else 'no':8} {backend}{' (emulated)' if emulated else ''}")
done = [k for k, r in rows.items() if r[1] == "repaired"]
print(f"\nrepaired {len(done)}/{len(rows)} AscendC near-misses ({sum(rows[k][0] == 'rules' for k in done)} by the "
      "rules worker), every result EMULATED on the CPU (ascendc-cpu), not measured on an NPU")
if len(done) < len(rows):
    sys.exit("demo: an AscendC near-miss was left unrepaired (see demo-out/ascendc-*/runs/)")
EOF

step "Learn from the repairs: ingest the campaigns' records as a new KB version"
say "the quality gate admits repaired runs only; each rejected record is listed with its reasons"
run kb ingest "$OUT/rules" "$OUT/scripted"
run kb log

step "Freeze a snapshot that excludes everything learned from the example cohort"
run kb freeze --exclude-cohort manifests/examples.yaml --name demo
run kb verify demo
run kb audit demo --md "$OUT/audit.md" --html "$OUT/audit.html"
say "what the snapshot kept, from \`kb snapshots --json\`:"
python - "$KB_PATH" <<'EOF'
import json, subprocess, sys

snap = next(s for s in json.loads(subprocess.check_output(["kb", "snapshots", "--kb", sys.argv[1], "--json"]))
            if s["name"] == "demo")
print(f"# snapshot {snap['id'][:16]} keeps {snap['included']} of {snap['kb_entries']} entries "
      "(the evidence for each exclusion is in demo-out/audit.md).")
if snap["included"] == 0:
    print("# Every entry came from the example suite itself: the starter records were written against its near-misses\n"
          "# and the campaigns repaired them. An empty snapshot is the honest answer: a KB that learned only from the\n"
          "# cohort has nothing it may use when evaluating on that cohort.")
else:
    print("# The kept entries are tied to the example cohort by none of the rules (provenance, overlap, ingest time).")
EOF

step "Report"
say "one report per campaign: the scripted campaign only holds what the rules could not fix, so a paired"
say "comparison of the two (what \`repair report A B\` prints for two methods on the same near-misses) would mislead"
run repair report "$OUT/rules" --html "$OUT/report.html"
run repair report "$OUT/scripted"
say "per near-miss, from each run's trajectory.jsonl (evals: compact and full tier evaluations; wall: the loop's own)"
python - "$OUT" <<'EOF'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
rows, bad = {}, []
for worker in ("rules", "scripted"):
    for traj in sorted((out / worker / "runs").glob("*/*/trajectory.jsonl")):
        events = [json.loads(line) for line in traj.read_text().splitlines() if line.strip()]
        end = next((e for e in events if e["event"] == "end"), None)
        key = f"{traj.parent.parent.name}/{traj.parent.name}"
        if end is None:
            bad.append(key)
            continue
        row = (worker, end["status"], end["spent"]["attempts"], sum(e["event"] == "evaluate" for e in events),
               end["spent"]["wall_s"])
        if key not in rows or rows[key][1] not in ("repaired", "already-passing"):
            rows[key] = row  # a near-miss the rules left unrepaired shows the scripted run
print(f"{'near-miss':32} {'worker':9} {'repaired':8} {'attempts':>8} {'evals':>6} {'wall s':>7}  ended")
for key, (worker, status, attempts, evals, wall) in sorted(rows.items()):
    ok = "yes" if status in ("repaired", "already-passing") else "no"
    print(f"{key:32} {worker:9} {ok:8} {attempts:>8} {evals:>6} {wall:>7.1f}  {status}")
done = [k for k, r in rows.items() if r[1] in ("repaired", "already-passing")]
by_rules = sum(1 for k in done if rows[k][0] == "rules")
print(f"\nrepaired {len(done)}/{len(rows)} near-misses: {by_rules} by the rules worker (0 tokens), "
      f"{len(done) - by_rules} by the scripted worker")
if bad:
    sys.exit(f"demo: no finished trajectory for {', '.join(bad)} (a crashed run; see its directory under {out})")
EOF

printf '\n%sdemo finished in %ds.%s Outputs in %s/: kb/ (the KB and its snapshot), rules/ and scripted/ (campaign\n' \
    "$BOLD" "$((SECONDS - T0))" "$OFF" "$OUT"
echo "ledgers, per-run trajectory.jsonl, final.py, record.json), ascendc-rules/ and ascendc-scripted/ (the AscendC"
echo "campaigns, emulated on the CPU), report.html, audit.md, audit.html."
