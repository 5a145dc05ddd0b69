# csv.awk - one CSV splitter for the awk tables of scripts/ (cov-table.sh,
# explore/bandwidth-study.sh): prepend it to the program text:
# `awk "$(cat scripts/csv.awk)"'PROGRAM' FILE...` (mawk has no -e).
# split_csv(line, f) fills f[1..n] with the fields of one memprobe CSV
# line, commas inside double quotes kept (counters_status may hold some),
# and returns n.
function split_csv(line, f,    n, i, c, q, cur) {
    n = 0; q = 0; cur = ""
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") { q = !q; continue }
        if (c == "," && !q) { f[++n] = cur; cur = ""; continue }
        cur = cur c
    }
    f[++n] = cur
    return n
}
