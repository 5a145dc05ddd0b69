/*
 * matrix_tables.c - the report tables of the bank probe's matrix ops
 * (ldmatrix / stmatrix, `--op ldsm|stsm`):
 *
 *   matrix       wavefronts per LDSM / STSM, measured beside the model,
 *                rows: row pitch, column groups: swizzle mode; printed as
 *                one table per op, matrix count, .trans and row layout
 *                (mp_rep_spec.split); a measured value is marked where it
 *                differs from the model at the precision shown
 *   matrix-free  which swizzle modes make each op, row layout and pitch
 *                conflict-free (measured wavefronts = the ideal, one per
 *                matrix), one column per matrix count and .trans
 *
 * The rows are those whose `access` column names a pitch and a swizzle
 * ("x4/trans0/plain/pitch128/swizzle-64"); rows measured with --offsets
 * have no pitch and are left out. Built and printed by report/tables.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "part.h"

static const char *const sw_names[] = {"none", "32", "64", "128"};
static const char *const sw_labels[] = {"none", "32B", "64B", "128B"};
#define NSW 4

/* Measured and model values are shown with this many decimals (the CSV's
 * own precision for wavefronts per request). */
#define DECIMALS 4

typedef struct {
    char op[8];
    int matrices, trans;
    char rows[16];
    long long pitch;
    int sw;   /* index into sw_names */
} mx;

/* The matrix configuration of row r: 1, or 0 when r is not a bank-probe
 * ldsm/stsm row with a pitch and a swizzle. */
static int mx_of(const mp_rep_data *d, const mp_rep_row *r, mx *m)
{
    if (!is(d, r, MP_F_PROBE, "bank")
        || (!is(d, r, MP_F_OP, "ldsm") && !is(d, r, MP_F_OP, "stsm")))
        return 0;
    char sw[16];
    int end = 0;
    const char *a = txt(d, r, MP_F_ACCESS);
    if (sscanf(a, "x%d/trans%d/%15[a-z]/pitch%lld/swizzle-%15[0-9a-z]%n",
               &m->matrices, &m->trans, m->rows, &m->pitch, sw, &end) != 5
        || a[end] != '\0')
        return 0;
    snprintf(m->op, sizeof m->op, "%s", txt(d, r, MP_F_OP));
    for (m->sw = 0; m->sw < NSW; m->sw++)
        if (!strcmp(sw, sw_names[m->sw]))
            return 1;
    return 0;
}

static int matrix_want(const mp_rep_data *d, const mp_rep_row *r)
{
    mx m;
    return mx_of(d, r, &m);
}

/* ---- matrix: pitch x swizzle per op, matrices, trans, rows ---- */

/* The keys of r's configuration: op, then (with_count) the matrices and
 * .trans, then rows and pitch. */
static void mx_keys(const mp_rep_data *d, const mp_rep_row *r,
                    char k[][KEYLEN], int with_count)
{
    mx m;
    mx_of(d, r, &m);
    int i = 0;
    snprintf(k[i++], KEYLEN, "%s", m.op);
    if (with_count) {
        snprintf(k[i++], KEYLEN, "%d", m.matrices);
        snprintf(k[i++], KEYLEN, "%d", m.trans);
    }
    snprintf(k[i++], KEYLEN, "%s", m.rows);
    snprintf(k[i], KEYLEN, "%lld", m.pitch);
}

static void matrix_keys(const mp_rep_data *d, const mp_rep_row *r,
                        char k[][KEYLEN])
{
    mx_keys(d, r, k, 1);
}

/* The column group of r's configuration: by_swizzle, its swizzle; else
 * its count and .trans ("x4", "x4 .trans": .trans beside its plain
 * form). */
static double mx_group(const mp_rep_data *d, const mp_rep_row *r,
                       char *label, int by_swizzle)
{
    mx m;
    mx_of(d, r, &m);
    if (by_swizzle) {
        snprintf(label, KEYLEN, "%s", sw_labels[m.sw]);
        return m.sw;
    }
    snprintf(label, KEYLEN, "x%d%s", m.matrices, m.trans ? " .trans" : "");
    return 2.0 * m.matrices + m.trans;
}

static double swizzle_group(const mp_rep_data *d, const mp_rep_row *r,
                            char *label)
{
    return mx_group(d, r, label, 1);
}

/* Measured and model wavefronts per instruction; the measured one marked
 * when the two differ as printed. */
