#!/usr/bin/env bash
# commands.sh - the commands whose output tests/test_golden.c keeps byte
# for byte (tests/golden/commands.txt, one memprobe command line a line,
# its words split on spaces): every help text, the listings, a report of
# every committed result and profile CSV, explain on the committed
# captures, compare, and bad input's one line and exit status.
#
#   tests/golden/commands.sh > tests/golden/commands.txt
#   MEMPROBE_GOLDEN_WRITE=1 build/tests/test_golden   (the manifest: what
#                                                      today's binary says)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
echo "help"
echo "version"
for c in device list predict columns ncu-check sweep report compare \
         hierarchy l2map hazards profile explain; do
    echo "$c --help"
done
for p in $(./memprobe list 2>/dev/null | awk '/^[a-z]+ - /{print $1}'); do
    echo "$p --help"
    echo "predict $p"
done
echo "list"
echo "columns"
find results -name '*.csv' | LC_ALL=C sort | while read -r f; do
    case $f in *" "*) continue ;; esac
    echo "report $f"
done
for f in $(find tests -path '*explain*' -name '*.csv' | LC_ALL=C sort); do
    echo "explain --capture $f"
done
for d in results/h200/*/ncu-check; do
    p=$(basename "$(dirname "$d")")
    echo "ncu-check --probe $p --compare $d/memprobe.csv $d/ncu.csv"
done
for d in results/h200/*/ncu-repeat; do
    p=$(basename "$(dirname "$d")")
    echo "ncu-check --probe $p --spread $d/memprobe.csv $(ls "$d"/ncu-*.csv | LC_ALL=C sort | tr '\n' ' ')"
done
for f in $(grep -l -m1 '^pid,launch,launches,kernel' results/h200/profile/*.csv 2>/dev/null | LC_ALL=C sort); do
    echo "profile --from $f --check shared<=1.0,global<=1.0"
done
echo "compare results/h200/bank/bank-sweep.csv results/h200/bank/bank-sweep.csv"
echo "bank --stride x"
echo "bank --width 3"
echo "report no-such-file.csv"
echo "explain --capture no-such-file.csv"
echo "profile --check nonsense -- true"
echo "frobnicate"
