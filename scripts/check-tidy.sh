#!/usr/bin/env bash
# Runs clang-tidy 22 (.clang-tidy's checks) on Oxide's own translation units: the runtime, the
# compiler, the dialect and the tools, with the build's compile_commands.json. Fails on any
# finding. Arguments: paths (regular expressions) to limit it to, e.g. `runtime/`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${OXIDE_BUILD_DIR:-$root/build}"
tidy="${CLANG_TIDY:-clang-tidy-22}"
[ -f "$build/compile_commands.json" ] || { echo "check-tidy: no $build/compile_commands.json; build first" >&2; exit 1; }
filter="${*:-(runtime|compiler|dialects|tools)/}"
mapfile -t files < <(cd "$root" && git ls-files '*.cpp' | grep -E "^($filter)" | grep -v '/templates/')
status=0
printf '%s\n' "${files[@]}" |
  xargs -P "${OXIDE_TIDY_JOBS:-2}" -I{} sh -c '"$0" -p "$1" --quiet "$2" 2>/dev/null || exit 1' \
    "$tidy" "$build" "$root/{}" || status=1
[ "$status" = 0 ] && echo "check-tidy: ${#files[@]} files clean" || echo "check-tidy: findings above" >&2
exit "$status"
