#!/usr/bin/env bash
# The README's first command: install dependencies, build Oxide, and run examples/vecadd.cpp
# through oxcc (on the GPU when there is one).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" oxcc oxide_runtime
"${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc" run "$root/examples/vecadd.cpp"
