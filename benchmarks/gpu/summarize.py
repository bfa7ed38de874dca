#!/usr/bin/env python3
"""Turns run.sh's raw log into the comparison table, results.csv and results.json.

    python3 summarize.py raw.log OUTDIR [DEVICE] [ROUNDS]

Each log line is `<side> <round> <kernel> <size> <unit> <work> <median ms> <ok|FAIL> <api>` (side
oxide or cuda; see bench_common.hpp). A figure is the median over rounds of the runs' medians:
GB/s for unit bytes, TFLOP/s for flops. The reference bandwidth is the faster side's median
device-to-device copy (memcpy_d2d, 2 x 512 MiB moved). Exits 1 if any check failed or a side is
missing for some kernel.
"""
import collections
import csv
import json
import math
import statistics
import sys

# Variants that diagnose a compiler gap rather than stand for a kernel: shown, but left out of
# the geometric mean.
DIAGNOSTIC = {
    "dot_raw", "sgemm_unsafe", "sgemm_1blk", "stencil5_nocheck", "transpose_tidmask", "reduce_sum_unsafe",
    "histogram_unsafe", "dot_unsafe", "dot_f4_unsafe"
}

# Library references the CUDA side alone times in the same run (no Oxide twin): shown, left out of
# the geometric mean, and the Oxide kernels each names measured against it.
REFERENCES = {
    "cublas_bf16": ["mma_gemm"], "cublas_bf16_tn": ["wgmma_gemm", "wgmma_gemm_persistent"],
    "cublas_bf16_nn": ["wgmma_gemm_nn", "wgmma_gemm_nn_persistent"], "cublas_tf32_tn": ["wgmma_gemm_tf32"],
    "cublaslt_e4m3_tn": ["wgmma_gemm_e4m3"], "cublaslt_e4m3_fast_tn": ["wgmma_gemm_e4m3"],
    "cublaslt_bf16_gelu_bias": ["wgmma_gemm_bias_gelu"],
}
# PyTorch's SDPA (attention_cuda.py), each backend the reference of the attention kernel of its shape.
ATTENTION_VARIANTS = ("", "_serial", "_no_pingpong", "_persistent", "_interleaved", "_persistent_interleaved")
for _backend in ("sdpa_cudnn", "sdpa_flash"):
    for _shape in ("d128", "d128_causal", "d64", "d64_causal"):
        REFERENCES[f"{_backend}_{_shape}"] = [f"attention_{_shape}{v}" for v in ATTENTION_VARIANTS]
DIAGNOSTIC |= set(REFERENCES)
# Oxide kernels with no nvcc twin yet, measured only against their library reference: shown, left
# out of the geometric mean.
UNTWINNED = {
    "wgmma_gemm_tf32", "wgmma_gemm_e4m3", "wgmma_gemm_bias_gelu", "wgmma_gemm_persistent",
    "wgmma_gemm_nn_persistent"
} | {f"attention_{shape}{variant}" for shape in ("d128", "d128_causal", "d64", "d64_causal") for variant in ATTENTION_VARIANTS}
DIAGNOSTIC |= UNTWINNED


