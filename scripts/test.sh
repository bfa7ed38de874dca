#!/usr/bin/env bash
# The README's second command: build everything and run all tests (unit, lit: dialect,
# diagnostics, PTX, end-to-end), then the runtime and simulator under ASan/LSan/UBSan
# (scripts/test-sanitizers.sh; OXIDE_SKIP_SANITIZERS=1 skips that part). GPU-only tests skip
# with a printed reason on machines without one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${OXIDE_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j2
if [ "${OXIDE_SKIP_SANITIZERS:-0}" != 1 ]; then
  bash "$root/scripts/test-sanitizers.sh"
fi
