#!/usr/bin/env bash
# Compares the device code of each benchmark pair, without a GPU: the PTX of the Oxide kernels
# (oxcc build --emit=ptx) and of their twins (nvcc -O3 -arch=sm_90 -ptx), both assembled by the
# same ptxas -v for registers, stack and spills. Writes .gpu/bench/codegen/*.ptx, the cubins
# (for sass.sh where a cuobjdump exists) and .gpu/bench/codegen.csv, and prints a side-by-side
# table.
#
#   bash benchmarks/gpu/codegen.sh
#   PAIRS="sgemm" bash benchmarks/gpu/codegen.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.gpu/bench/codegen"
oxcc="${OXIDE_BUILD_DIR:-$root/build}/bin/oxcc"
cuda="${CUDA_PATH:-/usr/local/cuda}"
read -r -a pairs <<<"${PAIRS:-stream reduce transpose histogram softmax layernorm stencil sgemm}"
mkdir -p "$out"
for p in "${pairs[@]}"; do
  "$oxcc" build "$here/${p}_oxide.cpp" -O3 --arch=sm_90 --emit=ptx -o "$out/${p}_oxide.ptx"
  "$cuda/bin/nvcc" -O3 -arch=sm_90 -std=c++17 -ptx "$here/${p}_cuda.cu" -o "$out/${p}_cuda.ptx"
  for side in oxide cuda; do
    "$cuda/bin/ptxas" -arch=sm_90 -v "$out/${p}_${side}.ptx" -o "$out/${p}_${side}.cubin" 2>"$out/${p}_${side}.ptxas"
  done
done
python3 - "$out" "${pairs[@]}" <<'PY'
import collections, csv, re, sys

out, pairs = sys.argv[1], sys.argv[2:]

def short(mangled):  # _Z4copyPKfPfm -> copy
    m = re.match(r"_Z(\d+)(\w+)", mangled)
    return m.group(2)[: int(m.group(1))] if m else mangled

def ptx_stats(path):
    stats, name = {}, None
    for line in open(path):
        m = re.match(r"\.visible \.entry (\w+)\(", line)
        if m:
            name = short(m.group(1))
            stats[name] = collections.Counter()
            continue
        if name is None:
            continue
        if line.startswith("}"):
            name = None
            continue
        s = line.strip()
        if not s or s[0] in ".$/{}" or s.startswith("//"):
            continue
        op = s.split()[0].rstrip(";")
        if op.startswith("@"):
            op = s.split()[1]
        c = stats[name]
        c["insts"] += 1
        if op.startswith("ld.global.nc"):
            c["ld_global_nc"] += 1
        elif op.startswith("ld.global"):
            c["ld_global_plain"] += 1
        if op.startswith("st.global"):
            c["st_global"] += 1
        if op.startswith(("ld.global", "st.global")) and ".v4" in op:
            c["global_v4"] += 1
        if op.startswith(("ld.global", "st.global")) and (".b64" in op or ".u64" in op) and ".v" not in op:
            c["global_64bit_scalar"] += 1
        if op.startswith("ld.shared"):
            c["ld_shared"] += 1
        if op.startswith("trap"):
            c["traps"] += 1
        if op.startswith("bra"):
            c["branches"] += 1
        if op.startswith(("fma", "add.f32", "mul.f32", "sub.f32")):
            c["fp32"] += 1
    return stats

def ptxas_stats(path):
    stats, name = {}, None
    for line in open(path):
        m = re.search(r"Function properties for (\w+)", line) or re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            name = short(m.group(1))
            stats.setdefault(name, {})
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and name:
            stats[name].update(stack=int(m.group(1)), spill_st=int(m.group(2)), spill_ld=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            stats[name]["regs"] = int(m.group(1))
    return stats

keys = ["regs", "stack", "spill_st", "spill_ld", "insts", "fp32", "ld_global_nc", "ld_global_plain", "st_global",
        "global_v4", "global_64bit_scalar", "ld_shared", "branches", "traps"]
rows = []
for p in pairs:
    sides = {s: (ptx_stats(f"{out}/{p}_{s}.ptx"), ptxas_stats(f"{out}/{p}_{s}.ptxas")) for s in ("oxide", "cuda")}
    for kernel in sides["oxide"][0]:
        for s in ("oxide", "cuda"):
            ptx, ptxas = sides[s]
            twin = kernel if kernel in ptx else {"copy_f4_assign": "copy_f4", "sgemm_tidmask": "sgemm", "dot_raw": "dot", "stencil_nocheck": "stencil",
                                                    "transpose_tidmask": "transpose", "reduce_sum_unsafe": "reduce_sum",
                                                    "histogram_unsafe": "histogram", "dot_unsafe": "dot",
                                                    "dot_f4_unsafe": "dot_f4"}.get(kernel)
            if twin not in ptx:
                continue
            row = {"pair": p, "kernel": kernel, "side": s}
            row.update({k: ptxas.get(twin, {}).get(k, ptx[twin].get(k, 0)) for k in keys})
            rows.append(row)
with open(f"{out}/../codegen.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["pair", "kernel", "side"] + keys)
    w.writeheader()
    w.writerows(rows)

print(f"{'kernel':<16}" + "".join(f"{k:>14}" for k in
      ["regs ox/nv", "insts ox/nv", "ld.nc ox/nv", "ld plain", "v4 ox/nv", "b64 ox/nv", "traps ox"]))
by = {(r["kernel"], r["side"]): r for r in rows}
for kernel in dict.fromkeys(r["kernel"] for r in rows):
    o, n = by.get((kernel, "oxide")), by.get((kernel, "cuda"))
    if not (o and n):
        continue
    pair = lambda k: f"{o[k]}/{n[k]}"
    print(f"{kernel:<16}" + "".join(f"{v:>14}" for v in [pair("regs"), pair("insts"), pair("ld_global_nc"),
          pair("ld_global_plain"), pair("global_v4"), pair("global_64bit_scalar"), str(o["traps"])]))
print(f"codegen: PTX and ptxas logs in {out}, table in {out}/../codegen.csv")
PY
