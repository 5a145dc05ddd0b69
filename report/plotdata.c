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
#include "plotdata_transfer.h"
#include "plotdata_matrix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const mp_rep_plot_files[] = {
    "bank-heatmap.dat", "bank-cycles.dat", "bandwidth-offset.dat",
    "bandwidth-stride.dat", "transfer-bandwidth.dat", "matrix-swizzle.dat",
    NULL,
};

static double num(const mp_rep_data *d, const mp_rep_row *r, int f)
{
    double v;
    return mp_rep_num(d, r, f, &v) == 0 ? v : NAN;
}

static int is(const mp_rep_data *d, const mp_rep_row *r, int f,
              const char *s)
{
    return !strcmp(mp_rep_text(d, r, f), s);
}

/* The rows of the bank table: base 0, one lane per address, no padding,
 * the kernel's output verified, counters read; not the matrix ops
 * (matrix-swizzle.dat, plotdata_matrix.c). */
static int bank_row(const mp_rep_data *d, const mp_rep_row *r)
{
    return r->device == 0 && is(d, r, MP_F_PROBE, "bank")
           && !is(d, r, MP_F_OP, "ldsm") && !is(d, r, MP_F_OP, "stsm")
           && num(d, r, MP_F_BASE) == 0 && num(d, r, MP_F_GROUP) == 1
           && num(d, r, MP_F_PERIOD) == 32 && num(d, r, MP_F_PAD) == 0
           && is(d, r, MP_F_VERIFIED, "yes") && !isnan(num(d, r, MP_F_WF));
}

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

FILE *mp_rep_plot_open(const char *dir, const char *name, char *err,
                       size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        mp_reason(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

int mp_rep_plot_close(FILE *f, const char *dir, const char *name, char *err,
                      size_t errlen)
{
    if (ferror(f) | (fclose(f) != 0)) {
        mp_reason(err, errlen, "%s/%s: write failed", dir, name);
        return -1;
    }
    return 0;
}

static int write_bank(const mp_rep_data *d, const char *dir, char *err,
                      size_t errlen)
{
    FILE *f = mp_rep_plot_open(dir, "bank-heatmap.dat", err, errlen);
    if (!f)
        return -1;
    fprintf(f, "# device: %s\n# op(0 ld, 1 st) stride log2(width) "
            "wavefronts model cycles\n", d->devices[0]);
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        if (bank_row(d, r))
            fprintf(f, "%d %g %g %.4f %g %.4f\n", is(d, r, MP_F_OP, "st"),
                    num(d, r, MP_F_STRIDE), log2(num(d, r, MP_F_WIDTH)),
                    num(d, r, MP_F_WF), num(d, r, MP_F_MODEL_WF),
                    num(d, r, MP_F_CYCLES));
    }
    if (mp_rep_plot_close(f, dir, "bank-heatmap.dat", err, errlen))
        return -1;

    f = mp_rep_plot_open(dir, "bank-cycles.dat", err, errlen);
    if (!f)
        return -1;
    fprintf(f, "# device: %s\n# op(0 ld, 1 st) width ways(model) cycles "
            "wavefronts\n", d->devices[0]);
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        if (bank_row(d, r) && !isnan(num(d, r, MP_F_CYCLES)))
            fprintf(f, "%d %g %g %.4f %.4f\n", is(d, r, MP_F_OP, "st"),
                    num(d, r, MP_F_WIDTH), num(d, r, MP_F_MODEL_WAYS),
                    num(d, r, MP_F_CYCLES), num(d, r, MP_F_WF));
    }
    return mp_rep_plot_close(f, dir, "bank-cycles.dat", err, errlen);
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
        qsort(pts, (size_t)n, 2 * sizeof *pts, cmp_double);
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
    if (write_bank(d, dir, err, errlen)
        || write_bandwidth(d, dir, "bandwidth-offset.dat", MP_F_OFFSET, err,
                           errlen)
        || write_bandwidth(d, dir, "bandwidth-stride.dat", MP_F_STRIDE, err,
                           errlen)
        || mp_rep_plot_transfer(d, dir, err, errlen)
        || mp_rep_plot_matrix(d, dir, err, errlen))
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
