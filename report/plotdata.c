/*
 * plotdata.c - the data files that the gnuplot scripts (the .gp files of
 * probes/NAME/) read (see report.h). Plain whitespace-separated columns with '#'
 * comments, so that gnuplot needs no CSV settings. The families write
 * their own (report/part.h):
 *
 *   bank-heatmap.dat, bank-cycles.dat    probes/bank/bank_plotdata.c
 *   matrix-swizzle.dat                   probes/bank/matrix_plotdata.c
 *   bandwidth-offset.dat, bandwidth-stride.dat
 *                                        probes/bandwidth/bandwidth_plotdata.c
 *   transfer-bandwidth.dat               probes/transfer/transfer_plotdata.c
 *
 * and this file latency-footprint.dat and bandwidth-footprint.dat
 * (report/hierarchy.c reads the rows).
 *
 * Only the first device of the data is written (`--device` picks another).
 */
#include "hierarchy.h"
#include "report.h"
#include "check.h"
#include "part.h"
#include "replace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *mp_rep_plot_open(const char *dir, const char *name, char *err,
                       size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return mp_replace_open(path, err, errlen);
}

int mp_rep_plot_close(FILE *f, const char *dir, const char *name, char *err,
                      size_t errlen)
{
    char path[4096], temp[4096 + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    mp_replace_temp_name(path, temp, sizeof temp);
    if (ferror(f) | (fclose(f) != 0)) {
        unlink(temp);   /* the last file of that name, as it was */
        mp_reason(err, errlen, "%s/%s: write failed (an existing file is "
                  "left unchanged)", dir, name);
        return -1;
    }
    return mp_replace_commit_one(temp, path, err, errlen);
}

int mp_rep_plot_data(const mp_rep_data *d, const char *dir, char *err,
                     size_t errlen)
{
    if (d->ndev == 0) {
        mp_reason(err, errlen, "--plot-data: no rows to plot");
        return -1;
    }
    /* mkdir -p */
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(path, 0777) && errno != EEXIST) {
                mp_reason(err, errlen, "--plot-data: cannot create %s: %s",
                          path, strerror(errno));
                return -1;
            }
            *p = c;
            if (!c)
                break;
        }
    }
    /* The families' own plot data (report/part.h). */
    for (int i = 0; i < mp_report_nparts(); i++)
        if (mp_report_part(i)->plot_data
            && mp_report_part(i)->plot_data(d, dir, err, errlen))
            return -1;
    /* The latency staircase (report/hierarchy.c reads the rows). */
    mp_hier h = {0, 0, NULL};
    for (int i = 0; i < d->nfiles; i++)
        mp_hier_add(&h, &d->files[i].t, d->files[i].base);
    int rc = mp_hier_plot_data(&h, dir);
    mp_hier_free(&h);
    if (!rc) {
        const mp_csv_table **tables =
            mp_xcalloc((size_t)d->nfiles + 1, sizeof *tables);
        for (int i = 0; i < d->nfiles; i++)
            tables[i] = &d->files[i].t;
        rc = mp_hier_bandwidth_plot_data(tables, d->nfiles, dir);
        free(tables);
    }
    if (rc) {
        mp_reason(err, errlen, "--plot-data: cannot write the latency or "
                  "bandwidth-footprint data in %s", dir);
        return -1;
    }
    return 0;
}
