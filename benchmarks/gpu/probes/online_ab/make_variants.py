#!/usr/bin/env python3
"""Hand edits of oxcc's PTX for softmax_online1024 / softmax_block1024 (issue 41), one change each.

    make_variants.py OXIDE.ptx OUTDIR

OXIDE.ptx is `oxcc build benchmarks/gpu/softmax_oxide.cpp -O3 --arch=sm_90 --emit=ptx` as of
this tree; the edits are exact text replacements of that output (each asserted to match once),
so a newer oxcc output needs them redone. Every variant starts from `nocheck` (ptx_edit.py's:
the one bounds check left in each row loop deleted), so each is `nocheck` plus one change:

  nocheck         both kernels' row-loop check deleted (the known 3 % / 8 %)
  on_wloop        online: the write phase as one element per iteration, a 32-bit column
                  counter c = t, t+1024... tested against width (64-bit compare), no trip
                  count and no unroll-by-2 remainder (the prologue's (width-1-t)>>10, & -1024,
                  &1, & ~1 values die); the out index stays width*b + c, the guards stay
  on_nounroll     online: the write loop as built (64-bit j, trip count (width-1-t)/1024+1
                  from the prologue, shl/or index) but not unrolled: no remainder dispatch
  on_row32        online: the block_stride row counter in 32 bits (add.s32/setp.lt.u32 as
                  nvcc's, no 64-bit add/compare/cvt) and row = mul.wide.u32 b*cols
  on_skeleton     online: on_wloop + on_row32 + nvcc's guard (t >= cols only, no width<=t ||
                  height<=b) and out row offset = b*cols: nvcc's integer skeleton around
                  Oxide's reduction code (what is left is the reduction itself)
  on_alllanes     online: the last xor-1 combine of both warp reductions computed in every
                  lane, only the st.shared under lane==0 (nvcc's shape); Oxide sinks it into
                  the lane-0 branch
  bl_skeleton     block1024: the on_skeleton edit for the two-pass kernel
"""
import os
import re
import sys


def kernel_span(text, entry):
    m = re.search(r"^\.visible \.entry (\S*%s\S*)\(" % re.escape(entry), text, re.M)
    assert m, entry
    return m.start(), text.index("\n}\n", m.start()) + 3


def once(body, old, new, what):
    n = body.count(old)
    assert n == 1, "%s: %d matches of %r" % (what, n, old[:80])
    return body.replace(old, new)


def block(body, label, upto):
    """The text of block `label` up to (not including) `upto`."""
    a = body.index("%s:\n" % label)
    b = body.index("%s:\n" % upto, a)
    return body[a:b]


def nocheck(text):
    # ptx_edit.py nocheck: the branch to the block that only reports the failure, deleted.
    for entry in ("online1024", "block1024"):
        a, b = kernel_span(text, entry)
        body = text[a:b]
        fails = re.findall(r"^(\$L__BB\d+_\d+):\n\t\{ // callseq \d+, 0\n(?:[^}]*\n)*?\s*call\.uni __oxide_bounds_failure",
                           body, re.M)
        assert len(fails) == 1, (entry, fails)
        body, k = re.subn(r"^\t@%%p\d+ bra \t%s;\n" % re.escape(fails[0]), "", body, flags=re.M)
        assert k == 1, entry
        text = text[:a] + body + text[b:]
    return text


def edit(text, entry, fn):
    a, b = kernel_span(text, entry)
    return text[:a] + fn(text[a:b]) + text[b:]


GUARD_ON = ("\tsetp.le.u64 \t%p18, %rd4, %rd8;\n\tbar.sync \t0;\n\tsetp.le.u64 \t%p19, %rd5, %rd14;\n"
            "\tor.pred \t%p20, %p19, %p18;\n\t@%p20 bra \t$L__BB3_17;\n")
RESULT0 = "__oxide_shared__ZZN5oxide6detail20shared_array_storageI6MaxSumLm1ENS_UlvE1_EEEPT_vE4site_$_0"
RESULT1 = "__oxide_shared__ZZN5oxide6detail20shared_array_storageI6MaxSumLm1ENS_UlvE1_EEEPT_vE4site_$_1"
ROW_LATCH_ON = ("\tadd.s64 \t%rd45, %rd14, %rd10;\n\tsetp.lt.u64 \t%p27, %rd45, %rd2;\n"
                "\tcvt.u32.u64 \t%r360, %rd45;\n")
