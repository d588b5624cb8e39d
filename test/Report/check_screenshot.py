#!/usr/bin/env python3
"""Checks that a screenshot of a TIRx report is not blank (stdlib only).

Reads an 8-bit, non-interlaced RGB or RGBA PNG, undoes the scanline filters,
then asks, for each named region (x0,y0,x1,y1 in pixels), for a share of
pixels that are not the page background, and for pixels near the colours
that only the drawing puts there (a node's fill, a roof's stroke).

usage: check_screenshot.py SHOT.png NAME=x0,y0,x1,y1:#rrggbb[,#rrggbb...] ...
       check_screenshot.py --write-blank OUT.png W H   (a white page, to show
       that the check fails on one)
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"{path}: expected 8-bit RGB(A) without interlace, got "
                 f"depth {depth} colour type {colour} interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
            elif kind != 0:
                sys.exit(f"{path}: unknown PNG filter {kind} on row {y}")
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def pixels(rows, bpp, box):
    x0, y0, x1, y1 = box
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            yield row[x * bpp:x * bpp + 3]


def near(p, colour, slack=10):
    return all(abs(p[i] - colour[i]) <= slack for i in range(3))


def write_blank(path, width, height):
    def chunk(kind, body):
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
    rows = b"".join(b"\x00" + b"\xff" * (3 * width) for _ in range(height))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(rows)))
        f.write(chunk(b"IEND", b""))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--write-blank":
        write_blank(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    width, height, bpp, rows = read_png(sys.argv[1])
    whole = set(pixels(rows, bpp, (0, 0, width, height)))
    print(f"{width}x{height}, {len(whole)} distinct colours")
    failed = len(whole) < 16
    if failed:
        print("FAIL: fewer than 16 distinct colours: a blank page")
    for spec in sys.argv[2:]:
        name, rest = spec.split("=", 1)
        box, colours = rest.split(":", 1)
        box = tuple(int(v) for v in box.split(","))
        if box[2] > width or box[3] > height:
            sys.exit(f"FAIL: {name}: region {box} beyond {width}x{height}")
        seen = [bytes(p) for p in pixels(rows, bpp, box)]
        counts = {}
        for p in seen:
            counts[p] = counts.get(p, 0) + 1
        # The region's own background: its most common colour.
        share = 1 - max(counts.values()) / len(seen)
        found = []
        for c in colours.split(","):
            rgb = bytes.fromhex(c.lstrip("#"))
            found.append((c, sum(n for p, n in counts.items() if near(p, rgb))))
        print(f"{name}: {share:.1%} of {len(seen)} pixels drawn; "
              + ", ".join(f"{c}: {n}" for c, n in found))
        if share < 0.02:
            print(f"FAIL: {name}: blank")
            failed = True
        for c, n in found:
            if n < 20:
                print(f"FAIL: {name}: fewer than 20 pixels of {c}")
                failed = True
    if failed:
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
