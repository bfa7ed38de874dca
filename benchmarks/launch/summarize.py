#!/usr/bin/env python3
"""Summarizes the launch benchmarks' RESULT lines: prints the tables and the three targets, and
writes launch.csv and launch.json.

  python3 summarize.py RAW_LOG OUT_DIR [DEVICE_DESCRIPTION]
"""
import csv
import json
import statistics
import sys

VARIANT_LABELS = {
    ("oxide", "oxide_prepared"): "(a) Oxide prepared launch",
    ("oxide", "oxide_unsafe_launch"): "(b) oxide::unsafe_launch",
    ("oxide", "raw_cuLaunchKernel"): "(c) cuLaunchKernel, Oxide's cubin",
    ("cuda", "cuda_chevron"): "(d) nvcc <<<>>>",
    ("cuda", "cudaLaunchKernel"): "(d) cudaLaunchKernel",
    ("cuda", "cuda_cuLaunchKernel"): "(d) cuLaunchKernel, nvcc's function",
}
LAUNCH_METRICS = ("batched_submit_us", "stream_submit_us", "stream_e2e_us")
DIFF_TARGET_US = 0.5
MODULE_TARGET_US = 1000.0
STARTUP_TARGET_RATIO = 1.10


def parse(path):
    records = []
    with open(path, errors="replace") as f:
        for line in f:
            if not line.startswith("RESULT "):
                continue
            fields = {}
            for kv in line.split()[1:]:
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    fields[k] = v
            records.append(fields)
    return records


def stats(values):
    values = [float(v) for v in values]
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "count": len(values)}


