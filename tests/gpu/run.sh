#!/usr/bin/env bash
# Runs the carried GPU suite (see build-suite.sh) on a machine with a CUDA GPU: the unit tests
# with their GPU tests enabled, the maths comparison with nvcc, every example and language test
# (lang/, from tests/lang) on the GPU and on the CPU simulator (each must print PASS), and then,
# while time is left, each under compute-sanitizer memcheck and racecheck (in parallel, on small
# problems: OXIDE_EXAMPLE_SMALL). Writes a summary to
# $OUT (or ./gpu-results) and exits non-zero on any failure.
#
#   bash .gpu/run.sh
#   SUITE_SECONDS=400 SANITIZERS="memcheck" bash .gpu/run.sh
#
# SUITE_SECONDS bounds the whole run (the device tool stops a command after 10 minutes): the
# sanitizer runs that do not fit are listed as "not run (time)", never as clean.
# The differential tests (differential/, see tests/differential) run after the examples, for at
# most DIFFERENTIAL_SECONDS (default 240; 0 skips them): every random kernel on the GPU and the
# simulator, compared; their summary lines go into the summary.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
results="${OUT:-$here/gpu-results}"
deadline=$(( $(date +%s) + ${SUITE_SECONDS:-540} ))
sanitizers="${SANITIZERS:-memcheck racecheck}"
# Per-run logs go to a scratch folder and come back as one archive: the device tool returns
# at most a few files.
out="$(mktemp -d)"
mkdir -p "$out/lang"
mkdir -p "$results"
summary="$results/summary.txt"
: > "$summary"
failures=0
skipped=0

