#!/usr/bin/env bash
# Builds the launch benchmarks here into .gpu/launch/: launch_oxide and startup_oxide with oxcc,
# their twins launch_cuda and startup_cuda with nvcc -O3 -arch=sm_90, the PTX of launch_oxide
# (for reference; the benchmark loads the PTX embedded in the executable), and the runner.
# Carry .gpu/launch to the GPU machine and run `bash .gpu/launch/run.sh` there.
#
#   bash benchmarks/launch/build.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.gpu/launch"
oxcc="${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc"
nvcc="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc"
mkdir -p "$out"

for p in launch startup; do
  echo "launch: oxcc ${p}_oxide.cpp"
  "$oxcc" build "$here/${p}_oxide.cpp" -O3 --arch=sm_90 -o "$out/${p}_oxide"
  echo "launch: nvcc ${p}_cuda.cu"
  "$nvcc" -O3 -arch=sm_90 -std=c++17 "$here/${p}_cuda.cu" -o "$out/${p}_cuda"
done
"$oxcc" build "$here/launch_oxide.cpp" -O3 --arch=sm_90 --emit=ptx -o "$out/launch_oxide.ptx"
cp "$here/run.sh" "$here/startup.py" "$here/summarize.py" "$out/"
echo "launch: built $out (run there: bash .gpu/launch/run.sh)"
