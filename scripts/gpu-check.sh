#!/usr/bin/env bash
# gpu-check.sh - everything memprobe does on a GPU, in one run on the GPU
# machine: build, SASS check, the main job, GPU tests (which run the
# sweeps with counters and `memprobe ncu-check`), ncu over the full sweep,
# the collector cost benchmark and compute-sanitizer. Prints a summary last.
#
#   OUT=dir scripts/gpu-check.sh [STEP...]
#
# Each step regenerates committed results or the evidence a doc cites
# (results/h200/README.md names the step behind every file):
#   build sass arch device      the binary, its SASS per kernel and arch, the GPU
#   main                        the README's main job (make probe-bank)
#   tests probes reduce bank2d ldsm hazards latency transfer async
#                               the GPU tests of the families, with their CSVs
#   ncu repeat bench nocounters the bank sweep under ncu, again, counters off;
#                               collector cost; another profiler present
#   cost studytime              where the collector's time goes; make study
#   matrix latsweep bwdefault3 seedbitmap
#                               the ldmatrix sweep, the latency sweep, plain
#                               `memprobe bandwidth`, seed 004 as written
#   regress                     every family's whole standard set against ncu
#   multigpu                    two GPUs (nvidia-h200-x2): peers, devices
#   sanitize determinism faults steady covtable ncurepeat
#                               compute-sanitizer, repeat spread, fault
#                               injection, timing spread, ncu five times
#   profile profileplus         memprobe profile on tests/profile/app
#   profilereal                 memprobe profile and ncu on programs of
#                               every kind (tests/profile/real/);
#                               PROFILE_REAL_NCUCHECK=0: without the
#                               ncu-check --profile of each
#   profileci                   --check on PyTorch programs as a CI log
#                               shows it (docs/profile.md, "In CI")
#   profilecost                 what memprobe profile and ncu cost a training
#                               loop and 10,000 short launches, timed inside
#                               the programs (results/h200/profile/cost/)
#   names                       memprobe profile's names and verdicts on
#                               Thrust's sort, templates, registered NVTX
#                               strings and Numba
#   opcodes                     the memory opcodes real programs offend
#                               with, per program and opcode
#   capture                     the capture library of memprobe explain on
#                               tests/profile/app: each memory instruction's
#                               lane addresses in the first launches
#                               (results/h200/explain/)
#   ldgsts                      the copy rule's cp.async replays
#                               (results/h200/explain/ldgsts-sweep/)
#   xfit                        candidate rules for LDGSTS, LDSM, STSM and
#                               atomics against the counts of real programs
#   l2map                       the L2's two halves from every SM, the
#                               plateau chases and the TLB sweep, again
#                               on four SMs for the repeat spread
#                               (results/h200/latency/partitions/)
#   gate maketest               the GPU gate (GPU_COMMIT=...), make test there
#
# Everything is written to a temporary folder and packed into
# $OUT/gpu-results.tar.gz, with the summary copied beside it.
# Never changes the GPU's clocks or settings: ncu runs with
# --clock-control none.
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
FINAL_OUT=$OUT
W=$(mktemp -d)
STEPS=${*:-build sass arch device main tests ncu repeat bench nocounters sanitize}
# Without steps: the build and the bank family's checks; name the steps
# a run needs (for example: build sass device main probes sanitize).
SUMMARY=$W/summary.txt
: > "$SUMMARY"
NCU=${NCU:-ncu}
export GPU_TEST_DIR=$W/gpu-test
METRICS=$(./memprobe columns 2>/dev/null | awk '/^(l1tex__data|smsp__sass_inst_executed_op_shared|gpu__time)/{printf "%s%s", s, $1; s=","}')

# Pack whatever the steps wrote, also when the run is cut short (a time
# limit sends a signal): a partial run still leaves its tarball.
# Past 15 MB (what comes back is 16 MiB a file) the tarball is packed
# again without the tests' files; the gate's TAP log also comes beside it.
pack() {
    tar -C "$W" -czf "$FINAL_OUT/gpu-results.tar.gz" .
    if [ "$(stat -c %s "$FINAL_OUT/gpu-results.tar.gz")" -gt 15000000 ]; then
        echo "pack: gpu-test/ left out of the tarball (over 15 MB)" >> "$SUMMARY"
        tar -C "$W" --exclude=./gpu-test -czf "$FINAL_OUT/gpu-results.tar.gz" .
    fi
    [ -f "$W/test-gpu.tap" ] && gzip -c "$W/test-gpu.tap" > "$FINAL_OUT/test-gpu.tap.gz"
    cp "$SUMMARY" "$FINAL_OUT/summary.txt"
    cat "$SUMMARY"
}
trap pack EXIT
trap 'echo "interrupted" >> "$SUMMARY"; exit 124' INT TERM

step() {  # step NAME COMMAND...: runs, logs, records status and time
    local name=$1; shift
    local t0
    t0=$(date +%s.%N)
    echo "=== $name: $*" >> "$W/log.txt"
    "$@" >> "$W/log.txt" 2>&1
    local rc=$?
    printf '%-14s rc=%-3d %7.1fs\n' "$name" "$rc" \
        "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b - a}')" \
        | tee -a "$SUMMARY"
    return $rc
}

wall() {  # wall LABEL FILE COMMAND...: runs COMMAND, output dropped; "LABEL T s" into FILE
    local label=$1 file=$2 t0
    shift 2
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    echo "$label $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b-a}') s" >> "$file"
}

# profilecost: seconds left to its runs, PROFILECOST_BUDGET_S (default
# 420) from the step's start (COST_T0), or less where DEADLINE_S ends first.
cost_left() {
    local now left d
    now=$(date +%s)
    left=$(( ${PROFILECOST_BUDGET_S:-420} - (now - COST_T0) ))
    if [ -n "${DEADLINE_S:-}" ]; then
        d=$(( DEADLINE_S - (now - T_START) ))
        [ "$d" -lt "$left" ] && left=$d
    fi
    echo "$left"
}

# cost_run P MODE LIMIT_S COMMAND...: COMMAND's output into $C/P-MODE.log
# and "P MODE rc R wall_s S limit_s L [note: ...]" into $C/runs.txt. The
# limit shrinks to the seconds left; with under 20 s left the run is not
# started (rc skipped). A run past its limit gets SIGTERM (its whole
# process group), SIGKILL 10 s later: rc 124 or 137, its lines kept.
cost_run() {
    local prog=$1 mode=$2 limit=$3 left t0 rc n note=""
    shift 3
    left=$(cost_left)
    if [ "$left" -lt 20 ]; then
        echo "$prog $mode rc skipped wall_s - limit_s - note: not started, $left s left of the step's budget (PROFILECOST_BUDGET_S=${PROFILECOST_BUDGET_S:-420}${DEADLINE_S:+, DEADLINE_S=$DEADLINE_S})" >> "$C/runs.txt"
        return 0
    fi
    [ "$left" -lt "$limit" ] && limit=$left
    echo "=== profilecost $prog $mode (limit $limit s): $*" >> "$W/log.txt"
    t0=$(date +%s.%N)
    timeout -k 10 "$limit" "$@" > "$C/$prog-$mode.log" 2>&1
    rc=$?
    n=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c '[0-9]')
    [ "${n:-0}" -gt 0 ] && note=" note: $n processes still on the GPU after it"
    echo "$prog $mode rc $rc wall_s $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}') limit_s $limit$note" >> "$C/runs.txt"
}

# cost_trim DIR: every file's size into DIR/sizes.txt; then ncu's reports
# and the cubins removed; a log over 8 MB keeps the program's own lines
# (steps, progress) and of the rest its first and last 2000 lines, another
# file over 8 MB its first megabyte (NAME.head); the raw folders go if DIR
# still holds over 60 MB, their status, kernels and modules files kept
# beside them, so that the tarball stays small enough to copy back.
cost_trim() {
    local d=$1 f n
    (cd "$d" && find . -type f ! -name sizes.txt -printf '%12s %p\n' | sort -k2) > "$d/sizes.txt"
    find "$d" -type f \( -name '*.ncu-rep' -o -name '*.cubin' \) -delete
    find "$d" -type f -size +8M | while read -r f; do
        case $f in
        *.log)
            n=$(wc -l < "$f")
            awk -v n="$n" 'NR <= 2000 || NR > n - 2000 || /step [0-9]+ ms |train_loop: |many_launches: /' \
                "$f" > "$f.cut" && mv "$f.cut" "$f"
            echo "cut: ${f#"$d"/} (over 8 MB): the program's lines kept, of the rest the first and last 2000" ;;
        *)
            head -c 1048576 "$f" > "$f.head" && rm -f "$f"
            echo "cut: ${f#"$d"/} (over 8 MB): its first MB kept as ${f#"$d"/}.head" ;;
        esac
    done >> "$d/sizes.txt"
    if [ "$(du -sm "$d" | cut -f1)" -gt 60 ]; then
        # the small files stay: the status (its cost line says where the
        # library's time went), the kernels' and the modules' tables
        for f in "$d"/*-raw-*/status.* "$d"/*-raw-*/kernels.* "$d"/*-raw-*/modules.*; do
            [ -f "$f" ] && cp "$f" "$(dirname "$f").$(basename "$f")"
        done
        rm -rf "$d"/*-raw-*/
        echo "removed: the raw folders (the folder held over 60 MB), but for their status, kernels and modules files (RAW.FILE)" >> "$d/sizes.txt"
    fi
}

steady_table() {  # steady_table CSV TXT: config, time CoV, clock note
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { printf "%-50s cov %s  %s\n", $c["config"], $c["time_ns_cov"], $c["clock_note"] }' \
        "$1" | tee "$2"
}

