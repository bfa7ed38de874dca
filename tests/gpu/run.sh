#!/usr/bin/env bash
# Runs the carried GPU suite (see build-suite.sh) on a machine with a CUDA GPU: every example
# must print PASS, also under compute-sanitizer memcheck; the unit tests run with their GPU
# tests enabled. Writes a summary to $OUT (or ./gpu-results) and exits non-zero on any failure.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
results="${OUT:-$here/gpu-results}"
# Per-run logs go to a scratch folder and come back as one archive: the device tool returns
# at most a few files.
out="$(mktemp -d)"
mkdir -p "$results"
summary="$results/summary.txt"
: > "$summary"
failures=0

record() { printf '%-40s %s\n' "$1" "$2" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"

for exe in "$here"/examples/*; do
  name="$(basename "$exe")"
  if "$exe" > "$out/$name.log" 2>&1 && grep -q '^PASS' "$out/$name.log"; then
    record "$name" PASS
  else
    record "$name" "FAIL (see $name.log)"; failures=$((failures + 1))
  fi
  if command -v compute-sanitizer >/dev/null; then
    if compute-sanitizer --tool memcheck --error-exitcode 3 "$exe" > "$out/$name.memcheck.log" 2>&1; then
      record "$name [memcheck]" clean
    else
      record "$name [memcheck]" "ERRORS (see $name.memcheck.log)"; failures=$((failures + 1))
    fi
  fi
done

if "$here/oxide_unit_tests" > "$out/unit.log" 2>&1; then
  record "unit tests" "PASS ($(grep -c '^\[       OK \]' "$out/unit.log") ok, $(grep -c '^\[  SKIPPED \]' "$out/unit.log") skipped)"
else
  record "unit tests" "FAIL (see unit.log)"; failures=$((failures + 1))
fi

echo "failures: $failures" | tee -a "$summary"
tar -czf "$results/logs.tar.gz" -C "$out" .
[ "$failures" -eq 0 ]
