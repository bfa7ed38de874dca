#!/usr/bin/env bash
# Builds what tests/gpu/interop/run.sh needs on the GPU machine (which has nvcc, Python, torch,
# CuPy and JAX but no clang): the shared library of examples/python/kernels.cpp (cubins for the
# default architectures, sm_90 PTX) and its generated typed header, into .gpu/interop/. The
# Python package, the examples and the benchmark travel with the tree.
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
ls -la "$out"