off_model() {  # off_model CSV: rows whose model_match is not yes; fails if any
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["model_match"] != "yes" { n++; print $c["config"], $c["wavefronts_per_request"], $c["model_wavefronts_per_request"] }
        END { print n + 0, "rows off the model of", NR - 1; exit n > 0 }' "$1"
}

bw_table() {  # bw_table CSV TXT: the chosen shapes and what they reached
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { printf "%-45s %-14s i%-2s t%-5s %-8s %7s GB/s %s of peak  x%s memcpy (%s GB/s)  dram rd %s wr %s  cov %s\n",
            $c["config"], $c["shape"], $c["inflight"], $c["threads_per_block"],
            $c["cache"], $c["bandwidth_gbs"], $c["bandwidth_fraction"],
            $c["fraction_of_memcpy"], $c["memcpy_d2d_gbs"],
            $c["dram__bytes_read.sum"], $c["dram__bytes_write.sum"], $c["time_ns_cov"] }' "$1" | tee "$2"
}

SWEEP="--op ld,st --width 4,8,16 --stride 0..64"
CHECKSET="--op ld,st --width 4,8,16 --stride 0,1,2,3,4,8,16,17,32,33 --group 1,2 --iterations 256"

# DEADLINE_S=n: no step (and no ncurepeat run) starts after n seconds, so
# that a run fits a time limit and still packs its results.
T_START=$(date +%s)
past_deadline() {
    [ -n "${DEADLINE_S:-}" ] && [ $(( $(date +%s) - T_START )) -ge "$DEADLINE_S" ]
}

for s in $STEPS; do
if past_deadline; then
    echo "$s: not started (DEADLINE_S=$DEADLINE_S)" | tee -a "$SUMMARY"
    continue
fi
case $s in
build)
    step build make -j16 DEPS=.deps memprobe build/tests/profile/app \
        build/tests/profile/cpp_app build/tests/profile/many_launches real-cpp \
        build/lib/libmemprobe_inject.so build/lib/libmemprobe_client.so $(ls tests/gpu/test_*.c | sed 's|^tests/|build/tests/|; s|\.c$||') \
        $([ -f "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer/include/sanitizer_patching.h" ] && echo capture)
    METRICS=$(./memprobe columns | awk '/^(l1tex__data|smsp__sass_inst_executed_op_shared|gpu__time)/{printf "%s%s", s, $1; s=","}') ;;
sass)
    # Memory instructions of every probe kernel, counted per kernel and
    # opcode (LDS/STS/LDG/STG/LDC/TEX...): the probes must execute the
    # accesses they claim, at the width they claim.
    step sass bash -c "cuobjdump --dump-sass -arch sm_90 memprobe > $W/sass-full.txt &&
        awk '/Function :/{f=\$3} /(LDS|STS|LDG|STG|LDC|TEX|TLD|LD\.|ST\.)/{for(i=1;i<=NF;i++) if (\$i ~ /^(LDS|STS|LDG|STG|LDC|TEX|TLD|LD|ST)(\.|\$)/) {print f, \$i; break}}' \
        $W/sass-full.txt | sort | uniq -c > $W/sass-memory.txt; cat $W/sass-memory.txt" ;;
arch)
    # Every architecture in ./memprobe: the ELF (SASS) and PTX
    # images, then per architecture the memory instructions of every
    # kernel, counted per opcode (sass-archs.txt: "sm_NN kernel OPCODE
    # count"). pf256's loads must be LDG...LTC256B on sm_80 and later and a
    # trap (BPT.TRAP) on sm_75; every other kernel the same opcodes on
    # every architecture.
    step arch bash -c "cuobjdump --list-elf memprobe > $W/arch-elf.txt &&
        cuobjdump --list-ptx memprobe > $W/arch-ptx.txt &&
        for a in \$(sed -n 's/.*\\.\\(sm_[0-9]*\\)\\.cubin.*/\\1/p' $W/arch-elf.txt | sort -u -V); do
            cuobjdump --dump-sass -arch \$a memprobe |
            awk -v a=\$a '/Function :/{f=\$3} /(LDS|STS|LDG|STG|LDC|LDSM|STSM|LDGSTS|UTMA|UBLKCP|TEX|TLD|LD\\.|ST\\.|BPT)/{for(i=1;i<=NF;i++) if (\$i ~ /^(LDS|STS|LDG|STG|LDC|LDSM|STSM|LDGSTS|UTMALDG|UBLKCP|TEX|TLD|LD|ST|BPT)(\\.|\$)/) {print a, f, \$i; break}}' |
            sort | uniq -c; done > $W/sass-archs.txt;
        sed 's/.*\\.\\(sm_[0-9]*\\)\\.cubin.*/\\1/' $W/arch-elf.txt | sort | uniq -c;
        awk '{n[\$2]++} END{for (a in n) print a, n[a], \"kernel x opcode lines\"}' $W/sass-archs.txt | sort -V" ;;
device)
    step device bash -c "./memprobe device > $W/device.txt; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv >> $W/device.txt" ;;
main)
    step main-s4 make probe-bank STRIDE=4 OUT=$W/main.csv
    step main-s17 make probe-bank STRIDE=17 OUT=$W/main.csv ;;
tests)
    # The TAP (skips passing, with their reasons) and its totals come back:
    # test-gpu.txt holds "tests: N ok, N not ok, N skipped" and one
    # "skip: TEST WHY" per skip (scripts/tap-summary.sh).
    step test-gpu make DEPS=.deps TAP_LOG="$W/test-gpu.tap" test-gpu
    scripts/tap-summary.sh "$W/test-gpu.tap" > "$W/test-gpu.txt"
    head -n 1 "$W/test-gpu.txt" >> "$SUMMARY"
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
regress)
    # The whole standard set of each family below against Nsight Compute.
    for p in bank coalesce reduce async cluster; do
        step ncu-check-$p ./memprobe ncu-check --probe $p --dir "$W/ncu-check-$p"
    done ;;
probes)
    # The GPU tests of the probe families after bank, one binary each
    # (make test-gpu runs them all, the bank sweep included).
    for t in coalesce constant texture bandwidth; do
        step test-$t env MEMPROBE=./memprobe build/tests/gpu/test_gpu_$t
    done
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null
    for p in const texture bandwidth; do
        step ncu-check-$p ./memprobe ncu-check --probe $p --dir "$W/ncu-check-$p"
    done ;;
ncu)
    step ncu-sweep $NCU --csv --page raw --print-units base --clock-control none \
        --metrics "$METRICS" --log-file "$W/ncu-sweep.csv" \
        ./memprobe bank $SWEEP --runs 0 --warmup 0 --counters off -o "$W/ncu-sweep-run.csv" ;;
repeat)
    # Run-to-run noise of counters and times: the sweep again.
    step repeat ./memprobe bank $SWEEP --counters on -o "$W/bank-sweep-repeat.csv"
    step counters-off ./memprobe bank $SWEEP --counters off -o "$W/bank-sweep-off.csv" ;;
bench)
    # Collector cost per configuration against ncu with the same metrics:
    # wall time of 30 and of 120 configurations, marginal cost per
    # configuration = (T120 - T30) / 90, for counters off, on, and ncu.
    SMALL="--op ld,st --width 4,8,16 --stride 1,2,4,17,32 --iterations 256"
    for set in small:SMALL big:CHECKSET; do
        name=${set%%:*}
        eval "args=\$${set#*:}"
        for mode in off on; do
            step bench-$mode-$name ./memprobe bank $args --runs 0 --warmup 0 \
                --counters $mode -o "$W/bench-$mode-$name.csv"
        done
        step bench-ncu-$name $NCU --csv --page raw --print-units base --clock-control none \
            --metrics "$METRICS" --log-file "$W/bench-ncu-$name.csv" \
            ./memprobe bank $args --runs 0 --warmup 0 --counters off -o "$W/bench-ncu-run-$name.csv"
    done
    awk '/^bench-/{sub("s$","",$3); t[$1]=$3}
         END{for (m in t) if (m ~ /-big$/) { k=m; sub("-big$","",k);
             printf "%-10s %8.1f ms per configuration (30: %.2f s, 120: %.2f s)\n",
                 k, 1000*(t[m]-t[k "-small"])/90, t[k "-small"], t[m] }}' \
        "$SUMMARY" | sort | tee "$W/bench.txt" ;;
cost)
    # where the collector's time goes (MEMPROBE_PROFILE_COST
    # breakdowns, runtime/cost.h) on the bench's 30 and 120 bank
    # configurations: counters off, on (user replay, the default), on
    # with kernel replay (MEMPROBE_REPLAY=kernel, the old way), ncu;
    # marginal cost per configuration = (T120 - T30) / 90 into cost.txt,
    # and `memprobe compare` of the two replay modes' counters. About 70 s.
    SMALL="--op ld,st --width 4,8,16 --stride 1,2,4,17,32 --iterations 256"
    for set in small:SMALL big:CHECKSET; do
        name=${set%%:*}
        eval "args=\$${set#*:}"
        step cost-off-$name ./memprobe bank $args --runs 0 --warmup 0 \
            --counters off -o "$W/cost-off-$name.csv"
        step cost-on-$name env MEMPROBE_PROFILE_COST="$W/cost-breakdown-on-$name.csv" \
            ./memprobe bank $args --runs 0 --warmup 0 --counters on -o "$W/cost-on-$name.csv"
        step cost-kernel-$name env MEMPROBE_REPLAY=kernel \
            MEMPROBE_PROFILE_COST="$W/cost-breakdown-kernel-$name.csv" \
            ./memprobe bank $args --runs 0 --warmup 0 --counters on \
            -o "$W/cost-kernel-$name.csv"
        step cost-ncu-$name $NCU --csv --page raw --print-units base --clock-control none \
            --metrics "$METRICS" --log-file "$W/cost-ncu-$name.csv" \
            ./memprobe bank $args --runs 0 --warmup 0 --counters off -o "$W/cost-ncu-run-$name.csv"
    done
    step cost-replay-same bash -c "./memprobe compare $W/cost-kernel-big.csv $W/cost-on-big.csv > $W/cost-replay-compare.txt; rc=\$?; tail -1 $W/cost-replay-compare.txt; exit \$rc"
    awk '/^cost-(off|on|kernel|ncu)-(small|big) /{sub("s$","",$3); t[$1]=$3}
         END{for (m in t) if (m ~ /-big$/) { k=m; sub("-big$","",k);
             printf "%-10s %8.1f ms per configuration (30: %.2f s, 120: %.2f s)\n",
                 k, 1000*(t[m]-t[k "-small"])/90, t[k "-small"], t[m] }}' \
        "$SUMMARY" | sort | tee "$W/cost.txt"
    step ncu-check-bank ./memprobe ncu-check --probe bank --dir "$W/ncu-check-bank" ;;
