# bank-cycles.gp - time per shared-memory request against the conflict
# degree, for loads and stores of 4, 8 and 16 bytes (`make plots`).
#
# Reads DATADIR/bank-cycles.dat, written by
#     memprobe report --plot-data DATADIR FILE.csv...
# (columns: op (0 ld, 1 st), width, conflict ways (model), cycles per
# request on one SM, wavefronts per request) and writes
# OUTDIR/bank-cycles.svg and OUTDIR/bank-cycles.png:
#     gnuplot -e "datadir='DATADIR'; outdir='OUTDIR'" probes/bank/bank-cycles.gp
if (!exists("datadir")) datadir = "build/plots/data"
if (!exists("outdir")) outdir = "build/plots"
data = datadir . "/bank-cycles.dat"
name = "bank-cycles"

set logscale xy 2
set xrange [0.8:40]
set yrange [0.8:40]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32)
set ytics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32)
set xlabel "conflict degree (ways: wavefronts over the conflict-free number, model)"
set ylabel "cycles per request on one SM"
set key top left
set grid
set title "Time per shared-memory request against the conflict degree"

do for [f in "svg png"] {
    if (f eq "svg") {
        set terminal svg size 800,560 font "sans,11" background "white"
    } else {
        if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
            set terminal pngcairo size 800,560 font "sans,10" background "white"
        } else {
            set terminal png size 800,560
        }
    }
    set output outdir . "/" . name . "." . f
    plot x with lines dt 2 lc "gray" title "n cycles for n ways", \
         data using ($1 == 0 && $2 == 4 ? $3 : NaN):4 with points pt 7 ps 0.8 lc 1 title "ld 4 B", \
         data using ($1 == 0 && $2 == 8 ? $3 : NaN):4 with points pt 5 ps 0.8 lc 2 title "ld 8 B", \
         data using ($1 == 0 && $2 == 16 ? $3 : NaN):4 with points pt 9 ps 0.9 lc 3 title "ld 16 B", \
         data using ($1 == 1 && $2 == 4 ? $3 : NaN):4 with points pt 6 ps 1.1 lc 1 title "st 4 B", \
         data using ($1 == 1 && $2 == 8 ? $3 : NaN):4 with points pt 4 ps 1.1 lc 2 title "st 8 B", \
         data using ($1 == 1 && $2 == 16 ? $3 : NaN):4 with points pt 8 ps 1.2 lc 3 title "st 16 B"
    set output
}
