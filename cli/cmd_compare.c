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

int mp_cmd_compare(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    int nfiles = 0, verbose = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: memprobe compare BASE.csv NEW.csv [--verbose]\n\n"
                   "Matches the rows of two result CSVs by configuration "
                   "name and checks that\nNEW's counters equal BASE's within "
                   "the ncu-check tolerances\n(runtime/metrics.c); kernel "
                   "times are summarised, not judged. Exit 1 when\na value "
                   "differs beyond tolerance, a BASE configuration is "
                   "missing from NEW,\nor a NEW row differs from the model. "
                   "Exit 2\nwhen no counter value is in both files (nothing "
                   "compared). No GPU needed.\n");
            return MP_EXIT_OK;
        }
        if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
            verbose = 1;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1])
            mp_usage_error("compare: unknown option '%s'", argv[i]);
        if (nfiles == 2)
            mp_usage_error("compare: unexpected argument '%s': two CSV files",
                           argv[i]);
        files[nfiles++] = argv[i];
    }
    if (nfiles < 2)
        mp_usage_error("compare: needs two CSV files (usage: memprobe compare "
                       "BASE.csv NEW.csv)");
    return mp_compare_files(files[0], files[1], verbose, stdout, NULL);
}
