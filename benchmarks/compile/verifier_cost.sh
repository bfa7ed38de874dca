#!/usr/bin/env bash
# The compile-time cost of the safety verifier (oxide-verify-safety: witness provenance and
# VerifyWrites) on the GPU benchmark sources, against a whole `oxcc build --arch=sm_90`.
#
#   bash benchmarks/compile/verifier_cost.sh        # prints one line per source and the total
#
# Each source's raised MLIR (the verifier's input) is dumped once; oxide-opt then runs the pass
# alone with MLIR's pass timing, fastest of $REPEAT runs; the build is timed the same way
# (no object cache). The share is verifier / build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${OXIDE_BUILD_DIR:-$root/build}/bin"
repeat="${REPEAT:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fastest() { # prints the fastest wall-clock seconds of "$@" over $repeat runs
  local best="" t0 t1 t
  for _ in $(seq "$repeat"); do
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    t=$(echo "$t1 - $t0" | bc)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  echo "$best"
}

verifier_seconds() { # the fastest wall time oxide-opt reports for the pass
  local best="" t
  for _ in $(seq "$repeat"); do
    t=$("$bin/oxide-opt" "$1" -oxide-verify-safety --mlir-timing -o /dev/null 2>&1 |
      awk '/oxide-verify-safety|OxideVerifySafety/ { print $1; exit }')
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  echo "$best"
}

printf '%-28s %10s %10s %8s\n' source build_s verify_s share
total_build=0 total_verify=0
for src in "$root"/benchmarks/gpu/*_oxide.cpp "$root"/examples/sgemm.cpp "$root"/tests/lang/classes.cpp; do
  name="$(basename "$src" .cpp)"
  "$bin/oxcc" build --arch=sm_90 -I"$root/benchmarks/gpu" "$src" --emit=mlir-after=oxide-raise -o "$work/$name.mlir"
  build=$(fastest env OXCC_NO_CACHE=1 "$bin/oxcc" build --arch=sm_90 -I"$root/benchmarks/gpu" "$src" -o "$work/$name")
  verify=$(verifier_seconds "$work/$name.mlir")
  printf '%-28s %10.3f %10.4f %7.2f%%\n' "$name" "$build" "$verify" "$(echo "100 * $verify / $build" | bc -l)"
  total_build=$(echo "$total_build + $build" | bc)
  total_verify=$(echo "$total_verify + $verify" | bc)
done
printf '%-28s %10.3f %10.4f %7.2f%%\n' total "$total_build" "$total_verify" "$(echo "100 * $total_verify / $total_build" | bc -l)"
