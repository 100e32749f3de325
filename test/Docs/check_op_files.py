#!/usr/bin/env python3
"""Checks that docs/architecture.md names every source file an existing
elementwise op appears in, so "what a new op touches" stays true.

Usage: check_op_files.py SOURCE_ROOT OP [OP...]

The files are the list between the markers <!-- op-files --> and
<!-- /op-files --> in docs/architecture.md (paths in backticks). For each OP
(a tg op's mnemonic, e.g. silu), every file under include/, lib/, runtime/
and tools/ (tests, unit tests and benchmarks aside) that names the op in
code, not only in a comment, must be in that list, and each listed file
must name at least one of the ops."""
import os
import re
import sys

SOURCE_DIRS = ("include", "lib", "runtime", "tools")
SKIP_DIRS = {"unittests", "bench", "test", "__pycache__"}
SUFFIXES = (".td", ".h", ".cpp", ".c", ".cu", ".cuh", ".def", ".inc")


def listed_files(root):
    text = open(os.path.join(root, "docs", "architecture.md")).read()
    match = re.search(r"<!-- op-files -->(.*?)<!-- /op-files -->", text, re.S)
    if not match:
        sys.exit("docs/architecture.md has no <!-- op-files --> list")
    return set(re.findall(r"`((?:include|lib|runtime|tools)/[^`]+)`",
                          match.group(1)))


def code_lines(path):
    """The file's lines with comments dropped (// and /* */, and ODS
    descriptions, which are prose)."""
    text = open(path, errors="replace").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"\[\{.*?\}\]", "", text, flags=re.S)
    return [re.sub(r"//.*", "", line) for line in text.splitlines()]


def files_naming(root, op):
    camel = "".join(part.capitalize() for part in op.split("_"))
    pattern = re.compile(r"\b(%s|%s|%sOp|AMPRT_\w*_%s)\b" %
                         (op, camel, camel, op.upper()))
    found = set()
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            for name in filenames:
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                if any(pattern.search(line) for line in code_lines(path)):
                    found.add(os.path.relpath(path, root))
    return found


def main():
    root, ops = sys.argv[1], sys.argv[2:]
    listed = listed_files(root)
    failures = []
    named_any = set()
    for op in ops:
        found = files_naming(root, op)
        named_any |= found
        for path in sorted(found - listed):
            failures.append(f"{path} names {op} but architecture.md's "
                            "op-files list does not name the file")
    for path in sorted(listed - named_any):
        failures.append(f"architecture.md's op-files list names {path}, "
                        f"which names none of {', '.join(ops)}")
    for failure in failures:
        print(failure)
    if failures:
        sys.exit(1)
    print(f"op-files: {len(listed)} files, true for {', '.join(ops)}")


if __name__ == "__main__":
    main()
