#!/usr/bin/env bash
# Builds every GPU benchmark pair here (<kernel>_oxide.cpp with oxcc, its twin <kernel>_cuda.cu
# with nvcc -O3 -arch=sm_90, or <kernel>_cuda.py, a PyTorch script, copied) into .gpu/bench/, timing each compile into compile_times.csv, then
# copies the runner; carry .gpu/bench to the GPU machine and run `bash .gpu/bench/run.sh` there.
#
#   bash benchmarks/gpu/build.sh                # all pairs
#   PAIRS="stream sgemm" bash benchmarks/gpu/build.sh
#   COMPILE_REPEAT=3 bash benchmarks/gpu/build.sh   # each compile 3 times, the fastest recorded
#
# Compile times are wall-clock seconds of a full build (host and device code, link), one
# compile at a time; with COMPILE_REPEAT=N the minimum of N builds (this machine is shared).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.gpu/bench"
oxcc="${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc"
nvcc="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc"
read -r -a pairs <<<"${PAIRS:-stream reduce transpose histogram softmax layernorm stencil sgemm matmul cub cub_block mma_gemm wgmma_gemm attention}"
mkdir -p "$out"

seconds() { date +%s.%N; }
times="$out/compile_times.csv"
echo "benchmark,oxcc_s,nvcc_s,oxcc_over_nvcc" >"$times"
repeat="${COMPILE_REPEAT:-1}"
# Runs "$@" $repeat times and prints the fastest wall-clock time in seconds.
fastest() {
  local best="" t0 t1
  for _ in $(seq "$repeat"); do
    t0=$(seconds)
    "$@" >&2 || return 1
    t1=$(seconds)
    best=$(python3 -c "import sys; a, b, c = sys.argv[1:]; t = float(b) - float(a); print(f'{t:.2f}' if not c or t < float(c) else c)" "$t0" "$t1" "$best")
  done
  echo "$best"
}
for p in "${pairs[@]}"; do
  # A failed compile stops the script (errexit does not reach into $(...)).
  ox=$(fastest "$oxcc" build "$here/${p}_oxide.cpp" -O3 --arch=sm_90 --no-cache -o "$out/${p}_oxide") || {
    echo "bench: oxcc failed on ${p}_oxide.cpp" >&2
    exit 1
  }
  if [ -f "$here/${p}_cuda.py" ]; then
    # The library side runs in PyTorch on the GPU machine (attention: SDPA's cuDNN and FA2).
    install -m 755 "$here/${p}_cuda.py" "$out/${p}_cuda"
    echo "bench: built ${p}_oxide (${ox}s); ${p}_cuda is PyTorch"
    continue
  fi
  libs=()
  arch=(-arch=sm_90)
  case "$p" in
  mma_gemm) libs=(-lcublas) ;; # its twin also times cuBLAS
  wgmma_gemm)                  # wgmma and setmaxnreg need sm_90a; the twin times cuBLAS and cuBLASLt
    libs=(-lcublas -lcublasLt)
    arch=(-gencode=arch=compute_90a,code=sm_90a)
    ;;
  esac
  nv=$(fastest "$nvcc" -O3 "${arch[@]}" -std=c++17 "$here/${p}_cuda.cu" -o "$out/${p}_cuda" "${libs[@]}") || {
    echo "bench: nvcc failed on ${p}_cuda.cu" >&2
    exit 1
  }
  python3 -c "import sys; p, o, n = sys.argv[1:]; print(f'{p},{o},{n},{float(o) / float(n):.2f}')" "$p" "$ox" "$nv" >>"$times"
  echo "bench: built ${p}_oxide (${ox}s) and ${p}_cuda (${nv}s)"
done
cp "$here/run.sh" "$here/summarize.py" "$here/plot.py" "$here/sass.sh" "$out/"
[ -f "$out/codegen.csv" ] || echo "bench: (bash benchmarks/gpu/codegen.sh adds the PTX comparison)"
echo "bench: built ${#pairs[@]} pairs in $out; compile times in $times"
