#!/usr/bin/env bash
# l2-partitions.sh - exploration (the H200's L2 partitions): the per-SM
# latency of 4096 lines from every SM (scripts/explore/l2map.cu, map),
# chases of lines near and far from SM 0 at 16-128 MiB (plateau), the
# L2 fabric metrics Nsight Compute knows for GH100, and the random cg
# chase of `memprobe latency` at 24-96 MiB under ncu with them.
# halves: each line's device-memory latency from every SM and the first
# load after a helper SM of the other half; ncuapp: the partition
# counters under ncu's application replay (a kernel replay's later passes
# find the chain in the L2).
#   OUT=dir [PHASES="plateau map tlb ncu halves ncuapp"] scripts/explore/l2-partitions.sh
set -u
OUT=${OUT:-l2p-out}; mkdir -p "$OUT"
W=$(mktemp -d); P=$W/l2p; mkdir -p "$P"
trap 'tar -C "$W" -czf "$OUT/l2p.tar.gz" .; cp "$P/summary.txt" "$OUT/" 2>/dev/null' EXIT
S=$P/summary.txt
t() { echo "== $* $(date +%T)" >> "$S"; }
nvcc -O3 -arch=sm_90 -o "$P/l2map" scripts/explore/l2map.cu > "$P/nvcc.txt" 2>&1 || { cat "$P/nvcc.txt" >> "$S"; exit 1; }
cuobjdump --dump-sass "$P/l2map" | grep -E "Function|LDG|CS2R|S2UR|S2R" > "$P/sass.txt"
PHASES=${PHASES:-plateau map tlb ncu}
on() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
on plateau && { t plateau; "$P/l2map" plateau > "$P/plateau.csv" 2>> "$S"; echo "rc=$?" >> "$S"
grep -v '^hist' "$P/plateau.csv" >> "$S"; }
on map && { t map; "$P/l2map" map 4096 8 > "$P/map.csv" 2>> "$S"; echo "rc=$?" >> "$S"
grep -E "^(groups|classes|smap|cmap|dsum)" "$P/map.csv" >> "$S"
gzip "$P/map.csv"; }
on tlb && { t tlb; "$P/l2map" tlb > "$P/tlb.csv" 2>> "$S"; echo "rc=$?" >> "$S"; cat "$P/tlb.csv" >> "$S"; }
on halves && { t halves; "$P/l2map" halves 4096 > "$P/halves.csv" 2>> "$S"; echo "rc=$?" >> "$S"; grep -v "^hclasses" "$P/halves.csv" >> "$S"; }
on ncu && { t query; ncu --query-metrics --chip gh100 > "$P/ncu-metrics.txt" 2>&1
grep -iE "fabric|lts__t_(sectors|requests)_srcunit|lts__t_sectors_(lookup|srcnode)|lts__d" "$P/ncu-metrics.txt" >> "$S"; }
{ on ncu || on ncuapp; } && t build && make -j16 DEPS=.deps memprobe > "$P/build.txt" 2>&1 || tail -5 "$P/build.txt" >> "$S"
F=lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum,lts__d_sectors_fill_device.sum,smsp__inst_executed_op_global_ld.sum,lts__t_requests_srcunit_tex_op_read.sum
M=dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum
echo "fabric metrics: $F" >> "$S"
on ncu && for mib in 16 24 32 40 48 56 60 64 96; do
  t ncu $mib
  timeout 60 ncu --csv --page raw --print-units base --clock-control none --cache-control none \
     -k regex:chase_global --launch-skip 3 --launch-count 1 --metrics "$M${F:+,$F}" \
     ./memprobe latency --footprint $((mib << 20)) --order random --cache cg --warmup 2 --runs 3 \
     --counters off -o "$P/lat-$mib.csv" > "$P/ncu-$mib.csv" 2> "$P/ncu-$mib.err"
  echo "rc=$?" >> "$S"
  python3 - "$P/ncu-$mib.csv" >> "$S" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if len(rows) >= 3:
    h, v = rows[0], rows[-1]
    for k, x in zip(h, v):
        if k.startswith(("dram", "lts")): print("  ", k, x)
PY
  awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next}{print "  memprobe", $c["config"], $c["cycles_per_load"]}' "$P/lat-$mib.csv" >> "$S" 2>/dev/null
done
# The same counters where each pass runs the program again.
A="lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum,dram__bytes_read.sum,smsp__inst_executed_op_global_ld.sum,lts__d_sectors_fill_device.sum"
ncuapp() {  # ncuapp NAME KERNEL SKIP COMMAND...
    local name=$1 k=$2 skip=$3; shift 3
    t "ncuapp $name"
    timeout 120 ncu --csv --page raw --print-units base --clock-control none --cache-control none \
        --replay-mode application -k regex:$k --launch-skip $skip --launch-count 1 --metrics "$A" \
        "$@" > "$P/ncuapp-$name.csv" 2> "$P/ncuapp-$name.err"
    echo "rc=$?" >> "$S"
    python3 - "$P/ncuapp-$name.csv" >> "$S" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if len(rows) >= 3:
    d = dict(zip(rows[0], rows[-1]))
    g = lambda k: float(d[k].replace(',', ''))
    ld = g('smsp__inst_executed_op_global_ld.sum')
    print('   loads %d tex/ld %.3f tex_hit/ld %.3f fab/ld %.3f fab_hit/ld %.3f fab_miss/ld %.3f fill/ld %.3f dram_B/ld %.1f' % (ld,
        g('lts__t_sectors_srcunit_tex_op_read.sum') / ld, g('lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum') / ld,
        g('lts__t_sectors_srcunit_ltcfabric_op_read.sum') / ld, g('lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum') / ld,
        g('lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum') / ld, g('lts__d_sectors_fill_device.sum') / ld,
        g('dram__bytes_read.sum') / ld))
PY
    grep -E "^plateau,(near|far|all)" "$P/ncuapp-$name.csv" | tail -1 >> "$S"
}
if on ncuapp; then
    for mib in 24 32 40 48 56 60 64 96; do
        ncuapp lat-$mib chase_global 3 ./memprobe latency --footprint $((mib << 20)) --order random --cache cg \
            --warmup 2 --runs 3 --counters off -o "$P/latapp-$mib.csv"
    done
    for x in "near 48" "far 48" "all 48" "far 24" "near 24" "all 64"; do
        set -- $x
        ncuapp plateau-$1-$2 chase 0 "$P/l2map" plateau $1 $2
    done
fi
t done
