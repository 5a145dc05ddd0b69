# transfer-bandwidth.gp - copy bandwidth against copy size, log-log, one
# line per direction and host memory kind (`make plots`): the
# latency-bound small copies on the left, the link-bound large ones on the
# right.
#
# Reads DATADIR/transfer-bandwidth.dat, written by
#     memprobe report --plot-data DATADIR FILE.csv...
# (one block per series: a title line, then bytes and GB/s) and writes
# OUTDIR/transfer-bandwidth.svg and .png:
#     gnuplot -e "datadir='DATADIR'; outdir='OUTDIR'" probes/transfer/transfer-bandwidth.gp
if (!exists("datadir")) datadir = "build/plots/data"
if (!exists("outdir")) outdir = "build/plots"
data = datadir . "/transfer-bandwidth.dat"
name = "transfer-bandwidth"
points = int(system("grep -c '^[0-9]' '" . data . "' 2>/dev/null || true"))

set xlabel "bytes per copy"
set ylabel "GB/s"
set key top left
set grid
set title "Copy bandwidth against size (copy engines)"
if (points > 0) {
    set logscale xy 2
    set format x "2^{%L}"
} else {
    set xrange [0:1]
    set yrange [0:1]
    set label 1 "no transfer measurement committed yet" at 0.5,0.5 center
}

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
    if (points > 0) {
        plot for [i = 0:*] data index i using 1:2 with linespoints pt 7 title columnheader(2)
    } else {
        plot 2 notitle
    }
    set output
}
