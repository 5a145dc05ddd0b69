#!/usr/bin/env bash
# profile-level.sh - `memprobe profile --level kernel+` on the GPU machine
# (issue 26 item 2), the first time it meets a GPU: builds memprobe, the
# injection library and the test program; runs the program under the
# library with MEMPROBE_DEBUG=1 at both levels (the kernel+ trace says the
# metrics chosen and passes, every range-profiler call with its time, the
# first cuptiRangeProfilerStart among them, each batch's ranges against its
# launches); keeps both levels' raw files and CSVs; times the plain program
# and `memprobe profile` at both levels 3 times each, plus app --short 1000
# at kernel+ (batches, and a Start per synchronising call); greps the first
# Start's time; runs the GPU test of memprobe profile (tests/gpu/
# test_gpu_profile.c, which has the kernel+ cases). Run through the device
# tool with OUT set and .deps carried; writes everything under $OUT/level/.
# A fresh machine builds first (minutes): if the 600 s of one call do not
# suffice, run `make -j16 DEPS=.deps` in an earlier call (ignored build
# outputs stay on the warm machine) and this one again.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/level; mkdir -p "$R"
make -j16 DEPS=.deps memprobe build/lib/libmemprobe_inject.so \
    build/tests/profile/app build/tests/gpu/test_gpu_profile \
    > "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
A=build/tests/profile/app; L=$PWD/build/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem \
    --format=csv > "$R/gpu.txt" 2>&1
ms() { local s e rc; s=$(date +%s%N); "$@" > /dev/null 2>&1; rc=$?; e=$(date +%s%N)
       echo "$(( (e - s) / 1000000 )) ms (exit $rc): $*" | tee -a "$R/times.txt"; }
# the program under the library alone, with the debug trace, per level
trace() { local lvl=$1 d=$R/raw-$1; shift; mkdir -p "$d"
          env CUDA_INJECTION64_PATH=$L/libmemprobe_inject.so \
              NVTX_INJECTION64_PATH=$L/libcupti.so.13 MEMPROBE_RAW_DIR=$d \
              MEMPROBE_DEBUG=1 MEMPROBE_LEVEL=$lvl "$@" \
              > "$R/trace-$lvl.txt" 2>&1
          echo "exit $?" >> "$R/trace-$lvl.txt"; }
trace kernel $A
trace kernel+ $A
# the same through memprobe, the CSVs and the report kept
for lvl in kernel kernel+; do
    ./memprobe profile --level $lvl --keep-raw "$R/keep-$lvl" \
        -o "$R/p-$lvl.csv" -- $A > "$R/profile-$lvl.log" 2>&1
    echo "exit $?" >> "$R/profile-$lvl.log"
    ./memprobe report "$R/p-$lvl.csv" > "$R/report-$lvl.txt" 2>&1
done
for k in 1 2 3; do
    ms $A
    ms ./memprobe profile --level kernel -o /tmp/lv.csv -- $A
    ms ./memprobe profile --level kernel+ -o /tmp/lv.csv -- $A
done
ms ./memprobe profile --level kernel -o /tmp/lv.csv -- $A --short 1000
ms ./memprobe profile --level kernel+ -o /tmp/lv.csv -- $A --short 1000
d=$R/raw-short; mkdir -p "$d"
env CUDA_INJECTION64_PATH=$L/libmemprobe_inject.so \
    NVTX_INJECTION64_PATH=$L/libcupti.so.13 MEMPROBE_RAW_DIR=$d \
    MEMPROBE_DEBUG=1 MEMPROBE_LEVEL=kernel+ $A --short 1000 \
    > "$R/trace-short-kplus.txt" 2>&1
{ echo "# first range-profiler start (setup, then Start) of each trace"
  grep -h "kernel+: context\|kernel+: start 1 " "$R"/trace-kernel+.txt \
      "$R/trace-short-kplus.txt"
  echo "# every start, batch end and status line of kernel+"
  grep -h "kernel+\|status:" "$R/trace-kernel+.txt"
  echo "# no range-profiler call at --level kernel (expect nothing)"
  grep -h "kernel+\|Range\|range profiler" "$R/trace-kernel.txt"
} > "$R/range-calls.txt" 2>&1
if [ -z "${SKIP_GPU_TEST:-}" ]; then   # gpu-check's gputests runs it too
    GPU_TEST_DIR=$R/gpu-test timeout 560 build/tests/gpu/test_gpu_profile \
        > "$R/test_gpu_profile.txt" 2>&1
    echo "exit $?" >> "$R/test_gpu_profile.txt"
fi
cat "$R/times.txt" "$R/range-calls.txt"
[ -f "$R/test_gpu_profile.txt" ] && grep -E \
    "^(ok|not ok)|OK|FAILED|SKIP|# kernel|# BAD|MISMATCH|^exit" \
    "$R/test_gpu_profile.txt" | head -80
