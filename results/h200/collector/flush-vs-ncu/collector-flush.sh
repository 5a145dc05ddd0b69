#!/usr/bin/env bash
# collector-flush.sh - how far the in-process collector's DRAM and L2
# counts are from Nsight Compute's defaults: the collector "flushes" the
# L2 with a device-to-host copy, which leaves clean lines resident
# (docs/findings.md, "Counters, CUPTI and Nsight Compute"; the runs in
# results/h200/profile/l2-hit/). For each cache-dependent
# family's standard set (memprobe list --standard):
#   ncu-check as it is (ncu --cache-control none)      -> P-none.txt
#   the same memprobe.csv against ncu --cache-control all -> P-all.txt
#   memprobe with MEMPROBE_PROFILE_FLUSH=0 against the none run -> P-noflush.txt
# Run on a GPU machine from the repository root after a build:
#   OUT=$OUT results/h200/collector/flush-vs-ncu/collector-flush.sh
# FAMILIES="a b" picks the families, TAG=name the folder ($OUT/TAG) and
# its archive ($OUT/TAG.tar.gz; default flush).
set -u
TAG=${TAG:-flush}
W=${OUT:?OUT}/$TAG
mkdir -p "$W"
for P in ${FAMILIES:-coalesce const texture async}; do
    args=$(./memprobe list --standard | sed -n "s/^$P //p")
    d=$W/$P
    ./memprobe ncu-check --probe "$P" --dir "$d" > "$W/$P-none.txt" 2>&1
    echo "$P none rc=$?" >> "$W/summary.txt"
    m=$(./memprobe columns --probe "$P" | awk '$1 ~ /__/ {print $1}' | paste -sd, -)
    ncu --csv --page raw --print-units base --clock-control none \
        --cache-control all --metrics "$m" --log-file "$d/ncu-all.csv" \
        ./memprobe "$P" $args --counters off --runs 0 --warmup 0 \
        -o "$d/ncu-all-run.csv" > "$d/ncu-all.log" 2>&1
    ./memprobe ncu-check --probe "$P" --compare "$d/memprobe.csv" \
        "$d/ncu-all.csv" > "$W/$P-all.txt" 2>&1
    echo "$P all rc=$?" >> "$W/summary.txt"
    MEMPROBE_PROFILE_FLUSH=0 ./memprobe "$P" $args --counters on --runs 0 \
        --warmup 0 -o "$d/noflush.csv" > "$d/noflush.log" 2>&1
    ./memprobe ncu-check --probe "$P" --compare "$d/noflush.csv" \
        "$d/ncu.csv" > "$W/$P-noflush.txt" 2>&1
    echo "$P noflush rc=$?" >> "$W/summary.txt"
done
tar czf "$OUT/$TAG.tar.gz" -C "$OUT" "$TAG"
cp "$W/summary.txt" "$OUT/$TAG-summary.txt"
rm -rf "$W"
