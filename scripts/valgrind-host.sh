#!/usr/bin/env bash
# valgrind-host.sh - memprobe's host paths that need no GPU, each under
# valgrind's memcheck (errors and definite or indirect leaks fail): the
# report and the study on the committed CSVs, plot data, every sweep file
# listed and predicted, --resume against a CSV of another schema, every
# family's prediction, compare, report --merge, hierarchy, profile's and
# explain's host paths, bad input, and the no-GPU exit. `make valgrind`
# runs it; so does .ci/run.
#
#   scripts/valgrind-host.sh [MEMPROBE]
set -u
cd "$(dirname "$0")/.."
MP=${1:-./memprobe}
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0

# check WANT_STATUS COMMAND...: runs COMMAND under valgrind; the exit
# status must be WANT_STATUS (99 = valgrind found something).
check() {
    local want=$1; shift
    n=$((n + 1))
    $VG "$@" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL (exit $rc, want $want): $*"
        grep -v '^memprobe' "$tmp/err" | head -20
        failed=$((failed + 1))
    fi
}

check 0 "$MP" report results/h200/*/*.csv
check 0 "$MP" report --format md --table reduction results/h200/study/study.csv
check 0 "$MP" report --format csv results/h200/study/study.csv results/h200/bank/bank-sweep.csv
check 0 "$MP" report --study "$tmp/study.md" --plot-data "$tmp/plots"
for f in configs/*.conf; do
    check 0 "$MP" sweep "$f" --list
    check 0 "$MP" sweep "$f" --predict
done
check 2 "$MP" sweep configs/texture.conf --resume -o results/h200/texture/sweep-texture.csv
printf '[bank]\nstride = 1..\n' > "$tmp/bad.conf"
check 2 "$MP" sweep "$tmp/bad.conf" --list
check 2 "$MP" bank --stride abc
check 2 "$MP" report "$tmp/missing.csv"
check 0 "$MP" predict coalesce --width 8 --offset 8 --stride 1 --format csv
# the later families' predictions (defaults), and the commands that read
# result CSVs without a GPU: compare, report --merge, hierarchy
for p in latency transfer async cluster bitmap; do
    check 0 "$MP" predict "$p"
    check 0 "$MP" predict "$p" --format csv
done
check 0 "$MP" report results/h200/transfer/transfer.csv results/h200/async/async.csv results/h200/cluster/cluster.csv results/h200/bitmap/bitmap.csv
check 0 "$MP" compare results/h200/bank/bank-sweep.csv results/h200/bank/bank-sweep.csv
check 1 "$MP" compare results/h200/study/study.csv results/h200/bank/bank-sweep.csv
check 2 "$MP" compare results/h200/bank/bank-sweep.csv
check 0 "$MP" report --merge -o "$tmp/merged.csv" results/h200x2/transfer-p2p.csv results/h200x2/transfer-host-per-gpu.csv
check 2 "$MP" report --merge -o "$tmp/merged.csv" results/h200/transfer/transfer.csv
check 2 "$MP" report --study "$tmp/s.md" results/h200/study/study.csv
check 2 "$MP" hierarchy results/h200/study/study.csv
# memprobe profile's host paths on the H200's profile of the test program:
# the report, the check and the baseline of a profile made earlier, the
# schema, and a program that is not there
P=results/h200/profile/profile.csv
check 0 "$MP" report "$P"
check 0 "$MP" report "$P" --format md
check 0 "$MP" report "$P" --plot-data "$tmp/prof-plots"
check 1 "$MP" profile --check 'shared<=1.0,global<=1.0' --from "$P"
check 0 "$MP" profile --baseline "$P" --from "$P"
check 0 "$MP" columns --profile
check 2 "$MP" profile -- "$tmp/no-such-program"
# memprobe explain's host paths: a recorded capture with and without a
# profile, each output, nothing to explain, bad input, and a program
# without the capture library
X=tests/data/explain
check 0 "$MP" explain --capture "$X/transpose_naive.csv" --from "$X/transpose_profile.csv" -o "$tmp/explain.csv"
check 0 "$MP" explain --capture "$X/transpose_naive.csv" --from "$X/transpose_profile.csv" --format md
check 0 "$MP" explain --capture "$X/aos.csv" --format csv
check 4 "$MP" explain --capture "$X/transpose_padded.csv"
check 2 "$MP" explain --capture "$tmp/missing.csv"
MEMPROBE_CAPTURE_LIB=/no/such/lib.so check 3 "$MP" explain -- true
check 2 "$MP" hierarchy --format md results/h200/study/study.csv "$tmp/missing.csv"
check 2 "$MP" hierarchy --format pdf results/h200/study/study.csv
check 3 "$MP" bank --stride 4 -o "$tmp/none.csv"
echo "valgrind: $n runs, $failed failed"
[ "$failed" -eq 0 ]
