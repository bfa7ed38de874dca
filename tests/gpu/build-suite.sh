#!/usr/bin/env bash
# Builds the GPU suite here (every example and tests/lang program through oxcc, the unit tests)
# into one folder that is carried to the GPU machine and run there with one command:
#
#   bash tests/gpu/build-suite.sh            # here: fills .gpu/
#   SUITE_OXCC_FLAGS=--arch=sm_90 bash tests/gpu/build-suite.sh   # one architecture: faster
#   bash .gpu/run.sh                         # there: writes $OUT/summary.txt (or ./gpu-results)
#   SUITE_DIFFERENTIAL=keep bash tests/gpu/build-suite.sh   # keep .gpu/differential as it is
#
# The differential tests (tests/differential): SUITE_DIFFERENTIAL programs of 100 random kernels
# each (default 103: 10,300 kernels less any the compiler rejects (36 at a76d0f2, none of those
# since 7a8e9a2), 10-15 min on 2 idle
# cores) into .gpu/differential; `keep` keeps a bundle built before, 0 builds none.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${OXIDE_BUILD_DIR:-$root/build}"
read -r -a flags <<<"${SUITE_OXCC_FLAGS:-}"
bundle="$root/.gpu"
bash "$root/scripts/build.sh" oxcc oxide_unit_tests
differential="${SUITE_DIFFERENTIAL:-103}"
kept=""
if [ "$differential" = keep ] && [ -d "$bundle/differential" ]; then
  kept="$(mktemp -d "$build/differential-kept.XXXXXX")"
  mv "$bundle/differential" "$kept/"
fi
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
mkdir -p "$bundle/probes"
"$build/bin/oxcc" build "${flags[@]}" "$root/benchmarks/gpu/probes/named_barrier_handoff.cpp" \
  -o "$bundle/probes/named_barrier_handoff"
cp "$build/bin/oxide_unit_tests" "$bundle/"
cp "$root/tests/gpu/run.sh" "$bundle/run.sh"
if [ -n "$kept" ]; then
  mv "$kept/differential" "$bundle/differential" && rmdir "$kept"
  echo "build-suite: kept the differential bundle ($(grep -c . "$bundle/differential/manifest.txt") programs)"
elif [ "$differential" != 0 ] && [ "$differential" != keep ]; then
  OXCC="$build/bin/oxcc" bash "$root/tests/differential/build.sh" --programs "$differential" --kernels 100 \
    --out "$bundle/differential" --work "$build/differential"
fi
# The device tool carries at most 64 MiB: the programs' symbol tables go (their cubins stay).
for exe in "$bundle"/examples/* "$bundle"/lang/* "$bundle"/probes/* "$bundle"/math_* "$bundle/oxide_unit_tests"; do
  strip --strip-unneeded "$exe" 2>/dev/null || true
done
echo "build-suite: $(ls "$bundle/examples" | wc -l) examples and $(ls "$bundle/lang" | wc -l) language tests in $bundle; run 'bash .gpu/run.sh' on the GPU machine"
