# bank-heatmap.gp - shared-memory wavefronts per request over stride x
# access width, loads above and stores below (`make plots`).
#
# Reads DATADIR/bank-heatmap.dat, written by
#     memprobe report --plot-data DATADIR FILE.csv...
# (columns: op (0 ld, 1 st), stride, log2(width), wavefronts, model,
# cycles) and writes OUTDIR/bank-heatmap.svg and OUTDIR/bank-heatmap.png:
#     gnuplot -e "datadir='DATADIR'; outdir='OUTDIR'" probes/bank/bank-heatmap.gp
if (!exists("datadir")) datadir = "build/plots/data"
if (!exists("outdir")) outdir = "build/plots"
data = datadir . "/bank-heatmap.dat"
name = "bank-heatmap"

set palette defined (0 "#fff7ec", 1 "#fdd49e", 2 "#fc8d59", 3 "#d7301f", 5 "#7f0000")
set logscale cb 2
set cbrange [1:32]
set cbtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32)
set cblabel "wavefronts per request" offset 1.5
set xrange [-0.5:64.5]
set yrange [1.5:4.5]
set xtics 0, 4, 64
set ytics ("4 B" 2, "8 B" 3, "16 B" 4)
set ylabel "width"
set tics out nomirror
set style fill solid 1.0 noborder

do for [f in "svg png"] {
    if (f eq "svg") {
        set terminal svg size 900,600 font "sans,11" background "white"
    } else {
        if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
            set terminal pngcairo size 900,600 font "sans,10" background "white"
        } else {
            set terminal png size 900,600
        }
    }
    set output outdir . "/" . name . "." . f
    set multiplot layout 2,1 title "Shared-memory bank conflicts: wavefronts per warp-level request"
    set title "loads (LDS)"
    unset xlabel
    plot data using ($1 == 0 ? $2 : NaN):3:(0.5):(0.5):4 with boxxyerror fc palette notitle
    set title "stores (STS)"
    set xlabel "stride (elements between neighbouring lanes)"
    plot data using ($1 == 1 ? $2 : NaN):3:(0.5):(0.5):4 with boxxyerror fc palette notitle
    unset multiplot
    set output
}
