#!/usr/bin/env python3
"""Compiles every C++ code block of the book (README.md and docs/*.md) with oxcc, so that the
docs cannot rot.

A ```cpp (or ```c++) block is a complete translation unit, checked with `oxcc check`, unless the
line right before its opening fence is one of these markers:

  <!-- doc-test: declarations -->   file-scope code: kernels, helpers, types, host functions
  <!-- doc-test: kernel-body -->    statements in a kernel body (KERNEL_BODY below: what is in scope)
  <!-- doc-test: host-body -->      statements in a host function (HOST_BODY below: what is in scope)
  <!-- doc-test: program -->        a complete program: built with `oxcc build` and run on the CPU
                                    simulator, where it must exit with status 0
  <!-- doc-test: signatures -->     declarations without bodies, checked against the headers by
                                    check_signatures.py instead
  <!-- doc-test: skip REASON -->    not compiled, for the REASON given (rare: prefer a mode above)

Fragments (the first three) see <oxide/oxide.hpp>, the standard headers of PRELUDE and its
kernels; a declarations block goes into a namespace, so it cannot #include (make it a complete
translation unit instead). The fragments of one Markdown file are compiled together in one
translation unit, each in a namespace or function of its own; #line directives make every
diagnostic name the Markdown file and line. Bash, CMake and other blocks are not compiled.

  check_code_blocks.py [--oxcc PATH] [--work-dir DIR] [-j N] [FILE.md...]

Without files: README.md and docs/*.md of the repository. Exit status 0 when every block compiles
(and every program passes), 1 otherwise, with the block's file:line and the compiler's output.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPENING_FENCE = re.compile(r"^```\s*(cpp|c\+\+)\s*$")
ANY_FENCE = re.compile(r"^```")
MARKER = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
FRAGMENT_MODES = ("declarations", "kernel-body", "host-body")
MODES = ("program", "signatures", "skip") + FRAGMENT_MODES
MISPLACED_MARKER = "a doc-test marker must be on the line right before a ```cpp block"
PROGRAM_TIMEOUT_S = 120

# What every fragment sees: the umbrella header, the standard headers the docs use without
# including them, and the kernels that host-body fragments launch.
PRELUDE = """\
#include <oxide/oxide.hpp>

#include <array>
#include <cassert>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

[[kernel, oxide::launch_contract("domain = 1, requires = (a.size() == c.size(), b.size() == c.size())")]]
void vecadd(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto i = oxide::thread::index_1d();
  if (float *o = c.get_mut(i))
    *o = a[i.get()] + b[i.get()];
}

