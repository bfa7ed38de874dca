#!/usr/bin/env bash
# Disassembles the cubins that codegen.sh assembled from both sides' PTX (same ptxas), where a
# cuobjdump exists (the build machine's CUDA install may lack it), and counts the SASS
# instructions that tell the two apart: shared and global loads by width, FFMA, branches.
#
#   bash .gpu/bench/sass.sh          # writes $OUT/sass/ (default ./bench-results/sass)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$PWD/bench-results}/sass"
tool="$(command -v cuobjdump || ls "${CUDA_PATH:-/usr/local/cuda}/bin/cuobjdump" 2>/dev/null)"
if [ -z "$tool" ] || ! ls "$here"/codegen/*.cubin >/dev/null 2>&1; then
  echo "sass: needs cuobjdump and codegen/*.cubin (run benchmarks/gpu/codegen.sh before carrying .gpu/bench)"
  exit 0
fi
mkdir -p "$out"
for cubin in "$here"/codegen/*.cubin; do
  "$tool" -sass "$cubin" >"$out/$(basename "$cubin" .cubin).sass"
done
python3 - "$out" <<'PY'
import collections, glob, os, re, sys
out = sys.argv[1]
classes = ["insts", "FFMA", "LDS", "LDS.64", "LDS.128", "LDG", "LDG.64", "LDG.128", "LDG.nc", "STG.128", "BRA"]
rows = []
for path in sorted(glob.glob(f"{out}/*.sass")):
    side = os.path.basename(path)[:-5]
    name, counts = None, {}
    for line in open(path):
        m = re.search(r"Function : (\w+)", line)
        if m:
            name = m.group(1)
            counts[name] = collections.Counter()
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not (m and name):
            continue
        op, c = m.group(2), counts[name]
        if op.startswith("NOP"):
            continue
        c["insts"] += 1
        base = op.split(".")[0]
        if base == "FFMA":
            c["FFMA"] += 1
        if base == "BRA":
            c["BRA"] += 1
        if base == "LDS":
            c["LDS.128" if ".128" in op else "LDS.64" if ".64" in op else "LDS"] += 1
        if base == "LDG":
            c["LDG.128" if ".128" in op else "LDG.64" if ".64" in op else "LDG"] += 1
            if "CONSTANT" in op:
                c["LDG.nc"] += 1
        if base == "STG" and ".128" in op:
            c["STG.128"] += 1
    for fn, c in counts.items():
        rows.append((side, fn, c))
with open(f"{out}/sass_counts.csv", "w") as f:
    f.write("file,function," + ",".join(classes) + "\n")
    for side, fn, c in rows:
        f.write(f"{side},{fn}," + ",".join(str(c[k]) for k in classes) + "\n")
print(f"{'file':<18}{'function':<44}" + "".join(f"{k:>8}" for k in classes))
for side, fn, c in rows:
    print(f"{side:<18}{fn[:43]:<44}" + "".join(f"{c[k]:>8}" for k in classes))
print(f"sass: listings and sass_counts.csv in {out}")
PY
