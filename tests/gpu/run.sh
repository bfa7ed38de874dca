#!/usr/bin/env bash
# Runs the carried GPU suite (see build-suite.sh) on a machine with a CUDA GPU: every example
# and language test (lang/, from tests/lang) must print PASS, also under compute-sanitizer
# memcheck; the unit tests run with their GPU tests enabled. Writes a summary to $OUT (or
# ./gpu-results) and exits non-zero on any failure.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
results="${OUT:-$here/gpu-results}"
# Per-run logs go to a scratch folder and come back as one archive: the device tool returns
# at most a few files.
out="$(mktemp -d)"
mkdir -p "$out/lang"
mkdir -p "$results"
summary="$results/summary.txt"
: > "$summary"
failures=0

record() { printf '%-40s %s\n' "$1" "$2" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"

for exe in "$here"/examples/* "$here"/lang/*; do
  [ -x "$exe" ] || continue
  name="$(basename "$exe")"
  [ "$(basename "$(dirname "$exe")")" = lang ] && name="lang/$name"
  start=$(date +%s%N)
  if "$exe" > "$out/$name.log" 2>&1 && grep -q '^PASS' "$out/$name.log"; then
    record "$name" "PASS ($(( ($(date +%s%N) - start) / 1000000 )) ms whole process)"
  else
    record "$name" "FAIL (see $name.log)"; failures=$((failures + 1))
  fi
  if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
      if compute-sanitizer --tool "$tool" --error-exitcode 3 "$exe" > "$out/$name.$tool.log" 2>&1; then
        record "$name [$tool]" clean
      else
        record "$name [$tool]" "ERRORS (see $name.$tool.log)"; failures=$((failures + 1))
      fi
    done
  fi
  # The same executable on the CPU simulator of the GPU machine's host.
  if OXIDE_DEVICE=cpu "$exe" > "$out/$name.sim.log" 2>&1 && grep -q '^PASS' "$out/$name.sim.log"; then
    record "$name [simulator]" PASS
  else
    record "$name [simulator]" "FAIL (see $name.sim.log)"; failures=$((failures + 1))
  fi
done

# Maths: within CUDA's documented ulps of the host, and within one ulp of nvcc's results.
if "$here/math_nvcc" "$out/nvcc-math.bin" && "$here/math_oxide" --compare "$out/nvcc-math.bin" > "$out/math.log" 2>&1; then
  record "math vs host and nvcc" PASS
else
  record "math vs host and nvcc" "FAIL (see math.log)"; failures=$((failures + 1))
fi
rm -f "$out/nvcc-math.bin"

if "$here/oxide_unit_tests" > "$out/unit.log" 2>&1; then
  record "unit tests" "PASS ($(grep -c '^\[       OK \]' "$out/unit.log") ok, $(grep -c '^\[  SKIPPED \]' "$out/unit.log") skipped)"
else
  record "unit tests" "FAIL (see unit.log)"; failures=$((failures + 1))
fi

echo "failures: $failures" | tee -a "$summary"
tar -czf "$results/logs.tar.gz" -C "$out" .
[ "$failures" -eq 0 ]
