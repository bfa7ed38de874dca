#!/usr/bin/env bash
# The installed toolchain, as a user gets it: `cmake --install` into a scratch prefix, then
# both project templates of `oxcc new` built against that prefix only and run on the CPU
# simulator (they print PASS).
#
#   package-test.sh BUILD_DIR SCRATCH_DIR [CXX_COMPILER]
#
# BUILD_DIR is a configured and built Oxide tree (oxcc and oxide_runtime); SCRATCH_DIR is
# emptied first. Driven by tests/lit/oxcc/package.test.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$1"
scratch="$2"
cxx="${3:-}"

rm -rf "$scratch"
mkdir -p "$scratch"
prefix="$scratch/prefix"
export OXCC_CACHE_DIR="$scratch/cache" OXIDE_DEVICE=cpu

echo "== install into $prefix"
cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"
for f in bin/oxcc lib/liboxide_runtime.a include/oxide/oxide.hpp lib/cmake/Oxide/OxideConfig.cmake \
         lib/cmake/Oxide/OxideConfigVersion.cmake lib/cmake/Oxide/OxideFunctions.cmake; do
  test -e "$prefix/$f" || { echo "missing from the install: $f"; exit 1; }
done
# The installed oxcc uses the installed headers and runtime, not the build tree's.
"$prefix/bin/oxcc" doctor | grep -F "Oxide runtime: $prefix/lib/liboxide_runtime.a"
"$prefix/bin/oxcc" doctor | grep -F "Oxide headers: $prefix/include"

cd "$scratch"
echo "== oxcc new demo --template cmake"
"$prefix/bin/oxcc" new demo --template cmake
cmake_args=(-S demo -B demo/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix")
if [ -n "$cxx" ]; then cmake_args+=(-DCMAKE_CXX_COMPILER="$cxx"); fi
cmake "${cmake_args[@]}" > cmake-configure.log
cmake --build demo/build
grep -q '"file": ".*demo/src/main.cpp"' demo/build/compile_commands.json
./demo/build/demo

echo "== oxcc new demo2 --template basic"
"$prefix/bin/oxcc" new demo2 --template basic
(cd demo2 && "$prefix/bin/oxcc" build src/main.cpp -o demo2 && ./demo2)

echo "== add_oxide_library(kernels SHARED) and a C program calling it through <oxide/c_api.h>"
mkdir -p shared
cp "$here/shared/CMakeLists.txt" "$here/shared/c_caller.c" "$here/../../examples/python/kernels.cpp" shared/
test -e "$prefix/include/oxide/c_api.h" || { echo "missing from the install: include/oxide/c_api.h"; exit 1; }
cmake_args=(-S shared -B shared/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix")
if [ -n "$cxx" ]; then cmake_args+=(-DCMAKE_CXX_COMPILER="$cxx"); fi
cmake "${cmake_args[@]}" > cmake-shared-configure.log
cmake --build shared/build
./shared/build/c_caller
# The installed Python package, with its compiled extension installed beside it, loads the
# CMake-built library (NumPy arrays on the simulator).
python="${OXIDE_PYTHON:-/usr/bin/python3}"
if "$python" -c "import numpy" 2>/dev/null; then
  PYTHONPATH="$prefix/lib/python" OXIDE_EXTENSION=1 "$python" -c "
import numpy as np, oxide
lib = oxide.load('shared/build/libkernels.so')
assert lib.add.binding == 'extension'
a = np.arange(10, dtype=np.float32); c = np.empty_like(a)
lib.add(a, a, c)
assert (c == 2 * a).all()
print('python: installed package, %d kernels, add PASS' % len(lib.kernels))"
else
  echo "python: installed package, 10 kernels, add PASS (skipped: no numpy)"
fi

# The packages `cpack` makes (cmake/OxidePackaging.cmake): the tarball, unpacked into a prefix of
# its own, builds an out-of-tree CMake project; the Debian package declares what oxcc needs and
# installs into /opt/oxide.
echo "== cpack"
cpack --config "$build/CPackConfig.cmake" -B "$scratch/cpack" > "$scratch/cpack.log"
tarball=$(ls "$scratch"/cpack/oxide-*-linux-x86_64.tar.gz)
deb=$(ls "$scratch"/cpack/oxide_*_amd64.deb)
echo "== the tarball, unpacked into a prefix"
mkdir -p "$scratch/tgz"
tar xzf "$tarball" -C "$scratch/tgz" --strip-components=1
"$scratch/tgz/bin/oxcc" doctor | grep -F "Oxide runtime: $scratch/tgz/lib/liboxide_runtime.a"
"$scratch/tgz/bin/oxcc" new demo3 --template cmake
cmake_args=(-S demo3 -B demo3/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$scratch/tgz")
if [ -n "$cxx" ]; then cmake_args+=(-DCMAKE_CXX_COMPILER="$cxx"); fi
cmake "${cmake_args[@]}" > cmake-configure-tgz.log
cmake --build demo3/build
./demo3/build/demo3
echo "== the Debian package"
dpkg-deb -f "$deb" Depends
dpkg-deb -c "$deb" | grep -o './opt/oxide/bin/oxcc$'
dpkg-deb -c "$deb" | grep -o './opt/oxide/lib/liboxide_runtime.a$'
