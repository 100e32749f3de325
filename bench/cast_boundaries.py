"""Counts the casts in a module beside the minimum any placement needs.

The minimum is the number of distinct (value, type) pairs where a value
crosses a precision boundary: every tensor operand of a non-cast op is
traced back through casts (amp.cast, arith.truncf / extf, tosa.cast) to the
value it started as, and each (start value, type it is consumed in) pair
that passed through a cast needs at least one. Reads the generic form
(--mlir-print-op-generic), region ops included.
"""
import re

CASTS = {"amp.cast", "arith.truncf", "arith.extf", "tosa.cast"}
OPEN = re.compile(r'^\s*(?:(%[^\s=]+)\s*=\s*)?"([\w.]+)"\((.*?)\)')
TYPES = re.compile(r':\s*\((.*?)\)\s*->\s*(.*)$')
CLOSE = re.compile(r'^\s*\}\)')


def split_types(text):
    """Top-level comma split of a type list."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def count(ir):
    """(casts, boundaries) of `ir` in generic form."""
    source = {}  # cast result -> cast operand
    uses = []    # (operand, type) of every non-cast op
    casts = 0
    pending = []  # region ops waiting for their closing line's types

    def record(result, op, operands, types):
        nonlocal casts
        names = [n.strip() for n in operands.split(",") if n.strip()]
        if types is None:
            return
        operand_types = split_types(types.group(1))
        if op in CASTS and result and operand_types and \
                operand_types[0].startswith("tensor<"):
            casts += 1
            source[result.split(":")[0]] = names[0]
        else:
            uses.extend(zip(names, operand_types))

    for line in ir.splitlines():
        if CLOSE.match(line):
            if pending and TYPES.search(line):
                record(*pending.pop(), TYPES.search(line))
            continue
        m = OPEN.match(line)
        if not m:
            continue
        if line.rstrip().endswith("({"):
            pending.append((m.group(1), m.group(2), m.group(3)))
        else:
            record(m.group(1), m.group(2), m.group(3), TYPES.search(line))
    boundaries = set()
    for name, type_ in uses:
        if name not in source or not type_.startswith("tensor<"):
            continue
        root = name
        while root in source:
            root = source[root]
        boundaries.add((root, type_))
    return casts, len(boundaries)
