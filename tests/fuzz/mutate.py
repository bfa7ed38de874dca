#!/usr/bin/env python3
"""Mutation fuzzing of the tools, out of process: oxide-opt on mutated MLIR, oxcc on mutated C++.

Every input must get a result or a located error. A finding is an input on which the tool
 - dies of a signal, or prints LLVM's crash banner ("Stack dump", "PLEASE submit a bug report");
 - stops with "LLVM ERROR" (report_fatal_error: no location, no advice);
 - runs past --timeout seconds (a hang);
 - (oxcc) exits non-zero without any "file:line:col: error:" line.

    mutate.py mlir --seconds 60 --out /tmp/findings      # mutate tests/lit/dialect/*.mlir
    mutate.py cpp --seconds 60 --out /tmp/findings       # mutate examples/*.cpp
    mutate.py replay tests/fuzz/crashes/oxide-opt         # every saved input must now be handled
    mutate.py mlir --batch 200 --seconds 3600 ...         # 200 cases per oxide-opt process (below)

--batch N (mlir) joins N mutated cases with `// -----` and runs each pipeline once over them with
--split-input-file, which parses and runs each case on its own (a fresh MLIRContext per chunk),
as N separate runs would, at a fraction of the cost of starting oxide-opt N times. A batch in
which anything is found (a signal, a crash banner, LLVM ERROR, a time-out) is run again case by
case, so every finding is a single input with its own log, and a case that is only bad in a
batch is reported as "batch-only" with the batch itself.

Findings are written to --out as <kind>-<hash>.{mlir,cpp} with the tool's output beside them;
a fixed one is kept under tests/fuzz/crashes/{oxide-opt,oxcc}/ and replayed by CI.
"""
import argparse
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("OXIDE_BUILD_DIR", ROOT / "build"))
OXIDE_OPT = BUILD / "bin" / "oxide-opt"
OXCC = BUILD / "bin" / "oxcc"
PIPELINES = ["--oxide-pipeline", "--oxide-raise", "--oxide-verify-safety", "--oxide-optimize", "--oxide-to-nvvm"]
LOCATED_ERROR = re.compile(r"^\S+:\d+:\d+: (fatal )?error:", re.M)
CRASH_BANNERS = ("Stack dump", "PLEASE submit a bug report", "LLVM ERROR", "Assertion `")


# ---- mutations --------------------------------------------------------------------------------

EXTREME_INTEGERS = ["0", "-1", "1", "31", "32", "1024", "65536", "2147483647", "-2147483648",
                    "4294967296", "9223372036854775807", "18446744073709551616", "99999999999999999999"]


def mutate_lines(text, rng):
    lines = text.split("\n")
    if not lines:
        return text
    i = rng.randrange(len(lines))
    choice = rng.randrange(5)
    if choice == 0:
        del lines[i]
    elif choice == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif choice == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif choice == 3:
        return "\n".join(lines)[: rng.randrange(len(text) + 1)]
    else:
        lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    return "\n".join(lines)


def mutate_tokens(text, rng, vocabulary):
    tokens = re.findall(r"\w+|\s+|.", text)
    if not tokens:
        return text
    i = rng.randrange(len(tokens))
    choice = rng.randrange(5)
    if choice == 0:
        del tokens[i]
    elif choice == 1:
        tokens.insert(i, tokens[rng.randrange(len(tokens))])
    elif choice == 2 and i + 1 < len(tokens):
        tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
    elif choice == 3:
        numbers = [k for k, t in enumerate(tokens) if t.isdigit()]
        if numbers:
            tokens[rng.choice(numbers)] = rng.choice(EXTREME_INTEGERS)
    else:
        tokens.insert(i, rng.choice(vocabulary))
    return "".join(tokens)


MLIR_VOCABULARY = [
    "oxide.thread_index", "oxide.grid_stride_next", "oxide.disjoint_get", "oxide.span_elem", "oxide.barrier",
    "oxide.bounds_fail", "llvm.func", "llvm.call", "llvm.store", "llvm.load", "llvm.getelementptr", "!llvm.ptr",
    "i32", "i64", "i1", "%0", "%arg0", "^bb1", "{", "}", "(", ")", ",", ":", "=", "attributes", "oxide.kernel",
    "#oxide.kernel", "#oxide.kernel<", "params = [", "contract = ", "launch_bounds = [", "element_sizes = [", "output",
    "input", "oxide.contract", '"domain = 1"', "llvm.return", "llvm.br", "llvm.cond_br", "dense<0>", "#llvm.noalias",
]

