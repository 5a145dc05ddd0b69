#!/usr/bin/env bash
# tap-summary.sh - totals of a TAP log written by scripts/tap-run.sh
# (MP_TAP_LOG; `make test` and `make test-gpu` write one, TAP_LOG=FILE).
#
#   scripts/tap-summary.sh LOG...
#
# Prints, in this order:
#   tests: N ok, N not ok, N skipped
#   skip: <test> <why>          one per skipped test
#   fail: <test> <what>         one per failed test or program
# where <test> is PROGRAM:NAME (PROGRAM without its directory, blanks in
# NAME as '_', so <test> is one word) and <why> the rest of the line.
#   N ok       tests that passed ("ok" without a SKIP directive)
#   N not ok   tests that failed ("not ok") and tests a program planned
#              ("1..N") but never reported (it crashed or stopped)
#   N skipped  passing skips ("ok ... # SKIP why")
# A program that exited non-zero with every test passing gets a fail line
# too. Exit status 0 when nothing failed, 1 otherwise, 2 on a usage error
# or a log that cannot be read.
set -u
if [ $# -lt 1 ]; then
    echo "usage: scripts/tap-summary.sh LOG..." >&2
    exit 2
fi
for f in "$@"; do
    [ -r "$f" ] || { echo "tap-summary: cannot read $f" >&2; exit 2; }
done

awk '
    function word(s) { gsub(/[ \t]+/, "_", s); return s }
    # The test name of a result line: after "ok N - " or "not ok N - ".
    function name_of(line) {
        sub(/^(not )?ok [0-9]+( -)? ?/, "", line)
        return line
    }
    # The program just ended: tests it planned but never reported.
    function finish(status,   missing, what) {
        if (prog == "")
            return
        missing = plan - seen
        what = ""
        if (status != "" && status != 0) {
            bad = 1
            what = "exit " status
        }
        if (missing > 0) {
            notok += missing
            what = (what == "" ? "" : what ", ") missing " of " plan " planned tests never reported"
            fails[++nfail] = prog " " what
        } else if (what != "" && !failed) {
            fails[++nfail] = prog " " what
        }
        prog = ""
    }
    function start(p) {
        finish("")
        prog = p
        sub(/.*\//, "", prog)
        plan = 0; seen = 0; failed = 0
    }
    /^# program: / { start(substr($0, 12)); next }
    /^# exit: /    { finish(substr($0, 9) + 0); next }
    /^1\.\.[0-9]+/ {
        if (prog == "") start("?")
        plan = substr($1, 4) + 0
        next
    }
    /^ok [0-9]+/ {
        if (prog == "") start("?")
        seen++
        line = $0
        if (match(line, / # [Ss][Kk][Ii][Pp]( |$)/)) {
            why = substr(line, RSTART + RLENGTH)
            n = name_of(substr(line, 1, RSTART - 1))
            if (why == "") why = "(no reason given)"
            skips[++nskip] = prog ":" word(n) " " why
            skipped++
        } else {
            ok++
        }
        next
    }
    /^not ok [0-9]+/ {
        if (prog == "") start("?")
        seen++
        notok++
        failed = 1
        fails[++nfail] = prog ":" word(name_of($0)) " not ok"
        next
    }
    END {
        finish("")
        printf "tests: %d ok, %d not ok, %d skipped\n", ok, notok, skipped
        for (i = 1; i <= nskip; i++) print "skip: " skips[i]
        for (i = 1; i <= nfail; i++) print "fail: " fails[i]
        exit (notok > 0 || bad || nfail > 0) ? 1 : 0
    }
' "$@"
