# bandwidth-stride.gp - DRAM bandwidth against the stride between the
# lanes' elements, one line per kernel and width (`make plots`).
#
# Reads DATADIR/bandwidth-stride.dat, written by
#     memprobe report --plot-data DATADIR FILE.csv...
# (one block per series: a title line, then stride in elements and GB/s)
# and writes OUTDIR/bandwidth-stride.svg and OUTDIR/bandwidth-stride.png:
#     gnuplot -e "datadir='DATADIR'; outdir='OUTDIR'" probes/bandwidth/bandwidth-stride.gp
if (!exists("datadir")) datadir = "build/plots/data"
if (!exists("outdir")) outdir = "build/plots"
data = datadir . "/bandwidth-stride.dat"
name = "bandwidth-stride"

set logscale x 2
set xlabel "stride (elements between neighbouring lanes)"
set ylabel "GB/s"
set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32)
set yrange [0:*]
set key top right
set grid
set title "DRAM bandwidth against the stride (offset 0)"

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
