/*
 * profile_report.h - `memprobe report PROFILE.csv`: the worst source
 * lines by excess (measured - ideal), the per-kernel and per-NVTX-range
 * tables, as text, Markdown or CSV (the report's --format), with
 * `memprobe explain`'s CSV of the same program beside the worst lines,
 * and with --plot-data DIR the excess by line of the worst kernels with
 * its gnuplot script.
 */
#ifndef MP_PROFILE_REPORT_H
#define MP_PROFILE_REPORT_H

#include <stdio.h>

#include "report.h"

/* How many worst lines the report lists. */
#define MP_PROF_WORST_LINES 20
/* How many distinct reasons for launches without range values the
 * report lists (the rest counted in one line). */
#define MP_PROF_RANGE_REASONS 5
/* How many kernels the plot draws. */
#define MP_PROF_PLOT_KERNELS 4

/* Prints the report of csv (and its -lines.csv) to out, or with plot_dir
 * writes the plot data and script there (and draws it when gnuplot is
 * found; else one line on stderr). With explain_csv (memprobe explain's
 * -o of the same program), a table after the worst lines: each explained
 * instruction of a line with excess, its measured and model counts and
 * the best fix with its predicted count. 0, or -1 with a reason (a file
 * that cannot be read or written, an explain CSV with no instruction on
 * a line with excess). */
int mp_prof_report(const char *csv, const char *explain_csv,
                   mp_rep_format f, const char *plot_dir, FILE *out,
                   char *err, size_t errlen);

#endif
