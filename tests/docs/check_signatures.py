#!/usr/bin/env python3
"""Checks that docs/device-api.md lists the exact signature of every public device function, and
only signatures that the headers declare.

clang parses the device headers (`#include <oxide/device.hpp>`, plain C++20) and dumps their AST as
JSON; every function, member function, constructor and operator declared in namespace oxide by a
header of include/oxide/device/ (or include/oxide/*.hpp) is collected, except those in a `detail`
namespace, non-public members, deleted functions and implicit ones. Its signature is the header's
own text of the declaration, without the body, comments, attributes and `inline`.

The docs list signatures in ```cpp blocks marked `<!-- doc-test: signatures -->` (which
check_code_blocks.py does not compile). In such a block a line

  // namespace oxide::warp
  // template <class T> class oxide::Span       (a class template: its head as the header has it)
  // class oxide::DisjointTile::iterator        (`struct` and `union` work too; not compared)

names the scope of the declarations that follow; each declaration ends with `;` and may span
lines, and other `//` comments, on their own lines or after a declaration, are ignored.
Signatures are compared with all whitespace removed except between two identifier characters, so
line breaks and `T *p` / `T* p` do not matter. (Functions that a using-declaration brings into a
public namespace would not be seen; the headers have none.)

  check_signatures.py [--clang PATH] [--docs FILE.md] [--include DIR] [--print]

Exit status 0 when the two sets agree; otherwise each documented signature that no header
declares is reported at its Markdown line (with the headers' declarations of that name), and each
undocumented header declaration at its header line. --print writes every header signature in the
docs' form, scope by scope, for writing the docs.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FUNCTION_KINDS = ("FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl",
                  "CXXConversionDecl")
RECORD_KINDS = ("CXXRecordDecl", "ClassTemplateSpecializationDecl",
                "ClassTemplatePartialSpecializationDecl")
SIGNATURE_MARKER = re.compile(r"^<!--\s*doc-test:\s*signatures\s*-->\s*$")
OPENING_FENCE = re.compile(r"^```\s*(cpp|c\+\+)\s*$")
SCOPE_LINE = re.compile(
    r"^//\s*(template\s*<.*?)?\s*\b(?:namespace|class|struct|union)\s+"
    r"(oxide(?:::~?\w+(?:<.*?>)?)*)\s*$")
# What a scope line starts with: one that does not parse is an error, not a comment.
SCOPE_START = re.compile(r"^//\s*(template\s*<|(namespace|class|struct|union)\s+oxide\b)")


@dataclass
class Signature:
    scope: str
    name: str
    text: str  # as displayed: the header's text or the docs' text
    where: str  # file:line

    @property
    def key(self):
        return (self.scope, normalise(self.text))


def normalise(text):
    """Whitespace only matters between two identifier characters."""
    text = re.sub(r"\s+", " ", text.strip())
    return re.sub(r"(?<=[^\w]) | (?=[^\w])", "", text)


def shown_path(path):
    """A path as messages show it: from the repository's root when it is inside it."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def skip_balanced(text, i, open_char, close_char):
    """Index just past the bracket that closes the one at text[i]."""
    depth = 0
    while i < len(text):
        if text[i] == open_char:
            depth += 1
        elif text[i] == close_char:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def strip_attributes(text):
    out, i = [], 0
    while i < len(text):
        if text.startswith("[[", i):
            i = skip_balanced(text, i, "[", "]")
        elif text.startswith("__attribute__", i):
            i = skip_balanced(text, text.index("(", i), "(", ")")
        elif text.startswith("alignas(", i):
            i = skip_balanced(text, text.index("(", i), "(", ")")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def function_name(text):
    """The declared name of a signature's text, for messages (and the docs' side of a match)."""
    text = text.strip()
    if text.startswith("template"):
        text = text[skip_balanced(text, text.index("<"), "<", ">"):]
    match = re.search(r"operator\s*(\(\)|\[\]|[^\s(]+)\s*\(", text)
    if match:
        return "operator" + match.group(1)
    match = re.search(r"(~?\w+)\s*(<[^()]*>)?\s*\(", text)
    return match.group(1) if match else text


