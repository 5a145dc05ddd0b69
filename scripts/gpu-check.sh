#!/usr/bin/env bash
# gpu-check.sh - everything memprobe does on a GPU, in one call:
# build, SASS check, GPU tests, ncu cross-check and sweeps. Writes CSVs and
# logs under $OUT (default ./gpu-out) and prints a short summary last.
#
#   scripts/gpu-check.sh [STEP...]    steps: build sass device sweep ncu tests
#
# Never changes the GPU's clocks or settings: ncu runs with
# --clock-control none.
set -u
# The device tool returns at most 8 files from $OUT, so everything is
# written to a temporary folder and packed into $OUT/gpu-results.tar.gz at the end.
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
FINAL_OUT=$OUT
OUT=$(mktemp -d)
STEPS=${*:-build sass device sweep ncu tests}
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
NCU=${NCU:-ncu}
SHARED_METRICS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,gpu__time_duration.sum

step() {  # step NAME COMMAND...: runs, logs, records status
    local name=$1; shift
    local t0=$SECONDS
    echo "=== $name: $*" | tee -a "$OUT/log.txt"
    "$@" >> "$OUT/log.txt" 2>&1
    local rc=$?
    printf '%-12s rc=%d  %ds\n' "$name" "$rc" $((SECONDS - t0)) | tee -a "$SUMMARY"
    return $rc
}

bank_sweep="--op ld,st --width 4,8,16 --stride 0..64"
bank_patterns="--op ld,st --width 4,8,16 --stride 1,2,3,4,8,16,32 --group 1,2,4,8,32 --period 32,16,8"
bank_pads="--op ld,st --width 4,8,16 --stride 8,16,32 --pad 0,1,2,4"

for s in $STEPS; do
case $s in
build) step build make -j8 ARCH=90 memprobe ;;
sass)
    step sass bash -c "cuobjdump --dump-sass memprobe > $OUT/sass-full.txt &&
        awk '/Function :/{f=\$3} /LDS|STS/{print f, \$0}' $OUT/sass-full.txt > $OUT/sass-bank.txt" ;;
device) step device bash -c "./memprobe device | tee $OUT/device.txt; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv >> $OUT/device.txt" ;;
sweep)
    rm -f "$OUT"/bank-*.csv
    step sweep-bank ./memprobe bank $bank_sweep -o "$OUT/bank-sweep.csv"
    step sweep-pattern ./memprobe bank $bank_patterns -o "$OUT/bank-patterns.csv" --runs 5
    step sweep-pad ./memprobe bank $bank_pads -o "$OUT/bank-pads.csv" --runs 5 ;;
ncu)
    step ncu-bank $NCU --csv --page raw --clock-control none --metrics $SHARED_METRICS \
        --log-file "$OUT/ncu-bank.csv" ./memprobe bank $bank_sweep --iterations 64 \
        --runs 0 --warmup 0 --counters off -o "$OUT/ncu-bank-run.csv"
    step ncu-pattern $NCU --csv --page raw --clock-control none --metrics $SHARED_METRICS \
        --log-file "$OUT/ncu-pattern.csv" ./memprobe bank $bank_patterns --iterations 64 \
        --runs 0 --warmup 0 --counters off -o "$OUT/ncu-pattern-run.csv" ;;
tests) step test-gpu make test-gpu ;;
esac
done
tar -C "$OUT" -czf "$FINAL_OUT/gpu-results.tar.gz" .
cp "$SUMMARY" "$FINAL_OUT/summary.txt"
cat "$SUMMARY"
