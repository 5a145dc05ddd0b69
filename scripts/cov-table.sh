#!/usr/bin/env bash
# cov-table.sh - the spread of timing per probe family:
# for each probe in memprobe CSVs, the rows, median / p90 / max of
# time_ns_cov (in %), rows above 1%, outlying samples in all and the
# launches per sample (min-max). Markdown on stdout.
#   scripts/cov-table.sh FILE.csv...
set -eu
[ $# -gt 0 ] || { echo "usage: scripts/cov-table.sh FILE.csv..." >&2; exit 2; }
awk "$(cat "$(dirname "$0")/csv.awk")"'
function q(list, n, p,    i, j, t, k) {   # the p-quantile (nearest rank)
    for (i = 2; i <= n; i++) { t = list[i]; j = i - 1
        while (j > 0 && list[j] > t) { list[j + 1] = list[j]; j-- }
        list[j + 1] = t }
    k = int(p * n + 0.999999); if (k < 1) k = 1; if (k > n) k = n
    return list[k]
}
{
    sub(/\r$/, "")
    if ($0 ~ /^tool_version,/) { n = split_csv($0, H); delete col
        for (i = 1; i <= n; i++) col[H[i]] = i; next }
    split_csv($0, F)
    c = F[col["time_ns_cov"]]; if (c == "") next
    p = F[col["probe"]]
    if (!(p in rows)) order[++np] = p
    r = ++rows[p]; v[p, r] = 100 * c
    over[p] += (100 * c > 1)
    out[p] += F[col["time_outliers"]]
    l = F[col["launches_per_sample"]] + 0; if (l == 0) l = 1
    if (!(p in lmin) || l < lmin[p]) lmin[p] = l
    if (!(p in lmax) || l > lmax[p]) lmax[p] = l
}
END {
    if (np == 0) { print "cov-table: no timed rows" > "/dev/stderr"; exit 1 }
    print "| family | rows | CoV median | p90 | max | rows > 1% | outliers | launches/sample |"
    print "| --- | --- | --- | --- | --- | --- | --- | --- |"
    for (i = 1; i <= np; i++) { p = order[i]; n = rows[p]
        for (k = 1; k <= n; k++) a[k] = v[p, k]
        med = q(a, n, 0.5); p90 = q(a, n, 0.9); mx = a[n]
        printf "| %s | %d | %.2f%% | %.2f%% | %.2f%% | %d | %d | %s |\n", p, n, med, p90, mx,
            over[p], out[p], (lmin[p] == lmax[p] ? lmin[p] : lmin[p] "-" lmax[p]) }
}' "$@"
