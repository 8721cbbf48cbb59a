#!/usr/bin/env bash
# The checks that need an NVIDIA GPU, in one pass: run from the repository root on a machine with a GPU,
# torch with CUDA, triton, click, pyyaml and pydantic (nothing is installed here; no network is needed).
#
#     bash bench/device_check.sh [OUTDIR]          # logs in OUTDIR (default $OUT, else /tmp/device-check)
#
# Steps, each with its own time limit and log, a failure never stopping the next:
#   info      the GPU, torch, triton
#   probe     a sandboxed child under the cuda backend's host-memory limit (RLIMIT_DATA): CUDA starts,
#             a Triton kernel compiles and runs, device memory is not capped, a 1 GiB host tensor is refused
#   smoke     `repair eval --json` of a few candidates on cuda: wall, forwards and each case's forward
#   tests     the example suite's label test and the harness/sandbox tests with REPAIR_BACKEND=cuda
#             (the memory-hog test only where the probe showed the limit holds)
#   start     bench/bench_cuda_start.py: a fresh process's CUDA context and first Triton launch, by phase
#   run       `repair run` of one near-miss with the scripted worker on cuda
#   landlock  the label and sandbox tests again with REPAIR_CONFINE=on: candidates confined on cuda (if they
#             pass, cuda's confine_default can become True in repair/engine/backends.py)
#   timing    bench/bench_timing.py: the example suite's correct kernels against their references (median of 100
#             trials with device events, torch.compile beside), a table; then `repair eval --time` of one near-miss
#   bench-*   bench/bench_harness.py --backend cuda, then triton-cpu on this machine's cores ($BENCH_ARGS added)
set -u
out=${1:-${OUT:-/tmp/device-check}}
mkdir -p "$out"
export REPAIR_BACKEND=${REPAIR_BACKEND:-cuda} HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
PY=${PYTHON:-python3}
steps=" ${STEPS:-info probe smoke start tests run timing landlock bench-cuda bench-cpu} "  # a subset: STEPS="smoke tests"
source "$(dirname "${BASH_SOURCE[0]}")/check_steps.sh"

step info 60 bash -c "nvidia-smi -L; nproc; $PY -c 'import sys, torch, triton; print(sys.version.split()[0], \
torch.__version__, triton.__version__, torch.cuda.is_available(), torch.cuda.get_device_name(0))'"

hog_ok=0
step probe 120 "$PY" - <<'EOF' && hog_ok=1
import importlib.util, os, sys, traceback
from repair.engine.confine.limits import apply_limits

pid = os.fork()
if pid == 0:
    code = 1
    try:
        import torch
        spec = importlib.util.spec_from_file_location("cand", "tests/repair/engine/data/addrelu_correct.py")
        cand = importlib.util.module_from_spec(spec); sys.modules["cand"] = cand; spec.loader.exec_module(cand)
        done = apply_limits(mem_limit_mb=512, cpu_seconds=120, fsize_mb=64, memory_rlimit="data")
        print("limits", done)
        x, y = torch.randn(5000, device="cuda"), torch.randn(5000, device="cuda")
        out = cand.launch(x, y)
        torch.cuda.synchronize()
        assert torch.equal(out, torch.relu(x + y)), "kernel result differs"
        print("cuda context and triton kernel: ok under RLIMIT_DATA")
        g = torch.empty(8 << 30, dtype=torch.uint8, device="cuda")
        print("8 GiB of device memory: allowed (not capped)")
        del g
        try:
            h = torch.ones(1 << 30, dtype=torch.uint8)
            print("1 GiB host tensor: NOT refused")
            code = 2
        except (RuntimeError, MemoryError) as e:
            print("1 GiB host tensor: refused:", str(e).splitlines()[0][:120])
            code = 0
    except BaseException:
        traceback.print_exc()
    sys.stdout.flush()
    os._exit(code)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
EOF

# per evaluation: wall and forward seconds, then each case's candidate forward in ms (the first pays the launch)
step smoke 180 bash -c "for c in add_relu/correct add_relu/correct softmax/nearmiss_1 matmul/correct; do \
$PY -m repair eval examples/\${c%/*}/problem.py examples/\$c.py --seed 1 --json | $PY -c \
'import json, sys; d = json.load(sys.stdin); print(sys.argv[1], d[\"wall_seconds\"], d[\"kernel_seconds\"], \
[c[\"status\"][:4] + \" %.2f\" % (c[\"seconds\"] * 1e3) for c in d[\"cases\"]])' \$c; done"

deselect=()
[ "$hog_ok" = 1 ] || deselect=(--deselect tests/repair/engine/test_sandbox.py::test_memory_hog_hits_the_limit)
TAILN=40 step start 120 "$PY" bench/bench_cuda_start.py

TAILN=40 step tests 420 "$PY" -m pytest -q -p no:cacheprovider -n "${JOBS:-8}" "${deselect[@]}" \
    tests/examples tests/repair/engine/test_sandbox.py tests/repair/engine/test_harness.py tests/repair/engine/test_harness_cli.py

step run 180 "$PY" -m repair run examples/tanh_scaled/problem.py examples/tanh_scaled/nearmiss_1.py \
    --worker scripted --script examples/scripted/tanh_scaled/nearmiss_1.yaml --seed 1 --out "${TMPDIR:-/tmp}/device-check-run"

TAILN=30 step timing 420 bash -c "$PY bench/bench_timing.py --backend cuda && $PY -m repair eval \
examples/add_relu/problem.py examples/add_relu/nearmiss_1.py --seed 1 --time | tail -3"

TAILN=20 step landlock 300 env REPAIR_CONFINE=on "$PY" -m pytest -q -p no:cacheprovider -n "${JOBS:-8}" \
    "${deselect[@]}" tests/examples tests/repair/engine/test_sandbox.py

TAILN=8 step bench-cuda 300 "$PY" bench/bench_harness.py --backend cuda --help-runs 3 ${BENCH_ARGS:-}
TAILN=8 step bench-cpu 300 env -u REPAIR_BACKEND TRITON_INTERPRET=1 "$PY" bench/bench_harness.py \
    --backend triton-cpu --help-runs 3 ${BENCH_ARGS:-}
echo "--- summary"; cat "$summary"
