#!/usr/bin/env python3
"""Plots per-step loss curves from amp-run reports into a PNG, with no
dependencies beyond the standard library (the machine has no matplotlib).

Usage: plot_curves.py OUT.png LABEL=REPORT.json [LABEL=REPORT.json ...]
Curves are smoothed with a moving average; each gets its own colour and a
legend swatch row at the top.
"""
import json
import struct
import sys
import zlib

W, H, MARGIN = 800, 480, 40
COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40)]


def png(path, pixels):
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def main():
    out = sys.argv[1]
    curves = []
    for arg in sys.argv[2:]:
        label, path = arg.split("=", 1)
        steps = json.load(open(path))["per_step"]
        losses = [s["loss"] for s in steps]
        k = max(1, len(losses) // 200)
        smooth = [sum(losses[i:i + k]) / len(losses[i:i + k])
                  for i in range(0, len(losses), k)]
        curves.append((label, smooth))
    pixels = [[255] * (3 * W) for _ in range(H)]

    def put(x, y, color):
        if 0 <= x < W and 0 <= y < H:
            pixels[y][3 * x:3 * x + 3] = color

    top = max(max(c) for _, c in curves)
    n = max(len(c) for _, c in curves)
    # Axes.
    for x in range(MARGIN, W - MARGIN):
        put(x, H - MARGIN, (0, 0, 0))
    for y in range(MARGIN, H - MARGIN):
        put(MARGIN, y, (0, 0, 0))
    for i, (label, c) in enumerate(curves):
        color = COLORS[i % len(COLORS)]
        prev = None
        for j, v in enumerate(c):
            x = MARGIN + int(j * (W - 2 * MARGIN) / max(1, n - 1))
            y = H - MARGIN - int(v / top * (H - 2 * MARGIN))
            if prev:
                steps = max(abs(x - prev[0]), abs(y - prev[1]), 1)
                for t in range(steps + 1):
                    put(prev[0] + (x - prev[0]) * t // steps,
                        prev[1] + (y - prev[1]) * t // steps, color)
            prev = (x, y)
        # Legend swatch.
        for dx in range(30):
            for dy in range(6):
                put(W - MARGIN - 40 + dx, MARGIN + 12 * i + dy, color)
    png(out, pixels)
    print("wrote", out, "curves:", ", ".join(l for l, _ in curves),
          "(legend top right, in order)")


if __name__ == "__main__":
    main()
