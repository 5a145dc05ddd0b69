/*
 * cmd_columns.c - `memprobe columns`: the CSV schema, every column in
 * order with its meaning; --probe NAME, the columns a row of that probe
 * fills; --profile, the two CSVs of memprobe profile.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "family.h"
#include "metric_set.h"
#include "options.h"
#include "probe.h"
#include "profile_csv.h"
#include "row.h"

/* 1 when column i is among the n ids of cols. */
static int has_column(const int *cols, int n, int i)
{
    for (int k = 0; k < n; k++)
        if (cols[k] == i)
            return 1;
    return 0;
}

/* `columns --profile`: the two CSVs of memprobe profile. */
static void print_profile_columns(void)
{
    printf("# profile.csv: one row per profiled kernel launch\n");
    for (int i = 0; i < mp_prof_launch_ncols(); i++)
        printf("%-58s %s\n", mp_prof_launch_col(i), mp_prof_launch_desc(i));
    printf("\n# profile-lines.csv: one row per SASS instruction, summed over "
           "its launches\n");
    for (int i = 0; i < mp_prof_line_ncols(); i++)
        printf("%-58s %s\n", mp_prof_line_col(i), mp_prof_line_desc(i));
}

int mp_cmd_columns(int argc, char **argv)
{
    const char *probe = NULL;
    int profile = 0;
    const mp_opt opts[] = {
        {.name = "probe", .kind = MP_OPT_TEXT, .dest = &probe, .once = 1,
         .empty = "empty value"},
        {.name = "profile", .kind = MP_OPT_FLAG, .dest = &profile, .once = 1,
         .value_error = 1},
    };
    mp_cli_fixed_usage("columns",
                      "usage: memprobe columns [--probe NAME | --profile]\n\n"
                      "Prints the CSV schema: every column in order, with its "
                      "meaning;\n--probe NAME: only the columns a row of that "
                      "probe fills (the engine's,\nthe family's and the metric "
                      "set's); --profile: the two CSVs of memprobe\nprofile.",
                      opts, 2, argc, argv);
    if (profile && probe)
        mp_usage_error("--profile: takes no --probe (a profile CSV is not a "
                       "probe's)");
    if (profile) {
        print_profile_columns();
        return MP_EXIT_OK;
    }
    const mp_family *f = probe ? mp_family_find(probe) : NULL;
    if (probe && (!f || !f->probe))
        mp_usage_error("--probe: unknown probe '%s' (see memprobe list)",
                       probe);
    size_t nm = 0;
    const mp_metric *m = f ? mp_metric_set_get(f->probe->metrics, &nm)
                           : NULL;
    for (int i = 0; i < mp_schema_columns(); i++) {
        int keep = !f || has_column(mp_engine_columns, mp_engine_ncolumns, i)
                   || has_column(f->columns, f->ncolumns, i);
        for (size_t k = 0; f && !keep && k < nm; k++)
            keep = !strcmp(m[k].name, mp_schema_name(i));
        if (keep)
            printf("%-58s %s\n", mp_schema_name(i), mp_schema_description(i));
    }
    return MP_EXIT_OK;
}
