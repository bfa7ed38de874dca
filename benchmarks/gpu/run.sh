#!/usr/bin/env bash
# Runs the Oxide and CUDA stream benchmarks alternately (A/B in the same run) and prints
# kernel, GB/s for each, their ratio and the Oxide figure as % of 4.8 TB/s.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rounds="${ROUNDS:-3}"
log="$(mktemp)"
for r in $(seq "$rounds"); do
  "$here/stream_oxide" | sed 's/^RESULT /oxide /' >> "$log"
  "$here/stream_cuda" | sed 's/^RESULT /nvcc /' >> "$log"
done
python3 - "$log" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
ok = True
for line in open(sys.argv[1]):
    side, kernel, nbytes, ms, check = line.split()
    rows[kernel][side].append(int(nbytes) / (float(ms) * 1e-3) / 1e9)
    ok &= check == "ok"
print(f"{'kernel':<18}{'oxide GB/s':>12}{'nvcc GB/s':>12}{'ratio':>8}{'% 4.8TB/s':>11}")
ratios = []
for kernel, sides in rows.items():
    o, n = statistics.median(sides["oxide"]), statistics.median(sides["nvcc"])
    ratios.append(o / n)
    print(f"{kernel:<18}{o:>12.0f}{n:>12.0f}{o / n:>8.3f}{100 * o / 4800:>10.1f}%")
print(f"geomean ratio {statistics.geometric_mean(ratios):.3f}; results {'verified' if ok else 'FAILED CHECK'}")
PY
