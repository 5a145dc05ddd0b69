/*
 * bank_tables.c - the shared-memory tables: bank conflicts by stride and
 * width, and padding. report/table_spec.h says what a table's spec holds;
 * report/tables.c builds and prints the tables.
 */
#include "part.h"

/* ---- bank: stride x width, ld and st ---- */

/* ldmatrix / stmatrix rows have their own tables (matrix_tables.c). */
static int matrix_op(const mp_rep_data *d, const mp_rep_row *r)
{
    return is(d, r, MP_F_OP, "ldsm") || is(d, r, MP_F_OP, "stsm");
}

static int bank_want(const mp_rep_data *d, const mp_rep_row *r)
{
    return is(d, r, MP_F_PROBE, "bank") && !matrix_op(d, r)
           && num_is(d, r, MP_F_BASE, 0)
           && num_is(d, r, MP_F_GROUP, 1) && num_is(d, r, MP_F_PERIOD, 32)
           && num_is(d, r, MP_F_PAD, 0);
}

TEXT_KEYS(bank_keys, MP_F_OP, MP_F_STRIDE)
FIELD_GROUP(width_group, MP_F_WIDTH, "", " B")
VS_MODEL_CYCLES(bank_values, MP_F_WF, MP_F_MODEL_WF)

const mp_rep_spec mp_rep_spec_bank = {
    "bank",
    "Bank conflicts: shared-memory wavefronts per request (measured, "
    "model) and cycles per request on one SM, by stride (elements) and "
    "access width",
    HEADERS("op", "stride"), HEADERS("wavefronts", "model", "cycles"), NULL,
    bank_want, bank_keys, width_group, bank_values
};

/* ---- padding: the tile's rows of stride + pad elements ---- */

static int pad_want(const mp_rep_data *d, const mp_rep_row *r)
{
    return is(d, r, MP_F_PROBE, "bank") && !matrix_op(d, r)
           && num_is(d, r, MP_F_GROUP, 1) && num_is(d, r, MP_F_PERIOD, 32);
}

TEXT_KEYS(pad_keys, MP_F_OP, MP_F_WIDTH, MP_F_STRIDE, MP_F_BASE)
FIELD_GROUP(pad_group, MP_F_PAD, "pad ", "")

static void pad_values(const mp_rep_data *d, const mp_rep_row *r,
                       char v[][KEYLEN], int *mark)
{
    put_measured(v[0], &mark[0], d, r, MP_F_WF, 4);
    put(v[1], d, r, MP_F_CYCLES, 2);
}

const mp_rep_spec mp_rep_spec_padding = {
    "padding",
    "Padding: the tile's rows hold `stride` elements and `pad` unused ones "
    "(16 + 1 is the seeds' 17); wavefronts and cycles per request",
    HEADERS("op", "width", "stride", "base"), HEADERS("wavefronts", "cycles"),
    NULL,
    pad_want, pad_keys, pad_group, pad_values
};