def main():
    log, out_dir = sys.argv[1], sys.argv[2]
    device = sys.argv[3] if len(sys.argv) > 3 else ""
    records = parse(log)
    rows, targets = [], []
    backends = sorted({r.get("backend", "") for r in records if r.get("backend")})
    simulator = backends == ["simulator"]
    names = sorted({r["name"].replace("_", " ") for r in records if r.get("section") == "device" and "name" in r})
    where = "CPU SIMULATOR (wall-clock times of the simulator, not GPU numbers)" if simulator else (
        device or ", ".join(names) or "unknown device")
    print(f"\n=== launch benchmarks on {where} ===")

    def add(section, metric, unit, values, **keys):
        if not values:
            return None
        row = {"section": section, "kernel": keys.get("kernel", ""), "variant": keys.get("variant", ""),
               "side": keys.get("side", ""), "backend": keys.get("backend", ""), "metric": metric, "unit": unit}
        row.update(stats(values))
        rows.append(row)
        return row

    # ---- 1. launch overhead
    launch = [r for r in records if r.get("section") == "launch"]
    medians = {}
    if launch:
        n = sorted({r["n"] for r in launch})
        batch = sorted({r["batch"] for r in launch})
        print(f"\n1. Launch overhead, us per launch (median over repetitions of {'/'.join(n)} launches "
              f"on one stream; batched: batches of {'/'.join(batch)}, synchronized outside the timed region)")
        print(f"{'kernel':<7} {'variant':<38} {'batched submit':>14} {'stream submit':>14} {'end-to-end':>11} {'reps':>5}")
        keys = []
        for r in launch:
            k = (r["kernel"], r["side"], r["variant"], r["backend"])
            if k not in keys:
                keys.append(k)
        order = list(VARIANT_LABELS)
        keys.sort(key=lambda k: (k[0] != "empty", order.index((k[1], k[2])) if (k[1], k[2]) in order else 99))
        for kernel, side, variant, backend in keys:
            sel = [r for r in launch if (r["kernel"], r["side"], r["variant"], r["backend"]) == (kernel, side, variant, backend)]
            cells = []
            for m in LAUNCH_METRICS:
                row = add("launch", m, "us/launch", [r[m] for r in sel], kernel=kernel, variant=variant, side=side,
                          backend=backend)
                medians[(kernel, variant, m)] = row["median"]
                cells.append(row["median"])
            label = VARIANT_LABELS.get((side, variant), f"{side} {variant}")
            print(f"{kernel:<7} {label:<38} {cells[0]:>14.3f} {cells[1]:>14.3f} {cells[2]:>11.3f} {len(sel):>5}")
        print("\n   Oxide prepared - raw cuLaunchKernel on the same cubin (same process, same stream):")
        for kernel in sorted({k[0] for k in keys}, key=lambda k: k != "empty"):
            for m in LAUNCH_METRICS:
                ox, raw = medians.get((kernel, "oxide_prepared", m)), medians.get((kernel, "raw_cuLaunchKernel", m))
                if ox is None or raw is None:
                    continue
                diff, ratio = ox - raw, ox / raw if raw else float("nan")
                rows.append({"section": "launch_diff", "kernel": kernel, "variant": "oxide_prepared-raw_cuLaunchKernel",
                             "side": "oxide", "backend": "gpu", "metric": m, "unit": "us/launch", "median": diff,
                             "min": "", "max": "", "count": "", "ratio": ratio})
                print(f"   {kernel:<6} {m:<18} {diff:+8.3f} us  ratio {ratio:6.3f}")
                if m == "batched_submit_us":
                    targets.append({"target": f"launch overhead, {kernel} kernel: Oxide prepared - raw cuLaunchKernel "
                                              f"(batched submit)", "value": diff, "unit": "us",
                                    "limit": f"<= {DIFF_TARGET_US}", "ratio": ratio, "met": diff <= DIFF_TARGET_US})
            for other in ("cuda_chevron", "cudaLaunchKernel"):
                ox, cu = medians.get((kernel, "oxide_prepared", "batched_submit_us")), medians.get(
                    (kernel, other, "batched_submit_us"))
                if ox is not None and cu is not None:
                    print(f"   {kernel:<6} vs nvcc {other:<16} (batched submit) {ox - cu:+8.3f} us  ratio {ox / cu:6.3f}")
        if simulator:
            print("   (simulator: prepared and unsafe launches run the kernel on the CPU before returning;"
                  " there is no raw driver side)")

    # ---- 2. module load
    prepare = [r for r in records if r.get("section") == "prepare"]
    module = [r for r in records if r.get("section") == "module"]
    if prepare or module:
        print("\n2. Module load, us (median; min..max)")
    if prepare:
        backend = prepare[0]["backend"]
        for m, label in (("context_create_us", "oxide::Context::create (cuInit, primary context)"),
                         ("prepare_first_us", "oxide::prepare, first in the context (loads the module)"),
                         ("prepare_again_us", "oxide::prepare, same kernel again (cached)"),
                         ("prepare_other_kernel_us", "oxide::prepare, other kernel of the loaded module"),
                         ("first_launch_sync_us", "first launch + synchronize after it")):
            row = add("prepare", m, "us", [r[m] for r in prepare if m in r], side="oxide", backend=backend)
            if row:
                print(f"   {label:<58} {row['median']:>10.1f}  ({row['min']:.1f}..{row['max']:.1f}, {row['count']} runs)")
        if backend == "simulator":
            print("   (simulator: no driver, no context to create, no module to load; only the registry and checks)")
    if module:
        groups = []
        # A cubin is not JIT-compiled: the runs with the JIT cache on and off are one group.
        def group(r):
            return (r["code"], r["jit_cache"] if r["code"] == "ptx" else "n/a", r["module_loading"], r["bytes"])

        for r in module:
            if group(r) not in groups:
                groups.append(group(r))
        print(f"   {'cuModuleLoadDataEx of':<30} {'bytes':>7} {'load':>10} {'+ get function':>15} {'= total':>10} {'first launch+sync':>18}")
        for code, cache, lazy, size in groups:
            sel = [r for r in module if group(r) == (code, cache, lazy, size)]
            keys = dict(kernel="", variant=f"{code} jit_cache={cache} module_loading={lazy}", side="oxide", backend="gpu")
            load = add("module", "load_us", "us", [r["load_us"] for r in sel], **keys)
            get = add("module", "get_function_us", "us", [r["get_function_us"] for r in sel], **keys)
            total = add("module", "load_plus_get_us", "us",
                        [float(r["load_us"]) + float(r["get_function_us"]) for r in sel], **keys)
            launch1 = add("module", "first_launch_sync_us", "us", [r["first_launch_sync_us"] for r in sel], **keys)
            what = "embedded cubin" if code == "cubin" else f"embedded PTX (JIT, cache {cache})"
            print(f"   {what:<30} {size:>7} {load['median']:>10.1f} {get['median']:>15.1f} {total['median']:>10.1f} "
                  f"{launch1['median']:>18.1f}")
            if code == "cubin":
                targets.append({"target": "module load: embedded cubin (cuModuleLoadDataEx + cuModuleGetFunction)",
                                "value": total["median"], "unit": "us", "limit": f"< {MODULE_TARGET_US:.0f}",
                                "met": total["median"] < MODULE_TARGET_US})
        if prepare and prepare[0]["backend"] == "gpu":
            row = [r for r in rows if r["section"] == "prepare" and r["metric"] == "prepare_first_us"][0]
            targets.append({"target": "module load: first oxide::prepare in a fresh context (runtime path)",
                            "value": row["median"], "unit": "us", "limit": f"< {MODULE_TARGET_US:.0f}",
                            "met": row["median"] < MODULE_TARGET_US})

    # ---- 3. process start to first kernel done
    runs = [r for r in records if r.get("section") == "startup_run"]
    if runs:
        print("\n3. Process start to first kernel done, ms (median over runs; min..max)")
        print(f"   {'side':<6} {'runs':>4} {'start->main':>12} {'start->first kernel done':>25} {'whole process':>14}"
              f"   in-process phases, us: context / buffers / prepare / launch+sync")
        med = {}
        for side in ("oxide", "cuda"):
            sel = [r for r in runs if r["side"] == side]
            if not sel:
                continue
            backend = sel[0]["backend"]
            cells = {}
            for m in ("exec_to_main_ms", "exec_to_done_ms", "wall_ms"):
                cells[m] = add("startup", m, "ms", [r[m] for r in sel], side=side, backend=backend)
            phases = [add("startup", m, "us", [r[m] for r in sel], side=side, backend=backend)["median"]
                      for m in ("context_us", "buffers_us", "prepare_us", "launch_sync_us")]
            med[side] = cells["exec_to_done_ms"]["median"]
            d = cells["exec_to_done_ms"]
            print(f"   {side:<6} {len(sel):>4} {cells['exec_to_main_ms']['median']:>12.2f} "
                  f"{d['median']:>10.2f} ({d['min']:.1f}..{d['max']:.1f}){'':>4} {cells['wall_ms']['median']:>14.2f}"
                  f"   {' / '.join(f'{p:.0f}' for p in phases)}")
        if "oxide" in med and "cuda" in med:
            ratio = med["oxide"] / med["cuda"]
            print(f"   Oxide / nvcc (start -> first kernel done): {ratio:.3f}")
            rows.append({"section": "startup_ratio", "kernel": "", "variant": "oxide/cuda", "side": "", "backend": "gpu",
                         "metric": "exec_to_done_ratio", "unit": "ratio", "median": ratio, "min": "", "max": "", "count": ""})
            targets.append({"target": "process start to first kernel done, Oxide / nvcc", "value": ratio, "unit": "x",
                            "limit": f"<= {STARTUP_TARGET_RATIO:.2f}", "met": ratio <= STARTUP_TARGET_RATIO})

    print("\nTargets:")
    if simulator or not targets:
        print("   not evaluated (" + ("simulator run" if simulator else "no GPU results") + ")")
        targets = [dict(t, met=None) for t in targets] if simulator else targets
    else:
        for t in targets:
            extra = f", ratio {t['ratio']:.3f}" if "ratio" in t else ""
            print(f"   [{'MET ' if t['met'] else 'MISS'}] {t['target']}: {t['value']:.3f} {t['unit']} "
                  f"(target {t['limit']}{extra})")

    fields = ["section", "kernel", "variant", "side", "backend", "metric", "unit", "median", "min", "max", "count",
              "ratio"]
    with open(f"{out_dir}/launch.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in row.items()})
    with open(f"{out_dir}/launch.json", "w") as f:
        json.dump({"device": device or ", ".join(names), "backends": backends, "simulator": simulator,
                   "rows": rows, "targets": targets}, f, indent=1)
    print(f"\nwrote {out_dir}/launch.csv and {out_dir}/launch.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
