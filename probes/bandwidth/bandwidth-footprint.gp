# bandwidth-footprint.gp - bandwidth against the array size (log x): the
# read, write and copy kernels walking a 4 KiB .. 1 GiB array repeatedly
# in one launch, so the L1, L2 and DRAM plateaus show
# (`make plots`).
#
# Reads DATADIR/bandwidth-footprint.dat, written by
#     memprobe report --plot-data DATADIR FILE.csv...
# (one block per kernel: a title line, then array size in KiB and GB/s)
# and writes OUTDIR/bandwidth-footprint.svg and OUTDIR/bandwidth-footprint.png:
#     gnuplot -e "datadir='DATADIR'; outdir='OUTDIR'" probes/bandwidth/bandwidth-footprint.gp
# Without such rows it draws the empty axes with a note.
if (!exists("datadir")) datadir = "build/plots/data"
if (!exists("outdir")) outdir = "build/plots"
data = datadir . "/bandwidth-footprint.dat"
name = "bandwidth-footprint"
points = int(system("grep -c '^[0-9]' '" . data . "' 2>/dev/null || true"))
blocks = int(system("grep -c '^\"' '" . data . "' 2>/dev/null || true"))

set logscale x 2
set xlabel "array size (KiB, log scale)"
set ylabel "GB/s"
set xrange [4:2097152]
set xtics ("8K" 8, "64K" 64, "256K" 256, "1M" 1024, "8M" 8192, "60M" 61440, "256M" 262144, "1G" 1048576)
set yrange [0:*]
set key top right
set grid
set title "Bandwidth against array size (16-byte lanes, one full wave, repeated walks)"
# The H200's capacities: 256 KiB of L1 per SM (132 SMs: 33 MiB in all,
# each SM holding its blocks' share), 60 MiB L2.
set arrow 1 from 256, graph 0 to 256, graph 1 nohead dashtype 2 lc rgb "gray50"
set arrow 2 from 61440, graph 0 to 61440, graph 1 nohead dashtype 2 lc rgb "gray50"
set label 1 "one SM's L1" at 256, graph 0.95 right offset -0.5,0 textcolor rgb "gray40"
set label 2 "L2 60 MiB" at 61440, graph 0.95 right offset -0.5,0 textcolor rgb "gray40"
if (points == 0) {
    set yrange [0:10000]
    set label 3 "no bandwidth-footprint measurement in the CSVs given" at graph 0.5, graph 0.5 center
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
