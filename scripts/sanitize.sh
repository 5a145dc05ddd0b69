#!/usr/bin/env bash
# sanitize.sh - every probe family's standard configurations (the sets
# `memprobe ncu-check` uses, shrunk to sanitizer-friendly launch shapes)
# under compute-sanitizer's memcheck, racecheck, synccheck and initcheck,
# on the GPU machine. Any finding fails the run. `make sanitize` runs it.
#
#   scripts/sanitize.sh [MEMPROBE] [SUMMARY_FILE]
#
# Prints one line per probe and tool: the tool's ERROR SUMMARY and the
# configurations run; the summary also goes to SUMMARY_FILE.
set -u
cd "$(dirname "$0")/.."
MP=${1:-./memprobe}
SUMMARY=${2:-/dev/null}
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$CS" >/dev/null || { echo "sanitize: $CS not found" >&2; exit 3; }
LOGS=$(mktemp -d)
SHAPE="--warmup 0 --runs 1 --counters off -o /dev/null"

# probe | the standard set's values, with fewer iterations, blocks or bytes
SETS=(
  "bank|--op ld,st --width 4,8,16 --stride 0,1,2,3,4,8,16,17,32,33 --group 1,2 --iterations 8 --blocks 8"
  "coalesce|--op ld,st --width 4,8,16 --offset 0,16,32 --stride 1,2,32 --blocks 8 --iterations 2"
  "coalesce|--layout soa,aos12,aos16,aos12-staged --blocks 8 --iterations 2"
  "bandwidth|--kernel read,write,copy --width 4,16 --bytes 1048576 --blocks 8"
  "const|--source constant,global,ldg --spread 1,2,8,32 --spacing 4,128 --iterations 16 --blocks 8"
  "texture|--source tex1d,tex2d,global,ldg --access stencil,column,row --size 256"
  "reduce|--variant host-partials,thread0-serial,tree-interleaved,tree-strided,tree-sequential,warp-shuffle,atomic --workload cubes,dot --size 33792 --blocks 32"
)
failed=0
for set in "${SETS[@]}"; do
    probe=${set%%|*}
    args=${set#*|}
    n=$($MP predict "$probe" $args 2>/dev/null | grep -c "^$probe")
    for tool in memcheck racecheck synccheck initcheck; do
        log="$LOGS/$probe-$tool.log"
        $CS --tool "$tool" --error-exitcode 9 $MP "$probe" $args $SHAPE > "$log" 2>&1
        rc=$?
        # memcheck, synccheck, initcheck: "ERROR SUMMARY: N errors";
        # racecheck: "RACECHECK SUMMARY: H hazards displayed (N errors, ...)".
        errors=$(sed -n -e 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
            -e 's/^========= RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$log" | tail -1)
        line=$(printf '%-10s %-10s %4s configurations  exit %d  errors %s' \
            "$probe" "$tool" "$n" "$rc" "${errors:-?}")
        echo "$line" | tee -a "$SUMMARY"
        if [ "$rc" -ne 0 ] || [ "${errors:-x}" != 0 ]; then
            failed=$((failed + 1))
            grep -m 5 "^=========" "$log" | tee -a "$SUMMARY"
        fi
    done
done
echo "sanitize: $failed failing run(s)" | tee -a "$SUMMARY"
rm -rf "$LOGS"
[ "$failed" -eq 0 ]