studytime)
    # make study (counters auto, every count from its own
    # launch) timed, with its cost breakdown, then compared with the
    # committed H200 study: 0 values beyond tolerance, 0 rows off the model.
    step studytime env MEMPROBE_PROFILE_COST="$W/cost-breakdown-study.csv" \
        make DEPS=.deps study OUT="$W/study.csv"
    step study-counters bash -c "tail -n +2 $W/study.csv | grep -vc ',ok,' ; true"
    step study-compare bash -c "./memprobe compare results/h200/study/study.csv $W/study.csv > $W/study-compare.txt; rc=\$?; tail -1 $W/study-compare.txt; exit \$rc"
    # What does not depend on the launches' length (the shared sections
    # moved from 16384 to 2048 iterations): per-request counts, model.
    step study-ratios bash -c "scripts/study-ratios.sh results/h200/study/study.csv $W/study.csv > $W/study-ratios.txt; rc=\$?; tail -1 $W/study-ratios.txt; exit \$rc" ;;
steady)
    # the default run of every probe family, timing only: the
    # spread of timed launches (time_ns_cov; goal <= 0.01 for conflict-
    # free cases) and whether the SM clock moved (clock_note). About 20 s.
    for p in bank coalesce const texture bandwidth reduce bitmap; do
        step steady-$p ./memprobe $p --counters off -o "$W/steady.csv"
    done
    step steady-table steady_table "$W/steady.csv" "$W/steady.txt" ;;
nocounters)
    # Counters impossible: another profiler injected (ncu sets
    # CUDA_INJECTION64_PATH). auto: warning + timing-only rows; on: exit 4.
    step nocounters-auto $NCU --metrics gpu__time_duration.sum --clock-control none \
        ./memprobe bank --stride 1 --runs 2 --counters auto -o "$W/nocounters.csv"
    step nocounters-on $NCU --metrics gpu__time_duration.sum --clock-control none \
        ./memprobe bank --stride 1 --runs 2 --counters on -o "$W/nocounters-on.csv"
    # NVTX: the range of one configuration holds its warm-up and timed
    # launches (1 + 2 here) and nothing else.
    # ncu reads "/" in a filter as nesting: escape the name's slashes.
    step nvtx $NCU --nvtx --nvtx-include 'memprobe@bank\/ld\/w4\/s4\/b0\/g1\/p32/' --csv --page raw \
        --clock-control none --metrics gpu__time_duration.sum --log-file "$W/nvtx.csv" \
        ./memprobe bank --stride 1,4,8 --warmup 1 --runs 2 --counters off -o "$W/nvtx-run.csv" ;;
reduce)
    # The reduction ladder: correctness at many sizes, the ladder
    # tables, and the cross-check against ncu.
    step test-reduce env MEMPROBE=./memprobe build/tests/gpu/test_gpu_reduce
    V=host-partials,thread0-serial,tree-interleaved,tree-strided,tree-sequential,warp-shuffle,atomic
    step reduce-ladder ./memprobe reduce --variant $V --workload cubes,dot \
        --blocks 32,0 --counters on -o "$W/reduce-ladder.csv"
    step reduce-large ./memprobe reduce --variant $V --workload dot \
        --size 67108864 --counters on -o "$W/reduce-ladder.csv"
    # Store wavefronts above the model in the trees: one warp alone
    # (1 block of 32 threads) against many warps per block and per SM.
    step reduce-arbitration ./memprobe reduce --variant tree-interleaved,tree-strided,tree-sequential \
        --workload dot --threads 32,256,1024 --blocks 1,132,0 --counters on -o "$W/reduce-arbitration.csv"
    step ncu-check-reduce ./memprobe ncu-check --probe reduce --dir "$W/ncu-check-reduce"
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
bank2d)
    # the seeds' bitmap kernel (as written, [ty][tx], rows of 17)
    # with its write and read counters, and the bank probe's 2D blocks;
    # the GPU test checks images and counters (fixed versions = model).
    # Look at: bitmap.csv (wavefronts_per_request per layout x op beside
    # model_wavefronts_per_request), gpu-test/*bitmap*, ncu-check-bitmap.
    # Estimate: 30-40 s on the H200 (118 small configurations).
    step test-bitmap env MEMPROBE=./memprobe build/tests/gpu/test_gpu_bitmap
    cp "$GPU_TEST_DIR/bitmap.csv" "$W/bitmap.csv" 2>/dev/null
    cp "$GPU_TEST_DIR/bank2d.csv" "$W/bank2d.csv" 2>/dev/null
    cat "$GPU_TEST_DIR/bank2d-48x2.csv" 2>/dev/null | tail -n +2 >> "$W/bank2d.csv"
    step ncu-check-bitmap ./memprobe ncu-check --probe bitmap --dir "$W/ncu-check-bitmap"
    step sass-bitmap bash -c "cuobjdump --dump-sass memprobe | awk '/Function :/{f=\$3} f ~ /bitmap|bank_probe/ && /(LDS|STS)/{for(i=1;i<=NF;i++) if (\$i ~ /^(LDS|STS)/) {print f, \$i; break}}' | sort | uniq -c > $W/sass-bitmap.txt; cat $W/sass-bitmap.txt"
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
ldsm)
    # ldmatrix / stmatrix and --offsets. The
    # GPU test runs ~290 configurations with counters and fails any whose
    # wavefronts per LDSM/STSM differ from the model - a HYPOTHESIS
    # (model/bank_model.c, mp_bank_predict_matrix): its "# config
    # measured model" lines are what the rule is fitted to. ldsm.csv holds
    # every row (config, access, wavefronts_per_request,
    # model_wavefronts_per_request, the smsp__sass_*ldsm/stsm counters);
    # sass-ldsm.txt the LDSM/STSM shapes per kernel. Estimate: 40-50 s.
    step test-matrix env MEMPROBE=./memprobe build/tests/gpu/test_gpu_matrix
    first=1
    for f in matrix-plain matrix-mma matrix-trans matrix-offsets matrix-row-offsets; do
        if [ -f "$GPU_TEST_DIR/$f.csv" ]; then
            if [ $first = 1 ]; then cat "$GPU_TEST_DIR/$f.csv"; first=0
            else tail -n +2 "$GPU_TEST_DIR/$f.csv"; fi
        fi
    done > "$W/ldsm.csv"
    step sass-ldsm bash -c "cuobjdump --dump-sass memprobe | awk '/Function :/{f=\$3} f ~ /matrix_probe/ && /(LDSM|STSM)/{for(i=1;i<=NF;i++) if (\$i ~ /^(LDSM|STSM)/) {print f, \$i; break}}' | sort | uniq -c > $W/sass-ldsm.txt; cat $W/sass-ldsm.txt"
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
matrix)
    # The whole matrix sweep: configs/matrix.conf (ldsm/stsm x matrices x
    # trans x pitch 16..272 x swizzle x plain/MMA rows, 1584
    # configurations) with counters on; memprobe exits 1 if any row is off
    # the model (model_match no). results/h200/bank/matrix.csv.
    step matrix-sweep ./memprobe sweep configs/matrix.conf --counters on \
        -o "$W/matrix.csv"
    step matrix-off-model off_model "$W/matrix.csv"
    # The report's matrix tables of it (matrix-report.txt): '*' marks a cell
    # whose measured wavefronts differ from the model; the last lines count
    # them (both must say 0 cells).
    step report-matrix bash -c "./memprobe report --table matrix $W/matrix.csv > $W/matrix-report.txt; ./memprobe report --table matrix-free $W/matrix.csv >> $W/matrix-report.txt; grep differ $W/matrix-report.txt"
    step test-matrix env MEMPROBE=./memprobe build/tests/gpu/test_gpu_matrix
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
hazards)
    # The hazard catalogue: every seed bug with a result check and under the
    # four compute-sanitizer tools (about 35 child runs, each limited to 20 s).
    step test-hazards env MEMPROBE=./memprobe HAZARDS_TIMEOUT=20 build/tests/gpu/test_gpu_hazards
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
latency)
    # The memory hierarchy: the GPU test (verified chases,
    # counters' level against the model, latency rising from level to
    # level), the whole latency sweep with counters (182 configurations,
    # estimated 90-120 s), bandwidth against footprint (57 configurations,
    # 30-40 s), ncu against the collector for the latency set, the SASS of
    # the chase kernels (one LDG / LDS / LDC per load, nothing else on the
    # chain) and of the repeated-walk bandwidth kernels, and the hierarchy
    # table of the sweep. Total estimate: 3-4 minutes.
    step latency-build make -j16 ARCH=90 DEPS=.deps memprobe build/tests/gpu/test_gpu_latency
    step test-latency env MEMPROBE=./memprobe build/tests/gpu/test_gpu_latency
    step latency-sweep timeout -s INT 240 ./memprobe sweep configs/latency.conf --counters on -o "$W/latency.csv"
    step bandwidth-footprint timeout -s INT 90 ./memprobe sweep configs/bandwidth-footprint.conf --counters on -o "$W/bandwidth-footprint.csv"
    step ncu-check-latency ./memprobe ncu-check --probe latency --dir "$W/ncu-check-latency"
    step latency-sass bash -c "cuobjdump --dump-sass build/probes/latency/latency.cu.o > $W/sass-latency-full.txt &&
        awk '/Function :/{f=\$3} /(LDG|LDS|LDC|CS2R|STG)/{print f, \$0}' $W/sass-latency-full.txt > $W/sass-latency.txt;
        awk '{print \$1}' $W/sass-latency.txt | sort | uniq -c"
    # The repeated-walk bandwidth kernels (R = true): the LDG.E.128 of each
    # walk must stay (counted per kernel), not be merged across walks.
    step bandwidth-repeat-sass bash -c "cuobjdump --dump-sass build/probes/bandwidth/bandwidth.cu.o |
        awk '/Function :/{f=\$3} /LDG|STG/{print f}' | grep 'Lb1E' | sort | uniq -c > $W/sass-bandwidth-repeat.txt; wc -l $W/sass-bandwidth-repeat.txt"
    step hierarchy ./memprobe hierarchy "$W/latency.csv" --format md
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
sanitize)
    # Every family's standard set under the four tools (make sanitize).
    step sanitize timeout ${SANITIZE_LIMIT:-240} scripts/sanitize.sh ./memprobe "$W/sanitizer-summary.txt" ;;