ROW_HEAD_ON = "\tcvt.u64.u32 \t%rd14, %r360;\n\tmul.lo.s64 \t%rd15, %rd14, %rd3;\n"


def exp_chain(body, first_label, upto, load_reg, out_reg):
    """The lines from `ld.global.nc.b32 load_reg` to the `mul.f32 out_reg` (the exp and scale)."""
    blk = block(body, first_label, upto)
    a = blk.index("\tld.global.nc.b32 \t%s," % load_reg)
    a = blk.index("\n", a) + 1
    b = blk.index("\tmul.f32 \t%s," % out_reg)
    b = blk.index("\n", b) + 1
    return blk[a:b]


def online_write(body, skeleton):
    """Replace the write phase (from the guard after the 2nd barrier to the end of the unrolled loop)."""
    chain = exp_chain(body, "$L__BB3_14", "$L__BB3_15", "%r317", "%r331")
    start = body.index(GUARD_ON)
    end = body.index("$L__BB3_18:\n")
    guard = ("\tbar.sync \t0;\n\t@%p2 bra \t$L__BB3_17;\n" if skeleton else GUARD_ON)
    outrow = "%rd15" if skeleton else "%rd19"
    bound = ("\tsetp.lt.u32 \t%p25, %r363, %r16;\n" if skeleton else
             "\tcvt.u64.u32 \t%rd37, %r363;\n\tsetp.lt.u64 \t%p25, %rd37, %rd4;\n")
    new = (guard +
           "\tld.shared.b32 \t%%r13, [%s];\n\tld.shared.b32 \t%%r316, [%s];\n\trcp.rn.f32 \t%%r14, %%r316;\n"
           % (RESULT0, RESULT1) +
           ("" if skeleton else "\tmul.lo.s64 \t%rd19, %rd4, %rd14;\n") +
           "\tmov.b32 \t%r363, %r1;\n"
           "$L__BB3_14:\n"
           "\tcvt.u64.u32 \t%rd30, %r363;\n\tadd.s64 \t%rd31, %rd15, %rd30;\n\tshl.b64 \t%rd32, %rd31, 2;\n"
           "\tadd.s64 \t%rd33, %rd6, %rd32;\n\tld.global.nc.b32 \t%r317, [%rd33];\n" + chain +
           "\tadd.s64 \t%%rd34, %s, %%rd30;\n\tshl.b64 \t%%rd35, %%rd34, 2;\n\tadd.s64 \t%%rd36, %%rd7, %%rd35;\n"
           % outrow +
           "\tst.global.b32 \t[%rd36], %r331;\n\tadd.s32 \t%r363, %r363, 1024;\n" + bound +
           "\t@%p25 bra \t$L__BB3_14;\n\tbra.uni \t$L__BB3_17;\n")
    body = body[:start] + new + body[end:]
    # The remainder block of the unrolled loop has no predecessor left.
    return body.replace(block(body, "$L__BB3_16", "$L__BB3_17"), "")


def on_nounroll(body):
    one = block(body, "$L__BB3_16", "$L__BB3_17")[len("$L__BB3_16:\n"):]
    start = body.index("\tsetp.eq.b64 \t%p24, %rd9, 0;\n")
    end = body.index("$L__BB3_18:\n")
    new = ("\tmul.lo.s64 \t%rd19, %rd4, %rd14;\n\tmov.b64 \t%rd51, 0;\n\tshl.b64 \t%rd50, %rd17, 2;\n"
           "$L__BB3_14:\n" + one +
           "\tadd.s64 \t%rd51, %rd51, 1;\n\tsetp.le.u64 \t%p25, %rd51, %rd9;\n\t@%p25 bra \t$L__BB3_14;\n"
           "\tbra.uni \t$L__BB3_17;\n")
    body = body[:start] + new + body[end:]
    return body.replace(block(body, "$L__BB3_16", "$L__BB3_17"), "")


