/*
 * matrix_plotdata.c - matrix-swizzle.dat for probes/bank/matrix-swizzle.gp:
 * wavefronts per ldmatrix .x4 (no .trans) against the row pitch, the first
 * device of the data. One line per row layout and pitch:
 *
 *   rows (0 plain, 1 mma), pitch, then measured and model wavefronts for
 *   swizzle none, 32, 64 and 128 ("-" where that configuration is absent
 *   or its measurement is not usable)
 *
 * sorted by layout and pitch. Without such rows the file holds only
 * comments, and the script draws an empty frame that says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "matrix_plotdata.h"

#define NSW 4
static const char *const sw_names[NSW] = {"none", "32", "64", "128"};

typedef struct {
    int rows;            /* 0 plain, 1 mma */
    long long pitch;
    double v[NSW][2];    /* measured, model; NAN = absent */
} point;

static int cmp_point(const void *a, const void *b)
{
    const point *x = a, *y = b;
    if (x->rows != y->rows)
        return x->rows - y->rows;
    return (x->pitch > y->pitch) - (x->pitch < y->pitch);
}

static void put(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " -");
    else
        fprintf(f, " %.6g", v);
}

int mp_rep_plot_matrix(const mp_rep_data *d, const char *dir, char *err,
                       size_t errlen)
{
    FILE *f = mp_rep_plot_open(dir, "matrix-swizzle.dat", err, errlen);
    if (!f)
        return -1;
    fprintf(f, "# device: %s\n# wavefronts per ldmatrix.x4 (trans 0)\n"
            "# rows(0 plain, 1 mma) pitch, then measured model for swizzle "
            "none 32 64 128 (-: absent)\n", d->ndev ? d->devices[0] : "-");
    point *pts = mp_xcalloc((size_t)d->nrows + 1, sizeof *pts);
    int n = 0;
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        const char *a = mp_rep_text(d, r, MP_F_ACCESS);
        char rows[16], sw[16];
        int matrices, trans, end = 0, s, l;
        long long pitch;
        if (r->device != 0 || strcmp(mp_rep_text(d, r, MP_F_PROBE), "bank")
            || strcmp(mp_rep_text(d, r, MP_F_OP), "ldsm")
            || sscanf(a, "x%d/trans%d/%15[a-z]/pitch%lld/swizzle-%15[0-9a-z]"
                      "%n", &matrices, &trans, rows, &pitch, sw, &end) != 5
            || a[end] || matrices != 4 || trans != 0)
            continue;
        for (s = 0; s < NSW && strcmp(sw, sw_names[s]); s++)
            ;
        l = !strcmp(rows, "plain") ? 0 : !strcmp(rows, "mma") ? 1 : -1;
        if (s == NSW || l < 0)
            continue;
        int k;
        for (k = 0; k < n && !(pts[k].rows == l && pts[k].pitch == pitch);
             k++)
            ;
        if (k == n) {
            pts[n].rows = l;
            pts[n].pitch = pitch;
            for (int j = 0; j < NSW; j++)
                pts[n].v[j][0] = pts[n].v[j][1] = NAN;
            n++;
        }
        double x;
        if (!strcmp(mp_rep_text(d, r, MP_F_VERIFIED), "yes")
            && mp_rep_num(d, r, MP_F_WF, &x) == 0)
            pts[k].v[s][0] = x;
        if (mp_rep_num(d, r, MP_F_MODEL_WF, &x) == 0)
            pts[k].v[s][1] = x;
    }
    if (n > 1)
        qsort(pts, (size_t)n, sizeof *pts, cmp_point);
    for (int k = 0; k < n; k++) {
        fprintf(f, "%d %lld", pts[k].rows, pts[k].pitch);
        for (int s = 0; s < NSW; s++) {
            put(f, pts[k].v[s][0]);
            put(f, pts[k].v[s][1]);
        }
        fputc('\n', f);
    }
    free(pts);
    return mp_rep_plot_close(f, dir, "matrix-swizzle.dat", err, errlen);
}
