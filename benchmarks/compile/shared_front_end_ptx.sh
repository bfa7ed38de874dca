#!/usr/bin/env bash
# The PTX of a default (fat) build, whose sm_86, sm_89 and sm_90 share sm_80's device front end
# where they can, against separate --arch builds (those of $ARCHS, by default all four), for
# every example and language program. Prints one line per program (how many architectures
# shared, which PTX files differ) and exits non-zero if any differs. About 20 minutes on 2
# idle cores.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
oxcc="${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for src in "$root"/examples/*.cpp "$root"/tests/lang/*.cpp; do
  name="$(basename "$src" .cpp)"
  mkdir -p "$work/$name/fat" "$work/$name/one"
  if ! "$oxcc" build -v --no-cache "$src" -o "$work/$name/fat/x" --save-temps="$work/$name/fat" >"$work/$name/log" 2>&1; then
    echo "$name: the fat build failed"; status=1; continue
  fi
  for arch in ${ARCHS:-sm_80 sm_86 sm_89 sm_90}; do # a kernel an architecture cannot build is left out
    "$oxcc" build --no-cache --arch=$arch "$src" -o "$work/$name/one/x" --save-temps="$work/$name/one" >/dev/null 2>&1 || true
  done
  differ=""
  for ptx in "$work/$name"/one/*.ptx; do
    [ -e "$ptx" ] || continue
    cmp -s "$ptx" "$work/$name/fat/$(basename "$ptx")" || differ="$differ $(basename "$ptx")"
  done
  echo "$name: $(grep -c 'shares the device front end' "$work/$name/log") shared, differing PTX:${differ:- none}"
  [ -z "$differ" ] || status=1
done
exit $status
