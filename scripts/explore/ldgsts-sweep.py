#!/usr/bin/env python3
# ldgsts-sweep.py - the async probe's replay of single cp.async copies
# (memprobe async --method cpasync --offsets D --src-offsets S) around the
# patterns real GEMM and attention kernels issue: destinations
# conflict-free or n-way, sources in one 128-byte line or spread over
# several, 4-, 8- and 16-byte copies, zero-fill and idle lanes, the same
# sources again (L1) or new ones each copy. Each configuration appends a
# row to OUT.csv (model beside measured) and its name to OUT-names.txt.
# Usage: ldgsts-sweep.py MEMPROBE OUT [EXTRA.tsv | --spread | --position];
# EXTRA.tsv: name, width, cache, dst, src, step (replays of captured
# copies); --spread: the lines-spread-over-rows set instead of the first
# one; --position: the same destinations from other places in the lines.
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


def lines4(word, lanes=8, lines=4, at=lambda k, i: i, split=None):
    """Single-word copies, `lines` source lines of `lanes` lanes each (lane
    l: line l // lanes, element l % lanes, or split(l) = (line, element);
    lines 512 bytes apart), lane i of line k reading word at(k, i) of its
    line and writing word word(k, i); lanes past lines * lanes idle."""
    d, s = [], []
    for l in range(32):
        k, i = split(l) if split else divmod(l, lanes)
        if k < lines:
            d.append(4 * word(k, i))
            s.append(512 * k + 4 * at(k, i))
        else:
            d.append("-")
            s.append("-")
    return d, s


def spread_configs():
    """Lines whose lanes land on single words spread over the tile's rows
    against lines whose lanes land on runs of words in one row, with the
    same banks: which of the two counts (D + L - 1 or max(D, M + L - 1))
    holds where (docs/findings.md, the copy rule)."""
    c = []

    def add(name, word, lanes=8, lines=4, step=0):
        d, s = lines4(word, lanes, lines)
        c.append((name, 4, "ca", d, s, step))
    # copy_tile's copies, warp 0 (tests/profile/real/copy_tile.cu)
    add("tile-rows", lambda k, i: 32 * i + k)
    add("tile-padded", lambda k, i: 33 * i + k)
    add("tile-xor", lambda k, i: 32 * i + (k ^ i))
    add("tile-pad36", lambda k, i: 36 * i + k)
    add("tile-padded-new", lambda k, i: 33 * i + k, step=2048)
    add("tile-xor-new", lambda k, i: 32 * i + (k ^ i), step=2048)
    # all four lines on banks 0-7: a run in one row, reordered runs, every
    # other word of a row, every fourth, one word a row, pairs a row
    add("same8-run", lambda k, i: 32 * k + i)
    add("same8-run-rev", lambda k, i: 32 * k + 7 - i)
    add("same8-run-perm", lambda k, i: 32 * k + (3 * i) % 8)
    add("same8-stride2", lambda k, i: 32 * k + 2 * i)
    add("same8-stride4", lambda k, i: 32 * k + 4 * i)
    add("same8-rows", lambda k, i: 32 * (8 * k + i) + i)
    add("same8-pairs", lambda k, i: 32 * (4 * k + i // 2) + i)
    add("same8-rows-new", lambda k, i: 32 * (8 * k + i) + i, step=2048)
    # line k on banks s*k to s*k+7: as runs in a row or a word a row
    for sh in (1, 4, 8):
        add(f"shift{sh}-run", lambda k, i, sh=sh: 32 * k + (sh * k + i) % 32)
        add(f"shift{sh}-rows",
            lambda k, i, sh=sh: 32 * (8 * k + i) + (sh * k + i) % 32)
    # two lines, eight lines of four lanes
    add("same8-run-2lines", lambda k, i: 32 * k + i, lines=2)
    add("same8-rows-2lines", lambda k, i: 32 * (8 * k + i) + i, lines=2)
    add("same4-run-8lines", lambda k, i: 32 * k + i, lanes=4, lines=8)
    add("same4-rows-8lines", lambda k, i: 32 * (4 * k + i) + i, lanes=4,
        lines=8)
    # two lanes on a bank in each line, a word a row
    add("same4x2-rows", lambda k, i: 32 * (8 * k + i) + i % 4)
    return c


def position_configs():
    """The same destinations reached from other places in the source
    lines: does a bank's cost depend on where in its line each word comes
    from (docs/findings.md, the copy rule)?"""
    c = []

    def add(name, word, **kw):
        d, s = lines4(word, **kw)
        c.append((name, 4, "ca", d, s, 0))
    # lines on banks 0-7 in one order, then mirrored
    add("mirror-2lines", lambda k, i: 32 * k + (7 - i if k % 2 else i),
        lines=2)
    add("mirror-4lines", lambda k, i: 32 * k + (7 - i if k % 2 else i))
    # same8-run's destinations, line k's words from 8k on in its line
    add("offset-run", lambda k, i: 32 * k + i, at=lambda k, i: 8 * k + i)
    add("offset-run-2lines", lambda k, i: 32 * k + i,
        at=lambda k, i: 8 * k + i, lines=2)
    add("offset-run-half", lambda k, i: 32 * k + i,
        at=lambda k, i: 8 * (k // 2) + i)
    # a line's words from the same place as its bank: a rotation per line
    add("offset-follows-bank", lambda k, i: 32 * k + (k + i) % 32,
        at=lambda k, i: (k + i) % 32)
    # shift1 with the lines' lanes interleaved (lane l: line l % 4)
    add("shift1-interleaved", lambda k, i: 32 * k + (k + i) % 32,
        split=lambda l: (l % 4, l // 4))
    # two lines of 16 lanes, the second 4 banks on
    add("shift4-16lanes", lambda k, i: 32 * k + (4 * k + i) % 32, lanes=16,
        lines=2)
    return c


def main():
    memprobe, out = sys.argv[1], sys.argv[2]
    cfgs = spread_configs() if "--spread" in sys.argv else configs()
    if "--position" in sys.argv:
        cfgs = position_configs()
    if len(sys.argv) > 3 and not sys.argv[3].startswith("--"):
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
