/*
 * plotdata.c - the data files that the gnuplot scripts in scripts/plots/
 * read (see report.h). Plain whitespace-separated columns with '#'
 * comments, so that gnuplot needs no CSV settings:
 *
 *   bank-heatmap.dat   op (0 ld, 1 st), stride, log2(width), wavefronts
 *                      per request, model, cycles per request
 *   bank-cycles.dat    op, width, conflict ways (model), cycles per
 *                      request, wavefronts per request
 *   bandwidth-offset.dat  one block per series (kernel, width, size; stride
 *                      1): a title line, then offset and GB/s
 *   bandwidth-stride.dat  the same over the stride (offset 0)
 *   transfer-bandwidth.dat  plotdata_transfer.c
 *   matrix-swizzle.dat  plotdata_matrix.c: wavefronts per ldmatrix .x4
 *                      against the row pitch, per swizzle and row layout
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
        const mp_ncu_table **tables =
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
