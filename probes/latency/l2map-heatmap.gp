# l2map-heatmap.gp - the L2 map as heatmaps: for every SM (x) the cycles
# of a load served by its own partition, the far partition, device memory
# near and far (y), and the same as cycles above or below each figure's
# median over the SMs (`make plots`; docs/latency.md).
#
# Reads the rows of `memprobe l2map -o FILE` (kind "map"): csv, default
# results/h200/latency/partitions/l2map.csv; writes OUTDIR/l2map-heatmap.svg
# and .png:
#     gnuplot -e "outdir='OUTDIR'" probes/latency/l2map-heatmap.gp
# (datadir, which `make plots` gives every script, is not read.)
if (!exists("outdir")) outdir = "build/plots"
if (!exists("csv")) csv = "results/h200/latency/partitions/l2map.csv"
name = "l2map-heatmap"
# x = SM, y = 0..3, z = cycles; a blank line after each SM's column.
# Columns: 4 sm, 9 dram_near, 10 dram_far, 11 near_hit, 13 far_hit.
cells = "< awk -F, '$1 == \"map\" { print $4, 0, $11; print $4, 1, $13; print $4, 2, $9; print $4, 3, $10; print \"\" }' '" . csv . "'"
dev = "< awk -F, '$1 == \"map\" { n++; s[n] = $4; v[n,0] = $11; v[n,1] = $13; v[n,2] = $9; v[n,3] = $10 } END { for (k = 0; k < 4; k++) { for (i = 1; i <= n; i++) { x = v[i,k]; j = i - 1; while (j > 0 && a[j] > x) { a[j+1] = a[j]; j-- } a[j+1] = x } med[k] = n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 } for (i = 1; i <= n; i++) { for (k = 0; k < 4; k++) print s[i], k, v[i,k] - med[k]; print \"\" } }' '" . csv . "'"

rows = int(system("awk -F, '$1 == \"map\"' '" . csv . "' 2>/dev/null | wc -l"))

set ytics ("own partition (hit)" 0, "far partition (hit)" 1, "device memory, near" 2, "device memory, far" 3)
set xlabel "SM (%smid)"
set xrange [-0.5:(rows > 0 ? rows : 1) - 0.5]
set yrange [-0.5:3.5]
set tics font ",9"

do for [fmt in "svg png"] {
    if (fmt eq "svg") { set terminal svg size 1100,620 dynamic font "sans,11" }
    else { set terminal pngcairo size 1100,620 font "sans,10" }
    set output outdir . "/" . name . "." . fmt
    set multiplot layout 2,1 title "H200 L2 map: one thread's ld.global.cg chase from each SM (memprobe l2map)"
    if (rows > 0) {
        set title "cycles per load"
        set palette defined (0 "#313695", 0.35 "#74add1", 0.6 "#fee090", 1 "#a50026")
        set cbrange [250:800]
        plot cells using 1:2:3 with image notitle
        set title "cycles above (+) or below (-) the figure's median over the SMs"
        set palette defined (0 "#2166ac", 0.5 "#f7f7f7", 1 "#b2182b")
        set cbrange [-20:20]
        plot dev using 1:2:3 with image notitle
    } else {
        set title "no map rows in " . csv
        plot NaN notitle
    }
    unset multiplot
}
