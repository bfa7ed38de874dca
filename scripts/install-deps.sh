#!/usr/bin/env bash
# Installs Oxide's build dependencies from Debian 12 packages (LLVM/Clang/MLIR/lld 22, fmt,
# GoogleTest, Ninja, CMake, Boost.Context for the CPU simulator; clangd 22 for the editor test;
# NumPy, PyTorch (CPU), pybind11 and DLPack for the Python interop tests, tests/python; Python's
# headers for the package's compiled extension, python/fastcall). The CUDA toolkit (ptxas,
# libdevice, cuda.h) is expected in /usr/local/cuda or $OXIDE_CUDA_PATH.
set -euo pipefail

packages=(cmake ninja-build llvm-22-dev libclang-22-dev clang-22 libclang-rt-22-dev lld-22 libmlir-22-dev mlir-22-tools
          llvm-22-tools clang-format-22 clang-tidy-22 clangd-22 libfmt-dev libgtest-dev libboost-context-dev
          python3-numpy python3-torch python3-dev pybind11-dev libdlpack-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
echo "install-deps: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"

cuda="${OXIDE_CUDA_PATH:-/usr/local/cuda}"
if [ ! -f "$cuda/include/cuda.h" ] || [ ! -f "$cuda/nvvm/libdevice/libdevice.10.bc" ]; then
  echo "install-deps: warning: no CUDA toolkit at $cuda (cuda.h, libdevice); install CUDA 12+ or set OXIDE_CUDA_PATH" >&2
fi
