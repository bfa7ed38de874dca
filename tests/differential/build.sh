#!/usr/bin/env bash
# Builds the differential-testing bundle here (a machine with clang/LLVM): N random programs of K
# random safe kernels each (generate.py), each built with oxcc for sm_90, packed for the GPU
# machine into .gpu/differential (see README.md).
#
#   bash tests/differential/build.sh --programs 103     # 103 programs x 100 kernels
#   bash tests/differential/build.sh --programs 4 --kernels 50 --o0 2
#   OXCC=/tmp/clone/build/bin/oxcc bash tests/differential/build.sh   # a stable oxcc of one's own
#
# Options go to build.py (--programs, --kernels, --first-seed, --jobs, --o0, --out, --work, --oxcc).
# Then, on the GPU machine: bash .gpu/differential/run.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec python3 "$here/build.py" "$@"
