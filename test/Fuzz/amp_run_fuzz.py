#!/usr/bin/env python3
"""A seeded black-box fuzzer of amp-run's flags, output paths, data folders.

usage: amp_run_fuzz.py --amp-run PATH --examples DIR --work DIR --seed N
                       (--runs K | --case C) [--timeout S] [--memory-mb M]
                       [--verbose]

Case C of seed N draws everything from random.Random(N * 100003 + C): an
example program (or a mutated copy of it), 1-6 flags with valid, boundary,
garbage, repeated or unknown values, output paths (fresh, existing, the
input under another spelling, another output, a directory, /dev/full, ...)
and a tiny Fashion-MNIST folder made by test/Tools/amp-run/make_idx.py and
then corrupted. amp-run runs in the case's scratch folder under --work, and
must
  - exit 0 or 1 (3 only for --inject-fault=exit@...), never by a signal and
    never hang;
  - print `error: MESSAGE` when it fails, and never a crash banner (LLVM
    ERROR, Stack dump, Assertion, ...) or an `error:` with nothing after it;
  - leave every file it reads byte-identical, and touch no path but the
    outputs it was asked for (no temporary files left behind);
  - refuse a flag given an empty value (--report=, --lr=), --lower-options=,
    --validate= and booleans (true, as the bare flag) aside;
  - write each output whole or not at all, and every output it was asked
    for when it succeeds (JSON parses; the object is ELF and has a manifest
    that gives its size and FNV-1a hash).
A case whose counts may train for hours (--steps=4611686018427387904) gets
5 s and may be cut off then; one given a FIFO to read (which amp-run must
refuse, not wait on) gets 5 s too. amp-run's address space is capped
(--memory-mb, 6144 by default; none for 0 and under AddressSanitizer), so
that input that would make it take the machine's memory fails fast, as a
crash, instead of meeting the OOM killer.

A violation is one line on stderr with the case number and the command
line, to run from the case's folder, which is kept; --case C runs case C
alone again. The exit status is 1 after a violation, else 0 after the line
`ok: K cases, A accepted, R refused` on stdout (2: amp-run cannot start).
"""
import argparse
import functools
import gzip
import hashlib
import importlib.util
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_IDX = os.path.join(HERE, "..", "Tools", "amp-run", "make_idx.py")

# The example programs and how often each is drawn: the MLPs compile and
# step fastest. Every one takes 784 features an example (32x784,
# 32x28x28x1, 32x28x28), so any of them can read a Fashion-MNIST folder.
EXAMPLES = (("mlp_train_step.mlir", 5), ("mlp_adam.mlir", 4),
            ("cnn.mlir", 1), ("transformer_block.mlir", 1))
TRAIN_COUNT, TEST_COUNT = 64, 16
CRASH_MARKERS = ("LLVM ERROR", "Stack dump", "Assertion", "terminate called",
                 "AddressSanitizer", "runtime error:", "LeakSanitizer",
                 "UndefinedBehaviorSanitizer")
# A run whose counts may train for hours gets this deadline, and being cut
# off there is no violation. A run given a FIFO as its program or
# lists-file gets it too: refusing takes no time, waiting is a hang.
SHORT_TIMEOUT = 5.0
AS_ROOT = os.geteuid() == 0
# Data files past this size are the sparse giants the fuzzer made: never
# read them whole.
GIANT_BYTES = 16 << 20
# How much a giant data file holds (a sparse plain file, or what a gzip
# bomb inflates to): more than --memory-mb, less than a disk.
GIANT_PAYLOAD = 8 << 30

# Values drawn for flags besides their valid ones.
INT_ODD = ("0", "-1", "-0", "1", "2147483648", "4294967296",
           "9223372036854775808", "18446744073709551616",
           "-9223372036854775809", "99999999999999999999999", "", "abc",
           "1e3", "1.5", "0x10", "010", " 2", "2 ", "+2", "\uff12", "nan",
           "=1")
HUGE_COUNTS = ("9223372036854775807", "4611686018427387904", "1000000000")
FLOAT_ODD = ("0", "-0", "-1", "1e308", "-1e308", "1.7976931348623157e308",
             "1e309", "1e-308", "5e-324", "1e39", "3.4028235e38", "1e-46",
             "nan", "-nan", "inf", "-inf", "infinity", "NaN", "", "abc",
             "0x1p3", "1e", "1,5", " 1")
STRING_ODD = ("", " ", "abc", "\u00e9t\u00e9", "x" * 300, "-", "--", "a=b",
              "null", "\t", "$HOME", "%s%n")
LOWER_OPTIONS = ("fuse-bias-epilogues", "fuse-activation-epilogues",
                 "fuse-elementwise-chains", "reshape-views",
                 "in-place-elementwise", "fold-casts-into-bias-grads",
                 "fold-casts-into-products")
KNOWN_CONTENT = b"known content: amp-run must not change this\n"


def choose(rng, weighted):
    """One item of `weighted`, a sequence of (item, weight) pairs."""
    items = [item for item, _ in weighted]
    return rng.choices(items, weights=[w for _, w in weighted])[0]


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def regular(path):
    return os.path.isfile(path) and not os.path.islink(path)


