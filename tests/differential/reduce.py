#!/usr/bin/env python3
"""Shrinks a generated program while a command still reports the same finding (line-based).

    reduce.py k.cpp --grep 'not the calling thread' [--oxcc build/bin/oxcc] [--build]

Tries to delete each statement line of the kernels (lines without braces) and whole if/for
blocks, keeping a deletion when `oxcc check` (or `oxcc build` and running on the simulator, with
--run) still prints text matching --grep. Writes the result to <file>.reduced.cpp.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def interesting(text, args, tmp):
    tmp.write_text(text)
    if args.run:
        b = subprocess.run([args.oxcc, "build", "--arch=sm_90", str(tmp), "-o", str(tmp) + ".exe"],
                           capture_output=True, text=True)
        if b.returncode != 0:
            return False
        p = subprocess.run([str(tmp) + ".exe"] + args.args, capture_output=True, text=True,
                           env={"OXIDE_DEVICE": "cpu", "PATH": "/usr/bin:/bin"}, timeout=60)
        out = p.stdout + p.stderr
    else:
        p = subprocess.run([args.oxcc, "check", "--arch=sm_90", str(tmp)], capture_output=True, text=True)
        out = p.stdout + p.stderr
    return re.search(args.grep, out) is not None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--grep", required=True)
    ap.add_argument("--oxcc", default=str(ROOT / "build" / "bin" / "oxcc"))
    ap.add_argument("--run", action="store_true", help="build and run on the simulator instead of check")
    ap.add_argument("args", nargs="*", help="program arguments with --run")
    args = ap.parse_args()
    src = Path(args.file)
    tmp = src.with_suffix(".try.cpp")
    lines = src.read_text().split("\n")
    if not interesting("\n".join(lines), args, tmp):
        sys.exit("the input is not interesting")
    changed = True
    while changed:
        changed = False
        i = 0
        while i < len(lines):
            line = lines[i]
            inside = line.startswith("  ") and not line.startswith("  if (want")
            end = None
            if inside and "{" not in line and "}" not in line and not line.strip().startswith("const "):
                end = i + 1
            elif inside and line.rstrip().endswith("{") and ("if (" in line or "for (" in line):
                depth, j = 0, i
                while j < len(lines):
                    depth += lines[j].count("{") - lines[j].count("}")
                    j += 1
                    if depth == 0:
                        break
                end = j
            if end is not None:
                trial = lines[:i] + lines[end:]
                if interesting("\n".join(trial), args, tmp):
                    lines = trial
                    changed = True
                    print("removed lines %d..%d (%d left)" % (i + 1, end, len(lines)), flush=True)
                    continue
            i += 1
    out = src.with_suffix(".reduced.cpp")
    out.write_text("\n".join(lines))
    print("wrote", out)


if __name__ == "__main__":
    main()
