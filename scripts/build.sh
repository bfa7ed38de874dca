#!/usr/bin/env bash
# Configures and builds Oxide into ${OXIDE_BUILD_DIR:-build} with CMakePresets.json's `release`
# preset (Release, Ninja, clang 22). Arguments go to ninja (targets, -j).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${OXIDE_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  (cd "$root" && cmake --preset release -B "$build")
fi
ninja -C "$build" "$@"