static void matrix_values(const mp_rep_data *d, const mp_rep_row *r,
                          char v[][KEYLEN], int *mark)
{
    put_count(v[1], d, r, MP_F_MODEL_WF, DECIMALS);
    if (put_wrong(v[0], d, r))
        return;
    put_count(v[0], d, r, MP_F_WF, DECIMALS);
    mark[0] = v[0][0] && v[1][0] && strcmp(v[0], v[1]) != 0;
}

/* ---- matrix-free: the conflict-free swizzles ---- */

static void free_keys(const mp_rep_data *d, const mp_rep_row *r,
                      char k[][KEYLEN])
{
    mx_keys(d, r, k, 0);
}

static double free_group(const mp_rep_data *d, const mp_rep_row *r,
                         char *label)
{
    return mx_group(d, r, label, 0);
}

/* Value a equals the ideal n as printed. */
static int at_ideal(double a, int n)
{
    return !isnan(a) && fabs(a - n) < 0.5e-4;
}

/* The swizzle modes (bits of sw_names) whose measured (model = 0) or
 * model (model = 1) wavefronts equal the ideal, for the configuration of
 * r with any swizzle on r's device; *seen gets the modes measured. */
static unsigned free_modes(const mp_rep_data *d, const mp_rep_row *r,
                           int model, unsigned *seen)
{
    mx want, m;
    mx_of(d, r, &want);
    unsigned modes = 0;
    *seen = 0;
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *o = &d->rows[i];
        if (o->device != r->device || !mx_of(d, o, &m)
            || strcmp(m.op, want.op) || strcmp(m.rows, want.rows)
            || m.matrices != want.matrices || m.trans != want.trans
            || m.pitch != want.pitch || is(d, o, MP_F_VERIFIED, "no"))
            continue;
        double x = num(d, o, model ? MP_F_MODEL_WF : MP_F_WF);
        if (isnan(x))
            continue;
        *seen |= 1u << m.sw;
        if (at_ideal(x, m.matrices))
            modes |= 1u << m.sw;
    }
    return modes;
}

/* "none,32,64,128", "128" or "no" (none of the measured modes); "" when
 * nothing was measured. Marked when the model's list differs from the
 * measured one (over the modes measured). */
static void free_values(const mp_rep_data *d, const mp_rep_row *r,
                        char v[][KEYLEN], int *mark)
{
    unsigned seen, seen_model;
    unsigned got = free_modes(d, r, 0, &seen);
    unsigned model = free_modes(d, r, 1, &seen_model);
    if (!seen) {
        if (is(d, r, MP_F_VERIFIED, "no"))
            snprintf(v[0], KEYLEN, "wrong");
        return;
    }
    v[0][0] = '\0';
    for (int s = 0; s < NSW; s++)
        if (got & (1u << s)) {
            size_t n = strlen(v[0]);
            snprintf(v[0] + n, KEYLEN - n, "%s%s", n ? "," : "", sw_names[s]);
        }
    if (!got)
        snprintf(v[0], KEYLEN, "no");
    mark[0] = (got & seen) != (model & seen);
}

const mp_rep_spec mp_rep_spec_matrix = {
    "matrix",
    "Matrix instructions (bank --op ldsm|stsm): shared-memory wavefronts "
    "per LDSM / STSM, measured and the model's, by row pitch (bytes) and "
    "swizzle mode; one table per op, matrix count, .trans and row layout "
    "(plain: lane i is tile row i; mma: the 16 x 16 fragment's quadrants); "
    "the ideal is one wavefront per matrix",
    HEADERS("op", "matrices", "trans", "rows", "pitch"),
    HEADERS("measured", "model"),
    "no rows: no ldsm/stsm configuration with a pitch in these CSVs",
    matrix_want, matrix_keys, swizzle_group, matrix_values};

const mp_rep_spec mp_rep_spec_matrix_free = {
    "matrix-free",
    "Which swizzle is conflict-free: the swizzle modes whose measured "
    "wavefronts per LDSM / STSM equal the ideal (one per matrix), by op, "
    "row layout and row pitch (bytes), per matrix count and .trans; no: "
    "none of the modes measured is",
    HEADERS("op", "rows", "pitch"), HEADERS("conflict-free"),
    "no rows: no ldsm/stsm configuration with a pitch in these CSVs",
    matrix_want, free_keys, free_group, free_values};

