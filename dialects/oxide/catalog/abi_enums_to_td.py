#!/usr/bin/env python3
"""Writes the dialect's enum cases from the intrinsic catalog, include/oxide/detail/intrinsic_abi.hpp.

    abi_enums_to_td.py intrinsic_abi.hpp OxideAbiEnums.td

Every `enum class Name : std::uint32_t { ... };` of the header becomes
`defvar Oxide_NameCases = [I32EnumAttrCase<"name", value>, ...];`, which OxideEnums.td passes
to its I32EnumAttr definitions. An enumerator prints as its name without a trailing underscore,
or as the word after a trailing `// printed:` comment. Anything else in the header that looks
like an enum but does not parse is an error, so the two cannot drift apart silently.
"""

import re
import sys

ENUM = re.compile(r"enum\s+class\s+(\w+)\s*:\s*std::uint32_t\s*\{(.*?)\};", re.S)
CASE = re.compile(r"^\s*(\w+)\s*=\s*(\d+)\s*,?\s*(?://(.*))?$")
PRINTED = re.compile(r"\s*printed:\s*(\w+)")


def cases(name, body):
    result = []
    for line in body.splitlines():
        if not line.strip() or line.strip().startswith("//"):
            continue
        match = CASE.match(line)
        if not match:
            sys.exit(f"abi_enums_to_td.py: enum {name}: cannot read '{line.strip()}' (one 'name = value,' per line)")
        symbol, value, comment = match.group(1), int(match.group(2)), match.group(3) or ""
        printed = PRINTED.match(comment)
        text = printed.group(1) if printed else symbol.rstrip("_")
        result.append(f'I32EnumAttrCase<"{symbol}", {value}>' if text == symbol else
                      f'I32EnumAttrCase<"{symbol}", {value}, "{text}">')
    if not result:
        sys.exit(f"abi_enums_to_td.py: enum {name} has no cases")
    return result


def main():
    source, output = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as f:
        header = f.read()
    lines = [
        "// Generated from include/oxide/detail/intrinsic_abi.hpp by",
        "// dialects/oxide/catalog/abi_enums_to_td.py: do not edit.",
        "#ifndef OXIDE_ABI_ENUMS",
        "#define OXIDE_ABI_ENUMS",
        "",
        'include "mlir/IR/EnumAttr.td"',
        "",
    ]
    enums = ENUM.findall(header)
    if not enums:
        sys.exit(f"abi_enums_to_td.py: no enums in {source}")
    for name, body in enums:
        lines.append(f"defvar Oxide_{name}Cases = [")
        lines.append(",\n".join("    " + case for case in cases(name, body)))
        lines.append("];")
        lines.append("")
    lines.append("#endif // OXIDE_ABI_ENUMS")
    # Always written, so that the output is newer than the header; TableGen's own outputs are
    # rewritten only when they change, so nothing downstream rebuilds for a comment.
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
