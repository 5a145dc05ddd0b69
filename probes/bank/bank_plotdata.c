/*
 * bank_plotdata.c - the bank family's plot data (report/part.h):
 *
 *   bank-heatmap.dat   op (0 ld, 1 st), stride, log2(width), wavefronts
 *                      per request, model, cycles per request
 *   bank-cycles.dat    op, width, conflict ways (model), cycles per
 *                      request, wavefronts per request
 *
 * for probes/bank/bank-heatmap.gp and bank-cycles.gp, and the matrix
 * ops' matrix-swizzle.dat (matrix_plotdata.c).
 */
#include "check.h"
#include "part.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_plotdata.h"

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

static int write_bank_files(const mp_rep_data *d, const char *dir, char *err,
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

int mp_bank_plot_data(const mp_rep_data *d, const char *dir, char *err,
                      size_t errlen)
{
    return write_bank_files(d, dir, err, errlen)
           || mp_rep_plot_matrix(d, dir, err, errlen) ? -1 : 0;
}
