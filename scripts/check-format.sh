#!/usr/bin/env bash
# Fails when a tracked C or C++ file differs from what clang-format 22 makes of it (.clang-format).
# `bash scripts/check-format.sh --fix` rewrites them instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
format="${CLANG_FORMAT:-clang-format-22}"
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' '*.cu' '*.cuh' | grep -v '^tests/lit/' | grep -v '/templates/')
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
if ! "$format" --dry-run -Werror "${files[@]}" 2>/tmp/check-format.$$; then
  grep 'code should be clang-formatted' /tmp/check-format.$$ | cut -d: -f1 | sort | uniq -c >&2
  rm -f /tmp/check-format.$$
  echo "check-format: the files above are not clang-formatted; run: bash scripts/check-format.sh --fix" >&2
  exit 1
fi
rm -f /tmp/check-format.$$
echo "check-format: ${#files[@]} files formatted"