def declaration_text(source, begin, name, end):
    """The declaration in source[begin:end], whose declared name starts at `name` (clang's
    location), without its body and a constructor's mem-initializers: everything up to the
    parameter list's `)` and the qualifiers after it, without comments, attributes and `inline`."""
    i = name
    if source.startswith("operator", i):  # operator(), operator==, operator bool...
        i += len("operator")
        while source[i].isspace():
            i += 1
        i += 2 if source.startswith("()", i) else 0
    i = skip_balanced(source, source.index("(", i), "(", ")")
    # Qualifiers, a trailing return type or requires-clause, `= default`: up to the body, the
    # mem-initializers or the end of the declaration.
    while i < end:
        c = source[i]
        if c in "{;" or (c == ":" and source[i + 1] != ":" and source[i - 1] != ":"):
            break
        i = skip_balanced(source, i, "(", ")") if c == "(" else i + 1
    text = strip_attributes(strip_comments(source[begin:i]))
    text = re.sub(r"\binline\s+", "", text)
    return re.sub(r"\s+", " ", text).strip()


class HeaderScanner:
    def __init__(self, include_dir):
        self.include_dir = include_dir
        self.sources = {}
        self.signatures = []
        self.namespaces = set()  # every namespace's qualified name
        self.template_heads = {}  # a class template's scope -> its `template <...>`
        self.tags = {}  # a record's scope -> class, struct or union

    def source(self, path):
        if path not in self.sources:
            self.sources[path] = Path(path).read_text()
        return self.sources[path]

    def public_header(self, path):
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(self.include_dir))
        parts = Path(rel).parts
        return len(parts) >= 2 and parts[0] == "oxide" and (
            len(parts) == 2 or parts[1] == "device")

    @staticmethod
    def resolve_locations(objects):
        """clang's JSON leaves out a location's file and line when they are the previous printed
        location's: fill them in, in print order."""
        state = {"file": None, "line": None}

        def visit(node):
            if isinstance(node, dict):
                if "offset" in node:
                    state["file"] = node.get("file", state["file"])
                    state["line"] = node.get("line", state["line"])
                    node["file"], node["line"] = state["file"], state["line"]
                for value in node.values():
                    visit(value)
            elif isinstance(node, list):
                for value in node:
                    visit(value)

        for obj in objects:
            visit(obj)

    @staticmethod
    def begin(node):
        begin = node["range"]["begin"]
        return begin.get("expansionLoc", begin)

    @staticmethod
    def end(node):
        end = node["range"]["end"]
        end = end.get("expansionLoc", end)
        return end["offset"] + end.get("tokLen", 0)

    def scan(self, objects):
        self.resolve_locations(objects)
        for obj in objects:
            self.visit(obj, [], None)

    def record_name(self, node):
        """A record's name in a scope: `Span`, or `Span<const T>` for a specialisation as written."""
        name = node.get("name", "")
        if node["kind"] == "CXXRecordDecl":
            return name
        loc = node["loc"].get("expansionLoc", node["loc"])
        source = self.source(loc["file"])
        start = loc["offset"]
        stop = skip_balanced(source, source.index("<", start), "<", ">")
        return re.sub(r"\s+", " ", strip_comments(source[start:stop]))

    def visit(self, node, scope, access, head=None):
        kind = node.get("kind")
        if kind == "NamespaceDecl":
            name = node.get("name")
            if not name or name == "detail" or name.startswith("_"):
                return
            if not scope and name != "oxide":
                return
            for child in node.get("inner", []):
                self.visit(child, scope + [name], None)
        elif kind == "LinkageSpecDecl":
            for child in node.get("inner", []):
                self.visit(child, scope, access)
        elif kind == "ClassTemplateDecl":
            for child in node.get("inner", []):
                if child.get("kind") == "CXXRecordDecl":
                    begin = self.begin(node)
                    head = strip_comments(self.source(begin["file"])[
                        begin["offset"]:self.begin(child)["offset"]])
                    head = re.sub(r"\s+", " ", strip_attributes(head)).strip()
                    self.visit(child, scope, access, head)
        elif kind in RECORD_KINDS:
            if not scope or node.get("isImplicit") or not node.get("completeDefinition"):
                return
            if access not in (None, "public"):
                return
            if kind == "ClassTemplateSpecializationDecl" and not self.explicit_specialisation(node):
                return
            if not self.public_header(self.begin(node)["file"]):
                return
            inner_scope = scope + [self.record_name(node)]
            if head:
                self.template_heads["::".join(inner_scope)] = head
            self.tags["::".join(inner_scope)] = node.get("tagUsed", "class")
            default = "private" if node.get("tagUsed") == "class" else "public"
            current = default
            for child in node.get("inner", []):
                if child.get("kind") == "AccessSpecDecl":
                    current = child["access"]
                    continue
                self.visit(child, inner_scope, child.get("access", current))
        elif kind == "FriendDecl":
            for child in node.get("inner", []):
                if child.get("kind") in FUNCTION_KINDS + ("FunctionTemplateDecl",):
                    self.function(child, scope, outer=node)
        elif kind == "FunctionTemplateDecl":
            if access in (None, "public"):
                self.function(node, scope)
        elif kind in FUNCTION_KINDS:
            if access in (None, "public"):
                self.function(node, scope)

    def explicit_specialisation(self, node):
        loc = self.begin(node)
        return self.source(loc["file"])[loc["offset"]:].lstrip().startswith("template")

    def function(self, node, scope, outer=None):
        decl = node
        if node["kind"] == "FunctionTemplateDecl":
            decl = next((c for c in node.get("inner", []) if c.get("kind") in FUNCTION_KINDS), None)
            if decl is None:
                return
        if not scope or decl.get("isImplicit") or decl.get("explicitlyDeleted"):
            return
        body = next((c for c in decl.get("inner", []) if c.get("kind") == "CompoundStmt"), None)
        # A friend declaration that only grants access declares a function of the namespace,
        # which is listed there; a friend defined in the class (hidden friend) is the class's.
        if outer is not None and body is None and not decl.get("explicitlyDefaulted"):
            return
        in_record = len(scope) > 0 and not self.is_namespace_scope(scope)
        # An out-of-class definition of a member is the member's, already seen in its class.
        if decl["kind"] != "FunctionDecl" and not in_record and outer is None:
            return
        first = outer or node
        begin = self.begin(first)
        path = begin["file"]
        if not path or not self.public_header(path):
            return
        source = self.source(path)
        end = self.begin(body)["offset"] if body else self.end(decl)
        name_loc = decl["loc"].get("expansionLoc", decl["loc"])
        text = declaration_text(source, begin["offset"], name_loc["offset"], end)
        name = re.sub(r"<.*>$", "", decl.get("name", ""))  # a constructor's Box<T>: Box
        line = begin["line"]
        self.signatures.append(
            Signature("::".join(scope), name, text, f"{shown_path(path)}:{line}"))

    def is_namespace_scope(self, scope):
        return "::".join(scope) in self.namespaces


