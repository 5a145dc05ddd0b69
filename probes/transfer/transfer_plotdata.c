/*
 * transfer_plotdata.c - transfer-bandwidth.dat for
 * probes/transfer/transfer-bandwidth.gp: bandwidth against copy size, one
 * block per series (direction and memory kind, copy engines; the first
 * device of the data): a title line, then bytes and GB/s. Without
 * transfer rows the file holds only comments, and the script draws an
 * empty frame that says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transfer_plotdata.h"

static int series_row(const mp_rep_data *d, const mp_rep_row *r)
{
    double g;
    return r->device == 0
           && !strcmp(mp_rep_text(d, r, MP_F_PROBE), "transfer")
           && !strcmp(mp_rep_text(d, r, MP_F_METHOD), "memcpy")
           && strncmp(mp_rep_text(d, r, MP_F_DIRECTION), "p2p", 3)
           && !strcmp(mp_rep_text(d, r, MP_F_VERIFIED), "yes")
           && mp_rep_num(d, r, MP_F_BANDWIDTH, &g) == 0 && g > 0;
}

static void series_name(const mp_rep_data *d, const mp_rep_row *r,
                        char *buf, size_t len)
{
    const char *h = mp_rep_text(d, r, MP_F_HOST_MEMORY);
    snprintf(buf, len, "%s %s%s", mp_rep_text(d, r, MP_F_DIRECTION),
             h[0] ? h : "device",
             !strcmp(mp_rep_text(d, r, MP_F_PREFETCH), "on") ? "+prefetch"
                                                              : "");
}

static int cmp_pair(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int mp_rep_plot_transfer(const mp_rep_data *d, const char *dir, char *err,
                         size_t errlen)
{
    FILE *f = mp_rep_plot_open(dir, "transfer-bandwidth.dat", err, errlen);
    if (!f)
        return -1;
    fprintf(f, "# device: %s\n# one block per series: title line, then "
            "bytes GB/s\n", d->ndev ? d->devices[0] : "-");
    int n = d->nrows, blocks = 0;
    char (*names)[96] = calloc((size_t)n + 1, sizeof *names);
    double *pts = calloc(2 * (size_t)n + 2, sizeof *pts);
    int nnames = 0;
    for (int i = 0; i < n && names && pts; i++) {
        if (!series_row(d, &d->rows[i]))
            continue;
        char s[96];
        series_name(d, &d->rows[i], s, sizeof s);
        int known = 0;
        for (int k = 0; k < nnames && !known; k++)
            known = !strcmp(names[k], s);
        if (!known)
            snprintf(names[nnames++], sizeof names[0], "%s", s);
    }
    for (int k = 0; k < nnames; k++) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            char s[96];
            if (!series_row(d, &d->rows[i]))
                continue;
            series_name(d, &d->rows[i], s, sizeof s);
            if (strcmp(s, names[k]))
                continue;
            mp_rep_num(d, &d->rows[i], MP_F_BYTES, &pts[2 * m]);
            mp_rep_num(d, &d->rows[i], MP_F_BANDWIDTH, &pts[2 * m + 1]);
            m++;
        }
        if (m < 2)
            continue;
        qsort(pts, (size_t)m, 2 * sizeof *pts, cmp_pair);
        fprintf(f, "%s\"x\" \"%s\"\n", blocks ? "\n\n" : "", names[k]);
        for (int i = 0; i < m; i++)
            fprintf(f, "%.0f %.4g\n", pts[2 * i], pts[2 * i + 1]);
        blocks++;
    }
    free(names);
    free(pts);
    return mp_rep_plot_close(f, dir, "transfer-bandwidth.dat", err, errlen);
}