record() { printf '%-40s %s\n' "$1" "$2" | tee -a "$summary"; }
seconds_left() { echo $(( deadline - $(date +%s) )); }
finish() {
  echo "failures: $failures, sanitizer runs not done for lack of time: $skipped" | tee -a "$summary"
  tar -czf "$results/logs.tar.gz" -C "$out" .
  [ "$failures" -eq 0 ]
  exit
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"

if timeout 300 "$here/oxide_unit_tests" > "$out/unit.log" 2>&1; then
  record "unit tests" "PASS ($(grep -c '^\[       OK \]' "$out/unit.log") ok, $(grep -c '^\[  SKIPPED \]' "$out/unit.log") skipped)"
else
  record "unit tests" "FAIL (see unit.log)"; failures=$((failures + 1))
  grep '^\[  FAILED  \]' "$out/unit.log" | sort -u | tee -a "$summary"
fi

# Maths: within CUDA's documented ulps of the host, and within one ulp of nvcc's results.
if "$here/math_nvcc" "$out/nvcc-math.bin" && "$here/math_oxide" --compare "$out/nvcc-math.bin" > "$out/math.log" 2>&1; then
  record "math vs host and nvcc" "PASS ($(grep -c . "$out/math.log") lines in math.log)"
else
  record "math vs host and nvcc" "FAIL (see math.log)"; failures=$((failures + 1))
fi
rm -f "$out/nvcc-math.bin"

programs=()
for exe in "$here"/examples/* "$here"/lang/*; do
  [ -x "$exe" ] && programs+=("$exe")
done
label() { local n; n="$(basename "$1")"; [ "$(basename "$(dirname "$1")")" = lang ] && n="lang/$n"; echo "$n"; }

for exe in "${programs[@]}"; do
  name="$(label "$exe")"
  start=$(date +%s%N)
  if timeout 120 "$exe" > "$out/$name.log" 2>&1 && grep -q '^PASS' "$out/$name.log"; then
    record "$name" "PASS ($(( ($(date +%s%N) - start) / 1000000 )) ms whole process)"
  else
    record "$name" "FAIL (see $name.log)"; failures=$((failures + 1))
  fi
  # The same executable on the CPU simulator of the GPU machine's host.
  if OXIDE_DEVICE=cpu timeout 120 "$exe" > "$out/$name.sim.log" 2>&1 && grep -q '^PASS' "$out/$name.sim.log"; then
    record "$name [simulator]" PASS
  else
    record "$name [simulator]" "FAIL (see $name.sim.log)"; failures=$((failures + 1))
  fi
done

# Differential testing: random kernels, GPU against simulator (tests/differential/run.py).
diff_seconds="${DIFFERENTIAL_SECONDS:-240}"
if [ -f "$here/differential/manifest.txt" ] && [ "$diff_seconds" -gt 0 ]; then
  (( diff_seconds > $(seconds_left) - 30 )) && diff_seconds=$(( $(seconds_left) - 30 ))
  if python3 "$here/differential/run.py" --dir "$here/differential" --seconds "$diff_seconds" \
      --out "$out/differential" > "$out/differential.log" 2>&1; then
    record "differential" "PASS ($(sed -n 2p "$out/differential.log" | sed 's/^differential: //'))"
  else
    record "differential" "FAIL ($(sed -n 2p "$out/differential.log" | sed 's/^differential: //'))"
    failures=$((failures + 1))
    grep '^finding: \|^not run' "$out/differential.log" | head -20 | tee -a "$summary"
  fi
elif [ "$diff_seconds" -gt 0 ]; then
  record "differential" "not built (SUITE_DIFFERENTIAL=0?)"
fi

command -v compute-sanitizer >/dev/null || { record "compute-sanitizer" "not installed"; finish; }
# Does racecheck model bar.arrive? The named-barrier handoff with arrive and with sync
# (benchmarks/gpu/probes/named_barrier_handoff.cpp): informational, not counted as failures.
if [ -x "$here/probes/named_barrier_handoff" ]; then
  for mode in arrive sync; do
    compute-sanitizer --tool racecheck "$here/probes/named_barrier_handoff" "$mode" > "$out/handoff-$mode.log" 2>&1
    record "probe: handoff by $mode [racecheck]" \
      "$(grep -E '^named_barrier_handoff|RACECHECK SUMMARY' "$out/handoff-$mode.log" | tr '\n' ' ')"
  done
fi
# Every program under every tool, SANITIZER_JOBS at once (the tools are mostly CPU-bound and the
# GPU machine has many cores), on the examples' small problems (OXIDE_EXAMPLE_SMALL, see
# examples/problem_size.hpp). Each run gets at most 240 s and never more than the time left;
# results are recorded in a fixed order once all have finished.
jobs_max="${SANITIZER_JOBS:-6}"
runs=()
for tool in $sanitizers; do
  for exe in "${programs[@]}"; do runs+=("$tool $exe"); done
done
sanitize() { # tool exe limit: the exit status file of the run
  local tool="$1" exe="$2" limit="$3" name
  name="$(label "$exe")"
  OXIDE_EXAMPLE_SMALL=1 timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 3 "$exe" \
    > "$out/$name.$tool.log" 2>&1
  echo $? > "$out/$name.$tool.status"
}
# Programs that stop kernels on purpose (lang/ub_guards checks that each undefined-behaviour
# variant traps or writes nothing outside its elements, lang/loop_checks that a loop reading one
# element past its input stops, lang/cub_block that a collective in a block of another size
# stops, lang/cub_block_adjacent, lang/cub_merge_sort and lang/cub_run_length the same, lang/cub_warp_io that a scatter
# rank outside the warp's tile stops): memcheck reports each device assert and trap, and the API calls that then fail. Those
# alone are not memory errors; any other report is.
traps_on_purpose=" lang/ub_guards lang/loop_checks lang/cub_block lang/cub_block_adjacent lang/cub_merge_sort lang/cub_run_length lang/cub_warp_io "
only_intended_traps() { # name log
  [[ "$traps_on_purpose" == *" $1 "* ]] || return 1
  ! grep -E '^========= [A-Z]' "$2" | grep -vqE '^========= (Warp assert|Trace/breakpoint trap|Program hit CUDA_ERROR_(ASSERT|LAUNCH_FAILED|ILLEGAL_INSTRUCTION) |ERROR SUMMARY|COMPUTE-SANITIZER)'
}
for run in "${runs[@]}"; do
  read -r tool exe <<< "$run"
  while (( $(jobs -rp | wc -l) >= jobs_max )); do wait -n; done
  left=$(seconds_left)
  (( left < 20 )) && continue # recorded as not run below
  sanitize "$tool" "$exe" $(( left - 5 < 240 ? left - 5 : 240 )) &
done
wait
for run in "${runs[@]}"; do
  read -r tool exe <<< "$run"
  name="$(label "$exe")"
  status_file="$out/$name.$tool.status"
  if [ ! -f "$status_file" ]; then
    record "$name [$tool]" "not run (time)"; skipped=$((skipped + 1)); continue
  fi
  case "$(cat "$status_file")" in
    0) record "$name [$tool]" clean ;;
    124) record "$name [$tool]" "not finished (time limit)"; skipped=$((skipped + 1)) ;;
    *)
      if [ "$tool" = memcheck ] && only_intended_traps "$name" "$out/$name.$tool.log"; then
        record "$name [$tool]" "clean (the intended traps only)"
      else
        record "$name [$tool]" "ERRORS (see $name.$tool.log)"; failures=$((failures + 1))
      fi ;;
  esac
done
finish
