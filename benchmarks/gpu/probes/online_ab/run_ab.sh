#!/usr/bin/env bash
# Issue 41, softmax_online1024 / block1024: times oxcc's PTX as built, six one-change edits of it
# (make_variants.py, beside this script) and nvcc's twin, all in ONE ptx_ab run per round, on the
# GPU machine (nvcc, ptxas, no LLVM). Run from the repository root:
#
#   bash PATH/TO/THIS/DIR/run_ab.sh            # ROUNDS=2 by default
#
# Make the inputs here first (the variants are text edits of this tree's oxcc output):
#   oxcc build benchmarks/gpu/softmax_oxide.cpp -O3 --arch=sm_90 --emit=ptx -o DIR/oxide.ptx
#   python3 make_variants.py DIR/oxide.ptx DIR     # DIR: this script's folder
# Needs beside it: oxide.ptx (oxcc --emit=ptx of benchmarks/gpu/softmax_oxide.cpp), nvcc.ptx
# (nvcc -O3 -arch=sm_90 -std=c++17 -ptx of softmax_cuda.cu, used where the .cu can't be
# compiled here), ox_nocheck.ptx, ox_on_{wloop,nounroll,row32,skeleton,alllanes}.ptx,
# ox_bl_skeleton.ptx; optionally ox_norun.ptx (oxcc's whole build with LLVM's runtime unrolling off,
# -unroll-runtime=false, from an oxcc changed by hand to pass it; skipped when absent). Writes the RESULT lines, ptxas -v and (where cuobjdump exists) the SASS of
# each kernel under $OUT (or $work).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(pwd)"
cuda="${CUDA_PATH:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
work="${TMPDIR:-/tmp}/online_ab"
out="${OUT:-$work}"
rounds="${ROUNDS:-2}"
mkdir -p "$work" "$out/sass"

nvcc -O3 -arch=sm_90 -std=c++17 "$root/benchmarks/gpu/probes/ptx_ab.cu" -o "$work/ptx_ab" -lcuda

# nvcc's twin, compiled here from the bench source (falls back to the PTX made beside this script).
if nvcc -O3 -arch=sm_90 -std=c++17 -ptx "$root/benchmarks/gpu/softmax_cuda.cu" -I "$root/benchmarks/gpu" \
     -o "$work/nvcc.ptx" 2>"$work/nvcc.err"; then
  nvcc_ptx="$work/nvcc.ptx"
else
  nvcc_ptx="$here/nvcc.ptx"
fi

: >"$out/ptxas.txt"
asm() { # NAME PTX
  ptxas -arch=sm_90 -O3 -v "$2" -o "$work/$1.cubin" 2>>"$out/ptxas.txt"
}
asm nvcc "$nvcc_ptx"
asm ox_built "$here/oxide.ptx"
for v in norun nocheck on_wloop on_nounroll on_row32 on_skeleton on_alllanes bl_skeleton; do
  [ -f "$here/ox_$v.ptx" ] && asm "ox_$v" "$here/ox_$v.ptx"
done

ON=_Z18softmax_online1024jjN5oxide4SpanIKfEENS_14DisjointSpan2DIfEE
BL=_Z17softmax_block1024jjN5oxide4SpanIKfEENS_14DisjointSpan2DIfEE
NV_ON=_Z18softmax_online1024jjPKfPf
NV_BL=_Z17softmax_block1024jjPKfPf
args=(
  "$work/nvcc.cubin:$NV_ON:ptr:nvcc_online1024"
  "$work/ox_built.cubin:$ON:span2d:ox_online_built"
  "$work/ox_nocheck.cubin:$ON:span2d:online_nocheck"
  "$work/ox_norun.cubin:$ON:span2d:online_norun"
  "$work/ox_on_wloop.cubin:$ON:span2d:online_wloop"
  "$work/ox_on_nounroll.cubin:$ON:span2d:online_nounroll"
  "$work/ox_on_row32.cubin:$ON:span2d:online_row32"
  "$work/ox_on_skeleton.cubin:$ON:span2d:online_skeleton"
  "$work/ox_on_alllanes.cubin:$ON:span2d:online_alllanes"
  "$work/nvcc.cubin:$NV_BL:ptr:nvcc_block1024"
  "$work/ox_built.cubin:$BL:span2d:ox_block_built"
  "$work/ox_nocheck.cubin:$BL:span2d:block_nocheck"
  "$work/ox_norun.cubin:$BL:span2d:block_norun"
  "$work/ox_bl_skeleton.cubin:$BL:span2d:block_skeleton"
)
present=()
for a in "${args[@]}"; do [ -f "${a%%:*}" ] && present+=("$a"); done
args=("${present[@]}")
# SASS of each timed kernel, for sass_loop_count.py or by eye (BSSY, WARPSYNC, instruction counts).
if command -v cuobjdump >/dev/null; then
  for a in "${args[@]}"; do
    IFS=: read -r cubin entry _ label <<<"$a"
    cuobjdump -sass -fun "$entry" "$cubin" >"$out/sass/$label.sass" 2>&1 || true
  done
fi

{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null || true
  for r in $(seq 1 "$rounds"); do
    echo "--- round $r"
    "$work/ptx_ab" "${args[@]}"
  done
} | tee "$out/results.txt"

