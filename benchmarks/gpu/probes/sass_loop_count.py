#!/usr/bin/env python3
"""The largest loop of each SASS listing, counted (issue 41's probes).

    sass_loop_count.py A.sass [B.sass ...]

Each listing is `cuobjdump -sass -fun KERNEL x.cubin` of one kernel (run on the GPU machine;
the build machine's CUDA has no cuobjdump). The loop is the longest backward branch; printed:
its instructions, FFMA, uniform-datapath operations (ULEA, UIADD3, ULOP3, UMOV, UISETP, USHF:
what nvcc keeps a loop counter in), S2R (special registers read again) and BSSY (convergence
barriers). results/session32/sgemm_128x8-variants-sass.txt is its output for three PTX forms of
sgemm_128x8.
"""
import re
import sys

INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]{4})\*/\s+(.*?);")
BACKWARD = re.compile(r"BRA (0x[0-9a-f]+)")
UNIFORM = re.compile(r"\bU(LEA|IADD3|LOP3|MOV|ISETP|SHF)")


def instructions(path):
    """(address, text) of each instruction of the listing."""
    found = []
    for line in open(path):
        m = INSTRUCTION.match(line)
        if m:
            found.append((int(m.group(1), 16), m.group(2).strip()))
    return found


def largest_loop(listing):
    """The instructions from the target of the longest backward branch to the branch."""
    best = None
    for address, text in listing:
        m = BACKWARD.search(text)
        if m and int(m.group(1), 16) < address:
            start = int(m.group(1), 16)
            if best is None or address - start > best[1] - best[0]:
                best = (start, address)
    if best is None:
        return []
    return [text for address, text in listing if best[0] <= address <= best[1]]


def main(paths):
    for path in paths:
        body = largest_loop(instructions(path))
        if not body:
            print(f"{path}: no loop")
            continue
        count = lambda pattern: sum(1 for text in body if re.search(pattern, text))
        print(f"{path}: loop {len(body)} instrs, FFMA {count('FFMA')}, uniform ops {count(UNIFORM)}, "
              f"S2R {count('S2R')}, BSSY {count('BSSY')}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
