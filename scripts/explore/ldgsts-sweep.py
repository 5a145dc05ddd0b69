#!/usr/bin/env python3
# ldgsts-sweep.py - the async probe's replay of single cp.async copies
# (memprobe async --method cpasync --offsets D --src-offsets S) around the
# patterns real GEMM and attention kernels issue: destinations
# conflict-free or n-way, sources in one 128-byte line or spread over
# several, 4-, 8- and 16-byte copies, zero-fill and idle lanes, the same
# sources again (L1) or new ones each copy. Each configuration appends a
# row to OUT.csv (model beside measured) and its name to OUT-names.txt.
# Usage: ldgsts-sweep.py MEMPROBE OUT [EXTRA.tsv]; EXTRA.tsv: name, width,
# cache, dst, src, step (replays of captured copies).
import subprocess
import sys


def ident(w):
    return [w * l for l in range(32)]


def rows(w, per_line_lanes, pitch):
    """Lane l reads element l % per_line_lanes of row l // per_line_lanes,
    rows `pitch` bytes apart."""
    return [pitch * (l // per_line_lanes) + w * (l % per_line_lanes)
            for l in range(32)]


def configs():
    c = []
    for w in (4, 8, 16):
        c.append((f"ident-w{w}", w, "ca", ident(w), ident(w), 0))
        c.append((f"ident-w{w}-new", w, "ca", ident(w), ident(w), 32 * w))
    c.append(("ident-w16-cg", 16, "cg", ident(16), ident(16), 512))
    # cuBLAS: lanes 0-7 36 words apart, each next 8 lanes a word on;
    # sources: 8 lanes a 32-byte row piece, in 4 lines or in one
    cub = [4 * (36 * (l % 8) + l // 8) for l in range(32)]
    c.append(("cublas-4lines", 4, "ca", cub, rows(4, 8, 512), 0))
    c.append(("cublas-4lines-new", 4, "ca", cub, rows(4, 8, 512), 2048))
    c.append(("cublas-1line", 4, "ca", cub, ident(4), 0))
    c.append(("cublas-2lines", 4, "ca", cub, rows(4, 16, 512), 0))
    # the identity's destinations, sources in 2, 4, 8, 32 lines
    for k in (16, 8, 4, 1):
        c.append((f"ident-w4-src{32 // k}lines", 4, "ca", ident(4),
                  rows(4, k, 512), 0))
    # sources permuted inside one line: do banks need to line up?
    c.append(("perm-w4-1line", 4, "ca", ident(4),
              [4 * ((9 * l) % 32) for l in range(32)], 0))
    c.append(("rot-w4-1line", 4, "ca", ident(4),
              [4 * ((l + 1) % 32) for l in range(32)], 0))
    c.append(("perm-w16-4lines", 16, "ca", ident(16),
              [16 * ((5 * l) % 32) for l in range(32)], 0))
    # 16-byte copies: 8 lanes a line (4 lines), 4 lanes a line (8 lines),
    # 2 lanes (16 lines)
    for k in (8, 4, 2, 1):
        c.append((f"w16-{k}lanes-a-line", 16, "ca", ident(16),
                  rows(16, k, 1024), 0))
    c.append(("w8-4lanes-a-line", 8, "ca", ident(8), rows(8, 4, 1024), 0))
    # destinations 2-, 4-, 8-way, sources in one line or four
    for ways in (2, 4, 8):
        d = [4 * ((l % (32 // ways)) + 32 * (l // (32 // ways)))
             for l in range(32)]
        c.append((f"dst{ways}way-1line", 4, "ca", d, ident(4), 0))
        c.append((f"dst{ways}way-4lines", 4, "ca", d, rows(4, 8, 512), 0))
    # conflicts inside each source line's lanes, none across the warp's
    # busiest bank beyond 8: lane l writes word 32 (l % 8) + l // 8
    d = [4 * (32 * (l % 8) + l // 8) for l in range(32)]
    c.append(("dst8way-perline-4lines", 4, "ca", d, rows(4, 8, 512), 0))
    c.append(("dst8way-perline-1line", 4, "ca", d, ident(4), 0))
    # zero fill and idle lanes
    half = ["z" if l % 2 else s for l, s in enumerate(ident(4))]
    c.append(("ident-w4-zfill-odd", 4, "ca", ident(4), half, 0))
    c.append(("ident-w4-zfill-all", 4, "ca", ident(4), ["z"] * 32, 0))
    off = ["-" if l >= 16 else 4 * l for l in range(32)]
    c.append(("ident-w4-16lanes", 4, "ca", off, off, 0))
    return c


def main():
    memprobe, out = sys.argv[1], sys.argv[2]
    cfgs = configs()
    if len(sys.argv) > 3:
        for line in open(sys.argv[3]):
            f = line.rstrip("\n").split("\t")
            if len(f) == 6 and not f[0].startswith("#"):
                cfgs.append((f[0], int(f[1]), f[2], f[3].split(";"),
                             f[4].split(";"), int(f[5])))
    names = open(out + "-names.txt", "w")
    for name, w, cache, dst, src, step in cfgs:
        d = ";".join(str(x) for x in dst)
        s = ";".join(str(x) for x in src)
        cmd = [memprobe, "async", "--method", "cpasync", "--width", str(w),
               "--cache", cache, "--offsets", d, "--src-offsets", s,
               "--src-step", str(step), "--iterations", "256",
               "--threads", "128", "--runs", "3", "--warmup", "1",
               "--counters", "on", "-o", out + ".csv"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        names.write(f"{name}\t{r.returncode}\t{r.stderr.strip()[-300:]}\n")
        names.flush()
        print(name, r.returncode, r.stdout.strip().splitlines()[-1:]
              if r.stdout else r.stderr.strip()[-200:], flush=True)


main()
