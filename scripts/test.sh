#!/usr/bin/env bash
# The README's second command: build everything and run all tests (unit, lit: dialect,
# diagnostics, PTX, end-to-end). GPU-only tests skip with a printed reason on machines without one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${OXIDE_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j2