def remove_entry(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.remove(path)


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


# ---------------------------------------------------------------------------
# Fashion-MNIST folders: made by make_idx.py, then corrupted.

def load_make_idx():
    spec = importlib.util.spec_from_file_location("make_idx", MAKE_IDX)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_split(make_idx, folder, split, count, rows=28, cols=28, gz=True):
    """Writes `split`'s images and labels into `folder` with make_idx.py,
    gzipped with a fixed mtime so that the bytes are the same every run."""
    for kind in ("images-idx3-ubyte", "labels-idx1-ubyte"):
        path = os.path.join(folder, f"{split}-{kind}" + (".gz" if gz else ""))
        if os.path.lexists(path) and not regular(path):
            remove_entry(path)  # opening a FIFO to write it would wait
    argv = ["make_idx.py", folder, split, str(count), str(rows), str(cols)]
    if gz:
        argv.append("--gzip")
    make_idx.main(argv)
    if gz:
        for kind in ("images-idx3-ubyte", "labels-idx1-ubyte"):
            path = os.path.join(folder, f"{split}-{kind}.gz")
            write_gzip(path, gzip.decompress(read_bytes(path)))


def write_gzip(path, payload):
    write_bytes(path, gzip.compress(bytes(payload), mtime=0))


def make_base_folders(make_idx, work):
    """The valid folders every case copies: gzipped and plain."""
    bases = {}
    for gz in (True, False):
        folder = os.path.join(work, "base-gz" if gz else "base-plain")
        shutil.rmtree(folder, ignore_errors=True)
        make_split(make_idx, folder, "train", TRAIN_COUNT, gz=gz)
        make_split(make_idx, folder, "t10k", TEST_COUNT, gz=gz)
        bases[gz] = folder
    return bases


def read_payload(path):
    """The IDX bytes of `path` (decompressed when .gz), or None."""
    raw = read_bytes(path)
    if not path.endswith(".gz"):
        return bytearray(raw)
    try:
        return bytearray(gzip.decompress(raw))
    except (OSError, EOFError, zlib.error):
        return None


def write_payload(path, payload):
    if path.endswith(".gz"):
        write_gzip(path, payload)
    else:
        write_bytes(path, payload)


class DataFolder:
    """A copy of a base folder under a case, and the ways to break it."""

    def __init__(self, case, make_idx, base, gz):
        self.rng, self.make_idx, self.gz = case.rng, make_idx, gz
        self.folder = os.path.join(case.root, "data")
        shutil.copytree(base, self.folder)

    def regular_files(self, kind="", gz_only=False):
        names = sorted(n for n in os.listdir(self.folder) if kind in n and
                       (n.endswith(".gz") or not gz_only))
        paths = [os.path.join(self.folder, n) for n in names]
        return [p for p in paths
                if regular(p) and os.path.getsize(p) <= GIANT_BYTES]

    def pick(self, kind="", gz_only=False):
        files = self.regular_files(kind, gz_only)
        return self.rng.choice(files) if files else None

    def corrupt(self):
        """Breaks the folder in 1-2 ways, or (a third of cases) not at all."""
        count = choose(self.rng, ((0, 3), (1, 5), (2, 2)))
        for _ in range(count):
            damage = choose(self.rng, DAMAGE)
            damage(self)


def split_of(path):
    return os.path.basename(path).split("-", 1)[0]


def truncate_file(d):
    path = d.pick()
    raw = read_bytes(path) if path else b""
    if raw:
        write_bytes(path, raw[:d.rng.randrange(len(raw))])


def flip_raw_bytes(d):
    """Random bytes anywhere: a gzip stream's header, body or trailer."""
    path = d.pick()
    raw = bytearray(read_bytes(path) if path else b"")
    if raw:
        for _ in range(d.rng.randint(1, 4)):
            raw[d.rng.randrange(len(raw))] ^= d.rng.randrange(1, 256)
        write_bytes(path, raw)


def edit_payload(d, kind, edit):
    """Applies `edit(payload)` to a decompressed IDX file and recompresses
    it, so that the gzip layer stays valid and the IDX checks are hit."""
    path = d.pick(kind)
    payload = read_payload(path) if path else None
    if payload is not None and len(payload) >= 16:
        edit(payload)
        write_payload(path, payload)


def flip_header_byte(d):
    def edit(p):
        p[d.rng.randrange(16)] ^= d.rng.randrange(1, 256)
    edit_payload(d, "", edit)


def wrong_magic(d):
    magic = d.rng.choice((0, 0x801, 0x803, 0x804, 0x08030000, 0xFFFFFFFF))
    edit_payload(d, "", lambda p: p.__setitem__(slice(0, 4),
                                                struct.pack(">I", magic)))


def odd_count(d):
    count = d.rng.choice((0, 1, 15, 17, 63, 65, 0x7FFFFFFF, 0x80000000,
                          0xFFFFFFFF))
    edit_payload(d, "", lambda p: p.__setitem__(slice(4, 8),
                                                struct.pack(">I", count)))


def odd_dimensions(d):
    dims = d.rng.choice(((0, 0), (28, 27), (1, 784), (784, 1), (65536, 65536),
                         (0xFFFFFFFF, 0xFFFFFFFF), (0x10000, 0x10000 - 1)))
    edit_payload(d, "images", lambda p: p.__setitem__(
        slice(8, 16), struct.pack(">II", *dims)))


def labels_out_of_range(d):
    def edit(p):
        for _ in range(d.rng.randint(1, 3)):
            at = 8 + d.rng.randrange(len(p) - 8)  # (the header is 8 bytes)
            p[at] = d.rng.choice((10, 11, 128, 255))
    edit_payload(d, "labels", edit)


def remake_split(d, count=None, rows=28, cols=28):
    split = d.rng.choice(("train", "t10k"))
    if count is None:
        count = TRAIN_COUNT if split == "train" else TEST_COUNT
    make_split(d.make_idx, d.folder, split, count, rows, cols, gz=d.gz)


def zero_examples(d):
    remake_split(d, count=0)


def few_examples(d):
    """Fewer examples than a batch (32), or one."""
    remake_split(d, count=d.rng.choice((1, 31, 33)))


def other_image_size(d):
    rows, cols = d.rng.choice(((28, 27), (27, 28), (1, 784), (14, 56),
                               (56, 56), (1, 1), (0, 0), (784, 0)))
    remake_split(d, rows=rows, cols=cols)


def label_count_mismatch(d):
    def edit(p):
        count = struct.unpack(">I", p[4:8])[0] + d.rng.choice((-1, 1))
        p[:] = struct.pack(">II", 0x801, max(count, 0)) + bytes(
            i % 10 for i in range(max(count, 0)))
    edit_payload(d, "labels", edit)


def trailing_bytes(d):
    """Bytes after the IDX data (inside the gzip stream) or after the gzip
    stream itself."""
    extra = bytes(d.rng.randrange(256) for _ in range(d.rng.randint(1, 64)))
    if d.rng.random() < 0.5:
        edit_payload(d, "", lambda p: p.extend(extra))
    else:
        path = d.pick(gz_only=True)
        if path:
            write_bytes(path, read_bytes(path) + extra)


def replace_file(d, make):
    """Removes a file and puts what `make(path)` makes in its place."""
    path = d.pick()
    if path:
        os.remove(path)
        make(path)


def missing_file(d):
    replace_file(d, lambda path: None)


def directory_instead(d):
    replace_file(d, os.mkdir)


def fifo_instead(d):
    replace_file(d, os.mkfifo)


def device_link_instead(d):
    device = d.rng.choice(("/dev/zero", "/dev/urandom", "/dev/null"))
    replace_file(d, lambda path: os.symlink(device, path))


def symlink_loop_instead(d):
    replace_file(d, lambda path: os.symlink(os.path.basename(path), path))


def bad_gzip_trailer(d):
    """A wrong CRC (byte -6) or length (byte -2) in the gzip trailer."""
    path = d.pick(gz_only=True)
    raw = bytearray(read_bytes(path) if path else b"")
    if len(raw) >= 18:
        raw[d.rng.choice((-6, -2))] ^= 0xFF
        write_bytes(path, raw)


def swap_compression(d):
    """A .gz name holding plain IDX bytes, or a plain name holding gzip."""
    path = d.pick()
    if path:
        payload = read_payload(path)
        raw = read_bytes(path)
        if path.endswith(".gz") and payload is not None:
            write_bytes(path, payload)
        elif not path.endswith(".gz"):
            write_bytes(path, gzip.compress(raw, mtime=0))


def gzip_members(d):
    """The same IDX bytes as two gzip members (a valid gzip file)."""
    path = d.pick(gz_only=True)
    payload = read_payload(path) if path else None
    if payload is not None:
        cut = d.rng.randrange(len(payload) + 1)
        write_bytes(path, gzip.compress(bytes(payload[:cut]), mtime=0) +
                    gzip.compress(bytes(payload[cut:]), mtime=0))


def twin_file(d):
    """Both FILE and FILE.gz, with different bytes."""
    path = d.pick()
    if path:
        twin = path[:-3] if path.endswith(".gz") else path + ".gz"
        if not os.path.lexists(twin):
            write_bytes(twin, read_bytes(path)[:d.rng.randrange(1, 40)])


def sparse_giant(d):
    """A plain file that goes on for gigabytes past its IDX data (a sparse
    file: no disk, and no time to make)."""
    path = d.pick()
    if path and not path.endswith(".gz"):
        os.truncate(path, GIANT_PAYLOAD)


def gzip_bomb(d):
    """A gzip file of a few megabytes that inflates to gigabytes: its IDX
    data, then members of zeros (the same member repeated: quick to make)."""
    path = d.pick(gz_only=True)
    payload = read_payload(path) if path else None
    if payload is not None:
        write_bytes(path, gzip.compress(bytes(payload), mtime=0) +
                    zeros_member() * (GIANT_PAYLOAD // (64 << 20)))


@functools.lru_cache(maxsize=1)
def zeros_member():
    return gzip.compress(bytes(64 << 20), mtime=0)


DAMAGE = ((truncate_file, 4), (flip_raw_bytes, 4), (flip_header_byte, 3),
          (wrong_magic, 2), (odd_count, 3), (odd_dimensions, 2),
          (labels_out_of_range, 2), (zero_examples, 2), (few_examples, 2),
          (other_image_size, 2), (label_count_mismatch, 2),
          (trailing_bytes, 2), (missing_file, 2), (directory_instead, 1),
          (fifo_instead, 1), (device_link_instead, 1),
          (symlink_loop_instead, 1), (bad_gzip_trailer, 2),
          (swap_compression, 1), (gzip_members, 1), (twin_file, 1),
          (sparse_giant, 0.5), (gzip_bomb, 0.5))


# ---------------------------------------------------------------------------
# A case: the command line and the files it names.

class Case:
    """One amp-run command line and the files it names, in a scratch folder
    (`root`, amp-run's working directory, where relative names start)."""

    def __init__(self, number, seed, root, assets):
        self.number = number
        self.rng = random.Random(seed * 100003 + number)
        self.root = root
        self.real_root = os.path.realpath(root)
        self.assets = assets
        self.groups = []         # argument groups: ["--f=v"] or ["--f", "v"]
        self.values = {}         # flag -> the value amp-run keeps (the last)
        self.program = None      # the program as the command line names it
        self.program_file = None  # its key, when it is a regular file
        self.lists_file = None   # the key of a regular --lists-file
        self.data = None         # the DataFolder, once a flag names it
        self.output_names = []   # every output name drawn, for reuse
        self.open_ended = False  # a count may make it train past the deadline
        self.reads_fifo = False  # a FIFO with no writer as an input
        self.serial = 0
        self.argv = []
        for sub in ("in", "out"):
            os.makedirs(os.path.join(root, sub))

    def add(self, flag, value=None, separable=True):
        """Appends --flag[=value] in one of the spellings LLVM takes."""
        self.values[flag] = value
        if value is None:
            self.groups.append(["--" + flag])
            return
        style = choose(self.rng, (("=", 17), ("-", 1), (" ", 2)))
        if style == " " and separable and value and value[0] != "-":
            self.groups.append(["--" + flag, value])
        elif style == "-":
            self.groups.append([f"-{flag}={value}"])
        else:
            self.groups.append([f"--{flag}={value}"])

    def draw(self, valid, odd, huge=(), p_valid=0.8):
        """A valid value mostly, else a boundary or garbage one; rarely one
        of `huge` (valid counts that may train for hours)."""
        roll = self.rng.random()
        if huge and roll < 0.03:
            return self.rng.choice(huge)
        return self.rng.choice(valid if roll < p_valid else odd)

    def fresh(self, stem, ext=""):
        """A new name under out/."""
        self.serial += 1
        return f"out/{stem}-{self.serial}{ext}"

    def spell(self, rel):
        """`rel` (relative to root) as the command line may name it."""
        return choose(self.rng, ((rel, 6), ("./" + rel, 1),
                                 (os.path.join(self.root, rel), 2),
                                 (rel.replace("/", "//", 1), 1)))

    def absolute(self, name):
        return os.path.normpath(os.path.join(self.root, name))

    def write(self, rel, data):
        write_bytes(os.path.join(self.root, rel), data)
        return rel

    def keys_of(self, name):
        """The snapshot keys a write to `name` may change: the name with its
        folders resolved, and what it points to when it is a symlink."""
        absolute = self.absolute(name)
        literal = os.path.join(os.path.realpath(os.path.dirname(absolute)),
                               os.path.basename(absolute))
        keys = set()
        for path in (literal, os.path.realpath(absolute)):
            rel = os.path.relpath(path, self.real_root)
            if rel != "." and not rel.startswith(".."):
                keys.add(rel)
        return keys

    def is_device(self, name):
        return os.path.realpath(self.absolute(name)).startswith("/dev/")

    def outputs(self):
        """(flag, name) of each output amp-run is asked to write: the last
        value of each output flag, and the object's manifest."""
        found = []
        for flag in EXTENSIONS:  # the output flags
            name = self.values.get(flag)
            if name:
                found.append((flag, name))
                if flag == "emit-obj":
                    found.append(("manifest", name + ".json"))
        return found

    def reads_data_folder(self):
        """Whether the last --data names the case's data/ folder."""
        value = self.values.get("data") or ""
        if not self.data or not value.startswith("fashion-mnist:"):
            return False
        folder = self.absolute(value[len("fashion-mnist:"):] or ".")
        return os.path.realpath(folder) == os.path.realpath(self.data.folder)

    def read_keys(self, before):
        """The keys of everything amp-run reads: the program, the last
        --lists-file, and the data folder when the last --data names it."""
        keys = self.keys_of(self.program)
        if self.values.get("lists-file"):
            keys |= self.keys_of(self.values["lists-file"])
        if self.reads_data_folder():
            keys |= {k for k in before if k == "data" or k.startswith("data/")}
        return keys

    def injects_exit(self):
        return (self.values.get("inject-fault") or "").startswith("exit@")

    def finish(self, amp_run):
        """Places the program among the flags and fixes the command line."""
        groups = list(self.groups)
        at = self.rng.randint(0, len(groups))
        last = at == len(groups)
        groups.insert(at, ["--", self.program] if last and
                      self.rng.random() < 0.1 else [self.program])
        self.argv = [amp_run] + [arg for group in groups for arg in group]

    def command(self):
        return f"cd {shlex.quote(self.root)} && {shlex.join(self.argv)}"


# ---------------------------------------------------------------------------
# The program: a copy of an example, sometimes broken.

def mutate_numbers(rng, text):
    """One number outside comments (a dimension, mostly) made 0, 1, -1 or
    huge: shapes amp-run must refuse or size without overflow."""
    spans = [m.span() for m in re.finditer(rb"\d+", text)
             if not text[text.rfind(b"\n", 0, m.start()) + 1:m.start()]
             .lstrip().startswith(b"//")]
    if not spans:
        return text
    start, end = rng.choice(spans)
    # (No size a machine could hold but --memory-mb not: that would be a
    # false crash.)
    number = rng.choice((b"0", b"1", b"-1", b"99999999999",
                         b"18446744073709551616", b"2305843009213693952"))
    return text[:start] + number + text[end:]


def flip_bytes(rng, text):
    data = bytearray(text)
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


PROGRAM_KINDS = (("intact", 120), ("truncated", 2), ("flipped", 2),
                 ("numbers", 3), ("doubled", 1), ("empty", 1),
                 ("garbage", 1), ("directory", 1), ("missing", 1),
                 ("symlink", 2), ("dev-null", 1), ("fifo", 0.3))


def make_program(case):
    """Copies an example into in/ (or breaks it) and names it."""
    rng = case.rng
    name = choose(rng, EXAMPLES)
    text = read_bytes(os.path.join(case.assets["examples"], name))
    kind = choose(rng, PROGRAM_KINDS)
    rel = "in/" + name
    changed = {"truncated": lambda: text[:rng.randrange(len(text))],
               "flipped": lambda: flip_bytes(rng, text),
               "numbers": lambda: mutate_numbers(rng, text),
               "doubled": lambda: text + text,
               "empty": lambda: b"",
               "garbage": lambda: rng.randbytes(300)}
    case.program = case.spell(rel)
    if kind == "directory":
        os.mkdir(os.path.join(case.root, rel))
    elif kind == "fifo":
        os.mkfifo(os.path.join(case.root, rel))
        case.reads_fifo = True
    elif kind == "dev-null":
        case.program = "/dev/null"
    elif kind != "missing":
        case.write(rel, changed.get(kind, lambda: text)())
        case.program_file = rel
    if kind == "symlink":
        os.symlink(name, os.path.join(case.root, "in/link.mlir"))
        case.program = case.spell("in/link.mlir")


# ---------------------------------------------------------------------------
# The lists-file: SPEC's JSON, sometimes broken, sometimes not a file.

LISTS_TEXTS = ((b'{"deny": ["tg.matmul"]}\n', 4),
               (b'{"allow": ["tg.relu"], "deny": []}\n', 2), (b"{}", 1),
               (b'{"allow": ["tg.exp"], "deny": ["tg.exp"]}', 1),
               (b'{"alow": []}', 1), (b'{"allow": [', 1), (b"", 1),
               (b"[" * 100000, 1), (b'{"deny": ' * 20000, 1),
               (b'{"deny": [1, 2]}', 1), (b'{"deny": "tg.matmul"}', 1),
               (b'\xef\xbb\xbf{"deny": []}', 1), (b'{"deny": ["matmul"]}', 1),
               (b'{"deny": ["' + b"x" * 100000 + b'"]}', 1),
               (b'{"deny": ["tg.matmul"]}\x00garbage', 1),
               (b"[" * 10_000_000, 0.5), (b'{"a":' * 2_000_000, 0.5),
               (b'{"deny": ["tg.\xff\xfe"]}', 1))


def lists_file_name(case):
    """A --lists-file: in/lists.json mostly, else a name that is no lists
    file at all."""
    rng = case.rng
    kind = choose(rng, (("file", 10), ("missing", 1), ("directory", 1),
                        ("program", 1), ("dev-null", 1), ("data", 1),
                        ("fifo", 0.2)))
    if kind == "file" or case.lists_file:
        if not case.lists_file:
            case.lists_file = case.write("in/lists.json",
                                         choose(rng, LISTS_TEXTS))
        return case.spell(case.lists_file)
    if kind == "directory":
        os.mkdir(os.path.join(case.root, "in/lists.d"))
        return case.spell("in/lists.d")
    if kind == "fifo":
        os.mkfifo(os.path.join(case.root, "in/lists.fifo"))
        case.reads_fifo = True
        return case.spell("in/lists.fifo")
    if kind == "program" and case.program_file:
        return case.spell(case.program_file)
    if kind == "data" and case.data and case.data.regular_files():
        return rng.choice(case.data.regular_files())
    return "/dev/null" if kind == "dev-null" else case.spell("in/nowhere.json")


# ---------------------------------------------------------------------------
# Output names: each kind returns a name for `flag`, or None when the case
# has nothing of that kind (then the name is a fresh one).

# The output flags, and the extension a fresh name for each gets.
EXTENSIONS = {"report": ".json", "emit-obj": ".o", "validate-fix": ".json",
              "validate-annotate": ".mlir"}


def out_fresh(case, flag):
    return case.spell(case.fresh(flag, EXTENSIONS[flag]))


def out_existing(case, flag):
    """An existing file: kept as it was unless the run writes it whole."""
    rel = case.fresh("existing", EXTENSIONS[flag])
    case.write(rel, KNOWN_CONTENT)
    if flag == "emit-obj" and case.rng.random() < 0.5:
        case.write(rel + ".json", KNOWN_CONTENT)  # and its manifest
    return case.spell(rel)


def out_existing_manifest(case, flag):
    """An object whose manifest name (PATH.json) is an existing file, or a
    folder (which the object must not be written without)."""
    rel = case.fresh("manifest")
    if flag == "emit-obj" and case.rng.random() < 0.3:
        os.mkdir(os.path.join(case.root, rel + ".json"))
    else:
        case.write(rel + ".json", KNOWN_CONTENT)
    return case.spell(rel if flag == "emit-obj" else rel + ".json")


def out_input(case, flag):
    """The program under another spelling: itself, ./x, a symlink, a hard
    link, a path through in/.., an absolute path."""
    rel = case.program_file
    if not rel:
        return None
    kind = case.rng.choice(("same", "symlink", "hardlink", "dotdot"))
    if kind == "symlink":
        link = case.fresh("link-to-input", ".mlir")
        os.symlink(os.path.join("..", rel), os.path.join(case.root, link))
        return case.spell(link)
    if kind == "hardlink":
        link = case.fresh("hard-link-to-input", ".mlir")
        os.link(os.path.join(case.root, rel), os.path.join(case.root, link))
        return case.spell(link)
    return case.spell("in/../" + rel if kind == "dotdot" else rel)


def out_other_input(case, flag):
    """The lists-file or a data file, or for --emit-obj a name whose
    manifest is the lists-file."""
    choices = [f for f in [case.lists_file] if f]
    if case.data:
        choices += [os.path.relpath(p, case.root)
                    for p in case.data.regular_files()]
    if not choices:
        return None
    rel = case.rng.choice(choices)
    if flag == "emit-obj" and rel.endswith(".json") and \
            case.rng.random() < 0.5:
        rel = rel[:-len(".json")]
    return case.spell(rel)


def out_other_output(case, flag):
    return case.rng.choice(case.output_names) if case.output_names else None


def out_directory(case, flag):
    rel = case.fresh("directory")
    os.mkdir(os.path.join(case.root, rel))
    return case.rng.choice((rel, rel + "/", "out", ".", "data"))


def out_under_file(case, flag):
    rel = case.write(case.fresh("file"), KNOWN_CONTENT)
    return case.spell(rel + "/x" + EXTENSIONS[flag])


def out_missing_folder(case, flag):
    return case.spell(case.fresh("missing") + "/x" + EXTENSIONS[flag])


def out_device(case, flag):
    return case.rng.choice(("/dev/full", "/dev/null"))


def out_read_only(case, flag):
    """A folder amp-run may not write to; root may, so not as root."""
    if AS_ROOT:
        return None
    rel = case.fresh("read-only")
    os.mkdir(os.path.join(case.root, rel), 0o555)
    return case.spell(rel + "/x" + EXTENSIONS[flag])


def out_symlink(case, flag):
    """A symlink to an existing file, to nowhere, to /dev/null, or to a
    folder."""
    target = case.rng.choice(("existing", "dangling", "/dev/null", "folder"))
    if target == "existing":
        target = os.path.basename(case.write(case.fresh("target"),
                                             KNOWN_CONTENT))
    elif target == "dangling":
        target = "nowhere/x.json"
    elif target == "folder":
        target = os.path.basename(case.fresh("folder"))
        os.mkdir(os.path.join(case.root, "out", target))
    link = case.fresh("symlink", EXTENSIONS[flag])
    os.symlink(target, os.path.join(case.root, link))
    return case.spell(link)


def out_odd_name(case, flag):
    """An empty name, names around NAME_MAX (255; writing through PATH.tmp.PID
    pushes a 250-byte name past it), a trailing slash."""
    kind = case.rng.choice(("empty", "long", "slash"))
    if kind == "empty":
        return ""
    if kind == "long":
        return "out/" + "n" * case.rng.choice((240, 246, 250, 255, 256, 300))
    return case.fresh(flag, EXTENSIONS[flag]) + "/"


OUTPUT_KINDS = ((out_fresh, 20), (out_existing, 12),
                (out_existing_manifest, 3),
                (out_input, 8), (out_other_input, 6), (out_other_output, 8),
                (out_directory, 3), (out_under_file, 3),
                (out_missing_folder, 3), (out_device, 5), (out_read_only, 2),
                (out_symlink, 5), (out_odd_name, 4))


def output_name(case, flag):
    name = choose(case.rng, OUTPUT_KINDS)(case, flag)
    if name is None:
        name = out_fresh(case, flag)
    case.output_names.append(name)
    if flag == "emit-obj":
        case.output_names.append(name + ".json")
    return name


# ---------------------------------------------------------------------------
# Flags. Each generator appends one flag (or an odd argument) to the case.

def pooled(flag, valid, odd, huge=(), separable=True):
    """A generator of --flag with a value from `valid`, `odd` or `huge`."""
    def generate(case):
        case.add(flag, case.draw(valid, odd, huge), separable)
    return generate


def boolean(flag):
    """A generator of a boolean --flag: bare, or =true, =0, =maybe, ..."""
    def generate(case):
        value = case.rng.choice((None, None, "true", "false", "1", "0",
                                 "maybe", ""))
        case.add(flag, value, separable=False)
    return generate


def gen_validate(case):
    value = case.draw((None, "1", "2", "3"), ("0", "-1", "", "abc", "1.5",
                                              "0x2", "99999999999999999999"),
                      huge=HUGE_COUNTS)
    case.add("validate", value, separable=False)


def gen_tolerance(case):
    flag = case.rng.choice(("validate-tol-f16", "validate-tol-bf16",
                            "validate-max-flushed"))
    case.add(flag, case.draw(("0.01", "0.08", "0.5", "1"), FLOAT_ODD))


def gen_data(case):
    """The case's folder mostly; else synthetic data, the system's
    Fashion-MNIST (/usr/share/datasets, never written to), or a bad name."""
    kind = choose(case.rng, (("folder", 12), ("synthetic", 2), ("system", 1),
                             ("odd", 3)))
    if kind == "folder" and case.data:
        folder = case.spell("data")
        value = "fashion-mnist:" + folder + ("/" if case.rng.random() < 0.2
                                             else "")
    elif kind == "system":
        value = "fashion-mnist"
    elif kind == "odd":
        value = case.rng.choice((
            "fashion-mnist:", "fashion-mnist:/nonexistent", "mnist", "",
            "synthetic:data", "FASHION-MNIST:data", "fashion-mnist:data:data",
            "fashion-mnist:data/train-labels-idx1-ubyte.gz",
            "fashion-mnist:" + "x" * 5000, "fashion-mnist:in"))
    else:
        value = "synthetic"
    case.add("data", value)


def gen_lower_options(case):
    """amp-lower-to-runtime's options: 1-4 of them set to 0 or 1, or junk."""
    rng = case.rng
    valid = " ".join(f"{rng.choice(LOWER_OPTIONS)}={rng.choice('01')}"
                     for _ in range(rng.randint(1, 4)))
    odd = ("", "fuse-everything=1", "reshape-views=maybe", "{",
           "reshape-views=0}", "fuse-bias-epilogues", "a b c", '"',
           "reshape-views=0,in-place-elementwise=0", "fuse-bias-epilogues=",
           "fuse-bias-epilogues=0 fuse-bias-epilogues=1", "=0", " " * 3,
           "reshape-views=99999999999999999999", "{reshape-views=0}")
    case.add("lower-options", case.draw((valid,), odd))


def gen_output(flag):
    def generate(case):
        case.add(flag, output_name(case, flag))
    return generate


def gen_lists_file(case):
    case.add("lists-file", lists_file_name(case))


def gen_unknown(case):
    """A flag amp-run does not have, or a misspelling of one it has."""
    case.groups.append([case.rng.choice((
        "--reprot=out/x.json", "--steps2=1", "-x", "--no-such-flag",
        "--report-file=out/r.json", "--validate-fixx=out/v.json",
        "--Steps=1", "---steps=1", "--=1", "-", "--precision"))])


def gen_llvm_flag(case):
    """One of LLVM's or MLIR's own flags, which amp-run still takes."""
    case.groups.append([case.rng.choice((
        "--mlir-disable-threading", "--mlir-timing", "--color",
        "--mlir-print-ir-after-failure", "--x86-asm-syntax=intel",
        "--mlir-print-op-generic", "--mlir-print-debuginfo"))])


def gen_positional(case):
    case.groups.append([case.rng.choice((case.program, "extra.mlir", ""))])


INT_COUNT = ("1", "2", "3")
FLAGS = (
    ("steps", 5, pooled("steps", INT_COUNT, INT_ODD, HUGE_COUNTS)),
    ("epochs", 2, pooled("epochs", ("1", "2"), INT_ODD + (
        "36028797018963968", "9223372036854775807"))),
    ("batch", 2, pooled("batch", ("32",), INT_ODD + ("16", "64", "33"))),
    ("lr", 3, pooled("lr", ("0.01", "0.001", "0.1"), FLOAT_ODD)),
    ("seed", 2, pooled("seed", ("0", "1", "42", "4294967295"), INT_ODD)),
    ("precision", 5, pooled("precision", ("f32", "f16", "bf16", "fp8"),
                            STRING_ODD + ("F16", "fp16", "f64", "int8"))),
    ("loss-scaling", 2, pooled("loss-scaling", ("dynamic", "static", "none"),
                               STRING_ODD + ("Dynamic", "auto"))),
    ("init-scale", 2, pooled("init-scale", ("1", "1024", "65536"), FLOAT_ODD)),
    ("data", 6, gen_data),
    ("device", 1, pooled("device", ("cpu",),
                         ("", "CPU", "cpu ", "tpu", "cpu,cpu", "host", "0"))),
    ("data-parallel", 2, boolean("data-parallel")),
    ("grad-comm", 2, pooled("grad-comm", ("f32", "f16", "bf16"),
                            STRING_ODD + ("fp8", "F16"))),
    ("bucket-bytes", 2, pooled("bucket-bytes", ("1", "1024", "26214400"),
                               INT_ODD + ("4611686018427387904",))),
    ("entry", 1, pooled("entry", ("train_step",),
                        STRING_ODD + ("predict", "nosuch", "amprt_matmul"))),
    ("eval-entry", 1, pooled("eval-entry", ("predict",),
                             STRING_ODD + ("train_step", "nosuch"))),
    ("log-every", 1, pooled("log-every", ("1", "100"), INT_ODD)),
    ("lower-options", 3, gen_lower_options),
    ("emit-obj-cpu", 1, pooled("emit-obj-cpu", (
        "x86-64", "x86-64-v3", "host", "generic", "znver4"),
        STRING_ODD + ("nosuchcpu", "cortex-a53", "x86-64-v9"))),
    ("validate", 4, gen_validate),
    ("validate-tol", 1, gen_tolerance),
    ("comm", 1, pooled("comm", ("self", "auto"),
                       ("", "tcp", "gloo", "self,self", "x" * 300))),
    ("comm-timeout", 1, pooled("comm-timeout", ("300", "1"), FLOAT_ODD)),
    ("reduce-amax", 1, boolean("reduce-amax")),
    ("inject-fault", 1, pooled("inject-fault", (
        "inf@0:1", "inf@0:2", "exit@0:1", "exit@0:9", "inf@1:1", "exit@1:1"),
        ("", "inf", "inf@", "inf@0:", "inf@-1:1", "inf@0:-1", "exit@0:0",
         "inf@99999999999999999999:1", "inf@0:99999999999999999999",
         "oops@0:1", "inf@0:1:2", "inf@a:b"))),
    ("report", 7, gen_output("report")),
    ("emit-obj", 5, gen_output("emit-obj")),
    ("validate-fix", 3, gen_output("validate-fix")),
    ("validate-annotate", 3, gen_output("validate-annotate")),
    ("lists-file", 3, gen_lists_file),
    ("unknown", 1, gen_unknown),
    ("llvm", 1, gen_llvm_flag),
    ("positional", 0.5, gen_positional),
)


def build_case(case, amp_run):
    """Draws the case's flags and makes the files they name."""
    rng = case.rng
    weighted = [(name, weight) for name, weight, _ in FLAGS]
    names = [choose(rng, weighted) for _ in range(rng.randint(1, 6))]
    if "emit-obj-cpu" in names and rng.random() < 0.6:
        names.append("emit-obj")
    make_program(case)
    if "data" in names:
        gz = rng.random() < 0.6
        case.data = DataFolder(case, case.assets["make_idx"],
                               case.assets["bases"][gz], gz)
        case.data.corrupt()
    # A short run unless a flag says otherwise: no GPU, 1-3 steps, and
    # --validate where its outputs are asked for.
    if "device" not in names and rng.random() < 0.75:
        case.add("device", "cpu")
    if "steps" not in names:
        case.add("steps", str(rng.randint(1, 3)))
    if ({"validate-fix", "validate-annotate"} & set(names)
            and "validate" not in names and rng.random() < 0.7):
        case.add("validate", rng.choice((None, "1", "2")), separable=False)
    generators = {name: generate for name, _, generate in FLAGS}
    for name in names:
        generators[name](case)
    bound_run_length(case)
    case.finish(amp_run)


def llvm_integer(text):
    """The integer LLVM's cl::opt<int64_t> reads from `text`
    (StringRef::getAsInteger, radix from a 0x, 0b, 0o or 0 prefix), or
    None where it refuses it."""
    sign, digits = (-1, text[1:]) if text.startswith("-") else (1, text)
    radix = 10
    prefixed = re.match(r"0([xXbBoO]?)(?=.)", digits)
    if prefixed:
        radix = {"": 8, "x": 16, "b": 2, "o": 8}[prefixed.group(1).lower()]
        digits = digits[prefixed.end():]
    if not re.fullmatch(r"[0-9a-fA-F]+", digits):
        return None
    try:
        value = sign * int(digits, radix)
    except ValueError:
        return None
    return value if -2**63 <= value < 2**63 else None


def bound_run_length(case):
    """Marks a case that may still be training at the deadline: more than
    50 steps (or --validate steps), or --steps=0 with --epochs over anything
    but the tiny folder (2 steps an epoch; synthetic data has 128, the
    system's Fashion-MNIST 1875)."""
    validate = case.values.get("validate")
    if validate and (llvm_integer(validate) or 0) > 50:
        case.open_ended = True
    steps = llvm_integer(case.values.get("steps") or "0")
    if steps is None:
        return  # refused
    if steps > 50:
        case.open_ended = True
    elif steps <= 0:
        epochs = llvm_integer(case.values.get("epochs") or "1")
        if not case.reads_data_folder() or (epochs or 0) > 2:
            case.open_ended = True


# ---------------------------------------------------------------------------
# Running amp-run and looking at what it left.

class CannotRun(Exception):
    """amp-run itself cannot be started: no case can say anything."""


def child_environment():
    """The environment without a launcher's variables (so --comm=auto is a
    process group of one) and with one OpenMP thread."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMI_", "PMIX_", "SLURM_", "MPI_"))}
    env["OMP_NUM_THREADS"] = "1"
    return env


def run_amp_run(case, timeout, memory_mb):
    """(exit status or None on a timeout, stderr). The address space is
    capped, so a run that would take the machine's memory fails at once
    (as `LLVM ERROR: out of memory` or a refusal) instead of swapping or
    meeting the OOM killer."""
    def limit_memory():
        if not memory_mb:  # 0: no cap
            return
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = memory_mb << 20
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        proc = subprocess.Popen(
            case.argv, cwd=case.root, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=child_environment(), start_new_session=True,
            preexec_fn=limit_memory)
    except OSError as error:
        raise CannotRun(f"cannot run {case.argv[0]}: {error}") from error
    try:
        _, err = proc.communicate(timeout=timeout)
        return proc.returncode, err.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        return None, err.decode(errors="replace")


def digest(path, info):
    """A digest of the file's bytes; for a giant (sparse) data file, its
    size, inode and mtime instead of reading gigabytes."""
    if info.st_size > GIANT_BYTES:
        return ("giant", info.st_size, info.st_ino, info.st_mtime_ns)
    sha = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                sha.update(chunk)
    except OSError as error:
        return f"unreadable: {error.strerror}"
    return sha.hexdigest()


def snapshot(root):
    """Every path under `root` (relative to it): its type, and a digest of
    a regular file's bytes. FIFOs and devices are never opened."""
    entries = {}

    def visit(folder, prefix):
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            key = prefix + entry.name
            info = entry.stat(follow_symlinks=False)
            mode = info.st_mode
            if stat.S_ISLNK(mode):
                entries[key] = ("symlink", os.readlink(entry.path))
            elif stat.S_ISDIR(mode):
                entries[key] = ("folder",)
                visit(entry.path, key + "/")
            elif stat.S_ISREG(mode):
                entries[key] = ("file", digest(entry.path, info))
            else:
                entries[key] = ("special", stat.S_IFMT(mode))
    visit(root, "")
    return entries


def remove_tree(root):
    """Removes a case folder, read-only folders in it too."""
    if not os.path.lexists(root):
        return
    for folder, subfolders, _ in os.walk(root):
        for name in subfolders:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755)
    shutil.rmtree(root)


# ---------------------------------------------------------------------------
# The properties.

def check_exit(case, status, timeout):
    if status is None:
        if case.open_ended:
            return []
        fifo = " (a FIFO it was given has no writer)" if case.reads_fifo \
            else ""
        return [f"no exit after {timeout:g} s{fifo}"]
    if status < 0:
        return [f"killed by {signal.Signals(-status).name}"]
    if status in (0, 1) or (status == 3 and case.injects_exit()):
        return []
    return [f"exit status {status}"]


def first_line(text, having=""):
    """The first line of `text` that holds `having`, quoted and cut short."""
    lines = [line for line in text.splitlines()
             if line.strip() and having in line]
    return repr(lines[0][:160] if lines else "")


def check_stderr(case, status, stderr):
    """No crash banner and no empty `error:`; a failure (an injected exit
    among them) says `error: ...` or, for a bad flag value, LLVM's
    `amp-run: for the --X option: ...` (a crash, which check_exit reports,
    aside)."""
    problems = [f"stderr has {first_line(stderr, marker)}"
                for marker in CRASH_MARKERS if marker in stderr]
    if re.search(r"error:[ \t]*$", stderr, re.M):
        problems.append("stderr has an 'error:' line with nothing after it")
    crashed = status is None or status < 0  # (check_exit says so)
    # LLVM's option parser says a bad value itself, in its own form.
    said = re.search(r"error:[ \t]*\S", stderr) or re.search(
        r"^amp-run: for the -+\S+ option: .+", stderr, re.M)
    if status != 0 and not crashed and not said:
        problems.append(f"exit status {status} without an 'error: MESSAGE' "
                        f"line; stderr starts {first_line(stderr)}")
    return problems


# Flags whose empty value means something: no lowering options, the
# default number of validation steps, and a boolean's true (LLVM's and
# amp-train's `--flag=`, as the bare flag).
EMPTY_MEANS_DEFAULT = ("lower-options", "validate", "data-parallel",
                       "reduce-amax")


def check_refusals(case, status):
    """A flag given an empty value ("--report=", "--lr=") is refused, not
    taken as "not given" or as 0."""
    empty = [flag for flag, value in case.values.items()
             if value == "" and flag not in EMPTY_MEANS_DEFAULT]
    if empty and status == 0:
        return [f"--{empty[0]}= (an empty value) was accepted"]
    return []


def check_tree(case, before, after, cut_off):
    """Inputs unchanged; nothing changed but the outputs; no temporary
    files; no existing output removed."""
    reads = case.read_keys(before)
    allowed = set()
    for _, name in case.outputs():
        allowed |= case.keys_of(name)
    problems = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) == after.get(key):
            continue
        what = ("created" if key not in before else
                "removed" if key not in after else "changed")
        if key in reads:
            problems.append(f"{what} '{key}', which it reads")
        elif ".tmp" in os.path.basename(key):
            if not cut_off:
                problems.append(f"left a temporary file '{key}'")
        elif key not in allowed:
            problems.append(f"{what} '{key}', which is no output of the run")
        elif what == "removed":
            problems.append(f"removed the existing output '{key}'")
    return problems


def fnv1a64(data):
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def json_problem(path):
    try:
        with open(path, "rb") as f:
            value = json.loads(f.read())
    except (OSError, ValueError) as error:
        return f"is no JSON ({error})"
    return None if isinstance(value, dict) else "is JSON but no object"


def annotation_problem(path):
    try:
        text = read_bytes(path)
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    if b"func.func" not in text:
        return "holds no func.func"
    return None if text.endswith(b"\n") else "does not end with a newline"


def object_problem(path):
    """The object is ELF, and its manifest parses and describes it."""
    if not os.path.isfile(path + ".json"):
        return "has no manifest file beside it"
    try:
        data = read_bytes(path)
        with open(path + ".json", "rb") as f:
            manifest = json.loads(f.read())
        described = manifest["object"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"has no whole object and manifest ({error!r})"
    if not data.startswith(b"\x7fELF"):
        return "is no ELF object"
    if manifest.get("format") != "amp-step-manifest":
        return "has a manifest of another format"
    if described.get("bytes") != len(data):
        return (f"has {len(data)} bytes, its manifest says "
                f"{described.get('bytes')!r}")
    # The manifest names the hash: FNV-1a, 64 bits (offset basis
    # 0xcbf29ce484222325), which a reader outside amp computes so.
    if described.get("fnv1a64") != fnv1a64(data):
        return (f"hashes to FNV-1a {fnv1a64(data)}, its manifest says "
                f"fnv1a64 {described.get('fnv1a64')!r}")
    return None


def output_problem(case, flag, name):
    path = case.absolute(name)
    if not os.path.isfile(path):  # (never open a FIFO: it would wait)
        return "is missing" if not os.path.lexists(path) else "is no file"
    if flag in ("report", "validate-fix"):
        return json_problem(path)
    if flag == "validate-annotate":
        return annotation_problem(path)
    return object_problem(path[:-len(".json")] if flag == "manifest" else path)


def check_outputs(case, status, before, after):
    """After a success every output is whole; after a failure an output
    the run changed is whole too (written completely, or not at all). The
    object and its manifest are judged as a pair, once."""
    problems = []
    judged_object = False
    reads = case.read_keys(before)
    for flag, name in case.outputs():
        keys = case.keys_of(name)
        if case.is_device(name) or keys & reads:
            judged_object |= flag == "emit-obj"
            continue  # a device, or an input: check_tree covers those
        changed = any(before.get(k) != after.get(k) for k in keys)
        if (status == 0 or changed) and not (flag == "manifest" and
                                             judged_object):
            judged_object |= flag == "emit-obj"
            problem = output_problem(case, flag, name)
            if problem:
                when = ("success" if status == 0 else
                        "a failure that changed it")
                problems.append(
                    f"{label(flag)} '{name}' {problem} after {when}")
    if status == 0:
        problems += shared_outputs(case)
    return problems


def label(flag):
    return "--emit-obj's manifest" if flag == "manifest" else "--" + flag


def shared_outputs(case):
    """Two outputs that are one file (however named) cannot both be whole."""
    problems = []
    seen = {}
    for flag, name in case.outputs():
        path = case.absolute(name)
        if case.is_device(name) or not os.path.isfile(path):
            continue
        info = os.stat(path)
        identity = (info.st_dev, info.st_ino)
        if identity in seen:
            other_flag, other_name = seen[identity]
            problems.append(f"{label(flag)} '{name}' and {label(other_flag)} "
                            f"'{other_name}' are one file, yet it succeeded")
        seen[identity] = (flag, name)
    return problems


# ---------------------------------------------------------------------------
# The driver.

def run_case(args, assets, number):
    """Runs case `number`; returns (case, exit status, violations)."""
    root = os.path.join(args.work, f"case-{number}")
    remove_tree(root)
    case = Case(number, args.seed, root, assets)
    build_case(case, os.path.abspath(args.amp_run))
    short = case.open_ended or case.reads_fifo
    timeout = min(args.timeout, SHORT_TIMEOUT) if short else args.timeout
    before = snapshot(root)
    started = time.monotonic()
    status, stderr = run_amp_run(case, timeout, args.memory_mb)
    seconds = time.monotonic() - started
    after = snapshot(root)
    cut_off = status is None and case.open_ended
    problems = check_exit(case, status, timeout)
    problems += check_stderr(case, status, stderr)
    problems += check_refusals(case, status)
    problems += check_tree(case, before, after, cut_off)
    if not cut_off:
        problems += check_outputs(case, status, before, after)
    if args.verbose:
        print(f"case {number}: status {status} in {seconds:.1f} s: "
              f"{case.command()}", flush=True)
        if stderr.strip():
            print("  " + stderr.strip().splitlines()[-1][:200], flush=True)
    if not problems:
        remove_tree(root)
    return case, status, problems


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--amp-run", required=True)
    parser.add_argument("--examples", required=True,
                        help="python-bindings-free-examples")
    parser.add_argument("--work", required=True, help="a scratch folder")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--runs", type=int, help="cases 0..K-1")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds a case may run (default 60)")
    parser.add_argument("--memory-mb", type=int, default=6144,
                        help="address space amp-run may take (default 6144)")
    parser.add_argument("--case", type=int,
                        help="run only this case of the seed (a replay)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.runs is None and args.case is None:
        parser.error("give --runs K or --case C")
    return args


def sanitized(binary):
    """Whether `binary` is built with AddressSanitizer, which reserves
    terabytes of address space: a cap on it would stop it starting."""
    try:
        with open(binary, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


def main(argv):
    args = parse_args(argv)
    if sanitized(args.amp_run):
        args.memory_mb = 0
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    make_idx = load_make_idx()
    assets = {"examples": os.path.abspath(args.examples), "make_idx": make_idx,
              "bases": make_base_folders(make_idx, args.work)}
    numbers = [args.case] if args.case is not None else range(args.runs)
    accepted = refused = failed_cases = violations = 0
    for number in numbers:
        try:
            case, status, problems = run_case(args, assets, number)
        except CannotRun as error:
            print(f"error: case {number}: {error}")
            return 2
        if status in (0, None):
            accepted += 1
        else:
            refused += 1
        for problem in problems:  # (on stderr: lit shows it, FileCheck not)
            print(f"violation: seed {args.seed} case {number}: {problem}: "
                  f"{case.command()}", file=sys.stderr, flush=True)
        violations += len(problems)
        failed_cases += bool(problems)
    if violations:
        print(f"FAILED: {violations} violations in {failed_cases} of "
              f"{len(numbers)} cases (replay one: --seed {args.seed} "
              "--case N)", file=sys.stderr)
        return 1
    print(f"ok: {len(numbers)} cases, {accepted} accepted, {refused} refused")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
