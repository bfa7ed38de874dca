#!/usr/bin/env python3
"""One edit to one kernel of a PTX module, for ptx_ab.cu's A/B runs (issue 41's probes).

    ptx_edit.py IN.ptx ENTRY EDIT OUT.ptx

ENTRY is a substring of the kernel's mangled name; EDIT is one of
  trap     each call to __oxide_bounds_failure becomes `trap;` (the check stays, its report goes)
  nocheck  the branches to a block that only reports a failed bounds check are deleted (what the
           kernel would cost if every check were proved)
  maxntid  .reqntid becomes .maxntid (nvcc's spelling of __launch_bounds__)
  defer    each branch to a failure report becomes `or.pred` into one flag, tested before each
           `ret`: no branch, trap or call is left where the check was (the reads it guarded are
           not clamped: a cost probe, not a safe kernel)
  vote     each branch to a failure report tests `vote.sync.any` of its condition instead, with
           `bra.uni`: the warp leaves together, so the branch is not divergent
  predtrap each branch to a failure report becomes a predicated `trap;` (no report, no branch)
  rejoin   a report reached by one branch ends in a jump back to where that branch fell through,
           and the report function loses .noreturn: the report is no longer an exit of the
           loop around it (it still never returns: it traps)
"""
import re
import sys


def kernel_span(text, entry):
    m = re.search(r"^\.visible \.entry (\S*%s\S*)\(" % re.escape(entry), text, re.M)
    if not m:
        sys.exit("ptx_edit: no entry containing '%s'" % entry)
    end = text.index("\n}\n", m.start()) + 3
    return m.start(), end


def failure_labels(body):
    """Labels of blocks that only call __oxide_bounds_failure."""
    labels = []
    for m in re.finditer(r"^(\$L__BB\d+_\d+):\n\t\{ // callseq \d+, 0\n(?:.*\n)*?.*call\.uni __oxide_bounds_failure",
                         body, re.M):
        if "$L__BB" not in body[m.end(1):m.end()].split(":", 1)[1]:
            labels.append(m.group(1))
    return labels


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    src, entry, edit, dst = sys.argv[1:]
    text = open(src).read()
    a, b = kernel_span(text, entry)
    body = text[a:b]
    if edit == "trap":
        body, n = re.subn(r"\{ // callseq (\d+), 0\n(?:[^}]*\n)*?\s*call\.uni __oxide_bounds_failure[^\n]*\n\s*\} // callseq \1",
                          "trap;", body)
    elif edit == "nocheck":
        n = 0
        for label in failure_labels(body):
            body, k = re.subn(r"^\t@%%p\d+ bra \t%s;\n" % re.escape(label), "", body, flags=re.M)
            n += k
        # A check whose failure falls through: its branch to the passing side becomes unconditional.
        body, k = re.subn(r"^\t@%p\d+ bra \t(\$L__BB\d+_\d+);\n(?=\t\{ // callseq (\d+), 0\n(?:[^}]*\n)*?"
                          r"\s*call\.uni __oxide_bounds_failure)", r"\tbra.uni \t\1;\n", body, flags=re.M)
        n += k
    elif edit == "predtrap":
        n = 0
        for label in failure_labels(body):
            body, k = re.subn(r"^\t@(%%p\d+) bra \t%s;\n" % re.escape(label), r"\t@\1 trap;\n", body, flags=re.M)
            n += k
        body, k = re.subn(r"^\t@(%p\d+) bra \t(\$L__BB\d+_\d+);\n\t\{ // callseq (\d+), 0\n(?:[^}]*\n)*?"
                          r"\s*call\.uni __oxide_bounds_failure[^\n]*\n\s*\} // callseq \3\n",
                          r"\t@!\1 trap;\n\tbra.uni \t\2;\n", body, flags=re.M)
        n += k
    elif edit == "rejoin":
        n = 0
        for i, label in enumerate(failure_labels(body)):
            branches = re.findall(r"^\t@%%p\d+ bra \t%s;\n" % re.escape(label), body, flags=re.M)
            if len(branches) != 1:
                continue
            back = "$L__rejoin_%d" % i
            body = body.replace(branches[0], branches[0] + back + ":\n")
            body, k = re.subn(r"(^%s:\n\t\{ // callseq (\d+), 0\n(?:[^}]*\n)*?\s*call\.uni __oxide_bounds_failure[^\n]*\n"
                              r"\s*\} // callseq \2\n)" % re.escape(label), lambda m: m.group(1) + "\tbra.uni \t%s;\n" % back,
                              body, flags=re.M)
            n += k
        text = re.sub(r"(\.func __oxide_bounds_failure\((?:[^)]*\n)*?\)\n)\.noreturn\n", r"\1", text)
        a, b = kernel_span(text, entry)
    elif edit == "defer":
        n = 0
        labels = failure_labels(body)
        for label in labels:
            body, k = re.subn(r"^\t@(%%p\d+) bra \t%s;\n" % re.escape(label), r"\tor.pred \t%pdefer, %pdefer, \1;\n",
                              body, flags=re.M)
            n += k
        if n:
            body = re.sub(r"^(\t\.reg \.pred \t%p<\d+>;\n)", r"\1\t.reg .pred \t%pdefer;\n", body, count=1, flags=re.M)
            body = re.sub(r"^(\{\n(?:\t\.reg[^\n]*\n|\t// demoted variable\n|\t\.shared[^\n]*\n)*)",
                          r"\1\tsetp.ne.u32 \t%pdefer, 0, 0;\n", body, count=1, flags=re.M)
            body = re.sub(r"^\tret;\n", "\t@%%pdefer bra \t%s;\n\tret;\n" % labels[0], body, flags=re.M)
    elif edit == "vote":
        n = 0
        for i, label in enumerate(failure_labels(body)):
            body, k = re.subn(r"^\t@(%%p\d+) bra \t%s;\n" % re.escape(label),
                              lambda m: "\tvote.sync.any.pred \t%%pvote, %s, -1;\n\t@%%pvote bra.uni \t%s;\n" % (m.group(1), label),
                              body, flags=re.M)
            n += k
        if n:
            body = re.sub(r"^(\t\.reg \.pred \t%p<\d+>;\n)", r"\1\t.reg .pred \t%pvote;\n", body, count=1, flags=re.M)
    elif edit == "maxntid":
        body, n = re.subn(r"\.reqntid", ".maxntid", body)
    else:
        sys.exit("ptx_edit: unknown edit '%s'" % edit)
    if n == 0:
        sys.exit("ptx_edit: '%s' changed nothing in %s" % (edit, entry))
    open(dst, "w").write(text[:a] + body + text[b:])
    print("ptx_edit: %s: %s, %d change(s)" % (entry, edit, n))


if __name__ == "__main__":
    main()
