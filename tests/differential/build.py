#!/usr/bin/env python3
"""Generates and builds differential-testing programs (see generate.py and README.md).

    build.py --programs 100 --kernels 100 --first-seed 1000 --out .gpu/differential

Program p has seed first_seed + p and K kernels; every fourth seed (seed % 4 == 3) is generated
with --fmad off (products of arbitrary floats) and built with --no-fmad. Each program is built
with `oxcc build --arch=90-real` (an sm_90 cubin, what the H200 runs; no PTX: the bundle must
stay small) from a work folder (--work: sources, logs, unstripped executables); a kernel that
the compiler rejects is a finding: it is recorded in rejected.txt with the compiler's first
error and the program is rebuilt without it. --o0 N also builds the first N programs with ptxas
at -O0 (ptxas-O0.sh), so that run.py can tell a ptxas -O3 miscompile from an Oxide one.

The stripped executables go into parts of at most --part-kernels kernels each,
<out>/part-<i>.tar.xz, with manifest.txt (one line per program: name, kernels, part, flags),
rejected.txt, run.sh, run.py, compare.py and generate.py beside them: <out> is what travels to
the GPU machine (bash <out>/run.sh there).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import generate  # noqa: E402

ERROR = re.compile(r"^(?:\S*/)?(p\d+)\.cpp:(\d+):\d+: (?:fatal )?error: (.*)$", re.M)
MENTION = re.compile(r"(?:^|[\s/])p\d+\.cpp:(\d+):\d+:", re.M)


def kernel_at(source_lines, line):
    """The index of the kernel whose body holds `line` (1-based), or None for host code."""
    for k in range(min(line, len(source_lines)) - 1, -1, -1):
        m = re.match(r"^void d\d+_(\d+)\(", source_lines[k])
        if m:
            return int(m.group(1))
        if source_lines[k].startswith("namespace {"):
            return None
    return None


def build_one(seed, args, variant=""):
    """Builds program `seed`: (name, kernels built, [(kernel, error)], error or None, seconds)."""
    name = "p%d" % seed
    fmad = seed % 4 != 3
    work = Path(args.work)
    src = work / "src" / (name + ".cpp")
    exe = work / ("bin" + variant) / name
    log = work / "logs" / (name + variant + ".log")
    flags = ["--arch=90-real"] + ([] if fmad else ["--no-fmad"]) + args.flags.split()
    env = dict(os.environ)
    if variant:
        env["OXIDE_PTXAS"] = str(HERE / "ptxas-O0.sh")
    skip, rejected = set(), []
    start = time.monotonic()
    for attempt in range(4):
        text = generate.program(seed, args.kernels, None, fmad, skip)
        src.write_text(text)
        cmd = ["nice", "-n", str(args.nice), args.oxcc, "build"] + flags + ["--no-cache", str(src), "-o", str(exe)]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, errors="replace")
        log.write_text(" ".join(cmd) + "\n" + p.stdout + p.stderr)
        if p.returncode == 0:
            return name, args.kernels - len(skip), rejected, None, time.monotonic() - start
        lines = text.split("\n")
        output = p.stdout + p.stderr
        first = re.search(r"error: (.*)", output)
        message = first.group(1) if first else "rc %d" % p.returncode
        new = {}
        # Every line of the program that the diagnostics name (errors, notes, "required from"):
        # the kernels they are in are left out; an error in host code alone fails the program.
        for out_line in output.splitlines():
            if "warning:" in out_line:
                continue
            for m in MENTION.finditer(out_line):
                k = kernel_at(lines, int(m.group(1)))
                if k is not None:
                    e = ERROR.search(out_line)
                    if e or k not in new:
                        new[k] = e.group(3) if e else message
        if not new and first:
            return name, 0, rejected, "error outside the kernels: " + message, time.monotonic() - start
        if not new:
            tail = (p.stdout + p.stderr).strip().splitlines()[-3:]
            return name, 0, rejected, "oxcc failed without a located error (rc %d): %s" % (p.returncode, " | ".join(tail)), time.monotonic() - start
        for k, message in sorted(new.items()):
            skip.add(k)
            rejected.append((k, message))
    return name, 0, rejected, "still failing after leaving out %d kernels" % len(skip), time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", type=int, default=100)
    ap.add_argument("--kernels", type=int, default=100)
    ap.add_argument("--first-seed", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--o0", type=int, default=0, help="also build the first N programs with ptxas -O0")
    ap.add_argument("--part-kernels", type=int, default=5000, help="kernels per part-<i>.tar.xz")
    ap.add_argument("--out", default=str(ROOT / ".gpu" / "differential"))
    ap.add_argument("--work", default=str(ROOT / "build" / "differential"))
    ap.add_argument("--oxcc", default=os.environ.get("OXCC", str(ROOT / "build" / "bin" / "oxcc")))
    ap.add_argument("--flags", default="", help="more oxcc flags")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--append", action="store_true",
                    help="add the programs to the bundle in --out (new parts) instead of starting afresh")
    args = ap.parse_args()

    work, out = Path(args.work), Path(args.out)
    old_manifest, old_rejected, first_part = [], [], 1
    if args.append and (out / "manifest.txt").exists():
        old_manifest = (out / "manifest.txt").read_text().splitlines()
        old_rejected = (out / "rejected.txt").read_text().splitlines()
        first_part = 1 + max(int(m.split("part=")[1].split()[0]) for m in old_manifest)
    else:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
    for d in ("src", "bin", "bin-O0", "logs"):
        (work / d).mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    have = {m.split()[0] for m in old_manifest}
    seeds = [args.first_seed + p for p in range(args.programs) if "p%d" % (args.first_seed + p) not in have]
    jobs = [(s, "") for s in seeds] + [(s, "-O0") for s in seeds[: args.o0]]
    start = time.monotonic()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(build_one, s, args, v): (s, v) for s, v in jobs}
        for f in concurrent.futures.as_completed(futures):
            s, v = futures[f]
            name, built, rejected, error, secs = f.result()
            results[(s, v)] = (built, rejected, error)
            print("build.py: %s%s: %d kernels in %.1f s%s%s" % (name, v, built, secs,
                  ", %d rejected" % len(rejected) if rejected else "", ", FAILED: " + error if error else ""), flush=True)

    # Parts: stripped executables, whole programs per part.
    manifest, rejected_lines, failed = [], [], []
    part, in_part, members = first_part, 0, {}
    for s in seeds:
        built, rejected, error = results[(s, "")]
        name = "p%d" % s
        for k, message in rejected:
            rejected_lines.append("%s kernel d%d_%d: %s (generate.py --seed %d --kernels %d --only %d%s)" % (
                name, s, k, message, s, args.kernels, k, "" if s % 4 != 3 else " --fmad off"))
        if error:
            failed.append("%s: %s" % (name, error))
            continue
        if in_part + built > args.part_kernels and in_part > 0:
            part, in_part = part + 1, 0
        in_part += built
        o0 = (s, "-O0") in results and results[(s, "-O0")][2] is None
        flags = "--arch=90-real" + ("" if s % 4 != 3 else " --no-fmad")
        manifest.append("%s kernels=%d part=%d o0=%s flags=%s" % (name, built, part, "yes" if o0 else "no", flags))
        members.setdefault(part, []).append(("bin", name))
        if o0:
            members[part].append(("bin-O0", name))
    for p, files in sorted(members.items()):
        with tarfile.open(out / ("part-%d.tar.xz" % p), "w:xz", preset=9) as tar:
            for folder, name in files:
                stripped = work / "stripped" / folder / name
                stripped.parent.mkdir(parents=True, exist_ok=True)
                subprocess.run(["strip", "-o", str(stripped), str(work / folder / name)], check=True)
                tar.add(stripped, arcname="%s/%s" % (folder, name))
    (out / "manifest.txt").write_text("\n".join(old_manifest + manifest) + "\n")
    (out / "rejected.txt").write_text("".join(line + "\n" for line in old_rejected + rejected_lines + failed))
    for f in ("run.sh", "run.py", "compare.py", "generate.py"):
        shutil.copy(HERE / f, out / f)
    manifest = old_manifest + manifest
    total = sum(int(m.split()[1].split("=")[1]) for m in manifest)
    size = sum(f.stat().st_size for f in out.iterdir())
    print("build.py: %d programs, %d kernels in %d part(s), %d kernels rejected by the compiler, %d programs failed; "
          "%.1f MB in %s; %.0f s" % (len(manifest), total, len(members), len(rejected_lines), len(failed), size / 1e6, out,
                                     time.monotonic() - start))
    for line in rejected_lines + failed:
        print("build.py: " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
