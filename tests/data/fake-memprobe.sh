#!/bin/sh
# fake-memprobe.sh - stands in for `memprobe hazards --run NAME --threads T
# --timeout S [--ignore-result]` in probes/hazards/test_hazards.c (no
# GPU): prints the result line the real child prints, with the outcomes
# docs/hazards.md expects, and hangs for sync-in-divergent-if when no
# tool runs it (a deadlock).
name=$3 threads=$5 ignore=$8
want=202744 got=202744
case $name in
sync-in-divergent-if) [ -n "$FAKE_TOOL" ] || exec sleep 30 ;;
halving-shift-2) got=12662 ;;
result-by-thread-2) [ "$threads" -gt 2 ] || got=0 ;;
missing-barrier) got=198148 ;;
esac
r=right
[ "$got" = "$want" ] || r=wrong
echo "memprobe hazards: $name threads $threads blocks 64 elements 33792: result $r, got $got want $want"
[ $r = right ] || [ -n "$ignore" ] || exit 1
exit 0