# Statements C++ kernels cannot or should not contain, and type swaps that break a contract.
CPP_HOSTILE = [
    "throw 1;", "static int counter = 0; ++counter;", "thread_local int t = 0;", "int *p = new int[4]; delete[] p;",
    "asm volatile(\"trap;\");", "goto end; end:;", "struct V { virtual void f() {} } v; v.f();",
    "auto f = [](auto self, int n) -> int { return n ? self(self, n - 1) : 0; }; (void)f(f, 3);",
    "float *q = reinterpret_cast<float *>(0x1000); *q = 1;", "__builtin_trap();", "for (;;) {}",
    "int big[1 << 20]; big[0] = 1;", "std::abort();", "(void)sizeof(char[-1]);",
]
CPP_SWAPS = [
    ("Span<const float>", "DisjointSpan<float>"), ("DisjointSpan<float>", "Span<const float>"),
    ("DisjointSpan<float>", "DisjointSpan2D<float>"), ("float", "double"), ("std::size_t", "int"),
    ("unsigned", "int"), ("domain = 1", "domain = 2"), ("domain = 2", "domain = 3"), ("get_mut", "get"),
    ("index_1d", "index_2d"), ("requires = (", "requires = ((("), ("block = (", "block = (0, "),
    ("oxide::launch_contract", "oxide::launch_bounds"), ("[[kernel", "[[kernel, kernel"),
]


def mutate_cpp(text, rng):
    choice = rng.randrange(4)
    if choice == 0:
        a, b = rng.choice(CPP_SWAPS)
        if a in text:
            starts = [m.start() for m in re.finditer(re.escape(a), text)]
            s = rng.choice(starts)
            return text[:s] + b + text[s + len(a):]
    if choice == 1:
        braces = [m.end() for m in re.finditer(r"\)\s*\{", text)]
        if braces:
            s = rng.choice(braces)
            return text[:s] + " " + rng.choice(CPP_HOSTILE) + " " + text[s:]
    if choice == 2:
        contracts = [m for m in re.finditer(r'launch_contract\("([^"]*)"\)', text)]
        if contracts:
            m = rng.choice(contracts)
            inner = mutate_tokens(m.group(1), rng, ["(", ")", ",", "==", "<", ".size()", "*", "+", "n", "0"])
            return text[: m.start(1)] + inner + text[m.end(1):]
    return mutate_tokens(text, rng, ["(", ")", "{", "}", ";", "const", "*", "&", "template", "auto", "0"])


# ---- running the tools ------------------------------------------------------------------------

def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout


def classify(kind, rc, out):
    """The finding's name, or None when the tool answered properly."""
    if rc is None:
        return "hang"
    if rc < 0 or rc >= 128:
        return "signal"
    for banner in CRASH_BANNERS:
        if banner in out:
            return "crash" if banner != "LLVM ERROR" else "fatal-error"
    if kind == "cpp" and rc != 0 and not LOCATED_ERROR.search(out):
        return "unlocated-error"
    return None


def check_mlir(path, timeout):
    for flag in PIPELINES:
        rc, out = run([str(OXIDE_OPT), flag, str(path), "-o", os.devnull], timeout)
        finding = classify("mlir", rc, out)
        if finding:
            return finding, "oxide-opt %s\n%s" % (flag, out)
    return None, ""


def check_cpp(path, timeout):
    # The seeds are the examples: their own headers (examples/*.hpp) stay reachable.
    cmd = [str(OXCC), "check", "--arch=sm_90", "-I", str(ROOT / "examples"), str(path)]
    rc, out = run(cmd, timeout)
    return classify("cpp", rc, out), "oxcc " + " ".join(cmd[1:-1]) + "\n" + out


SPLIT = "// -----"


