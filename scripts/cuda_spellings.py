#!/usr/bin/env python3
"""Writes or checks the generated table of docs/cuda-to-oxide.md from
include/oxide/detail/cuda_spellings.def, the one list of CUDA names whose use is refused with
their Oxide equivalent (include/oxide/detail/cuda_spellings.hpp).

  python3 scripts/cuda_spellings.py            # rewrites the table in docs/cuda-to-oxide.md
  python3 scripts/cuda_spellings.py --check    # exit status 1 if it is out of date

--check also checks that every OXIDE_CUDA_QUALIFIER has its #define in cuda_spellings.hpp (the
preprocessor cannot make one from the table).
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN = "<!-- cuda-spellings: generated from include/oxide/detail/cuda_spellings.def; do not edit -->"
END = "<!-- cuda-spellings: end -->"
ENTRY = re.compile(r'^OXIDE_CUDA_(QUALIFIER|BUILTIN|VARIABLE|FUNCTION|TYPE)\((\w+), "((?:[^"\\]|\\.)*)"\)$')
SECTION = re.compile(r'^OXIDE_CUDA_SECTION\("((?:[^"\\]|\\.)*)"\)$')


def parse(def_path):
    """[(section title, [(kind, name, text)])], with C escapes undone."""
    sections = []
    for number, line in enumerate(def_path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("//"):
            continue
        if m := SECTION.match(line):
            sections.append((m.group(1).replace('\\"', '"'), []))
        elif m := ENTRY.match(line):
            if not sections:
                sys.exit(f"{def_path}:{number}: an entry before the first OXIDE_CUDA_SECTION")
            sections[-1][1].append((m.group(1), m.group(2), m.group(3).replace('\\"', '"')))
        else:
            sys.exit(f"{def_path}:{number}: not an entry of the table: {line}")
    return sections


def cell(text):
    """The text, safe inside a Markdown table cell."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def table(sections):
    out = [BEGIN, ""]
    for title, entries in sections:
        out += [f"### {title}", "", "| CUDA | In Oxide |", "| --- | --- |"]
        for kind, name, text in entries:
            shown = f"`{name}(...)`" if kind == "QUALIFIER" and name == "__launch_bounds__" else f"`{name}`"
            if kind == "FUNCTION":
                shown = f"`{name}()`"
            out.append(f"| {shown} | {cell(text)} |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the docs are out of date")
    parser.add_argument("--root", type=pathlib.Path, default=ROOT)
    args = parser.parse_args()
    def_path = args.root / "include/oxide/detail/cuda_spellings.def"
    header = args.root / "include/oxide/detail/cuda_spellings.hpp"
    doc = args.root / "docs/cuda-to-oxide.md"
    sections = parse(def_path)
    names = [e[1] for _, entries in sections for e in entries]
    errors = []
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        errors.append(f"{def_path}: named twice: {', '.join(duplicates)}")
    header_text = header.read_text()
    for _, entries in sections:
        for kind, name, _ in entries:
            if kind == "QUALIFIER" and not re.search(rf"^#define {name}(\(\.\.\.\))?$", header_text, re.M):
                errors.append(f"{header}: no '#define {name}' (expanding to nothing)")
    text = doc.read_text()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        errors.append(f"{doc}: no generated table (the markers '{BEGIN}' ... '{END}')")
    else:
        updated = text[:start] + table(sections) + text[end + len(END):]
        if updated != text:
            if args.check:
                errors.append(f"{doc}: the table is out of date: run python3 scripts/cuda_spellings.py")
            else:
                doc.write_text(updated)
                print(f"cuda spellings: wrote the table of {doc}")
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    print(f"cuda spellings: {len(names)} names in {len(sections)} sections; {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
