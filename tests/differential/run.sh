#!/usr/bin/env bash
# Runs the differential bundle that build.sh made (see README.md): every program on the GPU, on
# the CPU simulator and on the simulator under a random schedule, then compares them per kernel.
#
#   bash .gpu/differential/run.sh                 # on the GPU machine: summary in $OUT/differential
#   bash .gpu/differential/run.sh --sim-only      # anywhere: the simulator against itself
#   bash .gpu/differential/run.sh --seconds 200 --jobs 16
#
# Exits non-zero on any mismatch, schedule dependence or error, and when programs were not run
# for lack of time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec python3 "$here/run.py" --dir "$here" "$@"
