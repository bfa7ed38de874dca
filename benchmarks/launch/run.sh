#!/usr/bin/env bash
# Runs the launch benchmarks on the GPU: (1) launch overhead of Oxide prepared launches,
# oxide::unsafe_launch and cuLaunchKernel on Oxide's own cubin (launch_oxide) against nvcc's
# <<<>>>, cudaLaunchKernel and cuLaunchKernel (launch_cuda); (2) module load of the embedded cubin
# and PTX, JIT cache on and off, and oxide::prepare's first call; (3) process start to first kernel
# done, Oxide vs nvcc (startup.py). Prints the tables and writes launch.csv, launch.json, raw.log
# and stderr.log into $OUT (default ./launch-results). About a minute on an H200.
#
#   bash .gpu/launch/run.sh
#   LAUNCH_N=100000 LAUNCH_REPS=5 STARTUP_RUNS=20 MODULE_REPS=20 bash .gpu/launch/run.sh
#   OXIDE_DEVICE=cpu bash .gpu/launch/run.sh   # no GPU: Oxide launches on the CPU simulator only
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$PWD/launch-results}"
mkdir -p "$out"
log="$out/raw.log"
errors="$out/stderr.log"
: >"$log"
: >"$errors"
failed=0

# step LABEL COMMAND...: runs COMMAND, appending its RESULT lines to raw.log, with a time limit.
step() {
  local label="$1" start rc
  shift
  printf '%-44s ' "$label"
  start=$(date +%s%N)
  timeout "${STEP_TIMEOUT:-100}" "$@" 2>>"$errors" >>"$log"
  rc=$?
  printf '%6.1fs' "$((($(date +%s%N) - start) / 1000000))e-3"
  if ((rc != 0)); then
    failed=1
    printf '  exit %d (see %s)' "$rc" "$errors"
  fi
  echo
}

if [ "${OXIDE_DEVICE:-}" = cpu ]; then
  device="CPU simulator"
  echo "launch: OXIDE_DEVICE=cpu: Oxide launches on the CPU SIMULATOR only (simulator numbers, not GPU ones)"
  step "launch_oxide launch (simulator)" "$here/launch_oxide" launch
  step "launch_oxide module (simulator)" "$here/launch_oxide" module
  step "startup_oxide x ${STARTUP_RUNS:-5} (simulator)" \
    python3 "$here/startup.py" "${STARTUP_RUNS:-5}" "$here/startup_oxide"
else
  device="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "launch: ${device:-unknown GPU}; results in $out"
  step "1. launch_oxide launch" "$here/launch_oxide" launch
  step "1. launch_cuda" "$here/launch_cuda"
  step "2. launch_oxide module (JIT cache on)" "$here/launch_oxide" module
  step "2. launch_oxide module (JIT cache off)" env CUDA_CACHE_DISABLE=1 "$here/launch_oxide" module
  step "3. startup x ${STARTUP_RUNS:-20} (Oxide, nvcc)" \
    python3 "$here/startup.py" "${STARTUP_RUNS:-20}" "$here/startup_oxide" "$here/startup_cuda"
fi

python3 "$here/summarize.py" "$log" "$out" "${device:-}" || failed=1
if [ -s "$errors" ]; then
  echo
  echo "stderr of the benchmarks ($errors):"
  head -20 "$errors"
fi
exit "$failed"
