#!/usr/bin/env bash
# The interop suite on a machine with a CUDA GPU, Python, torch, CuPy, JAX (and Triton for the
# benchmark): the Python package's tests on CUDA tensors, the examples (PyTorch model, CuPy and
# JAX through DLPack, torch.cuda.graph capture and replay, an nvcc-built C++ program linking the
# Oxide library), compute-sanitizer memcheck, and the per-call overhead benchmark. Needs
# .gpu/interop from tests/gpu/interop/build.sh. Writes a summary to $OUT (or ./gpu-results).
#
#   bash tests/gpu/interop/run.sh
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
lib="$root/.gpu/interop/libkernels.so"
results="${OUT:-$root/gpu-results}"
mkdir -p "$results"
summary="$results/interop-summary.txt"
# Each step's log goes to a scratch folder and comes back as one archive (the device tool returns
# a few files only).
logs="$(mktemp -d)"
: > "$summary"
failures=0
# The package from the tree, its compiled extension (oxide._fastcall) from build.sh's copy.
export PYTHONPATH="$root/python:$root/.gpu/interop/python${PYTHONPATH:+:$PYTHONPATH}"
export OXIDE_KERNELS="$lib" OXIDE_TEST_LIBRARY="$lib"
# JAX would take 75% of the GPU at its start; torch and CuPy share the process with it.
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
python="${OXIDE_PYTHON:-python3}"

deadline=$(( SECONDS + ${SUITE_SECONDS:-280} )) # the device tool's limit per command, less a margin
step() { # step NAME SECONDS COMMAND...: runs it (at most SECONDS, within the deadline), logs it
  local name="$1" seconds="$2"
  shift 2
  local left=$(( deadline - SECONDS ))
  if [ "$left" -lt 10 ]; then
    printf '%-28s not run (time)\n' "$name" | tee -a "$summary"
    failures=$((failures + 1))
    return
  fi
  [ "$seconds" -gt "$left" ] && seconds=$left
  local start=$SECONDS
  timeout "$seconds" "$@" > "$logs/$name.log" 2>&1
  local rc=$?
  local verdict="FAIL (exit $rc)"
  if [ $rc -eq 0 ]; then
    verdict=PASS
    grep -q "^skipped" "$logs/$name.log" && verdict="$(grep -m1 '^skipped' "$logs/$name.log")"
  else
    failures=$((failures + 1))
  fi
  printf '%-28s %-10s %4ss\n' "$name" "$verdict" $((SECONDS - start)) | tee -a "$summary"
  tail -n 12 "$logs/$name.log" | sed 's/^/    /'
}

{
  nvidia-smi -L
  "$python" --version
  "$python" -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
  "$python" -c "import cupy; print('cupy', cupy.__version__)" 2>&1 | tail -1
  "$python" -c "import jax; print('jax', jax.__version__, jax.devices())" 2>&1 | tail -1
  "$python" -c "import triton; print('triton', triton.__version__)" 2>&1 | tail -1
  "$python" -c "import oxide; print('oxide binding:', 'compiled extension (oxide._fastcall)' if oxide.HAVE_EXTENSION
                else 'ctypes: ' + oxide.EXTENSION_ERROR)" 2>&1 | tail -1
} 2>&1 | tee "$results/interop-environment.txt"

# The package's tests through its compiled extension (which must load here: OXIDE_EXTENSION=1),
# then through ctypes alone; the examples and the benchmark take the extension by default.
step python-tests-extension 120 env OXIDE_EXTENSION=1 "$python" "$root/tests/python/test_interop.py" -v
step python-tests-ctypes 120 env OXIDE_EXTENSION=0 "$python" "$root/tests/python/test_interop.py" -v
step abi3-check 60 "$python" "$root/tests/python/abi3_check.py"
step torch-rmsnorm 90 "$python" "$root/examples/python/torch_rmsnorm.py" --device cuda
step cuda-graph 90 "$python" "$root/examples/python/cuda_graph.py"
step torch-compile 120 "$python" "$root/examples/python/torch_compile.py"
step cupy-jax 120 "$python" "$root/examples/python/cupy_jax.py"
step nvcc-app-build 120 bash -c "cmake -S '$root/examples/python/nvcc_app' -B '$logs/nvcc_app' -G Ninja \
  -DOXIDE_KERNELS='$lib' -DOXIDE_INCLUDE_DIR='$root/include' -DKERNELS_HEADER_DIR='$root/.gpu/interop' \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /dev/null && cmake --build '$logs/nvcc_app'"
step nvcc-app 60 "$logs/nvcc_app/nvcc_app"
step overhead-benchmark 120 "$python" "$root/benchmarks/python/overhead.py"
if command -v compute-sanitizer > /dev/null; then
  step memcheck-nvcc-app 120 compute-sanitizer --tool memcheck --error-exitcode 1 "$logs/nvcc_app/nvcc_app"
  step memcheck-cuda-graph 180 compute-sanitizer --tool memcheck --error-exitcode 1 "$python" \
    "$root/examples/python/cuda_graph.py"
else
  echo "compute-sanitizer: not found" | tee -a "$summary"
fi
echo "failures: $failures" | tee -a "$summary"
tar -czf "$results/interop-logs.tar.gz" -C "$logs" --exclude=nvcc_app .
[ "$failures" -eq 0 ]
