#!/usr/bin/env bash
# The host runtime and the CPU simulator under AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer: the unit tests (runtime + simulator, built without the compiler
# into ${OXIDE_ASAN_BUILD_DIR:-build-asan}), then a few examples built by oxcc with
# -fsanitize=address,undefined and run on the simulator. Any report fails the script.
#
#   bash scripts/test-sanitizers.sh      # after scripts/build.sh (it uses build/bin/oxcc)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${OXIDE_BUILD_DIR:-$root/build}"
asan="${OXIDE_ASAN_BUILD_DIR:-$root/build-asan}"
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if [ ! -f "$asan/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$asan" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang-22 \
    -DCMAKE_CXX_COMPILER=clang++-22 -DOXIDE_BUILD_COMPILER=OFF "-DCMAKE_CXX_FLAGS=$flags" \
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
fi
ninja -C "$asan" oxide_unit_tests

# The out-of-memory tests ask for absurd sizes on purpose: let ASan return null for them, as
# malloc does, instead of aborting. Leak checking is on (LeakSanitizer runs at exit).
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
echo "test-sanitizers: unit tests (simulator; GPU tests skip without a GPU)"
OXIDE_DEVICE=cpu "$asan/bin/oxide_unit_tests" --gtest_brief=1

# Examples: host code and kernels (on the simulator, kernels are host code) instrumented.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for name in histogram block_reduce cooperative_normalize cluster_center warp_ops; do
  "$build/bin/oxcc" build "$root/examples/$name.cpp" -fsanitize=address,undefined --no-cache -o "$scratch/$name"
  if OXIDE_DEVICE=cpu "$scratch/$name" > "$scratch/$name.log" 2>&1 && grep -q '^PASS' "$scratch/$name.log"; then
    echo "test-sanitizers: $name PASS"
  else
    cat "$scratch/$name.log"
    echo "test-sanitizers: $name FAILED" >&2
    exit 1
  fi
done
# And the sanitizers do see kernels: a write past the end of a buffer must be reported, with
# the kernel's source line.
"$build/bin/oxcc" build "$root/tests/sanitizers/past_the_end.cpp" -g -fsanitize=address --no-cache \
  -o "$scratch/past_the_end"
if OXIDE_DEVICE=cpu "$scratch/past_the_end" > "$scratch/past_the_end.log" 2>&1; then
  cat "$scratch/past_the_end.log"
  echo "test-sanitizers: a write past the end of a buffer was not reported" >&2
  exit 1
fi
if ! grep -q 'ERROR: AddressSanitizer' "$scratch/past_the_end.log" ||
   ! grep -q 'past_the_end.cpp:10' "$scratch/past_the_end.log"; then
  cat "$scratch/past_the_end.log"
  echo "test-sanitizers: the report does not name the kernel's line" >&2
  exit 1
fi
echo "test-sanitizers: a write past the end of a buffer is reported at past_the_end.cpp:10"
echo "test-sanitizers: clean"
