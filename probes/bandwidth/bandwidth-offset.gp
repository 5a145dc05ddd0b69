# bandwidth-offset.gp - DRAM bandwidth against the start offset of the
# arrays, one line per kernel and width (`make plots`).
#
# Reads DATADIR/bandwidth-offset.dat, written by
#     memprobe report --plot-data DATADIR FILE.csv...
# (one block per series: a title line, then offset in bytes and GB/s) and
# writes OUTDIR/bandwidth-offset.svg and OUTDIR/bandwidth-offset.png:
#     gnuplot -e "datadir='DATADIR'; outdir='OUTDIR'" probes/bandwidth/bandwidth-offset.gp
if (!exists("datadir")) datadir = "build/plots/data"
if (!exists("outdir")) outdir = "build/plots"
data = datadir . "/bandwidth-offset.dat"
name = "bandwidth-offset"

set xlabel "start offset from a 256-byte boundary (bytes)"
set ylabel "GB/s"
set xtics (0, 4, 16, 32, 64, 96, 128)
set yrange [0:*]
set key bottom right
set grid
set title "DRAM bandwidth against the arrays' start offset (stride 1)"

do for [f in "svg png"] {
    if (f eq "svg") {
        set terminal svg size 800,500 font "sans,11" background "white"
    } else {
        if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
            set terminal pngcairo size 800,500 font "sans,10" background "white"
        } else {
            set terminal png size 800,500
        }
    }
    set output outdir . "/" . name . "." . f
    plot for [i = 0:*] data index i using 1:2 with linespoints pt 7 title columnheader(2)
    set output
}
