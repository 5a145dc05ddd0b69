/*
 * cmd_hierarchy.c - `memprobe hierarchy CSV...`: its arguments; the
 * derivation is report/hierarchy.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cli.h"
#include "hierarchy.h"
#include "options.h"

int mp_cmd_hierarchy(int argc, char **argv)
{
    static const char *const formats[] = {"txt", "md", NULL};
    static const mp_param_def format_def = {
        "format", MP_PARAM_CHOICE, 0, 0, 0, NULL, 0, formats,
        "txt or md", NULL, NULL, NULL};
    long long format = 0;
    int nfiles = 0;
    /* File arguments gather at the front of argv (never ahead of the one
     * being read): no heap until the arguments are checked, so the usage
     * errors (exit 2) leak nothing. */
    const char **files = (const char **)argv;
    char err[512];
    const mp_opt opts[] = {
        {.name = "format", .kind = MP_OPT_VALUE, .dest = &format,
         .def = &format_def},
    };
    const mp_opts_spec spec = {
        .cmd = "hierarchy", .opts = opts, .nopts = 1,
        .dashes = MP_OPTS_DASH_ANY,
        .unknown_tail = " (see memprobe hierarchy --help)",
        .rest = files, .nrest = &nfiles, .max_rest = argc,
        .usage = "usage: memprobe hierarchy FILE.csv... [--format txt|md]"
                 "\n\nL1, L2 and device-memory latency, effective cache "
                 "capacities, fetch granularity and TLB\nreach from the "
                 "latency probe's rows (docs/latency.md).\n"};
    mp_opts_parse(&spec, argc, argv, NULL);
    if (nfiles == 0)
        mp_usage_error("hierarchy: no CSV given (usage: memprobe hierarchy "
                       "FILE.csv... [--format txt|md])");
    for (int i = 0; i < nfiles; i++) {
        struct stat sb;
        if (stat(files[i], &sb) == 0 && S_ISDIR(sb.st_mode))
            mp_usage_error("hierarchy: %s is a folder, not a CSV", files[i]);
    }
    mp_csv_table *tables = mp_xcalloc((size_t)nfiles, sizeof *tables);
    for (int i = 0; i < nfiles; i++) {
        if (mp_csv_table_read(files[i], &tables[i], err, sizeof err)) {
            /* the tables read so far go before the usage error exits */
            for (int k = 0; k < i; k++)
                mp_csv_free(&tables[k]);
            free(tables);
            mp_usage_error("hierarchy: %s", err);
        }
    }
    mp_hier h = {0, 0, NULL};
    for (int i = 0; i < nfiles; i++) {
        const char *base = strrchr(files[i], '/');
        mp_hier_add(&h, &tables[i], base ? base + 1 : files[i]);
    }
    int rc = MP_EXIT_OK;
    if (h.n == 0) {
        fprintf(stderr, "memprobe: hierarchy: no verified latency rows in "
                "the %d file(s) given\n", nfiles);
        rc = MP_EXIT_USAGE;
    } else {
        mp_hier_figure f[MP_HIER_FIGURES];
        int n = mp_hier_derive(&h, f);
        mp_hier_print(f, n, format == 1, stdout);
    }
    mp_hier_free(&h);
    for (int i = 0; i < nfiles; i++)
        mp_csv_free(&tables[i]);
    free(tables);
    return rc;
}