determinism)
    # The standard sets twice, counters on: run-to-run spread per family.
    step determinism env MEMPROBE=./memprobe build/tests/gpu/test_gpu_determinism
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
faults)
    # A sweep killed with SIGKILL, resumed: every configuration once.
    step kill-sweep timeout -s KILL 3 ./memprobe sweep configs/const.conf -o "$W/resume-kill.csv"
    step kill-rows bash -c "tail -n +2 $W/resume-kill.csv | wc -l"
    step kill-resume ./memprobe sweep configs/const.conf --resume -o "$W/resume-kill.csv"
    step kill-once bash -c "n=\$(./memprobe sweep configs/const.conf --list | grep -c /);
        test \$(tail -n +2 $W/resume-kill.csv | wc -l) -eq \$n &&
        test \$(tail -n +2 $W/resume-kill.csv | cut -d, -f8 | sort -u | wc -l) -eq \$n"
    # Counters lost after 2 batches of 8: auto keeps timing-only rows with
    # the reason (exit 0), on does the same and exits 4.
    step lose-auto env MEMPROBE_LOSE_COUNTERS_AFTER=2 ./memprobe bank --stride 0..31 \
        --batch 8 --runs 3 --counters auto -o "$W/lose-auto.csv"
    step lose-on bash -c "MEMPROBE_LOSE_COUNTERS_AFTER=2 ./memprobe bank --stride 0..31 \
        --batch 8 --runs 3 --counters on -o $W/lose-on.csv; test \$? -eq 4" ;;
transfer)
    # Host transfers: the GPU test (every copy verified, ~20 s),
    # the sweep of configs/transfer.conf (155 copies, pinned / pageable /
    # mapped / managed x h2d / d2h / bidir x 4 KiB .. 1 GiB, d2d; ~50 s),
    # the copy kernel's counters against ncu and its SASS. About 90 s.
    step test-transfer env MEMPROBE=./memprobe build/tests/gpu/test_gpu_transfer
    step transfer-sweep ./memprobe sweep configs/transfer.conf --counters off -o "$W/transfer.csv"
    step ncu-check-transfer ./memprobe ncu-check --probe transfer --dir "$W/ncu-check-transfer"
    step sass-transfer bash -c "cuobjdump --dump-sass build/probes/transfer/transfer.cu.o \
        | grep -E 'Function|LDG|STG|LD\.|ST\.' > $W/sass-transfer.txt; cat $W/sass-transfer.txt"
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
multigpu)
    # Two GPUs (nvidia-h200-x2): the node and its peer matrix,
    # the transfer GPU test (peer copies included), peer copies both ways
    # with and without peer access (configs/transfer-p2p.conf, 48 copies,
    # ~40 s), host transfers per GPU (~30 s), and a sweep dealt over both
    # GPUs into one CSV, killed after 3 s (SIGKILL to the parent: the
    # workers die with it) and resumed: every configuration once. ~2 min.
    step device-all bash -c "./memprobe device --all | tee $W/device-all.txt"
    step test-transfer-2gpu env MEMPROBE=./memprobe build/tests/gpu/test_gpu_transfer
    step p2p-sweep ./memprobe sweep configs/transfer-p2p.conf --counters off -o "$W/transfer-p2p.csv"
    for d in 0 1; do
        step host-gpu$d ./memprobe transfer --device $d --direction h2d,d2h,bidir \
            --host-memory pinned,pageable --bytes 4096,1048576,67108864,1073741824 \
            --runs 5 --counters off -o "$W/transfer-host-per-gpu.csv"
    done
    step devices-kill timeout -s KILL 3 ./memprobe sweep configs/const.conf --devices all \
        --batch 8 -o "$W/sweep-devices.csv"
    step devices-left bash -c "ls -l $W/sweep-devices.csv*; cat $W/sweep-devices.csv.dev*.log 2>/dev/null | tail -5"
    step devices-resume ./memprobe sweep configs/const.conf --devices all --batch 8 \
        --resume -o "$W/sweep-devices.csv"
    step devices-once bash -c "n=\$(./memprobe sweep configs/const.conf --list | grep -c /);
        test \$(tail -n +2 $W/sweep-devices.csv | wc -l) -eq \$n &&
        test \$(tail -n +2 $W/sweep-devices.csv | cut -d, -f8 | sort -u | wc -l) -eq \$n"
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
async)
    # global -> shared copies (staged, cp.async, bulk, tensor
    # with each swizzle) and distributed shared memory (clusters). Builds
    # what it needs (sm_90 only), runs both GPU tests, the sweeps into
    # $W/async.csv and $W/cluster.csv, the ncu cross-checks, and the SASS
    # of the kernels (LDGSTS, UBLKCP, UTMALDG, SYNCS for the mbarrier, STS
    # for the staged copy; LD/ST for remote shared memory, LDS/STS local,
    # UCGABAR for the cluster barrier). Estimate: about 60-80 s.
    step async-build make -j16 ARCH=90 DEPS=.deps memprobe \
        build/tests/gpu/test_gpu_async build/tests/gpu/test_gpu_cluster
    step test-async env MEMPROBE=./memprobe build/tests/gpu/test_gpu_async
    step test-cluster env MEMPROBE=./memprobe build/tests/gpu/test_gpu_cluster
    step sweep-async ./memprobe sweep configs/async.conf --counters on -o "$W/async.csv"
    step sweep-cluster ./memprobe sweep configs/cluster.conf --counters on -o "$W/cluster.csv"
    step ncu-check-async ./memprobe ncu-check --probe async --dir "$W/ncu-check-async"
    step ncu-check-cluster ./memprobe ncu-check --probe cluster --dir "$W/ncu-check-cluster"
    for f in async cluster; do
        step sass-$f bash -c "cuobjdump --dump-sass build/probes/$f/$f.cu.o > $W/sass-$f-full.txt &&
            awk '/Function :/{f=\$3} /(LDGSTS|UBLKCP|UTMALDG|SYNCS|DEPBAR|UCGABAR|STS|LDS|LDG|LD\.|ST\.)/{for(i=1;i<=NF;i++) if (\$i ~ /^(LDGSTS|UBLKCP|UTMALDG|SYNCS|DEPBAR|LDGDEPBAR|UCGABAR_[A-Z]*|STS|LDS|LDG|LD|ST)(\.|\$)/) {print f, \$i; break}}' \
            $W/sass-$f-full.txt | sed 's/^[^ ]*${f}_probe/${f}_probe/' | sort | uniq -c > $W/sass-$f.txt; cat $W/sass-$f.txt"
    done
    cp -r "$GPU_TEST_DIR" "$W/" 2>/dev/null ;;
l2map)
    step l2map bash -c "./memprobe l2map --plateau --tlb --format md -o $W/l2map.csv | tee $W/l2map.md"
    step l2map-repeat bash -c "for r in 1 2 3; do ./memprobe l2map --sm 0,2,66,131 -o $W/l2map-repeat.csv > /dev/null || exit 1; done"
    step l2map-sass bash -c "cuobjdump --dump-sass build/probes/latency/l2map.cu.o > $W/sass-l2map-full.txt &&
        awk '/Function :/{f=\$3} /(LDG|CS2R|S2R|ATOM)/{print f, \$0}' $W/sass-l2map-full.txt > $W/sass-l2map.txt;
        awk '{print \$1, \$3}' $W/sass-l2map.txt | sort | uniq -c" ;;
