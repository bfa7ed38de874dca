#!/usr/bin/env bash
# Writes the PTX of every example and benchmark kernel, for each default architecture, into one
# directory, so that a refactoring that must not change code generation can be checked with
# `diff -r before after`.
#
#   bash benchmarks/compile/ptx_snapshot.sh /tmp/ptx-before
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
oxcc="${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc"
out="${1:?usage: ptx_snapshot.sh OUTPUT_DIR}"
mkdir -p "$out"
for src in "$root"/examples/*.cpp "$root"/benchmarks/gpu/*_oxide.cpp; do
  name="$(basename "$src" .cpp)"
  for arch in sm_80 sm_86 sm_89 sm_90; do
    "$oxcc" build "$src" -O3 --arch="$arch" --emit=ptx -o "$out/$name.$arch.ptx" 2>"$out/$name.$arch.log" ||
      echo "$name $arch: failed (see $out/$name.$arch.log)"
  done
done
ls "$out"/*.ptx | wc -l