[[kernel]] void scatter(const float *in, const std::uint32_t *perm, float *out, std::size_t n) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < n)
    out[perm[i]] = in[i];
}
"""

# Each wrapper holds one block at @BLOCK@; @NAME@ makes its namespace or function unique.
DECLARATIONS = """\
namespace @NAME@ {
@BLOCK@
} // namespace @NAME@
"""

# A kernel without a launch contract, so that a block may use any parameter kind and rank: inputs
# `in`, outputs `out` and `out2d`, mutable `sum` and `bins`, scalars, and the witnesses `i` and `p`.
KERNEL_BODY = """\
[[kernel]] void @NAME@(oxide::Span<const float> in, oxide::DisjointSpan<float> out,
                       oxide::DisjointSpan2D<float> out2d, oxide::Span<float> sum, oxide::Span<unsigned> bins,
                       float x, float y, float v, int k, unsigned key, std::size_t n) {
  const auto i = oxide::thread::index_1d();
  const auto p = oxide::thread::index_2d();
  {
@BLOCK@
  }
}
"""

# Host code with a context and streams, buffers `a`, `b`, `c` (floats) and `perm` of `n` elements,
# a host vector, pinned memory, an event, a graph, and `launch`: vecadd prepared for `n` elements.
HOST_BODY = """\
void @NAME@(oxide::Context &ctx, oxide::Stream &stream, oxide::Stream &other, oxide::Event &event,
            oxide::Graph &graph, std::size_t n, std::size_t width, std::size_t height,
            std::vector<float> &host, oxide::DeviceBuffer<float> &a, oxide::DeviceBuffer<float> &b,
            oxide::DeviceBuffer<float> &c, oxide::DeviceBuffer<std::uint32_t> &perm,
            oxide::PinnedBuffer<float> &staging, void *their_stream, std::uint64_t their_ptr, bool &ready,
            int &iterations) {
  auto launch = oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(n));
  {
@BLOCK@
  }
}
"""

WRAPPERS = {"declarations": DECLARATIONS, "kernel-body": KERNEL_BODY, "host-body": HOST_BODY}


@dataclass
class Block:
    path: str  # relative to the repository root: what diagnostics show
    line: int  # the opening fence
    mode: str  # "check" (no marker), "program", "skip" or one of FRAGMENT_MODES
    code: list = field(default_factory=list)
    reason: str = ""

    def where(self):
        return f"{self.path}:{self.line}"

    def last_line(self):
        return self.line + len(self.code)


@dataclass
class Job:
    """One oxcc invocation: a generated source and the blocks it holds."""

    source: Path
    blocks: list
    program: bool = False


def parse(path, display):
    """The C++ blocks of one Markdown file, and the problems with its markers."""
    blocks, problems = [], []
    marker, marker_line, current = None, 0, None
    in_other_fence = False
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        if current is not None:
            if ANY_FENCE.match(text):
                blocks.append(current)
                current = None
            else:
                current.code.append(text)
            continue
        if in_other_fence:
            in_other_fence = not ANY_FENCE.match(text)
            continue
        opening = OPENING_FENCE.match(text)
        if marker is not None and not opening:
            problems.append(f"{display}:{marker_line}: error: {MISPLACED_MARKER}")
            marker = None
        if opening:
            mode, reason = "check", ""
            if marker is not None:
                mode, _, reason = marker.partition(" ")
                reason = reason.strip()
                error = None
                if mode not in MODES:
                    error = f"unknown doc-test mode '{mode}'; use {', '.join(MODES)}"
                elif mode == "skip" and not reason:
                    error = "'doc-test: skip' needs a reason"
                elif mode != "skip" and reason:
                    error = f"unexpected '{reason}' after '{mode}'"
                if error:
                    problems.append(f"{display}:{marker_line}: error: {error}")
                    mode = "invalid"  # reported, not compiled
            current = Block(display, number, mode, reason=reason)
            marker = None
        elif ANY_FENCE.match(text):
            in_other_fence = True
        elif (found := MARKER.match(text)) is not None:
            marker, marker_line = found.group(1), number
    if current is not None:
        problems.append(f"{current.where()}: error: the ```cpp block is not closed")
    if marker is not None:
        problems.append(f"{display}:{marker_line}: error: {MISPLACED_MARKER}")
    return blocks, problems


def complete_unit(block, work_dir):
    """A block that is a whole translation unit, with its lines numbered as in the Markdown."""
    source = work_dir / f"{block.path.replace('/', '_')}.{block.line}.cpp"
    source.write_text(f'#line {block.line + 1} "{block.path}"\n' + "\n".join(block.code) + "\n")
    return Job(source, [block], program=block.mode == "program")


def fragment_unit(display, fragments, work_dir):
    """All fragments of one Markdown file in one translation unit, each in its wrapper."""
    source = work_dir / f"{display.replace('/', '_')}.fragments.cpp"
    out = [f"// Generated by tests/docs/check_code_blocks.py from {display}."] + PRELUDE.splitlines()
    for block in fragments:
        before, after = WRAPPERS[block.mode].split("@BLOCK@\n")
        name = f"doc_{block.mode.replace('-', '_')}_line_{block.line}"
        out += before.replace("@NAME@", name).splitlines()
        out.append(f'#line {block.line + 1} "{display}"')
        out += block.code
        # Back to the generated file's own numbering: the next line is line len(out) + 2.
        out.append(f'#line {len(out) + 2} "{source}"')
        out += after.replace("@NAME@", name).splitlines()
    source.write_text("\n".join(out) + "\n")
    return Job(source, fragments)


def run_job(job, oxcc, env):
    """Runs one job; returns None when it passed, else the report to print."""
    exe = job.source.with_suffix("")
    command = [oxcc, "check", str(job.source)]
    if job.program:
        command = [oxcc, "build", str(job.source), "-o", str(exe)]
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    output = result.stdout + result.stderr
    # A warning in the docs' own code fails too: readers copy it.
    if result.returncode != 0 or blamed_blocks(job, output):
        return blame(job, f"oxcc {command[1]}", output)
    if not job.program:
        return None
    try:
        result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=PROGRAM_TIMEOUT_S,
                                env=dict(env, OXIDE_DEVICE="cpu"))
    except subprocess.TimeoutExpired:
        return blame(job, f"running it on the CPU simulator (no exit within {PROGRAM_TIMEOUT_S} s)", "")
    if result.returncode != 0:
        return blame(job, f"running it on the CPU simulator (exit status {result.returncode})",
                     result.stdout + result.stderr)
    return None


def blamed_blocks(job, output):
    """The job's blocks that errors or warnings point into."""
    cited = {(m.group(1), int(m.group(2)))
             for m in re.finditer(r"^(\S+?):(\d+):\d+: (?:fatal error|error|warning): ", output, re.M)}
    return [b for b in job.blocks
            if any(path == b.path and b.line < line <= b.last_line() for path, line in cited)]


def blame(job, what, output):
    """Names the blocks the diagnostics point into (all of the job's when none does)."""
    lines = [f"{b.where()}: error: this ```cpp block ({b.mode}) fails: {what}"
             for b in blamed_blocks(job, output) or job.blocks]
    return "\n".join(lines) + f"\n(generated source: {job.source})\n{output.rstrip()}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files (default: README.md, docs/*.md)")
    parser.add_argument("--oxcc", default=str(ROOT / "build" / "bin" / "oxcc"), help="the oxcc to use")
    parser.add_argument("--work-dir", type=Path,
                        help="where the generated sources go (default: a new temporary directory)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    files = args.files or [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    work_dir = args.work_dir or Path(tempfile.mkdtemp(prefix="oxide-doc-blocks-"))
    work_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("OXCC_CACHE_DIR", str(work_dir / "cache"))

    jobs, problems, all_blocks = [], [], []
    for path in files:
        path = path.resolve()
        display = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
        blocks, found = parse(path, display)
        problems += found
        all_blocks += blocks
        jobs += [complete_unit(b, work_dir) for b in blocks if b.mode in ("check", "program")]
        fragments = [b for b in blocks if b.mode in FRAGMENT_MODES]
        if fragments:
            jobs.append(fragment_unit(display, fragments, work_dir))

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        reports = [r for r in pool.map(lambda job: run_job(job, args.oxcc, env), jobs) if r]

    for report in problems + reports:
        print(report, file=sys.stderr)
    count = lambda *modes: sum(b.mode in modes for b in all_blocks)
    print(f"doc code blocks in {len(files)} files: {count('check')} complete translation units and "
          f"{count(*FRAGMENT_MODES)} fragments checked, {count('program')} programs built and run, "
          f"{count('skip')} skipped; {len(reports)} of {len(jobs)} compiles failed")
    for b in all_blocks:
        if b.mode == "skip":
            print(f"  skipped {b.where()}: {b.reason}")
    return 1 if problems or reports else 0


if __name__ == "__main__":
    sys.exit(main())