latsweep)
    # the latency sweep after the chase walks its whole chain before
    # timing (results/h200/latency/latency.csv: 0 rows off the model), the
    # device-memory plateau by default (random 128 MiB .. 1 GiB, 4096 timed
    # loads) beside the same with 1048576 timed loads (the fully warm number
    # the default must give, within 3%), the SASS of the chase kernels, and
    # the hierarchy table. About 3 minutes.
    step latency-sweep timeout -s INT 300 ./memprobe sweep configs/latency.conf --counters on -o "$W/latency.csv"
    step latency-off-model bash -c "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
        \$c[\"model_match\"] == \"no\" { n++; print \$c[\"config\"], \$c[\"model_level\"], \$c[\"counter_level\"] }
        END { print n + 0, \"rows off the model of\", NR - 1; exit n > 0 }' $W/latency.csv"
    step latency-plateau ./memprobe latency --footprint 134217728..1073741824:x2 --order random --counters off -o "$W/latency-plateau.csv"
    step latency-plateau-1m ./memprobe latency --footprint 268435456,1073741824 --order random --loads 1048576 --warmup 1 --runs 3 --counters off -o "$W/latency-plateau.csv"
    step latency-plateau-table bash -c "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
        { printf \"%-44s loads %8s  %8.2f cycles  cov %s\n\", \$c[\"config\"], \$c[\"loads\"], \$c[\"cycles_per_load\"], \$c[\"time_ns_cov\"] }' $W/latency-plateau.csv | tee $W/latency-plateau.txt"
    step latency-sass bash -c "cuobjdump --dump-sass build/probes/latency/latency.cu.o > $W/sass-latency-full.txt &&
        awk '/Function :/{f=\$3} /(LDG|LDS|LDC|CS2R|STG)/{print f, \$0}' $W/sass-latency-full.txt > $W/sass-latency.txt;
        awk '{print \$1}' $W/sass-latency.txt | sort | uniq -c"
    step hierarchy bash -c "./memprobe hierarchy $W/latency.csv --format md | tee $W/hierarchy.md" ;;
seedbitmap)
    # seed 004's kernel exactly as written
    # (scripts/explore/seed004_bitmap.cu, the same PTX as the probe's seed
    # layout: probes/bitmap/test_as_written.c) under Nsight Compute three times,
    # beside memprobe's bitmap probe: load and store wavefronts per
    # instruction within 1%. Its SASS beside the probe's.
    step seed-build nvcc -O3 -arch=sm_90 -lineinfo -o "$W/seed004_bitmap" scripts/explore/seed004_bitmap.cu
    SEEDM=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
    for r in 1 2 3; do
        step seed-ncu-$r $NCU --csv --page raw --print-units base --clock-control none \
            --metrics $SEEDM --log-file "$W/seed-ncu-$r.csv" "$W/seed004_bitmap"
    done
    step seed-memprobe ./memprobe bitmap --layout seed --op ld,st --counters on -o "$W/seed-memprobe.csv"
    step seed-compare bash -c "scripts/seed-compare.sh $W/seed-memprobe.csv $W/seed-ncu-*.csv | tee $W/seed-compare.txt; exit \${PIPESTATUS[0]}"
    step seed-sass bash -c "cuobjdump --dump-sass $W/seed004_bitmap | grep -E 'LDS|STS' > $W/sass-seed004.txt;
        cuobjdump --dump-sass -arch sm_90 memprobe | awk '/Function :/{f=\$3} f ~ /bitmap_kernelILi0E/' | grep -E 'LDS|STS' > $W/sass-probe-seed.txt;
        cat $W/sass-seed004.txt $W/sass-probe-seed.txt" ;;
ncurepeat)
    # each family with arbitration-dependent counters
    # cross-checked against Nsight Compute five times in a row (each run
    # must pass), then the spread of ncu's five runs per metric
    # (`memprobe ncu-check --spread`): every tolerance in force must be at
    # least 3x the largest difference seen. About 4 minutes.
    for p in ${NCUREPEAT_PROBES:-bitmap reduce texture const async cluster bank}; do
        past_deadline && { echo "ncurepeat $p: not started (deadline)" >> "$SUMMARY"; continue; }
        for r in 1 2 3 4 5; do
            step ncurep-$p-$r ./memprobe ncu-check --probe $p --dir "$W/ncurep-$p-$r"
        done
        step spread-$p bash -c "./memprobe ncu-check --probe $p --spread $W/ncurep-$p-1/memprobe.csv $W/ncurep-$p-[1-5]/ncu.csv > $W/spread-$p.txt; rc=\$?; cat $W/spread-$p.txt; exit \$rc"
    done ;;
covtable)
    # the spread of timed samples (time_ns_cov) of every
    # family's default run and standard set, counters off, with automatic
    # launches per sample (samples of at least 1 ms), with one launch per
    # sample (the old timing) and with samples of at least 100 us
    # (--sample-us 100, the old default), and the table per family:
    # median, p90 and max CoV, outliers, launches per sample. About 2
    # minutes.
    ./memprobe list --standard > "$W/standard.txt"
    while read -r p args; do
        past_deadline && break
        step cov-default-$p ./memprobe $p --counters off -o "$W/cov-default.csv"
        step cov-set-$p bash -c "./memprobe $p $args --counters off -o $W/cov-set.csv"
        step cov-set1-$p bash -c "./memprobe $p $args --counters off --launches 1 -o $W/cov-set1.csv"
        step cov-set100-$p bash -c "./memprobe $p $args --counters off --sample-us 100 -o $W/cov-set100.csv"
    done < "$W/standard.txt"
    step cov-table bash -c "for f in cov-default cov-set cov-set1 cov-set100; do echo \"# \$f\"; scripts/cov-table.sh $W/\$f.csv; done | tee $W/cov-table.txt" ;;
bwdefault3)
    # `memprobe bandwidth` as a user types it (the plain
    # command runs read; BWDEFAULT_ARGS, default --kernel read,write,copy,
    # asks for all three goals), in three processes (the first searches
    # the shapes, the others read the shape cache), beside cudaMemcpy D2D
    # in the same run.
    export MEMPROBE_SHAPE_CACHE="$W/bandwidth-shapes3"
    rm -f "$MEMPROBE_SHAPE_CACHE"
    for r in 1 2 3; do
        step bwdefault3-$r ./memprobe bandwidth ${BWDEFAULT_ARGS---kernel read,write,copy} -o "$W/bandwidth-default3.csv"
    done
    step bwdefault3-table bw_table "$W/bandwidth-default3.csv" "$W/bandwidth-default3.txt"
    unset MEMPROBE_SHAPE_CACHE ;;
gate)
    # The GPU gate: the full `make test-gpu` of commit
    # GPU_COMMIT (from `scripts/gpu-gate.sh commit` on the checkout, which
    # refuses a dirty tree: the device gets the tree without its history)
    # into $W/test-gpu.txt, committed as results/h200/test-gpu.txt:
    #   commit: <40 hex>  result: PASS|FAIL  duration_s: N  limit_s: 300
    #   tests: N ok, N not ok, N skipped  skip: <test> <why> (each)
    #   fail: <test> <what> (each)  why: <reason it is not a PASS> (each)
    # PASS: make exits 0, no test fails, every skip is one this machine
    # cannot run (GATE_SKIPS: peer copies on one GPU), within 300 s.
    if ! [[ ${GPU_COMMIT:-} =~ ^[0-9a-f]{40}$ ]]; then
        echo "gate: GPU_COMMIT must be the 40-hex commit of this tree (scripts/gpu-gate.sh commit)" | tee -a "$SUMMARY"
        exit 2
    fi
    GATE_SKIPS=${GATE_SKIPS:-one GPU: peer copies need two}
    t0=$(date +%s)
    step test-gpu make DEPS=.deps TAP_LOG="$W/test-gpu.tap" test-gpu
    rc=$?
    dur=$(( $(date +%s) - t0 ))
    scripts/tap-summary.sh "$W/test-gpu.tap" > "$W/tap-summary.txt"
    awk '/^# program: /{p = $3; sub(".*/", "", p)} /^# seconds: /{printf "%-24s %7.1f s\n", p, $3}' \
        "$W/test-gpu.tap" | tee "$W/test-gpu-times.txt" >> "$SUMMARY"
    {
        [ $rc -eq 0 ] || echo "why: make test-gpu exited $rc"
        grep -q '^tests: [0-9]* ok, 0 not ok, ' "$W/tap-summary.txt" || echo "why: a test failed"
        grep '^skip: ' "$W/tap-summary.txt" | grep -v -F "$GATE_SKIPS" | sed 's/^skip: /why: a skip this machine should not make: /'
        [ $dur -le 300 ] || echo "why: $dur s, over the 300 s limit"
    } > "$W/gate-why.txt"
    result=PASS
    [ -s "$W/gate-why.txt" ] && result=FAIL
    { echo "commit: $GPU_COMMIT"; echo "result: $result"; echo "duration_s: $dur"
      echo "limit_s: 300"; cat "$W/tap-summary.txt" "$W/gate-why.txt"; } > "$W/test-gpu.txt"
    cat "$W/test-gpu.txt" | head -20 >> "$SUMMARY"
    # the tests' files under GATE_KEEP_KB (1024) each, so that the packed
    # results stay small; the larger ones named in gpu-test-left.txt
    mkdir -p "$W/gpu-test"
    (cd "$GPU_TEST_DIR" && find . -type f -size -${GATE_KEEP_KB:-1024}k -print0 \
        | tar --null -T - -cf -) | tar -C "$W/gpu-test" -xf - 2>/dev/null
    (cd "$GPU_TEST_DIR" && find . -type f ! -size -${GATE_KEEP_KB:-1024}k -printf '%s %p\n') \
        > "$W/gpu-test-left.txt" 2>/dev/null ;;
