# Sourced by bench/device_check.sh and bench/npu_check.sh: `step NAME SECONDS CMD...` runs CMD with a time limit,
# logs it to $out/NAME.log, prints its tail (TAILN lines) and appends its status to $out/summary.txt; a step not
# named in $steps is skipped. The caller sets `out` and `steps` first.
summary=$out/summary.txt
: >"$summary"

step() {
    local name=$1 limit=$2; shift 2
    [[ $steps == *" $name "* ]] || return 0
    local t0=$SECONDS
    timeout -k 5 "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    printf '%-10s rc=%-3s %4ss\n' "$name" "$rc" "$((SECONDS - t0))" | tee -a "$summary"
    tail -n "${TAILN:-12}" "$out/$name.log" | sed 's/^/    /'
    return $rc
}
