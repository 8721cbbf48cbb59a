#!/usr/bin/env bash
# The checks that need an Ascend NPU, in one pass: run from the repository root on a host with CANN (its set_env.sh
# sourced), torch_npu and triton-ascend installed; nothing is installed here and no network is needed. Never run
# this with torch_npu in the test environment of a machine without CANN (it breaks `import torch`).
#
#     bash bench/npu_check.sh [OUTDIR]          # logs in OUTDIR (default $OUT, else /tmp/npu-check)
#
# Steps, each with its own time limit and log, a failure never stopping the next:
#   info      npu-smi, the CANN version, torch and torch_npu, torch.npu.is_available()
#   ascendc   `repair eval --backend npu` of the AscendC example suite (examples/ascendc/*/meta.yaml): every
#             correct kernel in its three formats must pass, every near-miss fail, every cheat be flagged: the
#             first run of repair/ascendc/build.py's CANN commands (msopgen, build.sh, the installer, the torch
#             extension; bisheng for a direct launch)
#   emulated  the same candidates on ascendc-cpu, so the two columns compare (the emulation against the chip)
#   triton    the Triton example suite's label test with REPAIR_BACKEND=npu (triton-ascend kernels)
#   run       `repair run` of one AscendC near-miss with the scripted worker on npu
set -u
out=${1:-${OUT:-/tmp/npu-check}}
mkdir -p "$out"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
PY=${PYTHON:-python3}
steps=" ${STEPS:-info ascendc emulated triton run} "  # a subset: STEPS="info ascendc"
source "$(dirname "${BASH_SOURCE[0]}")/check_steps.sh"

step info 60 bash -c "npu-smi info | head -20; cat \"\${ASCEND_HOME_PATH:-/usr/local/Ascend/ascend-toolkit/latest}\"/*/version.info 2>/dev/null | head -3; \
$PY -c 'import torch, torch_npu; print(torch.__version__, torch_npu.__version__, torch.npu.is_available(), torch.npu.device_count())'"

suite() {  # suite BACKEND: each labelled AscendC candidate, its expected and actual verdict, one line each
    "$PY" - "$1" <<'EOF'
import json, subprocess, sys
from pathlib import Path
import yaml

backend, bad = sys.argv[1], 0
for meta in sorted(Path("examples/ascendc").glob("*/meta.yaml")):
    op = meta.parent
    for name, label in yaml.safe_load(meta.read_text())["candidates"].items():
        r = subprocess.run([sys.executable, "-m", "repair", "eval", str(op / "problem.py"), str(op / name),
                            "--backend", backend, "--seed", "1", "--json"], capture_output=True, text=True)
        try:
            d = json.loads(r.stdout)
            got = "pass" if d.get("passed") else "fail"
            why = d.get("integrity", {}).get("verdict", "") if isinstance(d.get("integrity"), dict) else ""
        except ValueError:
            got, why = f"exit {r.returncode}", (r.stderr.strip().splitlines() or [""])[-1][:100]
        want = "pass" if label["kind"] == "correct" else "fail"
        ok = got == want
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {op.name:12} {name:32} {label['kind']:9} want={want} got={got} {why}")
print(f"{bad} unexpected")
sys.exit(1 if bad else 0)
EOF
}

TAILN=60 step ascendc 3600 suite npu
TAILN=5 step emulated 900 suite ascendc-cpu

TAILN=20 step triton 900 env REPAIR_BACKEND=npu "$PY" -m pytest -q -p no:cacheprovider -n "${JOBS:-8}" tests/examples

step run 1200 "$PY" -m repair run examples/ascendc/add/problem.py examples/ascendc/add/nearmiss_tail.py \
    --backend npu --worker scripted --script examples/scripted/ascendc/add/nearmiss_tail.yaml --seed 1 \
    --out "${TMPDIR:-/tmp}/npu-check-run"
echo "--- summary"; cat "$summary"