def scan_headers(clang, include_dir):
    with tempfile.TemporaryDirectory() as tmp:
        tu = Path(tmp) / "device_api.cpp"
        tu.write_text("#include <oxide/device.hpp>\n")
        command = [clang, "-std=c++20", "-fsyntax-only", "-fno-color-diagnostics", "-I",
                   str(Path(include_dir).resolve()), "-Xclang", "-ast-dump=json", "-Xclang",
                   "-ast-dump-filter=oxide", str(tu)]
        result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"error: {' '.join(command)} failed:\n{result.stderr}")
    decoder, text, i, objects = json.JSONDecoder(), result.stdout, 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        obj, i = decoder.raw_decode(text, i)
        objects.append(obj)
    scanner = HeaderScanner(include_dir)
    collect_namespaces(objects, [], scanner.namespaces)
    scanner.scan(objects)
    return scanner.signatures, scanner.namespaces, scanner.template_heads, scanner.tags


def collect_namespaces(nodes, scope, out):
    for node in nodes:
        if node.get("kind") == "NamespaceDecl" and node.get("name"):
            inner = scope + [node["name"]]
            out.add("::".join(inner))
            collect_namespaces(node.get("inner", []), inner, out)


def scan_docs(path):
    """The signatures of the docs' `<!-- doc-test: signatures -->` blocks, and format errors."""
    lines = Path(path).read_text().splitlines()
    shown = shown_path(path)
    signatures, errors, scopes = [], [], []
    n = 0
    while n < len(lines):
        if not SIGNATURE_MARKER.match(lines[n]):
            n += 1
            continue
        if n + 1 >= len(lines) or not OPENING_FENCE.match(lines[n + 1]):
            errors.append(f"{shown}:{n + 1}: error: a signatures marker must be followed by a "
                          "```cpp block")
            n += 1
            continue
        n += 2
        scope, pending, pending_line = None, "", 0
        while n < len(lines) and not lines[n].startswith("```"):
            line = lines[n]
            scope_match = SCOPE_LINE.match(line.strip())
            if scope_match and not pending:
                scope = re.sub(r"\s+", " ", scope_match.group(2))
                head = scope_match.group(1)
                scopes.append((scope, re.sub(r"\s+", " ", head) if head else None, n + 1))
            elif SCOPE_START.match(line.strip()) and not pending:
                errors.append(f"{shown}:{n + 1}: error: a malformed scope line; write `// namespace "
                              "oxide::...` or `// [template <...>] class oxide::...`")
            elif line.strip().startswith("//") and not pending:
                pass
            elif line.strip():
                code = re.sub(r"//.*", "", line)
                if not pending:
                    pending_line = n + 1
                pending += " " + code
                if code.rstrip().endswith(";"):
                    text = re.sub(r"\s+", " ", pending).strip()[:-1].strip()
                    if scope is None:
                        errors.append(f"{shown}:{pending_line}: error: a signature before any "
                                      "`// namespace oxide...` scope line")
                    else:
                        signatures.append(Signature(scope, function_name(text), text,
                                                    f"{shown}:{pending_line}"))
                    pending = ""
            n += 1
        if pending:
            errors.append(f"{shown}:{pending_line}: error: a signature that does not end with `;`")
        n += 1
    return signatures, errors, scopes


