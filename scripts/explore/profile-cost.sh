#!/usr/bin/env bash
# profile-cost.sh - where `memprobe profile`'s time goes on the GPU machine:
# the test program alone, under the injection library
# alone (no memprobe around it), under memprobe profile, and the library's
# debug trace with timestamps; cuobjdump of a saved cubin. Run on the GPU
# machine with OUT set and .deps/ copied there; writes $OUT/cost/.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/cost; mkdir -p "$R"
make -j16 DEPS=.deps memprobe build/lib/libmemprobe_inject.so \
    build/tests/profile/app > "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
A=build/tests/profile/app; L=$PWD/build/lib
ms() { local s e; s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N)
       echo "$(( (e - s) / 1000000 )) ms: $*" | tee -a "$R/times.txt"; }
inj() { local d; d=$(mktemp -d); env CUDA_INJECTION64_PATH=$L/libmemprobe_inject.so \
        NVTX_INJECTION64_PATH=$L/libcupti.so.13 MEMPROBE_RAW_DIR=$d "$@"; }
for k in 1 2; do
    ms $A; ms $A --short 1000; ms $A --short 10000
    ms inj $A; ms inj $A --short 1000; ms inj $A --short 10000
    ms ./memprobe profile -o /tmp/c.csv -- $A
    ms ./memprobe profile -o /tmp/c.csv -- $A --short 1000
    ms ./memprobe profile -o /tmp/c.csv -- $A --short 10000
done
d=$(mktemp -d)
env CUDA_INJECTION64_PATH=$L/libmemprobe_inject.so NVTX_INJECTION64_PATH=$L/libcupti.so.13 \
    MEMPROBE_RAW_DIR=$d MEMPROBE_DEBUG=1 $A > "$R/trace-app.txt" 2>&1
d2=$(mktemp -d)
env CUDA_INJECTION64_PATH=$L/libmemprobe_inject.so NVTX_INJECTION64_PATH=$L/libcupti.so.13 \
    MEMPROBE_RAW_DIR=$d2 MEMPROBE_DEBUG=1 $A --short 200 > "$R/trace-short.txt" 2>&1
for c in "$d"/cubin.*; do ms cuobjdump -sass "$c"; done
ls -la "$d" > "$R/raw-ls.txt"
cat "$R/times.txt"
