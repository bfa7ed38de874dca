#!/usr/bin/env bash
# ctest's python-interop: builds examples/python/kernels.cpp into a shared library with the
# build's oxcc, then runs the Python package's tests (tests/python/test_interop.py) and the
# PyTorch example (examples/python/torch_rmsnorm.py) on the CPU simulator, with NumPy arrays and
# CPU torch tensors. Exit 77 (skipped) when the Python has no NumPy.
#
#   bash tests/python/run.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
out="$build/tests/python"
mkdir -p "$out"
# Debian's python3 is the one with python3-numpy and python3-torch (scripts/install-deps.sh);
# a pyenv shim first in PATH may have neither.
python="${OXIDE_PYTHON:-}"
if [ -z "$python" ]; then
  for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c "import numpy" 2>/dev/null; then
      python="$candidate"
      break
    fi
  done
fi
if [ -z "$python" ]; then
  echo "skipped: no python3 with numpy (apt-get install python3-numpy, or set OXIDE_PYTHON)"
  exit 77
fi
"$build/bin/oxcc" build --shared --arch=sm_90 "$root/examples/python/kernels.cpp" -o "$out/libkernels.so"
if [ ! -f "$build/python/oxide/_fastcall.abi3.so" ]; then
  echo "error: $build/python/oxide/_fastcall.abi3.so is not built (it needs Python.h: apt-get install" \
    "python3-dev, then reconfigure and build the oxide_fastcall target)" >&2
  exit 1
fi
# The package from the source tree, its compiled extension (oxide._fastcall) from the build's.
export PYTHONPATH="$root/python:$build/python${PYTHONPATH:+:$PYTHONPATH}"
export OXIDE_TEST_LIBRARY="$out/libkernels.so"
# The tests run on host memory, which is the simulator's whatever the machine has; once through
# the compiled extension (which must load: OXIDE_EXTENSION=1), once through ctypes alone.
echo "== python/oxide through its compiled extension (oxide._fastcall)"
OXIDE_EXTENSION=1 "$python" "$root/tests/python/test_interop.py" -v
echo "== python/oxide through ctypes (OXIDE_EXTENSION=0)"
OXIDE_EXTENSION=0 "$python" "$root/tests/python/test_interop.py" -v
# The one .abi3.so in every CPython 3.8+ found here (the GPU machine's may be another): each
# loads it and launches through it. OXIDE_ABI3_PYTHONS lists interpreters to use instead.
ext="$build/python/oxide/_fastcall.abi3.so"
undefined="$(nm -D --undefined-only "$ext" | awk '$1 == "U" {print $2}' |
  grep -vE '^(Py[A-Za-z0-9_]+|_Py_(Dealloc|NoneStruct|TrueStruct|FalseStruct)|[a-z_]+@GLIBC_[0-9.]+)$' || true)"
if [ -n "$undefined" ] || readelf -d "$ext" | grep NEEDED | grep -qv 'libc\.so'; then
  echo "error: $ext needs more than Python's stable ABI and libc: $undefined" >&2
  readelf -d "$ext" | grep NEEDED >&2
  exit 1
fi
pythons="${OXIDE_ABI3_PYTHONS:-}"
if [ -z "$pythons" ]; then
  pythons="$python"
  pyenv_root="$(command -v pyenv > /dev/null && pyenv root 2> /dev/null || true)"
  for candidate in $(for v in 8 9 10 12 13 14; do command -v "python3.$v"; done 2> /dev/null) \
                   ${pyenv_root:+"$pyenv_root"/versions/3.*/bin/python3}; do
    "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2> /dev/null && pythons="$pythons $candidate"
  done
fi
for candidate in $pythons; do
  "$candidate" "$root/tests/python/abi3_check.py"
done
# The typed C header generated from the library, used by a C program.
"$python" -m oxide.header "$out/libkernels.so" -o "$out/kernels.h"
cc="${CC:-}"
[ -n "$cc" ] || cc="$(command -v cc || command -v clang-22 || command -v gcc)"
"$cc" -std=c99 -Wall -Wextra -Werror -I "$root/include" -I "$out" "$root/tests/python/header_caller.c" \
  -o "$out/header_caller" -L "$out" -lkernels -Wl,-rpath,"$out"
"$out/header_caller"
if "$python" -c "import torch" 2>/dev/null; then
  OXIDE_KERNELS="$out/libkernels.so" "$python" "$root/examples/python/torch_rmsnorm.py" --device cpu
  # torch.compile through the kernels as custom operators (PyTorch 2.4+; Debian's 1.13 skips it).
  OXIDE_KERNELS="$out/libkernels.so" "$python" "$root/examples/python/torch_compile.py"
else
  echo "torch_rmsnorm.py: skipped: torch is not installed"
fi
