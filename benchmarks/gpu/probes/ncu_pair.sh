#!/usr/bin/env bash
# Profiles one kernel of a benchmark pair on both sides with Nsight Compute (the first launch of
# each side, after none is skipped), for the sections that tell two versions of one algorithm
# apart: throughput, occupancy, launch shape, warp stalls, the scheduler's issue rate and
# memory traffic. Run on the GPU machine from the repository root, after benchmarks/gpu/build.sh
# (BENCH: where its binaries are, .gpu/bench by default).
#
#   bash benchmarks/gpu/probes/ncu_pair.sh PAIR KERNEL_REGEX [OUT]     # e.g. cub_block block_sort
set -uo pipefail
pair="$1" kernel="$2" out="${3:-${OUT:-$PWD}/ncu}"
bench="${BENCH:-.gpu/bench}"
mkdir -p "$out"
for side in oxide cuda; do
  ncu --kernel-name "regex:$kernel" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats \
    "$bench/${pair}_${side}" >"$out/${pair}_${kernel}_${side}.txt" 2>&1
  echo "ncu: $side exit $?: $out/${pair}_${kernel}_${side}.txt"
done
