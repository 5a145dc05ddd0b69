# matrix-swizzle.gp - wavefronts per ldmatrix .x4 against the row pitch,
# one colour per swizzle mode: points measured, lines the model; plain
# rows on the left, the MMA fragment's quadrants on the right
# (`make plots`). The ideal is 4 (one wavefront per matrix).
#
# Reads DATADIR/matrix-swizzle.dat, written by
#     memprobe report --plot-data DATADIR FILE.csv...
# (columns: rows (0 plain, 1 mma), pitch, then measured and model
# wavefronts for swizzle none, 32, 64, 128; "-" where absent) and writes
# OUTDIR/matrix-swizzle.svg and .png:
#     gnuplot -e "datadir='DATADIR'; outdir='OUTDIR'" probes/bank/matrix-swizzle.gp
if (!exists("datadir")) datadir = "build/plots/data"
if (!exists("outdir")) outdir = "build/plots"
data = datadir . "/matrix-swizzle.dat"
name = "matrix-swizzle"
n0 = int(system("grep -c '^0 ' '" . data . "' 2>/dev/null || true"))
n1 = int(system("grep -c '^1 ' '" . data . "' 2>/dev/null || true"))

set datafile missing "-"
set xlabel "row pitch (bytes)"
set ylabel "wavefronts per LDSM.x4"
set key top left
set grid
set tics out nomirror
set logscale y 2
set yrange [2:48]
set ytics ("4" 4, "8" 8, "16" 16, "32" 32)
set xrange [0:288]
set xtics 0, 32, 288
# Points of the four modes side by side (2 bytes apart), so equal values
# stay visible.
dx(s) = 2.5 * (s - 1.5)

do for [f in "svg png"] {
    if (f eq "svg") {
        set terminal svg size 1100,500 font "sans,11" background "white"
    } else {
        if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
            set terminal pngcairo size 1100,500 font "sans,10" background "white"
        } else {
            set terminal png size 1100,500
        }
    }
    set output outdir . "/" . name . "." . f
    set multiplot layout 1,2 title "ldmatrix .x4: wavefronts against row pitch, by swizzle (points measured, lines model)"
    do for [l = 0:1] {
        set title (l == 0 ? "plain rows (lane i = tile row i)" : "MMA fragment (16 x 16 b16 quadrants)")
        if ((l == 0 ? n0 : n1) > 0) {
            unset label 1
            plot for [s = 0:3] data using ($1 == l ? $2 : NaN):(column(4 + 2 * s)) \
                     with lines lw 1.5 lc s + 1 notitle, \
                 for [s = 0:3] data using ($1 == l ? $2 + dx(s) : NaN):(column(3 + 2 * s)) \
                     with points pt 7 ps 0.7 lc s + 1 \
                     title (s == 0 ? "none" : s == 1 ? "32B" : s == 2 ? "64B" : "128B")
        } else {
            set label 1 "no ldmatrix.x4 measurement" at 144,10 center
            plot 1/0 notitle
        }
    }
    unset multiplot
    set output
}
