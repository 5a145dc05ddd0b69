# latency-footprint.gp - the latency staircase: cycles per dependent load
# against the chased footprint (log x), one line per order and cache
# (`make plots`).
#
# Reads DATADIR/latency-footprint.dat, written by
#     memprobe report --plot-data DATADIR FILE.csv...
# (one block per series: a title line, then footprint in KiB and cycles)
# and writes OUTDIR/latency-footprint.svg and OUTDIR/latency-footprint.png:
#     gnuplot -e "datadir='DATADIR'; outdir='OUTDIR'" probes/latency/latency-footprint.gp
# Without latency rows it draws the empty axes with a note.
if (!exists("datadir")) datadir = "build/plots/data"
if (!exists("outdir")) outdir = "build/plots"
data = datadir . "/latency-footprint.dat"
name = "latency-footprint"
points = int(system("grep -c '^[0-9]' '" . data . "' 2>/dev/null || true"))
blocks = int(system("grep -c '^\"' '" . data . "' 2>/dev/null || true"))

set logscale x 2
set xlabel "footprint (KiB, log scale)"
set ylabel "cycles per load"
set xrange [4:2097152]
set xtics ("8K" 8, "64K" 64, "256K" 256, "1M" 1024, "8M" 8192, "60M" 61440, "256M" 262144, "1G" 1048576)
set yrange [0:*]
set key bottom right
set grid
set title "Pointer-chase latency against footprint (one thread, stride 128 B)"
# The H200's capacities: 256 KiB unified L1/shared per SM, 60 MiB L2.
set arrow 1 from 256, graph 0 to 256, graph 1 nohead dashtype 2 lc rgb "gray50"
set arrow 2 from 61440, graph 0 to 61440, graph 1 nohead dashtype 2 lc rgb "gray50"
set label 1 "L1 256 KiB" at 256, graph 0.95 right offset -0.5,0 textcolor rgb "gray40"
set label 2 "L2 60 MiB" at 61440, graph 0.95 right offset -0.5,0 textcolor rgb "gray40"
if (points == 0) {
    set yrange [0:1000]
    set label 3 "no latency measurement in the CSVs given" at graph 0.5, graph 0.5 center
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
    if (points == 0) {
        plot -1 notitle
    } else {
        plot for [i=0:blocks-1] data index i using 1:2 with linespoints \
            pointtype 7 pointsize 0.6 title columnheader(1)
    }
    unset output
}
