#!/usr/bin/env bash
# profile-compare.sh - two `memprobe profile` launch CSVs of the same
# program, row against row by launch number: the kernel must be the
# same, and every SASS count (the smsp__sass_* columns) is compared.
#   scripts/profile-compare.sh A.csv B.csv
# Prints the rows of each, how many are equal in every count, how many
# differ (each with its largest relative difference; the first 10 listed)
# and how many have every count 0 in one file only. Exit 0 when every
# row of A is in B with the same kernel and counts, 1 when not, 2 on bad
# input.
set -euo pipefail
[ $# = 2 ] && [ -r "$1" ] && [ -r "$2" ] || { echo "usage: $0 A.csv B.csv" >&2; exit 2; }
here=$(dirname "$0")
awk "$(cat "$here/csv.awk")"'
FNR == 1 {
    file++
    n = split_csv($0, h)
    delete col
    for (i = 1; i <= n; i++) col[h[i]] = i
    if (!("launch" in col) || !("kernel" in col)) {
        print FILENAME ": no launch or kernel column"; bad = 1; exit 2
    }
    if (file == 1) {
        nc = 0
        for (i = 1; i <= n; i++) if (h[i] ~ /^smsp__sass_/) name[++nc] = h[i]
    }
    next
}
{
    split_csv($0, f)
    l = f[col["launch"]]
    if (file == 1) { order[++na] = l; ka[l] = f[col["kernel"]] }
    else nb++
    zero = 1
    for (c = 1; c <= nc; c++) {
        v = (name[c] in col) ? f[col[name[c]]] : ""
        val[file, l, c] = v
        if (v != "" && v + 0 != 0) zero = 0
    }
    z[file, l] = zero
    if (file == 2) kb[l] = f[col["kernel"]]
}
END {
    if (bad) exit 2
    if (na == 0 || nb == 0) { print "nothing to compare: " na + 0 " and " nb + 0 " rows"; exit 2 }
    for (k = 1; k <= na; k++) {
        l = order[k]
        if (!(l in kb)) { missing++; continue }
        if (ka[l] != kb[l]) { kernel++; if (kernel <= 10) print "launch " l ": kernel " ka[l] " against " kb[l]; continue }
        if (z[1, l] != z[2, l]) { zeros++; if (zeros <= 10) print "launch " l " (" substr(ka[l], 1, 60) "): every count 0 in " (z[1, l] ? "A" : "B") " only" }
        worst = 0; wc = ""
        for (c = 1; c <= nc; c++) {
            a = val[1, l, c]; b = val[2, l, c]
            if (a == b) continue
            d = a - b; if (d < 0) d = -d
            m = a + 0 > b + 0 ? a + 0 : b + 0
            r = m > 0 ? d / m : 1
            if (r >= worst) { worst = r; wc = name[c] " " a " against " b }
        }
        if (wc == "") { equal++; continue }
        differ++
        if (worst > maxr) maxr = worst
        if (differ <= 10) printf "launch %s (%s): %s (%.3g apart)\n", l, substr(ka[l], 1, 60), wc, worst
    }
    printf "rows: A %d, B %d; %d equal in every count, %d differ (largest %.3g apart), %d with every count 0 in one only, %d with another kernel, %d of A missing from B\n", \
        na, nb, equal, differ, maxr, zeros, kernel, missing
    exit (differ || zeros || kernel || missing) ? 1 : 0
}' "$1" "$2"
