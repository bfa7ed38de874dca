#!/usr/bin/env python3
"""Bar chart of the Oxide / nvcc ratios in results.json, as a PNG written with zlib and struct
only (the GPU machine has no matplotlib and no network).

    python3 plot.py results.json ratios.png

One horizontal bar per kernel and size: blue for the safe API (launch contract), orange for
oxide::unsafe_launch, red for a failed check, lighter and starred for the diagnostic variants; a
dark line at 1.0 (parity with nvcc).
"""
import json
import struct
import sys
import zlib

# A 5 x 7 bitmap font: upper case, digits and the punctuation the labels use.
GLYPHS = {
    "A": ["01110", "10001", "10001", "11111", "10001", "10001", "10001"],
    "B": ["11110", "10001", "10001", "11110", "10001", "10001", "11110"],
    "C": ["01110", "10001", "10000", "10000", "10000", "10001", "01110"],
    "D": ["11110", "10001", "10001", "10001", "10001", "10001", "11110"],
    "E": ["11111", "10000", "10000", "11110", "10000", "10000", "11111"],
    "F": ["11111", "10000", "10000", "11110", "10000", "10000", "10000"],
    "G": ["01110", "10001", "10000", "10111", "10001", "10001", "01111"],
    "H": ["10001", "10001", "10001", "11111", "10001", "10001", "10001"],
    "I": ["01110", "00100", "00100", "00100", "00100", "00100", "01110"],
    "J": ["00111", "00010", "00010", "00010", "00010", "10010", "01100"],
    "K": ["10001", "10010", "10100", "11000", "10100", "10010", "10001"],
    "L": ["10000", "10000", "10000", "10000", "10000", "10000", "11111"],
    "M": ["10001", "11011", "10101", "10101", "10001", "10001", "10001"],
    "N": ["10001", "10001", "11001", "10101", "10011", "10001", "10001"],
    "O": ["01110", "10001", "10001", "10001", "10001", "10001", "01110"],
    "P": ["11110", "10001", "10001", "11110", "10000", "10000", "10000"],
    "Q": ["01110", "10001", "10001", "10001", "10101", "10010", "01101"],
    "R": ["11110", "10001", "10001", "11110", "10100", "10010", "10001"],
    "S": ["01111", "10000", "10000", "01110", "00001", "00001", "11110"],
    "T": ["11111", "00100", "00100", "00100", "00100", "00100", "00100"],
    "U": ["10001", "10001", "10001", "10001", "10001", "10001", "01110"],
    "V": ["10001", "10001", "10001", "10001", "10001", "01010", "00100"],
    "W": ["10001", "10001", "10001", "10101", "10101", "10101", "01010"],
    "X": ["10001", "10001", "01010", "00100", "01010", "10001", "10001"],
    "Y": ["10001", "10001", "01010", "00100", "00100", "00100", "00100"],
    "Z": ["11111", "00001", "00010", "00100", "01000", "10000", "11111"],
    "0": ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    "1": ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    "2": ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    "3": ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
    "4": ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    "5": ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    "6": ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    "7": ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    "8": ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    "9": ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
    " ": ["00000"] * 7,
    "_": ["00000", "00000", "00000", "00000", "00000", "00000", "11111"],
    "-": ["00000", "00000", "00000", "11111", "00000", "00000", "00000"],
    ".": ["00000", "00000", "00000", "00000", "00000", "01100", "01100"],
    ",": ["00000", "00000", "00000", "00000", "01100", "00100", "01000"],
    ":": ["00000", "01100", "01100", "00000", "01100", "01100", "00000"],
    "/": ["00001", "00001", "00010", "00100", "01000", "10000", "10000"],
    "(": ["00010", "00100", "01000", "01000", "01000", "00100", "00010"],
    ")": ["01000", "00100", "00010", "00010", "00010", "00100", "01000"],
    "%": ["11000", "11001", "00010", "00100", "01000", "10011", "00011"],
    "=": ["00000", "00000", "11111", "00000", "11111", "00000", "00000"],
    "*": ["00000", "00100", "10101", "01110", "10101", "00100", "00000"],
}
SCALE = 2  # each font pixel is SCALE x SCALE
CHAR_W = 6 * SCALE