def check_mlir_batch(texts, tmp, timeout):
    """Findings [(finding, text, log)] of a batch of cases, each run alone when the batch has any."""
    batch = Path(tmp) / "batch.mlir"
    batch.write_text(("\n%s\n" % SPLIT).join(texts))
    suspicious = False
    for flag in PIPELINES:
        rc, out = run([str(OXIDE_OPT), "--split-input-file", flag, str(batch), "-o", os.devnull],
                      timeout * max(1, len(texts) // 20))
        if classify("mlir", rc, out):
            suspicious = True
            break
    if not suspicious:
        return []
    findings = []
    single = Path(tmp) / "case.mlir"
    for text in texts:
        single.write_text(text)
        finding, log = check_mlir(single, timeout)
        if finding:
            findings.append((finding, text, log))
    if not findings:
        findings.append(("batch-only", batch.read_text(), "oxide-opt --split-input-file %s\n%s" % (flag, out)))
    return findings


def seeds(kind):
    if kind == "mlir":
        for f in sorted((ROOT / "tests" / "lit" / "dialect").glob("*.mlir")):
            for chunk in f.read_text().split("// -----"):
                yield "\n".join(l for l in chunk.split("\n") if not l.lstrip().startswith("// RUN"))
    else:
        for f in sorted((ROOT / "examples").glob("*.cpp")):
            yield f.read_text()


def fuzz(args):
    rng = random.Random(args.seed)
    corpus = list(seeds(args.kind))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    suffix = ".mlir" if args.kind == "mlir" else ".cpp"
    check = check_mlir if args.kind == "mlir" else check_cpp
    deadline = time.monotonic() + args.seconds
    cases, findings = 0, {}
    batch = max(1, args.batch) if args.kind == "mlir" else 1
    start = time.monotonic()

    def mutant():
        text = rng.choice(corpus)
        for _ in range(rng.randint(1, 4)):
            text = (mutate_cpp(text, rng) if args.kind == "cpp" else
                    mutate_lines(text, rng) if rng.random() < 0.4 else mutate_tokens(text, rng, MLIR_VOCABULARY))
        return text

    def record(finding, text, log):
        digest = hashlib.sha1(text.encode()).hexdigest()[:12]
        name = "%s-%s" % (finding, digest)
        (out / (name + suffix)).write_text(text)
        (out / (name + ".log")).write_text(log)
        findings[finding] = findings.get(finding, 0) + 1

    # SIGTERM or ^C ends the run after the current case with the usual summary, so a long
    # campaign stopped early still says how many cases it ran.
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(1))
    reported = 0
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < deadline and (args.cases == 0 or cases < args.cases) and not stop:
            if cases - reported >= args.progress:
                reported = cases
                print("mutate.py %s: %d cases in %d s, findings so far: %s" %
                      (args.kind, cases, time.monotonic() - start, findings or "none"), flush=True)
            if batch > 1:
                # A case that holds the split marker itself would become two: keep it out.
                texts = [t for t in (mutant() for _ in range(batch)) if SPLIT not in t]
                cases += len(texts)
                for finding, text, log in check_mlir_batch(texts, tmp, args.timeout):
                    record(finding, text, log)
                continue
            text = mutant()
            case = Path(tmp) / ("case" + suffix)
            case.write_text(text)
            cases += 1
            finding, log = check(case, args.timeout)
            if finding:
                record(finding, text, log)
    print("mutate.py %s: %d cases in %d s (seed %d, batch %d), findings: %s (in %s)" %
          (args.kind, cases, time.monotonic() - start, args.seed, batch, findings or "none", out))
    return 1 if findings else 0


def replay(args):
    failed = 0
    for f in sorted(Path(args.dir).iterdir()):
        if f.suffix not in (".mlir", ".cpp"):
            continue
        finding, log = (check_mlir if f.suffix == ".mlir" else check_cpp)(f, args.timeout)
        if finding:
            failed += 1
            print("FAIL %s: %s\n%s" % (f, finding, log[-2000:]))
        else:
            print("ok   %s" % f.name)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    for kind in ("mlir", "cpp"):
        p = sub.add_parser(kind)
        p.add_argument("--seconds", type=int, default=60)
        p.add_argument("--seed", type=int, default=int(time.time()))
        p.add_argument("--out", default=str(BUILD / "fuzz-findings"))
        p.add_argument("--timeout", type=int, default=60)
        p.add_argument("--cases", type=int, default=0, help="stop after this many cases (0: only --seconds)")
        p.add_argument("--progress", type=int, default=10000, help="print the count every this many cases")
        if kind == "mlir":
            p.add_argument("--batch", type=int, default=1, help="cases per oxide-opt run (--split-input-file)")
        p.set_defaults(kind=kind)
    p = sub.add_parser("replay")
    p.add_argument("dir")
    p.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args()
    sys.exit(replay(args) if args.mode == "replay" else fuzz(args))


if __name__ == "__main__":
    main()
