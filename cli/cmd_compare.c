/*
 * cmd_compare.c - `memprobe compare BASE.csv NEW.csv`: its arguments; the
 * comparison itself is report/compare.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "compare.h"
#include "options.h"

static const char usage[] =
    "usage: memprobe compare BASE.csv NEW.csv [--verbose]\n\n"
    "Matches the rows of two result CSVs by configuration "
    "name and checks that\nNEW's counters equal BASE's within "
    "the ncu-check tolerances\n(runtime/metrics.c); kernel "
    "times are summarised, not judged. Exit 1 when\na value "
    "differs beyond tolerance, a BASE configuration is "
    "missing from NEW,\nor a NEW row differs from the model. "
    "Exit 1 too, with one line and\nnothing compared, when "
    "rows of one name were measured with a different\nsetting "
    "that sets a launch's work (iterations, threads, blocks, "
    "bytes, ...):\ntheir counters count different work. "
    "Different warmup or timed runs move\nonly the times: "
    "compared, with a note. Exit 2 when no counter value is "
    "in\nboth files (nothing compared). No GPU needed.\n";

int mp_cmd_compare(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    int nfiles = 0, verbose = 0;
    const mp_opt opts[] = {
        {.name = "verbose", .alias = "-v", .kind = MP_OPT_FLAG,
         .dest = &verbose},
    };
    const mp_opts_spec spec = {
        .cmd = "compare", .opts = opts, .nopts = 1,
        .dashes = MP_OPTS_DASH_ONE, .unexpected_tail = ": two CSV files",
        .rest = files, .nrest = &nfiles, .max_rest = 2, .usage = usage};
    mp_opts_parse(&spec, argc, argv, NULL);
    if (nfiles < 2)
        mp_usage_error("compare: needs two CSV files (usage: memprobe compare "
                       "BASE.csv NEW.csv)");
    return mp_compare_files(files[0], files[1], verbose, stdout, NULL);
}
