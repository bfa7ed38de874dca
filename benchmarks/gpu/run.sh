#!/usr/bin/env bash
# Runs every benchmark pair on the GPU, alternating Oxide and nvcc (A/B) within each round, then
# prints the table and writes results.csv, results.json, ratios.png and the raw log into $OUT
# (default ./bench-results).
#
#   bash .gpu/bench/run.sh
#   ROUNDS=1 PAIRS="stream sgemm" BENCH_REPS=20 bash .gpu/bench/run.sh
#
# ROUNDS (default 3): each round runs every pair once per side, Oxide first in odd rounds and
# nvcc first in even ones; a figure is the median over rounds of each run's median over
# BENCH_REPS (default 20) event-timed repetitions after 3 warm-ups.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$PWD/bench-results}"
rounds="${ROUNDS:-3}"
read -r -a pairs <<<"${PAIRS:-stream reduce transpose histogram softmax layernorm stencil sgemm matmul cub cub_block mma_gemm wgmma_gemm attention}"
mkdir -p "$out"
log="$out/raw.log"
errors="$out/stderr.log"
: >"$log"
: >"$errors"
device="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
echo "bench: ${device:-unknown GPU}; $rounds rounds of ${pairs[*]}; results in $out"

total=$((rounds * ${#pairs[@]} * 2))
step=0
failed=0
for r in $(seq "$rounds"); do
  if ((r % 2)); then sides=(oxide cuda); else sides=(cuda oxide); fi
  for p in "${pairs[@]}"; do
    for side in "${sides[@]}"; do
      step=$((step + 1))
      printf '[%2d/%d] round %d  %-10s %-6s ' "$step" "$total" "$r" "$p" "$side"
      start=$(date +%s%N)
      "$here/${p}_${side}" 2>>"$errors" | sed "s/^RESULT /$side $r /" >>"$log"
      rc=${PIPESTATUS[0]}
      printf '%6.1fs' "$((($(date +%s%N) - start) / 1000000))e-3"
      if ((rc != 0)); then
        failed=1
        printf '  exit %d (see %s)' "$rc" "$errors"
      fi
      grep -q "^$side $r .* FAIL " "$log" && printf '  CHECK FAILED'
      echo
    done
  done
done

python3 "$here/summarize.py" "$log" "$out" "${device:-}" "$rounds" || failed=1
python3 "$here/plot.py" "$out/results.json" "$out/ratios.png" && echo "bench: chart $out/ratios.png"
for extra in compile_times.csv codegen.csv; do
  [ -f "$here/$extra" ] && cp "$here/$extra" "$out/"
done
if [ -f "$here/compile_times.csv" ]; then
  echo
  echo "compile times (here: the build machine), seconds:"
  column -s, -t <"$here/compile_times.csv" 2>/dev/null || cat "$here/compile_times.csv"
fi
if [ -s "$errors" ]; then
  echo
  echo "stderr of the benchmarks ($errors):"
  head -20 "$errors"
fi
exit "$failed"
