#!/usr/bin/env bash
# l2-hit.sh - exploration (the kernel+ L2 hit rate): what the range
# pass reads for L2 and DRAM counts under CUPTI's cache control modes, with
# and without memprobe's own L2 flush (a 4 x L2 device-to-host read before
# each measured launch, or a read kernel of 4 x L2), for one-pass and two-pass metric sets, beside
# Nsight Compute with --cache-control all and none on the same program.
# Uses the injection library's experiment variables MEMPROBE_RANGE_METRICS,
# MEMPROBE_RANGE_CACHE (none, all, l2) and MEMPROBE_RANGE_FLUSH (d2h, kernel)
# of commits 8a7285c and cb6b959 only: later commits measure the groups
# of MEMPROBE_RANGE_GROUP instead, so run it at one of those commits.
# Results: results/h200/profile/l2-hit/.
#   OUT=dir scripts/explore/l2-hit.sh
set -u
OUT=${OUT:-l2-out}; mkdir -p "$OUT"
W=$(mktemp -d); P=$W/l2; mkdir -p "$P"
trap 'tar -C "$W" -czf "$OUT/l2-hit.tar.gz" .; cp "$P/summary.txt" "$OUT/" 2>/dev/null' EXIT
app=build/tests/profile/app
make -j16 DEPS=.deps memprobe build/lib/libmemprobe_inject.so $app > "$P/build.txt" 2>&1 || { tail -20 "$P/build.txt"; exit 1; }
K=l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum
H=lts__t_sectors_lookup_hit.sum; T=lts__t_sectors.sum; M=lts__t_sectors_lookup_miss.sum
R=lts__t_sector_hit_rate.pct
one() {  # one NAME METRICS CACHE FLUSH
    local t0=$(date +%s.%N)
    MEMPROBE_RANGE_METRICS=$2 MEMPROBE_RANGE_CACHE=$3 MEMPROBE_RANGE_FLUSH=$4 \
        ./memprobe profile --level kernel+ -o "$P/$1.csv" -- $app > "$P/$1.err" 2>&1
    echo "== $1 rc=$? metrics=$2 cache=$3 flush=$4 $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{printf "%.2f s", b-a}')" >> "$P/summary.txt"
    grep 'memprobe-range: launch' "$P/$1.err" | sed 's/memprobe-range: //' >> "$P/summary.txt"
    grep -m3 'memprobe-range: flush' "$P/$1.err" >> "$P/summary.txt"
}
G=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
for r in 1 2 3; do one kf-all-$r "$K,$H,$G" all kernel; done
for r in 1 2 3; do one tf-all-$r "$T" all kernel; done
one kf-none "$K,$H" none kernel
one mf-all "$M" all kernel
one ratef-all "$R" all kernel
one kd-all "$K,$H" all d2h
for cc in all all none; do
    ncu --clock-control none --cache-control $cc --metrics $K,$R,$T,$H,$M $app > "$P/ncu-$cc.txt" 2>&1
    echo "== ncu cache-control $cc rc=$?" >> "$P/summary.txt"
    awk '/^  [a-z_0-9]+ \(/{k=(n++) ":" $1} /dram__|lts__|l1tex__/{print k, $1, $2, $3}' "$P/ncu-$cc.txt" >> "$P/summary.txt"
done
