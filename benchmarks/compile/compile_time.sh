#!/usr/bin/env bash
# Compile time of Oxide against nvcc, in one run: every GPU benchmark (benchmarks/gpu/<k>_oxide.cpp)
# and its CUDA twin (<k>_cuda.cu), and the examples for oxcc alone, built three ways:
#   fat    oxcc build (cubins for sm_80, sm_86, sm_89, sm_90 and sm_90 PTX)
#          vs nvcc -O3 with -gencode for the same four cubins and the PTX
#   sm_90  oxcc build --arch=sm_90            vs nvcc -O3 -arch=sm_90
#   check  oxcc check (diagnostics only)      vs nvcc -O3 -arch=sm_90 (a full build: what a CUDA
#          programmer runs to see their errors)
# Each figure is the fastest of $REPEAT (default 3) wall-clock runs, one compile at a time, with
# oxcc's object cache off (OXCC_NO_CACHE=1; its precompiled Oxide headers stay, as they do for a
# user). Prints a table and the geometric mean of each ratio; the figures go in
# docs/performance.md. Run it on an idle machine: it measures the machine as much as the compilers.
#
#   bash benchmarks/compile/compile_time.sh
#   PAIRS="stream sgemm" REPEAT=5 bash benchmarks/compile/compile_time.sh
#   EXAMPLES=0 bash benchmarks/compile/compile_time.sh     # the pairs only (about 7 minutes)
#   BASELINE=/old/bin/oxcc EXAMPLES=0 bash ...              # and an earlier oxcc, in the same run
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
oxcc="${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc"
nvcc="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc"
repeat="${REPEAT:-3}"
baseline="${BASELINE:-}"
read -r -a pairs <<<"${PAIRS:-stream reduce transpose histogram softmax layernorm stencil sgemm}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OXCC_NO_CACHE=1

fastest() { # the fastest wall-clock seconds of "$@" over $repeat runs; fails if a run fails
  local best="" t0 t1 t
  for _ in $(seq "$repeat"); do
    t0=$(date +%s.%N)
    "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; return 1; }
    t1=$(date +%s.%N)
    t=$(echo "$t1 - $t0" | bc)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  printf '%.2f' "$best"
}

fat_gencode=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86
             -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code='[sm_90,compute_90]')

"$oxcc" check "$root/examples/vecadd.cpp" >/dev/null 2>&1 || true # precompiled headers, once
[ -z "$baseline" ] || "$baseline" check "$root/examples/vecadd.cpp" >/dev/null 2>&1 || true
printf '%-20s %8s %8s %6s   %8s %8s %6s   %8s %6s' source "fat ox" "fat nv" ratio "90 ox" "90 nv" ratio check ratio
[ -z "$baseline" ] && echo || printf '   %8s %8s %8s  (baseline oxcc)\n' "fat" "90" "check"
base_ratios="$work/base_ratios"
: >"$base_ratios"
ratios="$work/ratios"
: >"$ratios"
for p in "${pairs[@]}"; do
  src="$root/benchmarks/gpu/${p}_oxide.cpp" twin="$root/benchmarks/gpu/${p}_cuda.cu"
  ox_fat=$(fastest "$oxcc" build -O3 "$src" -o "$work/ox")
  nv_fat=$(fastest "$nvcc" -O3 -std=c++17 "${fat_gencode[@]}" "$twin" -o "$work/nv")
  ox_90=$(fastest "$oxcc" build -O3 --arch=sm_90 "$src" -o "$work/ox")
  nv_90=$(fastest "$nvcc" -O3 -std=c++17 -arch=sm_90 "$twin" -o "$work/nv")
  ox_check=$(fastest "$oxcc" check -O3 "$src")
  r_fat=$(echo "scale=3; $ox_fat / $nv_fat" | bc) r_90=$(echo "scale=3; $ox_90 / $nv_90" | bc)
  r_check=$(echo "scale=3; $ox_check / $nv_90" | bc)
  echo "$r_fat $r_90 $r_check" >>"$ratios"
  printf '%-20s %8s %8s %6s   %8s %8s %6s   %8s %6s' "$p" "$ox_fat" "$nv_fat" "$r_fat" "$ox_90" "$nv_90" "$r_90" \
    "$ox_check" "$r_check"
  if [ -n "$baseline" ]; then
    b_fat=$(fastest "$baseline" build -O3 "$src" -o "$work/ox")
    b_90=$(fastest "$baseline" build -O3 --arch=sm_90 "$src" -o "$work/ox")
    b_check=$(fastest "$baseline" check -O3 "$src")
    echo "$(echo "scale=3; $b_fat / $nv_fat" | bc) $(echo "scale=3; $b_90 / $nv_90" | bc) $(echo "scale=3; $b_check / $nv_90" | bc)" >>"$base_ratios"
    printf '   %8s %8s %8s\n' "$b_fat" "$b_90" "$b_check"
  else
    echo
  fi
done
awk '{ f += log($1); s += log($2); c += log($3); n++ }
     END { printf "geomean oxcc/nvcc over %d pairs: fat %.3f, sm_90 %.3f, check %.3f\n", n, exp(f/n), exp(s/n), exp(c/n) }' "$ratios"
[ -z "$baseline" ] || awk '{ f += log($1); s += log($2); c += log($3); n++ }
     END { printf "geomean baseline/nvcc over %d pairs: fat %.3f, sm_90 %.3f, check %.3f\n", n, exp(f/n), exp(s/n), exp(c/n) }' "$base_ratios"

[ "${EXAMPLES:-1}" = 0 ] && exit 0
echo
echo "examples (oxcc only): fat, --arch=sm_90, check"
for src in "$root"/examples/*.cpp; do
  name="$(basename "$src" .cpp)"
  fat=$(fastest "$oxcc" build -O3 "$src" -o "$work/ox")
  printf '%-24s %8s %8s %8s\n' "$name" "$fat" "$(fastest "$oxcc" build -O3 --arch=sm_90 "$src" -o "$work/ox")" \
    "$(fastest "$oxcc" check -O3 "$src")"
done
