#!/usr/bin/env bash
# tap-run.sh - runs one cmocka test program with TAP output and makes its
# skips passing TAP skips. `make test` and `make test-gpu` run every test
# program through it (as prove's --exec, or directly where prove is
# missing).
#
#   scripts/tap-run.sh PROGRAM [ARGS...]
#
# cmocka 1.1.5 prints a skipped test as "not ok N # SKIP NAME", which prove
# counts as a failure, and skip() takes no reason. A test skips with
# MP_SKIP("why") (tests/mp_skip.h): it prints "# skip: why", then calls
# skip(). Here that pair becomes "ok N - NAME # SKIP why". A skip without
# such a line just before it stays "not ok" (a skip must say why) and this
# script then exits 1. Every other line passes unchanged: a real failure
# stays "not ok".
#
# Exit status: the program's (128 + signal when it was killed), else 1
# when a skip had no reason, else 0. With MP_TAP_LOG=FILE the rewritten
# TAP is also appended to FILE, between the lines "# program: PROGRAM" and
# "# exit: STATUS", then "# seconds: WALL" (scripts/tap-summary.sh reads
# it).
set -u -o pipefail
if [ $# -lt 1 ]; then
    echo "usage: scripts/tap-run.sh PROGRAM [ARGS...]" >&2
    exit 2
fi
log=${MP_TAP_LOG:-}
if [ -n "$log" ]; then
    printf '# program: %s\n' "$1" >>"$log" || exit 1
fi

# (In a variable: were the program killed, bash would quote all of it.)
filter='
    # The reason applies to the result line that follows it.
    /^# skip: / { reason = substr($0, 9); print; fflush(); next }
    /^not ok [0-9]+ # SKIP/ {
        name = $0
        sub(/^not ok [0-9]+ # SKIP ?/, "", name)
        if (reason != "") {
            print "ok " $3 " - " name " # SKIP " reason
        } else {
            print "not ok " $3 " - " name " (skipped without a reason: use MP_SKIP)"
            bare = 1
        }
        reason = ""
        fflush()
        next
    }
    /^(not )?ok [0-9]+/ { reason = "" }
    { print; fflush() }
    END { exit bare }
'
t0=$(date +%s.%N)
CMOCKA_MESSAGE_OUTPUT=TAP "$@" | awk "$filter" | tee -a "${log:-/dev/null}"
rc=$?
if [ -n "$log" ]; then
    printf '# exit: %d\n# seconds: %s\n' "$rc" \
        "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >>"$log"
fi
exit "$rc"
