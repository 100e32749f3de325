"""Writes Fashion-MNIST-shaped IDX files for data-file tests.

usage: make_idx.py DIR SPLIT COUNT ROWS COLS [--gzip] [--header-count=N]
                   [--extra-bytes=N] [--pad-file=N]

SPLIT is train or t10k. Pixels and labels are a fixed pattern; COUNT
images of ROWS x COLS are written, and --header-count lets the header
promise another count (an overflowing one, say) than the file holds.
--extra-bytes adds N pixel bytes past the images; --pad-file appends N
zero bytes to the image file as stored (after a gzip stream, which gzip
readers skip), so it is larger than its content.
"""
import gzip
import os
import struct
import sys


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    flags = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "1")
                 for a in argv[1:] if a.startswith("--"))
    out, split = args[0], args[1]
    count, rows, cols = (int(a) for a in args[2:5])
    promised = int(flags.get("header-count", count))
    images = struct.pack(">IIII", 0x803, promised, rows, cols) + bytes(
        (i * 7) % 256
        for i in range(count * rows * cols + int(flags.get("extra-bytes", 0))))
    labels = struct.pack(">II", 0x801, count) + bytes(i % 10
                                                      for i in range(count))
    os.makedirs(out, exist_ok=True)
    for name, data in ((f"{split}-images-idx3-ubyte", images),
                       (f"{split}-labels-idx1-ubyte", labels)):
        path = os.path.join(out, name)
        if "gzip" in flags:
            path += ".gz"
            data = gzip.compress(data)
        if name.endswith("images-idx3-ubyte"):
            data += bytes(int(flags.get("pad-file", 0)))
        with open(path, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
