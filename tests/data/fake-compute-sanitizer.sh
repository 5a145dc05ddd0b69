#!/bin/sh
# fake-compute-sanitizer.sh - stands in for `compute-sanitizer --tool TOOL
# --error-exitcode N PROGRAM ARGS...` in probes/hazards/test_hazards.c (no
# GPU): runs the program (with FAKE_TOOL set) and prints canned reports in
# compute-sanitizer's format: racecheck finds missing-barrier, synccheck
# sync-in-divergent-if, initcheck result-by-thread-2 at 2 threads; memcheck
# hangs on halving-shift-2 (a tool run that never ends). FAKE_DIRTY=1 makes
# racecheck report a race in the correct kernel too.
tool=$2 code=$4
shift 4
name=$4 threads=$6
echo "========= COMPUTE-SANITIZER"
[ "$tool:$name" = memcheck:halving-shift-2 ] && exec sleep 30
FAKE_TOOL=$tool "$@"
rc=$?
K='(const float *, const float *, int, float *)'
line() { printf '========= %s\n' "$@"; }
case "$tool:$name:$threads:$FAKE_DIRTY" in
racecheck:missing-barrier:*|racecheck:correct:*:1)
    line "Error: Race reported between Write access at hazard_kernel$K+0x1b0 in hazards.cu:141" \
         "    and Read access at hazard_kernel$K+0x200 in hazards.cu:145 [24576 hazards]" ""
    line "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
    exit "$code" ;;
synccheck:sync-in-divergent-if:*)
    line "Barrier error detected. Divergent thread(s) in warp." \
         "    at hazard_sync_in_divergent_if$K+0x2d0 in hazards.cu:75" \
         "    by thread (16,0,0) in block (0,0,0)" ""
    line "ERROR SUMMARY: 64 errors"
    exit "$code" ;;
initcheck:result-by-thread-2:2:*)
    line "Uninitialized __global__ memory read of size 4 bytes" \
         "    at hazard_finalize(const float *, int, double *)+0xb0 in hazards.cu:160" \
         "    by thread (0,0,0) in block (0,0,0)" "    Address 0x7f3a5e200000" ""
    line "ERROR SUMMARY: 64 errors"
    exit "$code" ;;
racecheck:*)
    line "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" ;;
*)
    line "ERROR SUMMARY: 0 errors" ;;
esac
exit $rc
