#!/usr/bin/env bash
# Builds what tests/gpu/interop/run.sh needs on the GPU machine (which has nvcc, Python, torch,
# CuPy and JAX but no clang): the shared library of examples/python/kernels.cpp (cubins for the
# default architectures, sm_90 PTX), its generated typed header and the Python package's compiled
# extension (python/oxide/_fastcall.abi3.so: the stable ABI, so the one built here loads in the
# GPU machine's Python), into .gpu/interop/. The Python package, the examples and the benchmark
# travel with the tree.
#
#   bash tests/gpu/interop/build.sh        # here
#   bash tests/gpu/interop/run.sh          # there (from the repository root)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${OXIDE_BUILD_DIR:-$root/build}"
out="$root/.gpu/interop"
mkdir -p "$out"
"$build/bin/oxcc" build --shared "$root/examples/python/kernels.cpp" -o "$out/libkernels.so"
python="${OXIDE_PYTHON:-/usr/bin/python3}"
PYTHONPATH="$root/python" "$python" -m oxide.header "$out/libkernels.so" -o "$out/kernels.h"
# The extension, built with the tree (the oxide_fastcall target), beside a copy of the package
# path: run.sh puts .gpu/interop/python on PYTHONPATH after python/.
extension="$build/python/oxide/_fastcall.abi3.so"
if [ ! -f "$extension" ]; then
  echo "build.sh: $extension is missing: build it (ninja -C $build oxide_fastcall; needs python3-dev)" >&2
  exit 1
fi
mkdir -p "$out/python/oxide"
cp "$extension" "$out/python/oxide/"
ls -la "$out" "$out/python/oxide"
