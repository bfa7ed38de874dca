#!/usr/bin/env python3
"""Runs the differential-testing bundle (build.py) on a machine with a GPU and compares.

    python3 run.py [--dir DIR] [--seconds 220] [--jobs 16] [--out RESULTS] [--sim-only]

For every program of manifest.txt (unpacked from part-*.tar.xz into a scratch folder): the GPU
(OXIDE_DEVICE=cuda), the CPU simulator in its default order (OXIDE_DEVICE=cpu), the simulator
under a random schedule (OXIDE_SIM_SCHEDULE=random, OXIDE_SIM_SEED from the program's seed;
every kernel is race-free, so the order must not matter) and, where the bundle has one, the
ptxas -O0 twin on the GPU. Programs run --jobs at a time, each simulator run on one host thread
(OXIDE_SIM_THREADS=1). Each kernel is then one of: agreed (every run the same), mismatched
(GPU != simulator; with an -O0 twin, "ptxas -O3 suspect" when the -O0 cubin agrees with the
simulator, else "Oxide suspect"), schedule-dependent (two simulator orders differ), or an error
on one side. --sim-only leaves the GPU out (for a machine without one: the two simulator orders).

Writes summary.txt (counts, every finding with the command that regenerates its kernel) and the
raw outputs (differential-outputs.tar.gz) to RESULTS (default $OUT/differential, else ./differential-results), prints the
summary, and exits 1 on any finding or when programs were left out for lack of time.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compare import NAME, parse  # noqa: E402


def run(exe, env, timeout):
    e = dict(os.environ)
    e.update(env)
    try:
        p = subprocess.run([str(exe)], capture_output=True, text=True, env=e, timeout=timeout, errors="replace")
        text = p.stdout
        if p.returncode != 0:
            text += "\nFATAL exit %d: %s\n" % (p.returncode, p.stderr.strip().replace("\n", " ")[-500:])
        return text
    except subprocess.TimeoutExpired:
        return "FATAL timed out after %d s\n" % timeout


def run_program(entry, root, results, args):
    name, fields = entry
    seed = int(name[1:])
    exe = root / "bin" / name
    outs = {}
    if not args.sim_only:
        outs["gpu"] = run(exe, {"OXIDE_DEVICE": "cuda"}, args.timeout)
    outs["sim"] = run(exe, {"OXIDE_DEVICE": "cpu", "OXIDE_SIM_THREADS": "1"}, args.timeout)
    outs["sim-random"] = run(exe, {"OXIDE_DEVICE": "cpu", "OXIDE_SIM_THREADS": "1", "OXIDE_SIM_SCHEDULE": "random",
                                   "OXIDE_SIM_SEED": str(seed)}, args.timeout)
    if not args.sim_only and fields.get("o0") == "yes":
        outs["gpu-O0"] = run(root / "bin-O0" / name, {"OXIDE_DEVICE": "cuda"}, args.timeout)
    for label, text in outs.items():
        (results / ("%s.%s.txt" % (name, label))).write_text(text)
    return name, outs


def classify(name, outs, expected, flags):
    """(agreed kernel count, [finding lines]) for one program."""
    parsed = {label: parse(text) for label, text in outs.items()}
    findings = []
    for label, (_, fatal) in parsed.items():
        for line in fatal:
            findings.append("%s [%s]: %s" % (name, label, line[:300]))
    ref = "gpu" if "gpu" in parsed else "sim"
    kernels = set()
    for kernels_of, _ in parsed.values():
        kernels |= set(kernels_of)
    agreed = 0
    for k in sorted(kernels, key=lambda n: int(NAME.match(n).group(2))):
        seed, index = NAME.match(k).groups()
        how = "generate.py --seed %s --kernels %d --only %s%s" % (seed, expected, index, "" if int(seed) % 4 != 3 else " --fmad off")
        got = {label: p[0].get(k) for label, p in parsed.items()}
        missing = [label for label, v in got.items() if v is None]
        errors = ["%s: %s" % (label, v["ERROR"][:200]) for label, v in got.items() if v and "ERROR" in v]
        if missing or errors:
            findings.append("%s: %s%s (%s)" % (k, "missing on " + ",".join(missing) + "; " if missing else "",
                                               "; ".join(errors), how))
            continue
        problems = []
        if got["sim"] != got["sim-random"]:
            arrays = [a for a in got["sim"] if got["sim"][a] != got["sim-random"].get(a)]
            problems.append("SCHEDULE-DEPENDENT on the simulator (%s)" % ",".join(arrays))
        if ref == "gpu" and got["gpu"] != got["sim"]:
            arrays = [a for a in got["sim"] if got["sim"][a] != got["gpu"].get(a)]
            verdict = ""
            if "gpu-O0" in got:
                verdict = ("; ptxas -O0 agrees with the simulator: ptxas -O3 suspect" if got["gpu-O0"] == got["sim"]
                           else "; ptxas -O0 gives the same as -O3: Oxide (or simulator) suspect" if got["gpu-O0"] == got["gpu"]
                           else "; ptxas -O0 differs from both")
            if "--no-fmad" not in flags:
                # Known false positive of the generator (README.md, "Triage"): with contraction on,
                # a product by 0.5 or 0.25 that underflows (or one that overflows) and then feeds an
                # addition may become an FMA on the GPU only.
                verdict += "; built with FMA contraction: rebuild it with --no-fmad first"
            problems.append("MISMATCH GPU vs simulator in %s%s" % (",".join(arrays), verdict))
        elif "gpu-O0" in got and got["gpu-O0"] != got["sim"]:
            arrays = [a for a in got["sim"] if got["sim"][a] != got["gpu-O0"].get(a)]
            problems.append("MISMATCH GPU (ptxas -O0 twin only) vs simulator in %s" % ",".join(arrays))
        if problems:
            findings.append("%s: %s (%s; %s)" % (k, "; ".join(problems), how, flags))
        else:
            agreed += 1
    return agreed, findings, len(kernels)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=str(HERE), help="the bundle: manifest.txt and part-*.tar.xz")
    ap.add_argument("--seconds", type=int, default=220, help="start no program after this many seconds")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per run of a program")
    ap.add_argument("--programs", type=int, default=0, help="only the first N programs (0: all)")
    ap.add_argument("--sim-only", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    start = time.monotonic()
    bundle = Path(args.dir)
    results = Path(args.out or (os.path.join(os.environ["OUT"], "differential") if os.environ.get("OUT")
                                else "differential-results"))
    results.mkdir(parents=True, exist_ok=True)
    entries = []
    for line in (bundle / "manifest.txt").read_text().splitlines():
        name, *rest = line.split(" ", 4)
        fields = dict(f.split("=", 1) for f in rest[:3])
        fields["flags"] = line.split("flags=", 1)[1] if "flags=" in line else ""
        entries.append((name, fields))
    if args.programs:
        entries = entries[: args.programs]
    kernels_per = {name: int(f["kernels"]) for name, f in entries}
    scratch = Path(tempfile.mkdtemp(prefix="oxide-differential-"))
    for part in sorted(bundle.glob("part-*.tar.xz")):
        with tarfile.open(part) as tar:
            tar.extractall(scratch)
    present = [(n, f) for n, f in entries if (scratch / "bin" / n).exists()]
    absent = [n for n, f in entries if not (scratch / "bin" / n).exists()]
    raw = scratch / "out"
    raw.mkdir()

    deadline = start + args.seconds
    done, not_run = {}, []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {}
        for entry in present:
            futures[pool.submit(lambda e=entry: None if time.monotonic() > deadline else run_program(e, scratch, raw, args))] = entry
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            if r is None:
                not_run.append(futures[f][0])
            else:
                done[r[0]] = r[1]

    agreed = compared = 0
    findings = []
    by_verdict = {}
    for name, fields in present:
        if name not in done:
            continue
        a, f, n = classify(name, done[name], int(fields.get("kernels", 0)) + 0, fields["flags"])
        agreed += a
        compared += n
        findings += f
        if n < kernels_per[name]:
            findings.append("%s: %d of %d kernels reported" % (name, n, kernels_per[name]))
    for f in findings:
        key = "mismatch" if "MISMATCH" in f else "schedule" if "SCHEDULE" in f else "error"
        by_verdict[key] = by_verdict.get(key, 0) + 1
    mode = "simulator (default order) vs simulator (random schedule)" if args.sim_only else \
        "GPU vs simulator (and the simulator under a random schedule)"
    lines = ["differential: %s" % mode,
             "differential: %d programs run (%d not run for lack of time, %d missing from the bundle), "
             "%d kernels compared, %d agreed, %d mismatched, %d schedule-dependent, %d errors; %.0f s" % (
                 len(done), len(not_run), len(absent), compared, agreed, by_verdict.get("mismatch", 0),
                 by_verdict.get("schedule", 0), by_verdict.get("error", 0), time.monotonic() - start)]
    lines += ["finding: " + f for f in findings]
    lines += ["not run (time): " + n for n in sorted(not_run)]
    text = "\n".join(lines) + "\n"
    (results / "summary.txt").write_text(text)
    with tarfile.open(results / "differential-outputs.tar.gz", "w:gz") as tar:
        tar.add(raw, arcname="outputs")
    shutil.rmtree(scratch, ignore_errors=True)
    sys.stdout.write(text)
    # A part that did not travel is reported above (missing from the bundle), not failed: the
    # parts may be run by separate commands.
    return 1 if findings or not_run or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
