#!/usr/bin/env python3
"""Places every oxide op of the dialect's round-trip tests where no op of the dialect belongs, and
runs the whole pipeline on each: at module level, and in the initializer region of a global.

    op_context.py OXIDE_OPT TD_DIR ROUNDTRIP.mlir...

Each op is taken in its generic form (oxide-opt --mlir-print-op-generic), its operands made at
the same level by llvm.mlir.zero of their types. Every case must be refused with a located error
and a non-zero exit, never a crash (a signal, or an exit status above 1). Prints one line per
op kind that was not, then a summary.
"""

import glob
import re
import subprocess
import sys
import tempfile

# "%r = "oxide.x"(%a, %b) <{...}> : (T0, T1) -> R" or without a result; the operand types are
# the function type's inputs. A line with regions ({ ... }) spans lines: those ops are skipped.
OP = re.compile(r'^\s*(?:(%[\w#:]+)\s*=\s*)?"(oxide\.\w+)"\((.*?)\)(.*):\s*\((.*)\)\s*->\s*(.*)$')


def split_types(text):
    """Top-level comma-separated types (commas inside <>, (), [] do not split)."""
    types, depth, current = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            types.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        types.append(current.strip())
    return types


def cases(generic):
    """(op name, operand definitions, op line) for each single-line oxide op."""
    for line in generic.splitlines():
        match = OP.match(line)
        if not match:
            continue
        result, name, operands, rest, input_types, result_type = match.groups()
        operand_names = [o.strip() for o in operands.split(",") if o.strip()]
        types = split_types(input_types)
        if len(types) != len(operand_names):
            continue
        definitions = [f"%o{i} = llvm.mlir.zero : {t}" for i, t in enumerate(types)]
        renamed = ", ".join(f"%o{i}" for i in range(len(types)))
        # `%5:2 = ...` names two results: keep the count.
        head = "" if not result else "%r" + (":" + result.split(":")[1] if ":" in result else "") + " = "
        yield name, definitions, f'{head}"{name}"({renamed}){rest}: ({input_types}) -> {result_type}'



def expected(td_dir):
    """Every op the dialect defines (`Op<"name"` in its TableGen files)."""
    names = set()
    for path in glob.glob(f"{td_dir}/*.td"):
        with open(path, encoding="utf-8") as f:
            names |= {"oxide." + n for n in re.findall(r'Op<"(\w+)"', f.read())}
    return names


def module_level(definitions, op):
    return "\n".join(definitions + [op]) + "\n"


def in_global(definitions, op):
    body = "\n".join("  " + line for line in definitions + [op])
    return ("llvm.mlir.global internal @g() {addr_space = 0 : i32} : i64 {\n" + body +
            "\n  %c = llvm.mlir.constant(0 : i64) : i64\n  llvm.return %c : i64\n}\n")


def main():
    opt, td_dir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    seen, tried, bad = set(), 0, 0
    for path in files:
        generic = subprocess.run([opt, path, "--mlir-print-op-generic"], capture_output=True, text=True,
                                 check=True).stdout
        for name, definitions, op in cases(generic):
            for place, make in (("module", module_level), ("global", in_global)):
                if (name, place) in seen:
                    continue
                seen.add((name, place))
                with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
                    f.write(make(definitions, op))
                    f.flush()
                    run = subprocess.run([opt, "--oxide-pipeline", f.name], capture_output=True, text=True)
                tried += 1
                located = re.search(r"\.mlir:\d+:\d+: error: .oxide\.\w+. op must be inside a function", run.stderr)
                if run.returncode != 1 or not located:
                    bad += 1
                    print(f"{name} ({place}): exit {run.returncode}: {run.stderr.strip()[:300]}")
    ops = len({name for name, _ in seen})
    for name in sorted(expected(td_dir) - {name for name, _ in seen}):
        print(f"{name}: no single-line generic form in the round-trip tests, not placed")
    print(f"{ops} oxide ops in {tried} cases: {tried - bad} refused with a located error, {bad} not")
    return 0


if __name__ == "__main__":
    sys.exit(main())