def main():
    log, outdir = sys.argv[1], sys.argv[2]
    device = sys.argv[3] if len(sys.argv) > 3 else ""
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    meta, ok, order = {}, collections.defaultdict(lambda: True), []
    for line in open(log):
        fields = line.split()
        if len(fields) != 9:
            continue
        side, _, kernel, size, unit, work, ms, check, api = fields
        key = (kernel, size)
        if key not in meta:
            order.append(key)
        rate = float(work) / (float(ms) * 1e-3) / (1e9 if unit == "bytes" else 1e12)
        runs[key][side].append(rate)
        ok[(key, side)] &= check == "ok"
        if side == "oxide":
            meta[key] = (unit, api)
        else:
            meta.setdefault(key, (unit, "?"))

    med = {(key, side): statistics.median(v) for key, sides in runs.items() for side, v in sides.items()}
    d2d_keys = [k for k in order if k[0] == "memcpy_d2d"]
    d2d = max([med[(k, s)] for k in d2d_keys for s in ("oxide", "cuda") if (k, s) in med] or [0.0])

    rows, problems = [], []
    for key in order:
        if key[0] == "memcpy_d2d":
            continue
        unit, api = meta[key]
        o, n = med.get((key, "oxide")), med.get((key, "cuda"))
        row = {
            "kernel": key[0], "size": key[1], "unit": "GB/s" if unit == "bytes" else "TFLOP/s", "api": api,
            "oxide": o, "nvcc": n, "ratio": o / n if o and n else None,
            "pct_d2d_oxide": 100 * o / d2d if unit == "bytes" and o and d2d else None,
            "pct_d2d_nvcc": 100 * n / d2d if unit == "bytes" and n and d2d else None,
            "ok": ok[(key, "oxide")] and ok[(key, "cuda")] and (o is not None or key[0] in REFERENCES) and
                  (n is not None or key[0] in UNTWINNED),
            "oxide_runs": runs[key]["oxide"], "nvcc_runs": runs[key]["cuda"],
            "diagnostic": key[0] in DIAGNOSTIC,
        }
        rows.append(row)
        if not row["ok"]:
            missing = (o is None and key[0] not in REFERENCES) or (n is None and key[0] not in UNTWINNED)
            problems.append(f"{key[0]} {key[1]}: " + ("a side is missing" if missing else "check FAILED"))

    ratios = [r["ratio"] for r in rows if r["ratio"] and not r["diagnostic"]]
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else 0.0

    def fmt(v, spec):
        return format(v, spec) if v is not None else format("-", ">" + spec.split(".")[0])

    def pct(v):
        return f"{v:8.1f}%" if v is not None else f"{'-':>9}"

    print()
    print(f"device-to-device copy: {d2d:.0f} GB/s (the 100% of the last columns)")
    header = f"{'kernel':<19}{'size':<12}{'api':<7}{'oxide':>9}{'nvcc':>9} {'unit':<8}{'ratio':>7}" \
             f"{'%d2d ox':>9}{'%d2d nv':>9}  check"
    print(header)
    print("-" * len(header))
    for r in rows:
        prec = ".0f" if r["unit"] == "GB/s" else ".2f"
        name = r["kernel"] + ("*" if r["diagnostic"] else "")
        print(f"{name:<19}{r['size']:<12}{r['api']:<7}{fmt(r['oxide'], '9' + prec)}{fmt(r['nvcc'], '9' + prec)} "
              f"{r['unit']:<8}{fmt(r['ratio'], '7.3f')}{pct(r['pct_d2d_oxide'])}{pct(r['pct_d2d_nvcc'])}"
              f"  {'ok' if r['ok'] else 'FAIL'}")
    print(f"geometric mean of the ratios (oxide / nvcc; * rows excluded): {geomean:.3f} over {len(ratios)} "
          f"kernels; api: safe = launch contract, unsafe = oxide::unsafe_launch")

    for key in order:
        for kernel in REFERENCES.get(key[0], []):
            o, ref = med.get(((kernel, key[1]), "oxide")), med.get((key, "cuda"))
            twin = med.get(((kernel, key[1]), "cuda"))
            if o and ref:
                print(f"{kernel} {key[1]}: oxide {o:.1f} TFLOP/s = {100 * o / ref:.1f}% of {key[0]} ({ref:.1f}); " +
                      (f"nvcc twin {100 * twin / ref:.1f}%" if twin else "no nvcc twin"))

    fields = ["kernel", "size", "unit", "api", "oxide", "nvcc", "ratio", "pct_d2d_oxide", "pct_d2d_nvcc", "ok",
              "diagnostic", "oxide_runs", "nvcc_runs"]
    with open(f"{outdir}/results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(fields)
        for r in rows:
            w.writerow([(" ".join(f"{x:.4g}" for x in r[k]) if isinstance(r[k], list) else
                         (f"{r[k]:.6g}" if isinstance(r[k], float) else r[k])) for k in fields])
    with open(f"{outdir}/results.json", "w") as f:
        json.dump({"device": device, "rounds": rounds, "d2d_gbps": d2d, "geomean_ratio": geomean, "rows": rows}, f,
                  indent=1)
    print(f"bench: wrote {outdir}/results.csv and results.json")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