def check_scopes(scopes, template_heads, shown):
    """A scope line of a class template shows its template head as the header writes it."""
    errors = []
    for scope, head, line in scopes:
        expected = template_heads.get(scope)
        if expected is None and head is not None:
            errors.append(f"{shown}:{line}: error: '{scope}' is not a class template of the headers, "
                          f"but its scope line says '{head}'")
        elif expected is not None and (head is None or normalise(head) != normalise(expected)):
            errors.append(f"{shown}:{line}: error: the class template '{scope}' is declared as "
                          f"'{expected} ...'; its scope line says '{head or 'no template head'}'")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clang", default="clang++-22")
    parser.add_argument("--docs", default=str(ROOT / "docs" / "device-api.md"))
    parser.add_argument("--include", default=str(ROOT / "include"))
    parser.add_argument("--print", action="store_true", help="print the headers' signatures")
    args = parser.parse_args()

    headers, namespaces, template_heads, tags = scan_headers(args.clang, Path(args.include))
    unique = {}
    for sig in headers:
        unique.setdefault(sig.key, sig)
    headers = list(unique.values())
    if args.print:
        by_scope = defaultdict(list)
        for sig in headers:
            by_scope[sig.scope].append(sig)
        for scope, sigs in by_scope.items():
            head = template_heads.get(scope, "")
            print(f"// namespace {scope}" if scope in namespaces else f"// {head} {tags[scope]} {scope}".strip().replace("  ", " "))
            for sig in sigs:
                print(f"{sig.text};  // {sig.where}")
            print()
        return 0

    docs, errors, scopes = scan_docs(args.docs)
    errors += check_scopes(scopes, template_heads, shown_path(args.docs))
    header_keys = {sig.key: sig for sig in headers}
    doc_keys = {}
    for sig in docs:
        if sig.key in doc_keys:
            errors.append(f"{sig.where}: error: '{sig.scope}::{sig.name}' is listed twice (first "
                          f"at {doc_keys[sig.key].where}): {sig.text}")
            continue
        doc_keys[sig.key] = sig
    by_name = defaultdict(list)
    for sig in headers:
        by_name[sig.name].append(sig)
    for sig in docs:
        if sig.key in header_keys or doc_keys.get(sig.key) is not sig:
            continue
        message = (f"{sig.where}: error: no header declares the documented signature of "
                   f"'{sig.scope}::{sig.name}': {sig.text}")
        same = [h for h in by_name.get(sig.name, []) if h.key not in doc_keys]
        same.sort(key=lambda h: h.scope != sig.scope)
        for h in same[:6]:
            message += f"\n  {h.where}: note: the headers declare {h.scope}::{h.name} as: {h.text}"
        errors.append(message)
    for sig in headers:
        if sig.key not in doc_keys:
            errors.append(f"{sig.where}: error: '{sig.scope}::{sig.name}' is not documented in "
                          f"{shown_path(args.docs)}: {sig.text}")
    for error in errors:
        print(error)
    print(f"device API signatures: {len(headers)} in the headers, {len(docs)} in the docs; "
          f"{len(errors)} error{'' if len(errors) == 1 else 's'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
