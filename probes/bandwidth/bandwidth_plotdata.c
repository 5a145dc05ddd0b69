/*
 * bandwidth_plotdata.c - the bandwidth family's plot data (report/part.h)
 * for probes/bandwidth/bandwidth-offset.gp and bandwidth-stride.gp:
 *
 *   bandwidth-offset.dat  one block per series (kernel, width, size; stride
 *                      1): a title line, then offset and GB/s
 *   bandwidth-stride.dat  the same over the stride (offset 0)
 *
 * (bandwidth-footprint.dat comes from report/hierarchy.c.)
 */
#include "check.h"
#include "part.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bandwidth rows of the plain kind: no in-flight or cache variant. */
static int plain_bw_row(const mp_rep_data *d, const mp_rep_row *r)
{
    if (r->device != 0 || !is(d, r, MP_F_PROBE, "bandwidth")
        || !is(d, r, MP_F_VERIFIED, "yes") || isnan(num(d, r, MP_F_BANDWIDTH)))
        return 0;
    /* The name ends in its size segment "/b<digits>". */
    const char *c = mp_rep_text(d, r, MP_F_CONFIG);
    const char *s = strrchr(c, '/');
    return s && s[1] == 'b' && s[2] && strspn(s + 2, "0123456789")
                                           == strlen(s + 2);
}

/* One block per series over `x` (MP_F_OFFSET or MP_F_STRIDE) with the
 * other of the two fixed (stride 1, or offset 0); series of fewer than
 * two points are left out. */
typedef struct {
    char kernel[32];
    double width, bytes;
} series;

static int same_series(const mp_rep_data *d, const mp_rep_row *r,
                       const series *s)
{
    return !strcmp(mp_rep_text(d, r, MP_F_KERNEL), s->kernel)
           && num(d, r, MP_F_WIDTH) == s->width
           && num(d, r, MP_F_ARRAY_BYTES) == s->bytes;
}

static int write_bandwidth(const mp_rep_data *d, const char *dir,
                           const char *name, int x, char *err, size_t errlen)
{
    int fixed = x == MP_F_OFFSET ? MP_F_STRIDE : MP_F_OFFSET;
    double fixed_value = x == MP_F_OFFSET ? 1 : 0;
    series *sv = mp_xcalloc((size_t)d->nrows + 1, sizeof *sv);
    double *pts = mp_xcalloc(2 * (size_t)d->nrows + 2, sizeof *pts);
    int ns = 0;

    /* The series, in order of first appearance. */
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        if (!plain_bw_row(d, r) || num(d, r, fixed) != fixed_value)
            continue;
        int known = 0;
        for (int k = 0; k < ns && !known; k++)
            known = same_series(d, r, &sv[k]);
        if (known)
            continue;
        snprintf(sv[ns].kernel, sizeof sv[ns].kernel, "%s",
                 mp_rep_text(d, r, MP_F_KERNEL));
        sv[ns].width = num(d, r, MP_F_WIDTH);
        sv[ns].bytes = num(d, r, MP_F_ARRAY_BYTES);
        ns++;
    }
    FILE *f = mp_rep_plot_open(dir, name, err, errlen);
    if (!f) {
        free(sv);
        free(pts);
        return -1;
    }
    fprintf(f, "# device: %s\n# one block per series: title line, then "
            "%s GB/s\n", d->devices[0], x == MP_F_OFFSET ? "offset_bytes"
                                                         : "stride");
    int blocks = 0;
    for (int k = 0; k < ns; k++) {
        int n = 0;
        for (int i = 0; i < d->nrows; i++) {
            const mp_rep_row *r = &d->rows[i];
            if (plain_bw_row(d, r) && num(d, r, fixed) == fixed_value
                && same_series(d, r, &sv[k])) {
                pts[2 * n] = num(d, r, x);
                pts[2 * n + 1] = num(d, r, MP_F_BANDWIDTH);
                n++;
            }
        }
        if (n < 2)
            continue;
        qsort(pts, (size_t)n, 2 * sizeof *pts, mp_cmp_double);
        fprintf(f, "%s\"x\" \"%s, %g B, %g MiB\"\n", blocks ? "\n\n" : "",
                sv[k].kernel, sv[k].width, sv[k].bytes / (1024.0 * 1024.0));
        for (int i = 0; i < n; i++)
            fprintf(f, "%g %.1f\n", pts[2 * i], pts[2 * i + 1]);
        blocks++;
    }
    free(sv);
    free(pts);
    return mp_rep_plot_close(f, dir, name, err, errlen);
}

int mp_bandwidth_plot_data(const mp_rep_data *d, const char *dir, char *err,
                           size_t errlen)
{
    return write_bandwidth(d, dir, "bandwidth-offset.dat", MP_F_OFFSET, err,
                           errlen)
           || write_bandwidth(d, dir, "bandwidth-stride.dat", MP_F_STRIDE,
                              err, errlen) ? -1 : 0;
}
