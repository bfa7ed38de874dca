#!/usr/bin/env bash
# Builds the GPU benchmark pair here (Oxide via oxcc, the CUDA twin via nvcc) into .gpu/bench/,
# which tests/gpu/build-suite.sh's folder carries to the GPU machine; run.sh runs them there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$root/.gpu/bench"
mkdir -p "$out"
"${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc" build "$root/benchmarks/gpu/stream_oxide.cpp" -O3 -o "$out/stream_oxide"
"${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" -O3 -arch=sm_90 -std=c++17 "$root/benchmarks/gpu/stream_cuda.cu" -o "$out/stream_cuda"
cp "$root/benchmarks/gpu/run.sh" "$out/run.sh"
echo "bench: built $out"
