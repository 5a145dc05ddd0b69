#!/usr/bin/env bash
# opcode-table.sh - the memory opcodes of profiled programs, from their
# memprobe profile -lines.csv files (profiled with --opcodes on): per
# program and opcode the instruction rows, how many of them offend
# (measured above ideal in shared wavefronts or global sectors), and the
# measured and ideal totals of each class. A Markdown table on stdout.
#
#   scripts/opcode-table.sh NAME-lines.csv...
# The program's name is the file's name less -lines.csv.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/opcode-table.sh NAME-lines.csv..." >&2; exit 2; }
here=$(dirname "$0")
echo "| program | opcode | instructions | offending | shared wavefronts (ideal) | global sectors (ideal) |"
echo "| --- | --- | --- | --- | --- | --- |"
for f in "$@"; do
    [ -s "$f" ] || { echo "opcode-table: $f: missing or empty" >&2; exit 1; }
    name=$(basename "$f" -lines.csv)
    awk -v prog="$name" "$(cat "$here/csv.awk")"'
        NR == 1 { for (i = split_csv($0, h); i > 0; i--) c[h[i]] = i; next }
        {
            split_csv($0, f)
            op = f[c["opcode"]]; if (op == "") op = "(no opcode)"
            sub(/\..*/, "", op)   # the opcode less its modifiers
            sh = f[c["smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"]] + 0
            shi = f[c["smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"]] + 0
            gl = f[c["smsp__sass_sectors_mem_global"]] + 0
            gli = f[c["smsp__sass_sectors_mem_global_ideal"]] + 0
            if (sh + gl == 0) next   # no shared or global access counted
            n[op]++; S[op] += sh; SI[op] += shi; G[op] += gl; GI[op] += gli
            if (sh > shi || gl > gli) bad[op]++
        }
        END {
            for (op in n)
                printf "| %s | %s | %d | %d | %.0f (%.0f) | %.0f (%.0f) |\n",
                    prog, op, n[op], bad[op], S[op], SI[op], G[op], GI[op]
        }' "$f" | sort -t'|' -k3,3
done