def on_row32(body):
    body = once(body, ROW_LATCH_ON, "\tadd.s32 \t%r360, %r360, %r22;\n\tsetp.lt.u32 \t%p27, %r360, %r17;\n", "latch")
    return once(body, ROW_HEAD_ON, "\tcvt.u64.u32 \t%rd14, %r360;\n\tmul.wide.u32 \t%rd15, %r360, %r16;\n", "head")


def on_alllanes(body):
    for pred, label, store in (("%p5", "$L__BB3_7", "\tst.shared.b32 \t[%r3], %r156;\n"),
                               ("%p12", "$L__BB3_10", "\tst.shared.b32 \t[%s], %%r291;\n" % RESULT0)):
        br = "\t@%s bra \t%s;\n" % (pred, label)
        body = once(body, br, "", pred)
        body = once(body, store, br + store, store)
    return body


def bl_skeleton(body):
    chain = exp_chain(body, "$L__BB2_22", "$L__BB2_23", "%r75", "%r89")
    guard = ("\tsetp.le.u64 \t%p19, %rd4, %rd8;\n\tbar.sync \t0;\n\tsetp.le.u64 \t%p20, %rd5, %rd14;\n"
             "\tor.pred \t%p21, %p20, %p19;\n\t@%p21 bra \t$L__BB2_25;\n")
    start = body.index(guard)
    end = body.index("$L__BB2_26:\n")
    new = ("\tbar.sync \t0;\n\t@%p2 bra \t$L__BB2_25;\n"
           "\tld.shared.b32 \t%r74, [__oxide_shared__ZZN5oxide6detail20shared_array_storageIfLm1ENS_UlvE_EEEPT_vE4site_$_0];\n"
           "\trcp.rn.f32 \t%r12, %r74;\n\tmov.b32 \t%r120, %r1;\n"
           "$L__BB2_22:\n"
           "\tcvt.u64.u32 \t%rd30, %r120;\n\tadd.s64 \t%rd31, %rd15, %rd30;\n\tshl.b64 \t%rd32, %rd31, 2;\n"
           "\tadd.s64 \t%rd33, %rd6, %rd32;\n\tld.global.nc.b32 \t%r75, [%rd33];\n" + chain +
           "\tadd.s64 \t%rd34, %rd7, %rd32;\n\tst.global.b32 \t[%rd34], %r89;\n\tadd.s32 \t%r120, %r120, 1024;\n"
           "\tsetp.lt.u32 \t%p26, %r120, %r13;\n\t@%p26 bra \t$L__BB2_22;\n\tbra.uni \t$L__BB2_25;\n")
    body = body[:start] + new + body[end:]
    body = body.replace(block(body, "$L__BB2_24", "$L__BB2_25"), "")
    body = once(body, "\tadd.s64 \t%rd46, %rd14, %rd10;\n\tsetp.lt.u64 \t%p28, %rd46, %rd2;\n\tcvt.u32.u64 \t%r118, %rd46;\n",
                "\tadd.s32 \t%r118, %r118, %r20;\n\tsetp.lt.u32 \t%p28, %r118, %r14;\n", "bl latch")
    return once(body, "\tcvt.u64.u32 \t%rd14, %r118;\n\tmul.lo.s64 \t%rd15, %rd14, %rd3;\n",
                "\tcvt.u64.u32 \t%rd14, %r118;\n\tmul.wide.u32 \t%rd15, %r118, %r13;\n", "bl head")


def main():
    src, outdir = sys.argv[1:]
    base = nocheck(open(src).read())
    variants = {
        "nocheck": base,
        "on_wloop": edit(base, "online1024", lambda b: online_write(b, False)),
        "on_nounroll": edit(base, "online1024", on_nounroll),
        "on_row32": edit(base, "online1024", on_row32),
        "on_skeleton": edit(base, "online1024", lambda b: online_write(on_row32(b), True)),
        "on_alllanes": edit(base, "online1024", on_alllanes),
        "bl_skeleton": edit(base, "block1024", bl_skeleton),
    }
    for name, text in variants.items():
        open(os.path.join(outdir, "ox_%s.ptx" % name), "w").write(text)
        print("wrote", os.path.join(outdir, "ox_%s.ptx" % name))


if __name__ == "__main__":
    main()
