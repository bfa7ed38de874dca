#!/usr/bin/env python3
"""Compares the digest lines of two runs of generated programs (generate.py).

    compare.py gpu.txt sim.txt [--labels gpu simulator]

Each input holds lines `NAME ou=H of=H ...` (or `NAME ERROR message`), one per kernel, and
comment lines starting with `#`. Prints one line per kernel that differs (which arrays, or the
error of each side) with the command that regenerates it, then a count, and exits 1 when any
kernel differs, is missing from one side or failed on either side.
"""
import argparse
import re
import sys

NAME = re.compile(r"^d(\d+)_(\d+)$")


def parse(text):
    """{kernel name: {array: hash} or {"ERROR": message}}, and fatal lines."""
    kernels, fatal = {}, []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, rest = line.partition(" ")
        if not NAME.match(name):
            fatal.append(line)
            continue
        if rest.startswith("ERROR"):
            kernels[name] = {"ERROR": rest[6:].strip()}
        else:
            kernels[name] = dict(field.split("=", 1) for field in rest.split())
    return kernels, fatal


def reproduce(name):
    m = NAME.match(name)
    return "generate.py --seed %s --only %s" % (m.group(1), m.group(2)) if m else ""


def compare(a_text, b_text, labels=("a", "b"), expected=None):
    """(agreed, [problem lines]); `expected` is the set of kernel names that must be there."""
    a, fatal_a = parse(a_text)
    b, fatal_b = parse(b_text)
    problems = ["%s: %s" % (labels[0], line) for line in fatal_a] + ["%s: %s" % (labels[1], line) for line in fatal_b]
    names = set(a) | set(b) | set(expected or ())
    agreed = 0
    for name in sorted(names, key=lambda n: [int(x) for x in NAME.match(n).groups()] if NAME.match(n) else [0, 0]):
        x, y = a.get(name), b.get(name)
        if x is None or y is None:
            problems.append("%s: missing on %s (%s)" % (name, labels[0] if x is None else labels[1], reproduce(name)))
        elif "ERROR" in x or "ERROR" in y:
            problems.append("%s: error: %s: %s | %s: %s (%s)" % (name, labels[0], x.get("ERROR", "ok"),
                                                               labels[1], y.get("ERROR", "ok"), reproduce(name)))
        elif x != y:
            arrays = [k for k in x if x.get(k) != y.get(k)]
            problems.append("%s: MISMATCH in %s (%s)" % (name, ",".join(arrays), reproduce(name)))
        else:
            agreed += 1
    return agreed, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--labels", nargs=2, default=["a", "b"])
    ap.add_argument("--min-kernels", type=int, default=1, help="fail when fewer kernels agree")
    args = ap.parse_args()
    with open(args.a) as fa, open(args.b) as fb:
        agreed, problems = compare(fa.read(), fb.read(), args.labels)
    for p in problems:
        print(p)
    print("compared %d kernels: %d agreed, %d differ" % (agreed + len(problems), agreed, len(problems)))
    sys.exit(1 if problems or agreed < args.min_kernels else 0)


if __name__ == "__main__":
    main()
