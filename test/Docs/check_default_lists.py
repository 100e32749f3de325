#!/usr/bin/env python3
"""Checks docs/auto-mixed-precision.md's table of default lists against the
AMP_Precision traits the tg and amp ops declare in ODS, so the table says
what the pass does.

Usage: check_default_lists.py SOURCE_ROOT

Every tg and amp op with a precision trait must appear in the table's row
of its f16 class, and every tg or amp op the table names must have that
trait. Names in the table are mnemonics ("exp"; "amp.cast" for the amp
dialect); "name(+grad)" stands for name and name_grad. Other dialects'
names (arith.constant) are not checked."""
import os
import re
import sys

# The f16 class of each trait the ops use (PrecisionPolicyTrait.td, TGOps.td
# and AMPOps.td define them).
TRAIT_CLASSES = {
    "AMP_Allow": "allow", "AMP_Infer": "infer", "AMP_Clear": "clear",
    "AMP_Deny": "deny", "AMP_DenyForF16": "deny", "AMP_F32Only": "deny",
    "TG_NormPrecision": "infer", "TG_NormGradPrecision": "infer",
    "AMP_CastPrecision": "clear",
}
# An op's definition up to its body or its end: its classes and traits.
OP_DEF = re.compile(r'^def (TG|AMP)_\w+Op\b[^<]*<\s*(?:\w+_Dialect,\s*)?"(\w+)"',
                    re.M)
HEADER_END = re.compile(r"[{;][ \t]*$", re.M)


def declared_classes(root):
    """{op name: class} from the ops' definitions."""
    classes = {}
    for dialect, path in (("tg", "include/amp/Dialect/TG/IR/TGOps.td"),
                          ("amp", "include/amp/Dialect/AMP/IR/AMPOps.td")):
        text = open(os.path.join(root, path)).read()
        for match in OP_DEF.finditer(text):
            end = HEADER_END.search(text, match.end())
            header = text[match.start():end.start() if end else len(text)]
            traits = [t for t in re.findall(r"\b(AMP_\w+|TG_\w+Precision)\b",
                                            header) if t in TRAIT_CLASSES]
            if len(traits) > 1:
                sys.exit("%s: %s declares %s" % (path, match.group(2), traits))
            name = match.group(2) if dialect == "tg" else "amp." + match.group(2)
            if traits:
                classes[name] = TRAIT_CLASSES[traits[0]]
    return classes


def documented_classes(root):
    """{op name: class} from the table's rows."""
    text = open(os.path.join(root, "docs", "auto-mixed-precision.md")).read()
    classes = {}
    for cls, ops in re.findall(r"^\| (allow|infer|deny|clear) \| ([^|]+) \|",
                               text, re.M):
        for entry in (e.strip() for e in ops.split(",")):
            names = [entry]
            if entry.endswith("(+grad)"):
                base = entry[:-len("(+grad)")]
                names = [base, base + "_grad"]
            for name in names:
                if "." in name and not name.startswith("amp."):
                    continue
                if name in classes:
                    sys.exit("the table names %s twice" % name)
                classes[name] = cls
    if not classes:
        sys.exit("docs/auto-mixed-precision.md has no table of lists")
    return classes


def main():
    root = sys.argv[1]
    declared, documented = declared_classes(root), documented_classes(root)
    errors = []
    for name in sorted(set(declared) | set(documented)):
        want, said = declared.get(name), documented.get(name)
        if want != said:
            errors.append("%s: declared %s, the table says %s" %
                          (name, want or "no class", said or "nothing"))
    for error in errors:
        print(error)
    print("default-lists: %d ops, %s" %
          (len(declared), "table differs" if errors else "table true"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
