#!/usr/bin/env bash
# Builds the GPU suite here (every example and tests/lang program through oxcc, the unit tests)
# into one folder that is carried to the GPU machine and run there with one command:
#
#   bash tests/gpu/build-suite.sh            # here: fills .gpu/
#   SUITE_OXCC_FLAGS=--arch=sm_90 bash tests/gpu/build-suite.sh   # one architecture: faster
#   bash .gpu/run.sh                         # there: writes $OUT/summary.txt (or ./gpu-results)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${OXIDE_BUILD_DIR:-$root/build}"
read -r -a flags <<<"${SUITE_OXCC_FLAGS:-}"
bundle="$root/.gpu"
bash "$root/scripts/build.sh" oxcc oxide_unit_tests
rm -rf "$bundle"
mkdir -p "$bundle/examples"
for src in "$root"/examples/*.cpp; do
  name="$(basename "$src" .cpp)"
  echo "build-suite: $name"
  "$build/bin/oxcc" build "${flags[@]}" "$src" -o "$bundle/examples/$name"
done
# The language-coverage programs (tests/lang/), run like the examples.
mkdir -p "$bundle/lang"
for src in "$root"/tests/lang/*.cpp; do
  name="$(basename "$src" .cpp)"
  echo "build-suite: lang/$name"
  "$build/bin/oxcc" build "${flags[@]}" "$src" -o "$bundle/lang/$name"
done
# The maths comparison: the Oxide program and its nvcc twin (tests/gpu/math).
"$build/bin/oxcc" build "${flags[@]}" "$root/tests/gpu/math/math_oxide.cpp" -o "$bundle/math_oxide"
"${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" -O3 -arch=sm_90 -std=c++17 "$root/tests/gpu/math/math_nvcc.cu" -o "$bundle/math_nvcc"
cp "$build/bin/oxide_unit_tests" "$bundle/"
cp "$root/tests/gpu/run.sh" "$bundle/run.sh"
echo "build-suite: $(ls "$bundle/examples" | wc -l) examples and $(ls "$bundle/lang" | wc -l) language tests in $bundle; run 'bash .gpu/run.sh' on the GPU machine"