profile)
    # `memprobe profile` on the test program (tests/profile/app):
    # the raw files kept, with the library's debug trace and the chip's
    # SASS metric list; ncu's source page of the same program; the check
    # on the program and its padded-only variant; a crash case; the cost
    # (program alone, under memprobe profile, under ncu's SourceCounters;
    # many short launches). PROFILE_APP_ARGS: extra app arguments.
    P=$W/profile; mkdir -p "$P"
    app=build/tests/profile/app
    step profile-build make -j16 DEPS=.deps memprobe build/lib/libmemprobe_inject.so $app \
        build/tests/gpu/test_gpu_profile
    cuobjdump -sass $app > "$P/app-sass.txt" 2>&1
    step profile-run env MEMPROBE_DEBUG=1 ./memprobe profile --keep-raw "$P/raw" \
        -o "$P/profile.csv" -- $app
    step profile-report ./memprobe report "$P/profile.csv"
    step profile-check ./memprobe profile --check 'shared<=1.0,global<=1.0' \
        -o "$P/check.csv" -- $app
    step profile-check-padded ./memprobe profile --check 'shared<=1.0,global<=1.0' \
        -o "$P/check-padded.csv" -- $app --padded-only
    step profile-crash ./memprobe profile -o "$P/crash.csv" -- $app --crash-after 3
    step ncu-source bash -c "$NCU --section SourceCounters --clock-control none -f \
        -o $P/src $app > $P/ncu-src.log 2>&1 && $NCU -i $P/src.ncu-rep --page source \
        --csv --print-source sass > $P/ncu-source.csv"
    step profile-ncu-check ./memprobe ncu-check --profile -- $app
    for k in 1 2 3; do
        for how in alone memprobe ncu; do
            case $how in
            alone) cmd="$app" ;;
            memprobe) cmd="./memprobe profile -o $P/cost.csv -- $app" ;;
            ncu) cmd="$NCU --section SourceCounters --clock-control none -f -o $P/cost $app" ;;
            esac
            wall "app $how run$k" "$P/cost.txt" $cmd
        done
    done
    for n in 1000 10000; do
        for how in alone memprobe; do
            cmd="$app --short $n"
            [ $how = memprobe ] && cmd="./memprobe profile -o $P/short.csv -- $app --short $n"
            wall "short$n $how" "$P/cost.txt" $cmd
        done
    done
    cat "$P/cost.txt" >> "$SUMMARY"
    [ -x build/tests/gpu/test_gpu_profile ] && step test-gpu-profile bash -c \
        "CMOCKA_MESSAGE_OUTPUT=TAP MEMPROBE=./memprobe scripts/tap-run.sh \
        build/tests/gpu/test_gpu_profile > $P/test_gpu_profile.tap 2>&1" ;;
profileplus)
    # the range pass (--level kernel+ and the fallback for
    # launches without line counts): the GPU profile test (its kernel+ and
    # fallback cases), then the cost of `memprobe profile` at --level
    # kernel and kernel+ on tests/profile/app (2 runs each), a kernel+
    # profile with the library's debug trace (range-profiler setup, Start,
    # batch times) and a --fallback rerun profile of the NO_SASS hook.
    # Under 60 s.
    P=$W/profileplus; mkdir -p "$P"
    app=build/tests/profile/app
    step profileplus-build make -j16 DEPS=.deps memprobe build/lib/libmemprobe_inject.so $app \
        build/tests/gpu/test_gpu_profile
    [ -x build/tests/gpu/test_gpu_profile ] && step test-gpu-profile-plus bash -c \
        "CMOCKA_MESSAGE_OUTPUT=TAP MEMPROBE=./memprobe GPU_TEST_DIR=$P/gpu-test \
        scripts/tap-run.sh build/tests/gpu/test_gpu_profile > $P/test_gpu_profile.tap 2>&1"
    step profileplus-trace bash -c "MEMPROBE_DEBUG=1 ./memprobe profile --level kernel+ \
        --keep-raw $P/raw -o $P/kplus.csv -- $app > $P/kplus-trace.txt 2>&1"
    grep -h 'range pass' "$P/kplus-trace.txt" > "$P/range-calls.txt" 2>/dev/null
    step profileplus-fallback bash -c "MEMPROBE_INJECT_NO_SASS='^(transpose_padded|load_aligned)$' \
        ./memprobe profile --fallback rerun -o $P/fallback.csv -- $app > $P/fallback.log 2>&1"
    for k in 1 2; do
        for how in alone kernel kernel+; do
            case $how in
            alone) cmd="$app" ;;
            *) cmd="./memprobe profile --level $how -o $P/cost.csv -- $app" ;;
            esac
            wall "app $how run$k" "$P/cost.txt" $cmd
        done
    done
    cat "$P/cost.txt" "$P/range-calls.txt" >> "$SUMMARY" 2>/dev/null ;;