WHITE, BLACK, GREY, LIGHT = (255, 255, 255), (20, 20, 20), (90, 90, 90), (225, 225, 225)
COLOURS = {"safe": (52, 101, 164), "unsafe": (230, 140, 30), "fail": (200, 30, 30)}


class Canvas:
    def __init__(self, width, height):
        self.w, self.h = width, height
        self.px = bytearray(WHITE * (width * height))

    def rect(self, x0, y0, x1, y1, colour):
        x0, x1 = max(0, int(x0)), min(self.w, int(x1))
        y0, y1 = max(0, int(y0)), min(self.h, int(y1))
        if x1 <= x0:
            return
        row = bytes(colour) * (x1 - x0)
        for y in range(y0, y1):
            start = (y * self.w + x0) * 3
            self.px[start:start + len(row)] = row

    def text(self, x, y, s, colour=BLACK):
        for ch in s.upper():
            glyph = GLYPHS.get(ch, GLYPHS["*"])
            for gy, bits in enumerate(glyph):
                for gx, bit in enumerate(bits):
                    if bit == "1":
                        self.rect(x + gx * SCALE, y + gy * SCALE, x + (gx + 1) * SCALE, y + (gy + 1) * SCALE,
                                  colour)
            x += CHAR_W

    def png(self):
        raw = b"".join(b"\0" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3]) for y in range(self.h))

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py results.json out.png")
    data = json.load(open(sys.argv[1]))
    rows = [r for r in data["rows"] if r.get("ratio")]
    labels = [("* " if r.get("diagnostic") else "") + f"{r['kernel']} {r['size']}" +
              (" unsafe" if r["api"] == "unsafe" else "") for r in rows]
    label_w = CHAR_W * max([len(s) for s in labels] + [10]) + 20
    bar_w, row_h, top, bottom = 560, 24, 56, 50
    width, height = label_w + bar_w + 90, top + row_h * len(rows) + bottom
    xmax = max([1.25] + [r["ratio"] * 1.08 for r in rows])
    c = Canvas(width, height)

    def xpos(v):
        return label_w + v / xmax * bar_w

    title = "OXIDE / NVCC (HIGHER IS BETTER FOR OXIDE)"
    if data.get("device"):
        title += " ON " + data["device"]
    c.text(10, 10, title)
    c.text(10, 30, f"geomean {data.get('geomean_ratio', 0):.3f}, {data.get('rounds', '?')} rounds, "
           f"d2d copy {data.get('d2d_gbps', 0):.0f} gb/s", GREY)
    for tick in [t / 4 for t in range(0, int(xmax * 4) + 1)]:
        x = xpos(tick)
        c.rect(x, top - 4, x + 1, height - bottom + 4, LIGHT)
        c.text(x - CHAR_W, height - bottom + 10, f"{tick:.2f}", GREY)
    for i, (r, label) in enumerate(zip(rows, labels)):
        y = top + i * row_h
        c.text(10, y + 5, label)
        kind = "fail" if not r.get("ok", True) else ("unsafe" if r["api"] == "unsafe" else "safe")
        colour = COLOURS[kind]
        if r.get("diagnostic"):  # lighter: a diagnostic variant, not in the geometric mean
            colour = tuple((v + 2 * 255) // 3 for v in colour)
        c.rect(label_w, y + 4, xpos(r["ratio"]), y + row_h - 4, colour)
        c.text(xpos(r["ratio"]) + 6, y + 5, f"{r['ratio']:.3f}")
    one = xpos(1.0)
    c.rect(one - 1, top - 6, one + 1, height - bottom + 6, BLACK)
    c.text(10, height - 18, "blue: safe api (contract)  orange: unsafe_launch  red: check failed  *: diagnostic",
           GREY)
    with open(sys.argv[2], "wb") as f:
        f.write(c.png())


if __name__ == "__main__":
    main()
