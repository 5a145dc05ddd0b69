#!/usr/bin/env python3
# opcode-fit.py - candidate rules for the counts of LDGSTS, LDSM, STSM and
# the atomics, tried against what the GPU measured: reads the files of
# `memprobe explain --check-libraries -o DIR/NAME.csv -- PROGRAM`
# (NAME-capture.csv: each warp's lane addresses of the instructions;
# NAME-profile-lines.csv: their measured counts, the first launch of each
# kernel) and prints, per captured instruction, the measured count beside
# each rule's sum over the captured warp executions. A rule is worth
# keeping where it equals the measured count on every instruction. An
# LDGSTS's rows come in pairs, its destination then its global source;
# the x4_ rules are four times a rule with quarter wavefronts.
#
#   scripts/explore/opcode-fit.py DIR/NAME [DIR/NAME...]
import csv
import sys
from collections import Counter, defaultdict

csv.field_size_limit(1 << 30)


def words(a, w):
    return range(a // 4, (a + w - 1) // 4 + 1)


def bank_wavefronts(addrs, w, lanes_per_phase):
    """Wavefronts of the lanes' accesses (offset, width w) split into
    phases of lanes_per_phase consecutive lanes: each phase at least 1,
    its busiest bank's distinct words."""
    total = 0
    for p0 in range(0, 32, lanes_per_phase):
        per_bank = defaultdict(set)
        for lane in range(p0, p0 + lanes_per_phase):
            a = addrs.get(lane)
            if a is None:
                continue
            for wd in words(a, w):
                per_bank[wd % 32].add(wd)
        if per_bank:
            total += max(len(s) for s in per_bank.values())
    return total


def rules_shared(addrs, w, opcode):
    lanes = sorted(addrs)
    r = {}
    per_phase = max(1, 128 // max(w, 4))
    r["sts_phases"] = bank_wavefronts(addrs, w, per_phase)
    r["whole_warp"] = bank_wavefronts(addrs, w, 32)
    mult = Counter(addrs[l] for l in lanes)
    r["distinct_addr"] = len(mult)
    r["max_same_addr"] = max(mult.values()) if mult else 0
    per_bank_lanes = Counter()
    for l in lanes:
        per_bank_lanes[(addrs[l] // 4) % 32] += 1
    r["max_lanes_bank"] = max(per_bank_lanes.values()) if lanes else 0
    r["sts+same-1"] = r["sts_phases"] + max(r["max_same_addr"] - 1, 0)
    r["max(sts,same)"] = max(r["sts_phases"], r["max_same_addr"])
    # ldmatrix / stmatrix: lanes 8m..8m+7 give the rows (16 bytes) of
    # matrix m; one phase per matrix
    nmat = 4 if opcode.endswith(".4") else 2 if opcode.endswith(".2") else 1
    mats = 0
    for m in range(nmat):
        rows = {l - 8 * m: addrs[l] for l in range(8 * m, 8 * m + 8) if l in addrs}
        per_bank = defaultdict(set)
        for a in rows.values():
            for wd in words(a, 16):
                per_bank[wd % 32].add(wd)
        mats += max((len(s) for s in per_bank.values()), default=0)
    r["matrix_rows"] = mats
    return r


def rules_global(addrs, w):
    sectors = set()
    lines = set()
    for a in addrs.values():
        for b in range(a // 32, (a + w - 1) // 32 + 1):
            sectors.add(b)
        lines.add(a // 128)
    return {"sectors": len(sectors), "lines128": len(lines)}


def group_wavefronts(dst, src, w, unit):
    """Lanes grouped by the `unit`-byte block of their source: each group's
    destinations counted by the bank rule, summed over the groups."""
    groups = defaultdict(dict)
    for lane, a in src.items():
        groups[a // unit][lane] = dst[lane]
    return sum(bank_wavefronts(g, w, 32) for g in groups.values())


def rules_copy(dst, src, w):
    """An LDGSTS execution: its destinations (shared) with its sources."""
    r = {}
    sts = bank_wavefronts(dst, w, max(1, 128 // max(w, 4)))
    sec = rules_global(src, w)["sectors"] if src else 0
    lines = rules_global(src, w)["lines128"] if src else 0
    r["dst_sts"] = sts
    r["src_sectors"] = sec
    r["src_lines"] = lines
    r["sts+sectors-1"] = sts + max(sec - 1, 0)
    r["sts+sectors-lines"] = sts + sec - lines
    r["max(sts,sectors)"] = max(sts, sec)
    r["per_sector_groups"] = group_wavefronts(dst, src, w, 32) if src else 0
    r["per_line_groups"] = group_wavefronts(dst, src, w, 128) if src else 0
    r["x4_sts+3/4sectors"] = 4 * sts + 3 * sec   # the totals' relation, x4
    r["x4_sts+1/4sectors"] = 4 * sts + sec
    return r


def main(prefixes):
    for pre in prefixes:
        measured = {}
        try:
            with open(pre + "-profile-lines.csv") as f:
                for row in csv.DictReader(f):
                    key = (row["mangled"], int(row["function_offset"], 16))
                    measured[key] = row
        except OSError as e:
            print(f"== {pre}: {e}")
            continue
        sums = defaultdict(Counter)
        info = {}
        pending = {}   # an LDGSTS's destination row, until its source row
        try:
            f = open(pre + "-capture.csv")
        except OSError as e:
            print(f"== {pre}: {e}")
            continue
        with f:
            rd = csv.reader(f)
            head = next(rd)
            for row in rd:
                kern, pc, space, op, w = row[0], int(row[1], 16), row[4], row[5], int(row[6])
                key = (kern, pc)
                m = measured.get(key)
                pop = (m["opcode"] if m else "") or op
                base = pop.split(".")[0]
                if base in ("LDS", "STS", "LDG", "STG", "LD", "ST"):
                    continue   # explained already
                addrs = {l: int(row[9 + l], 16) for l in range(32) if row[9 + l]}
                if base == "LDGSTS" or op.startswith("LDGSTS"):
                    if space == "shared":   # the destination: its source next
                        pending[key] = addrs
                        continue
                    dst = pending.pop(key, None)
                    if dst is None:
                        continue
                    rs = rules_copy(dst, addrs, w)
                    rs["rows"] = 1
                    rs["lanes"] = len(dst)
                    sums[key].update(rs)
                    info[key] = (pop, op, "shared", w)
                    continue
                rs = rules_shared(addrs, w, pop) if space == "shared" else rules_global(addrs, w)
                rs["rows"] = 1
                rs["lanes"] = len(addrs)
                sums[key].update(rs)
                info[key] = (pop, op, space, w)
        print(f"== {pre}")
        for key in sorted(sums, key=lambda k: (k[0], k[1])):
            pop, op, space, w = info[key]
            m = measured.get(key)
            if m:
                if space == "shared":
                    meas = int(m["smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"])
                    ideal = int(m["smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"])
                else:
                    meas = int(m["smsp__sass_sectors_mem_global"])
                    ideal = int(m["smsp__sass_sectors_mem_global_ideal"])
                execs = int(m["smsp__sass_inst_executed"])
                gsec = int(m["smsp__sass_sectors_mem_global"])
            else:
                meas = ideal = execs = gsec = -1
            s = sums[key]
            kname = key[0][:40]
            rules = " ".join(f"{k}={v}" for k, v in sorted(s.items()) if k not in ("rows", "lanes"))
            eq = [k for k, v in s.items() if v == meas and k not in ("rows", "lanes")]
            print(f"{kname} +0x{key[1]:x} {pop} (capture {op} {space} w{w}) "
                  f"execs {execs} rows {s['rows']} lanes {s['lanes']} "
                  f"measured {meas} ideal {ideal} global {gsec} | {rules} | equal: {','.join(eq) or '-'}")


if __name__ == "__main__":
    main(sys.argv[1:])