profilereal)
    # memprobe profile on programs of every kind users run
    # (tests/profile/real/: C++ with cuBLAS, PyTorch eager and with
    # torch.profiler, Triton, JAX with and without jax.profiler, CuPy,
    # Numba): the GPU test of them with every program, each launch paired
    # with ncu's by mangled name and order; then `memprobe ncu-check
    # --profile` (per instruction, ncu's source counters) on each; the
    # summary table into real.txt (results/h200/profile/real/).
    P=$W/profile-real
    mkdir -p "$P"
    make -j16 DEPS=.deps build/tests/profile/cpp_app build/tests/gpu/test_gpu_profile_real \
        build/lib/libmemprobe_client.so >> "$W/log.txt" 2>&1
    step profilereal-test bash -c "CMOCKA_MESSAGE_OUTPUT=TAP MEMPROBE=./memprobe \
        MEMPROBE_PROFILE_REAL=all GPU_TEST_DIR=$P scripts/tap-run.sh \
        build/tests/gpu/test_gpu_profile_real > $P/test_gpu_profile_real.tap 2>&1"
    [ "${PROFILE_REAL_NCUCHECK:-1}" = 1 ] && \
    for n in cpp_app torch_small torch_eager torch_profiler triton_add jax_jit jax_profiler cupy_two numba_k; do
        case $n in cpp_app) cmd=build/tests/profile/cpp_app ;;
                   *) cmd="python3 tests/profile/real/$n.py" ;; esac
        step "ncucheck-$n" bash -c "./memprobe ncu-check --dir $P/ncucheck-$n --profile -- $cmd \
            > $P/ncucheck-$n.txt 2>&1"
        echo "$n ncu-check --profile rc=$? $(grep -h 'instructions compared' $P/ncucheck-$n.txt | head -1)" >> "$P/real.txt"
        rm -f "$P/ncucheck-$n"/*.ncu-rep "$P/ncucheck-$n"/*.cubin
    done
    grep -h '^# ' "$P/test_gpu_profile_real.tap" | grep -v '^# seconds\|^# program' >> "$P/real.txt"
    grep -c '^ok' "$P/test_gpu_profile_real.tap" | sed 's/^/ok: /' >> "$P/real.txt"
    grep '^not ok' "$P/test_gpu_profile_real.tap" >> "$P/real.txt"
    cat "$P/real.txt" >> "$SUMMARY" ;;
profileci)
    # docs/profile.md's CI example: `memprobe profile --check` on
    # PyTorch programs (a Triton kernel of the program's own beside
    # PyTorch's and cuBLAS's kernels; PyTorch's strided copies), the
    # output as a CI log shows it, each command's exit status after it.
    P=$W/profile-ci; mkdir -p "$P"
    for n in triton_offender torch_offender; do
        f=tests/profile/real/$n.py
        [ -f "$f" ] || f=results/h200/profile/real-offender/$n.py
        for how in own libraries; do
            extra=
            if [ $how = libraries ]; then
                ./memprobe profile --help 2>&1 | grep -q -- --check-libraries || continue
                extra=--check-libraries
            fi
            printf '$ memprobe profile %s--check '"'"'shared<=1.0,global<=1.0'"'"' -o %s.csv -- python3 %s.py\n' \
                "${extra:+$extra }" "$n-$how" "$n" > "$P/$n-$how.txt"
            (cd "$P" && "$OLDPWD/memprobe" profile $extra --check 'shared<=1.0,global<=1.0' \
                -o "$n-$how.csv" -- python3 "$OLDPWD/$f"; echo "exit $?") >> "$P/$n-$how.txt" 2>&1
            ./memprobe report "$P/$n-$how.csv" > "$P/$n-$how-report.txt" 2>&1
            { echo "== $n ($how)"; grep -v '^\$' "$P/$n-$how.txt"; } >> "$SUMMARY"
        done
    done ;;
capture)
    # memprobe explain (explain/, its capture library explain/capture/) on the
    # test program, then on real programs (C++ with cuBLAS, a Triton
    # kernel, PyTorch eager with its library kernels judged): each
    # `memprobe explain -o NAME.csv -- PROGRAM` (its profile, want file
    # and capture kept beside), then the program timed alone twice and
    # with the capture library on the same want file (the capture run's
    # cost; CAPTURE_TRACE=1 traces the library's callbacks). Into
    # capture/: the GPU test of explain (test_gpu_explain.tap), per
    # program NAME.txt (the output), NAME-cost.txt, and cost.txt.
    # CAPTURE_PROGRAMS names the programs (default: app cpp_app
    # triton_offender torch_eager; train_loop runs 3 steps;
    # tests/profile/real/NAME.py for others); CAPTURE_LIMIT_S (240) bounds
    # each explain and capture run.
    X=$W/capture
    mkdir -p "$X"
    step capture-build make -j16 DEPS=.deps memprobe capture build/tests/profile/app \
        build/tests/profile/cpp_app build/tests/gpu/test_gpu_explain \
        build/lib/libmemprobe_inject.so build/lib/libmemprobe_client.so
    # first a traced run on the test program, 90 s at most: a library
    # that hangs the program stops the step here
    t0=$(date +%s.%N)
    MEMPROBE_CAPTURE_TRACE=1 timeout -k 10 90 ./memprobe explain -o "$X/first.csv" \
        -- build/tests/profile/app > "$X/first.txt" 2>&1
    rc=$?
    echo "explain-first rc=$rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f s", b-a}')" | tee -a "$SUMMARY"
    grep -v '^trace' "$X/first-capture.csv.status" 2>/dev/null | head -8 | tee -a "$SUMMARY"
    grep '^trace' "$X/first-capture.csv.status" 2>/dev/null | head -40 > "$X/first-trace.txt"
    tail -5 "$X/first.txt" >> "$SUMMARY"
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        tail -20 "$X/first-trace.txt" >> "$SUMMARY"
        continue
    fi
    step explain-test bash -c "CMOCKA_MESSAGE_OUTPUT=TAP MEMPROBE=./memprobe \
        GPU_TEST_DIR=$X scripts/tap-run.sh build/tests/gpu/test_gpu_explain \
        > $X/test_gpu_explain.tap 2>&1"
    grep -E '^(not )?ok|^# .*(MISMATCH|offending lines|predicted)' "$X/test_gpu_explain.tap" \
        | head -40 | tee -a "$SUMMARY"
    : > "$X/cost.txt"
    for n in ${CAPTURE_PROGRAMS:-app cpp_app triton_offender torch_eager}; do
        extra=
        case $n in app) cmd=build/tests/profile/app ;;
                   cpp_app) cmd=build/tests/profile/cpp_app ;;
                   torch_eager) cmd="python3 tests/profile/real/$n.py"; extra=--check-libraries ;;
                   train_loop) cmd="python3 tests/profile/real/$n.py 3 1"; extra=--check-libraries ;;
                   *) cmd="python3 tests/profile/real/$n.py" ;; esac
        t0=$(date +%s.%N)
        timeout -k 10 ${CAPTURE_LIMIT_S:-240} ./memprobe explain $extra -o "$X/$n.csv" -- $cmd > "$X/$n.txt" 2>&1
        echo "explain-$n rc=$? $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f s", b-a}')" \
            | tee -a "$X/cost.txt"
        for r in 1 2; do
            t0=$(date +%s.%N)
            timeout -k 10 120 $cmd > "$X/$n-alone-$r.log" 2>&1
            echo "$n alone-$r rc=$? $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f s", b-a}')" \
                | tee -a "$X/cost.txt"
        done
        if [ -s "$X/$n-want.txt" ]; then
            t0=$(date +%s.%N)
            MEMPROBE_CAPTURE_TRACE=${CAPTURE_TRACE:-0} MEMPROBE_CAPTURE_FILE=$X/$n-cost-capture.csv \
                MEMPROBE_CAPTURE_WANT=$X/$n-want.txt LD_PRELOAD=$PWD/build/lib/libmemprobe_capture.so \
                timeout -k 10 ${CAPTURE_LIMIT_S:-240} $cmd > "$X/$n-capture.log" 2>&1
            echo "$n capture rc=$? $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f s", b-a}') $(wc -l < "$X/$n-want.txt") instructions wanted, $(($(wc -l < "$X/$n-cost-capture.csv") - 1)) rows" \
                | tee -a "$X/cost.txt"
            grep '^time' "$X/$n-cost-capture.csv.status" | tee -a "$X/cost.txt"
            head -c 20000 "$X/$n-cost-capture.csv.status" > "$X/$n-cost-status.txt"
            rm -f "$X/$n-cost-capture.csv" "$X/$n-cost-capture.csv.status"
        fi
        { echo "== explain $n"; grep -E 'offending line|^memprobe|x ideal' "$X/$n.txt" | head -12; } >> "$SUMMARY"
    done
    cat "$X/cost.txt" >> "$SUMMARY"
    (cd "$X" && find . -type f -size +20M -delete; find . -type f -printf '%12s %p\n' | sort -k2) > "$X/sizes.txt" ;;
names)
    # The names and verdicts memprobe profile gives programs nobody here
    # wrote the way they did: Thrust's sort with CUB compiled in, a
    # template instantiated twice and registered NVTX strings
    # (thrust_sort), Numba's ABI-tagged names (numba_offender), and
    # ncu-check --profile on the sort, whose CUB kernels count
    # differently from run to run (results/h200/profile/names/).
    P=$W/names; mkdir -p "$P"
    make -j16 DEPS=.deps real-cpp >> "$W/log.txt" 2>&1
    step names-thrust bash -c "./memprobe profile --check 'shared<=1.0,global<=1.0' \
        -o $P/thrust_sort.csv -- build/tests/profile/thrust_sort > $P/thrust_sort.txt 2>&1;
        echo exit \$? >> $P/thrust_sort.txt"
    ./memprobe report "$P/thrust_sort.csv" > "$P/thrust_sort-report.txt" 2>&1
    # the NVTX calls the injection library saw, and the ranges it kept
    MEMPROBE_DEBUG=1 ./memprobe profile -o "$P/thrust_sort-debug.csv" \
        -- build/tests/profile/thrust_sort 2>&1 | grep -E 'NVTX|nvtx' \
        > "$P/thrust_sort-nvtx.txt"
    python3 -c 'import csv,sys; [print(r["nvtx"], "|", r["kernel"][:60]) for r in csv.DictReader(open(sys.argv[1]))]' \
        "$P/thrust_sort.csv" | sort | uniq -c | tee -a "$SUMMARY"
    step names-numba bash -c "./memprobe profile --check 'shared<=1.0' -o $P/numba_offender.csv \
        -- python3 tests/profile/real/numba_offender.py > $P/numba_offender.txt 2>&1;
        echo exit \$? >> $P/numba_offender.txt"
    step names-ncucheck bash -c "timeout -k 10 ${NAMES_LIMIT_S:-200} ./memprobe ncu-check \
        --dir $P/ncucheck-thrust_sort --profile -- build/tests/profile/thrust_sort \
        > $P/ncucheck-thrust_sort.txt 2>&1; echo exit \$? >> $P/ncucheck-thrust_sort.txt"
    rm -f "$P"/ncucheck-thrust_sort/*.ncu-rep "$P"/ncucheck-thrust_sort/*.cubin
    grep -h -E '^memprobe: check|^exit' "$P/thrust_sort.txt" "$P/numba_offender.txt" >> "$SUMMARY"
    grep -h -E 'instructions compared|vary|^exit' "$P/ncucheck-thrust_sort.txt" >> "$SUMMARY" ;;
opcodes)
    # The memory opcodes that real programs offend with: memprobe
    # profile --check-libraries --opcodes on of each program of
    # OPCODE_PROGRAMS (default: the training loop for 3 steps, a Triton
    # matrix product, PyTorch's scaled_dot_product_attention, histograms
    # with atomics and Thrust's sort), each bounded by OPCODE_LIMIT_S
    # (240 s); opcode-table.sh turns their -lines.csv files into
    # opcodes.md; the SASS of the Triton kernels they built into
    # triton-sass.txt (results/h200/explain/opcodes/).
    P=$W/opcodes; mkdir -p "$P"
    make -j16 DEPS=.deps real-cpp >> "$W/log.txt" 2>&1
    export TRITON_CACHE_DIR=$P/triton-cache
    for n in ${OPCODE_PROGRAMS:-train_loop triton_matmul torch_sdpa histogram thrust_sort}; do
        case $n in
            train_loop) cmd="python3 tests/profile/real/$n.py 3 1" ;;
            histogram|thrust_sort) cmd=build/tests/profile/$n ;;
            *) cmd="python3 tests/profile/real/$n.py" ;;
        esac
        step "opcodes-$n" timeout -k 10 "${OPCODE_LIMIT_S:-240}" ./memprobe profile \
            --check-libraries --check 'shared<=1.0,global<=1.0' --opcodes on \
            -o "$P/$n.csv" -- $cmd > "$P/$n.txt" 2>&1
        ./memprobe report "$P/$n.csv" > "$P/$n-report.txt" 2>&1
    done
    scripts/opcode-table.sh "$P"/*-lines.csv > "$P/opcodes.md" 2>> "$W/log.txt"
    for c in $(find "$TRITON_CACHE_DIR" -name '*.cubin' 2>/dev/null); do
        echo "== $c"; cuobjdump --dump-sass "$c" | grep -oE '(LDGSTS|LDSM|STSM|HGMMA|UTMALDG|UTMASTG|UBLKCP|ATOMS|ATOMG|ATOM|RED|LDS|STS|LDG|STG)[.A-Z0-9_]*' | sort | uniq -c
    done > "$P/triton-sass.txt" 2>&1
    rm -rf "$TRITON_CACHE_DIR"
    cat "$P/opcodes.md" >> "$SUMMARY" ;;
ldgsts)
    # The copy rule's replays: scripts/explore/ldgsts-sweep.py's first set
    # (LDGSTS_SET=base), the lines-spread-over-rows set (default, spread)
    # or the places-in-the-line set (LDGSTS_SET=position), each configuration one `memprobe async --method cpasync`
    # row with counters, and the opcode of the replay kernel from cuobjdump
    # (results/h200/explain/ldgsts-sweep/).
    G=$W/ldgsts; mkdir -p "$G"
    make -j16 DEPS=.deps memprobe >> "$W/log.txt" 2>&1
    case ${LDGSTS_SET:-spread} in
    base) set_arg= ;;
    *) set_arg=--${LDGSTS_SET:-spread} ;;
    esac
    step ldgsts-sweep timeout -k 10 ${LDGSTS_LIMIT_S:-240} python3 \
        scripts/explore/ldgsts-sweep.py ./memprobe "$G/ldgsts" $set_arg
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$G/card.txt" 2>&1
    cuobjdump --dump-sass memprobe 2>/dev/null | grep -E 'LDGSTS' | sort | uniq -c > "$G/replay-sass.txt"
    python3 - "$G/ldgsts.csv" "$G/ldgsts-names.txt" >> "$SUMMARY" 2>&1 <<'PY'
import csv, sys
names = [l.split("\t")[0] for l in open(sys.argv[2])]
for n, r in zip(names, csv.DictReader(open(sys.argv[1]))):
    print(f"{n:22s} model {r['model_wavefronts_per_request']:>4s} "
          f"measured {r['wavefronts_per_request']:>8s} verified {r['verified']}")
PY
    ;;
xfit)
    # Rules for the counts of LDGSTS, LDSM, STSM and the atomics, tried
    # on real programs: memprobe explain --check-libraries on each of
    # XFIT_PROGRAMS (default: histograms with atomics, Thrust's sort,
    # ldmatrix and stmatrix on a tile, cp.async on a tile, the Triton
    # matrix product, PyTorch's attention; train_loop, the training loop of
    # 3 steps (XFIT_TRAIN_ARGS: steps and warm-up), on demand), its capture
    # kept, and
    # scripts/explore/opcode-fit.py's table of each instruction's measured
    # count beside each candidate rule's (results/h200/explain/fit/).
    F=$W/fit; mkdir -p "$F"
    make -j16 DEPS=.deps memprobe capture real-cpp >> "$W/log.txt" 2>&1
    for n in ${XFIT_PROGRAMS:-histogram thrust_sort matrix_tile copy_tile triton_matmul torch_sdpa}; do
        case $n in
            histogram|thrust_sort|matrix_tile|copy_tile) cmd=build/tests/profile/$n ;;
            train_loop) cmd="python3 tests/profile/real/train_loop.py ${XFIT_TRAIN_ARGS:-3 1}" ;;
            *) cmd="python3 tests/profile/real/$n.py" ;;
        esac
        step "xfit-$n" bash -c "timeout -k 10 ${XFIT_LIMIT_S:-150} ./memprobe explain \
            --check-libraries --max-warps ${XFIT_WARPS:-300000} -o $F/$n.csv \
            -- $cmd > $F/$n.txt 2>&1"
        python3 scripts/explore/opcode-fit.py "$F/$n" > "$F/$n-fit.txt" 2>&1
        grep -E 'model equal|not explained' "$F/$n.txt" | head -3 >> "$SUMMARY"
        cut -c1-400 "$F/$n-fit.txt" | head -40 >> "$SUMMARY"
        rm -f "$F/$n-capture.csv" "$F/$n-capture.csv.gz"
    done
    (cd "$F" && find . -type f -size +4M -delete) ;;
profilecost)
    # What a profiler costs a program, timed inside the program (step
    # times after warm-up; import, start-up and compilation left out): a
    # PyTorch training loop (tests/profile/real/train_loop.py 20 5: a
    # transformer encoder layer, forward, backward, AdamW) and 10,000
    # launches alternating three short kernels
    # (tests/profile/many_launches.cu). Each program alone 3 times (limit
    # 60 s), under `memprobe profile` fully and with --per-kernel 3 (an
    # exit 2 there is recorded: a memprobe without the option), under
    # `ncu --section SourceCounters` and under `ncu --metrics` of three
    # SASS metrics (limit 150 s each, PROFILECOST_FULL_S and
    # PROFILECOST_NCU_S set the full profile's and ncu's; a run cut short
    # keeps the step or
    # progress lines it printed, and they are its measurement). Per run
    # P-MODE.log and a line of runs.txt (rc, wall s, limit); the programs'
    # and memprobe's files beside them (cost_trim bounds their size); the
    # table (scripts/cost-table.sh) into cost-table.md and the summary:
    # results/h200/profile/cost/. Runs start while PROFILECOST_BUDGET_S
    # (420) and DEADLINE_S leave 20 s, each limit cut to what is left;
    # the alone and memprobe runs of both programs come first, then ncu's.
    # The limits add up to more than 420 s (four ncu runs of up to 150 s):
    # PROFILECOST_PROGRAMS=train_loop, then =many, in two calls (default
    # both in one) gives each program all its runs. PROFILECOST_PHASES
    # (default "alone memprobe ncu") picks phases; "batch" runs the full
    # profile with batches of 32 runs and twice with a flush per run and
    # compares their rows; "diag" adds runs of
    # memprobe under inject_start.c's cost knobs (full-NAME, diag-NAME), to
    # find where the time goes.
    C=$W/profilecost
    mkdir -p "$C"
    COST_T0=$(date +%s)
    make -j16 DEPS=.deps memprobe build/lib/libmemprobe_inject.so \
        build/lib/libmemprobe_client.so build/tests/profile/many_launches >> "$W/log.txt" 2>&1
    { timeout 20 ./memprobe device
      timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
      timeout 20 $NCU --version
      timeout 30 python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
    } > "$C/device.txt" 2>&1
    : > "$C/runs.txt"
    COSTM=smsp__sass_inst_executed.sum,smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_sectors_mem_global.sum
    COSTP=${PROFILECOST_PROGRAMS:-train_loop many}
    for phase in ${PROFILECOST_PHASES:-alone memprobe ncu}; do
        for p in $COSTP; do
            case $p in
            train_loop) cmd="python3 tests/profile/real/train_loop.py 20 5" ;;
            many) cmd="build/tests/profile/many_launches 10000" ;;
            *) [ $phase = alone ] && echo "profilecost: unknown program '$p' (train_loop, many)" | tee -a "$SUMMARY"
               continue ;;
            esac
            case $phase in
            alone)
                for r in 1 2 3; do cost_run "$p" alone-$r 60 $cmd; done ;;
            memprobe)
                cost_run "$p" pk3 150 ./memprobe profile --per-kernel 3 --keep-raw "$C/$p-raw-pk3" \
                    -o "$C/$p-pk3.csv" -- $cmd
                cost_run "$p" full ${PROFILECOST_FULL_S:-150} ./memprobe profile \
                    --keep-raw "$C/$p-raw-full" -o "$C/$p-full.csv" -- $cmd ;;
            diag)
                # --per-kernel 3 twice more, for its spread; then where
                # the time goes (inject_start.c's knobs): a flush per run,
                # CUPTI's per-SM and per-SMSP output
                for r in 2 3; do
                    cost_run "$p" pk3-$r 150 ./memprobe profile --per-kernel 3 \
                        --keep-raw "$C/$p-raw-pk3-$r" -o "$C/$p-pk3-$r.csv" -- $cmd
                done
                for v in full-batch1:MEMPROBE_BATCH_RUNS=1 \
                         full-batch32:MEMPROBE_BATCH_RUNS=32 \
                         full-sm:MEMPROBE_SASS_GRANULARITY=sm \
                         full-smsp:MEMPROBE_SASS_GRANULARITY=smsp; do
                    cost_run "$p" "${v%%:*}" ${PROFILECOST_FULL_S:-150} env "${v#*:}" \
                        ./memprobe profile --keep-raw "$C/$p-raw-${v%%:*}" \
                        -o "$C/$p-${v%%:*}.csv" -- $cmd
                done ;;
            batch)
                # batches of 32 runs against a flush per run, the flush
                # per run twice (two runs of a program differ by
                # themselves), every row compared (scripts/profile-compare.sh)
                for v in full-batch1:1 full-batch1-again:1 full-batch32:32; do
                    cost_run "$p" "${v%%:*}" ${PROFILECOST_FULL_S:-150} env MEMPROBE_BATCH_RUNS=${v#*:} \
                        ./memprobe profile --keep-raw "$C/$p-raw-${v%%:*}" \
                        -o "$C/$p-${v%%:*}.csv" -- $cmd
                done
                for m in full-batch1-again full-batch32; do
                    scripts/profile-compare.sh "$C/$p-full-batch1.csv" "$C/$p-$m.csv" \
                        > "$C/$p-compare-$m.txt" 2>&1
                    echo "profilecost $p full-batch1 against $m: $(tail -1 "$C/$p-compare-$m.txt")" \
                        | tee -a "$SUMMARY"
                done ;;
            ncu)
                cost_run "$p" ncu-src ${PROFILECOST_NCU_S:-150} $NCU --clock-control none \
                    --section SourceCounters -o "$C/$p-ncu-src" -f $cmd
                cost_run "$p" ncu-metrics ${PROFILECOST_NCU_S:-150} $NCU --clock-control none \
                    --metrics $COSTM $cmd ;;
            esac
        done
    done
    awk '{n++; k = $4 == "skipped" ? 4 : $4 == 124 || $4 == 137 ? 3 : $4 == 0 ? 1 : 2; r[k]++}
        END {printf "profilecost: %d runs: %d exit 0, %d failed, %d timed out, %d not started (profilecost/runs.txt)\n",
            n, r[1], r[2], r[3], r[4]}' \
        "$C/runs.txt" | tee -a "$SUMMARY"
    step profilecost-table bash -c "scripts/cost-table.sh $C > $C/cost-table.md" ||
        cat "$C/runs.txt" >> "$SUMMARY"
    cost_trim "$C"
    cat "$C/cost-table.md" >> "$SUMMARY" ;;
maketest)
    # The README's test command on the GPU machine :
    # passing skips only, their reasons in maketest.txt.
    step make-test make DEPS=.deps TAP_LOG="$W/make-test.tap" test
    scripts/tap-summary.sh "$W/make-test.tap" > "$W/maketest.txt"
    head -n 1 "$W/maketest.txt" >> "$SUMMARY" ;;
*)
    echo "gpu-check: unknown step '$s'" | tee -a "$SUMMARY"
    exit 2 ;;
esac
done
