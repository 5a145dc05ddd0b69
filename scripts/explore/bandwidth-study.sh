#!/usr/bin/env bash
# bandwidth-study.sh - the bandwidth probe on the H200: what the default
# `memprobe bandwidth` reaches beside cudaMemcpy D2D, and what the new
# variants reach (persistent vs one-shot grid, cache operators, loads in
# flight, threads, TMA bulk copy: --kernel copy-bulk) at 4, 8 and 16 GiB with DRAM counters, so
# that extra traffic shows as DRAM bytes per array byte above 1.
#
# Run on the GPU machine from the repository root, with OUT set and the
# unpacked dependencies in .deps/ (scripts/fetch-gpu-deps.sh), e.g.
#   OUT=/tmp/bw bash scripts/explore/bandwidth-study.sh
# SKIP_BUILD=1 uses the memprobe built already; BW_SIZES the array sizes
# in order (default 8, 16, then 4 GiB). About 6-7 minutes (build about 1, defaults under 1, variants about 5);
# no step starts after DEADLINE_S (default 450) seconds, and the tables are
# written from whatever ran. Writes $OUT/bw/:
#   build.log      the build (ARCH=90: the H200's SASS only, faster)
#   default.csv    3 x `memprobe bandwidth --kernel read,write,copy` (1 GiB,
#                  automatic shape: the first run searches, the next two
#                  read the shape cache), each row with memcpy_d2d_gbs and
#                  fraction_of_memcpy measured in the same process
#   variants.csv   the variants, --counters on
#   table.txt      one line per row of both: % of peak, x cudaMemcpy, DRAM
#                  bytes read and written per array byte, shape, CoV
#   run.log        the commands, their exit status and stderr
set -u
cd "$(dirname "$0")/../.."
T0=$(date +%s)
DEADLINE_S=${DEADLINE_S:-450}
R=${OUT:-bw-out}/bw
mkdir -p "$R"
LOG=$R/run.log
: > "$LOG"

late() { [ $(( $(date +%s) - T0 )) -ge "$DEADLINE_S" ]; }

# mp CSV ARGS...: one memprobe bandwidth run appending to CSV, logged.
mp() {
    local csv=$1; shift
    if late; then
        echo "skipped (past ${DEADLINE_S} s): $*" >> "$LOG"
        return 0
    fi
    local s=$(date +%s)
    ./memprobe bandwidth "$@" -o "$csv" >> "$LOG" 2>&1
    echo "exit $? after $(( $(date +%s) - s )) s: memprobe bandwidth $*" >> "$LOG"
}

# table CSV...: % of peak, x memcpy, DRAM bytes per array byte by row.
# Splits CSV fields with scripts/csv.awk (counters_status may hold commas).
table() {
    awk "$(cat scripts/csv.awk)"'
    function v(name) { return (name in col) ? F[col[name]] : "" }
    function per(x, b) { return (x == "" || b == "" || b == 0) ? "-" : sprintf("%.3f", x / b) }
    {
        sub(/\r$/, "")
        if ($0 ~ /^tool_version,/) { n = split_csv($0, H); delete col
            for (i = 1; i <= n; i++) col[H[i]] = i; next }
        split_csv($0, F)
        b = v("array_bytes")
        frac = v("bandwidth_fraction"); mf = v("fraction_of_memcpy")
        printf "%-62s %5.1f%%  x%-5s rd/B %-6s wr/B %-6s i%-2s t%-5s %-7s %-10s %-6s cov %s %s\n",
            v("config"), 100 * frac, (mf == "" ? "-" : sprintf("%.3f", mf)),
            per(v("dram__bytes_read.sum"), b), per(v("dram__bytes_write.sum"), b),
            v("inflight"), v("threads_per_block"), v("cache"), v("grid"),
            v("tile_bytes"), v("time_ns_cov"), v("verified")
    }' "$@"
}

[ -n "${SKIP_BUILD:-}" ] || make -j16 DEPS=.deps ARCH=90 memprobe \
    > "$R/build.log" 2>&1 || { tail -20 "$R/build.log"; exit 1; }
echo "built after $(( $(date +%s) - T0 )) s" >> "$LOG"
nvidia-smi --query-gpu=name,clocks.mem,clocks.max.mem,clocks.sm,clocks.max.sm \
    --format=csv >> "$LOG" 2>&1

# 1. The default, three times, beside cudaMemcpy D2D (fraction_of_memcpy).
export MEMPROBE_SHAPE_CACHE=$(mktemp -d)/bandwidth-shapes
rm -f "$MEMPROBE_SHAPE_CACHE"
for r in 1 2 3; do
    mp "$R/default.csv" --kernel read,write,copy
done
unset MEMPROBE_SHAPE_CACHE

# 2. The variants at 4, 8 and 16 GiB, counters on: each line is one
# process; lists in a line are its sweep. Shapes near the earlier study's
# best (read i8 t1024; write i1-2 cs; copy i4 t1024 cs) beside one-shot
# grids and bulk copies.
V=$R/variants.csv
for b in ${BW_SIZES:-8589934592 17179869184 4294967296}; do
    c="--counters on --bytes $b"
    mp "$V" $c --kernel read --grid persistent --inflight 8 --threads 1024 --cache default,na
    mp "$V" $c --kernel read --grid persistent --inflight 4 --threads 256 --cache default
    mp "$V" $c --kernel read --grid oneshot --inflight 4,8 --threads 256 --cache default
    mp "$V" $c --kernel read --grid oneshot --inflight 8 --threads 512 --cache na
    mp "$V" $c --kernel write --grid persistent,oneshot --inflight 1 --threads 256 --cache cs
    mp "$V" $c --kernel write --grid persistent --inflight 2 --threads 1024 --cache cs,default
    mp "$V" $c --kernel write --grid oneshot --inflight 2 --threads 256 --cache cs
    mp "$V" $c --kernel write --grid oneshot --inflight 1 --threads 1024 --cache default
    mp "$V" $c --kernel copy --grid persistent --inflight 4,8 --threads 1024 --cache cs
    mp "$V" $c --kernel copy --grid persistent,oneshot --inflight 4 --threads 256 --cache default
    mp "$V" $c --kernel copy --grid oneshot --inflight 2,4 --threads 256 --cache cs
    mp "$V" $c --kernel copy-bulk --threads 32 --tile 16384 --inflight 2,4,8
    mp "$V" $c --kernel copy-bulk --threads 128 --tile 4096 --inflight 2,4,8
done

{
    echo "# default (1 GiB, automatic shape), 3 processes; x = fraction of cudaMemcpy D2D"
    [ -f "$R/default.csv" ] && table "$R/default.csv"
    echo
    echo "# variants, DRAM bytes per array byte (read: rd 1 wr 0; write: rd 0 wr 1; copy: 1 and 1)"
    [ -f "$V" ] && table "$V"
} > "$R/table.txt"
echo "done after $(( $(date +%s) - T0 )) s" >> "$LOG"
cat "$R/table.txt"
tail -5 "$LOG"
