#!/usr/bin/env bash
# seed-compare.sh MEMPROBE.csv NCU1.csv [NCU2.csv ...] - seed 004's bitmap
# kernel as written, counted by Nsight Compute (each NCU CSV: one launch of
# scripts/explore/seed004_bitmap.cu, `ncu --csv --page raw`), against
# memprobe's bitmap probe (its seed layout, rows op ld and op st): shared
# load and store wavefronts per instruction. Prints each and exits 1 when
# memprobe's differs from any ncu run's by more than 1%.
set -euo pipefail
mine=$1
shift
ncu_ratio() {  # ncu_ratio FILE OP: wavefronts / instructions of that op
    awk -v op="$2" '
        /^"ID"/ { n = split(substr($0, 2, length($0) - 2), h, "\",\"")
                  for (i = 1; i <= n; i++) c[h[i]] = i; hdr = 1; next }
        hdr && /^"[0-9]/ { split(substr($0, 2, length($0) - 2), v, "\",\"")
                  w = v[c["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" op ".sum"]]
                  k = v[c["smsp__sass_inst_executed_op_shared_" op ".sum"]]
                  gsub(/,/, "", w); gsub(/,/, "", k)
                  if (k > 0) { printf "%.6f\n", w / k; found = 1 } }
        END { exit !found }' "$1"
}
mine_ratio() {  # mine_ratio OP: wavefronts_per_request of the seed row
    awk -F, -v op="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["layout"] == "seed" && $c["op"] == op { print $c["wavefronts_per_request"]; found = 1 }
        END { exit !found }' "$mine"
}
rc=0
for op in ld st; do
    m=$(mine_ratio $op)
    for f in "$@"; do
        n=$(ncu_ratio "$f" $op)
        verdict=$(awk -v a="$m" -v b="$n" 'BEGIN { d = (a - b) / b; printf "%+.3f%% %s", 100 * d, (d < 0 ? -d : d) <= 0.01 ? "ok" : "DIFFERS" }')
        printf '%s  memprobe %s  ncu %s (%s)  %s\n' "$op" "$m" "$n" "$(basename "$f")" "$verdict"
        case $verdict in *DIFFERS) rc=1 ;; esac
    done
done
exit $rc
