/*
 * const_tables.c - the constant family's report table: replays per request by spread and spacing. report/table_spec.h says what a spec holds.
 */
#include "part.h"

/* ---- const: spread x spacing ---- */

static int const_want(const mp_rep_data *d, const mp_rep_row *r)
{
    return is(d, r, MP_F_PROBE, "const");
}

static void const_keys(const mp_rep_data *d, const mp_rep_row *r,
                       char k[][KEYLEN])
{
    PUT_TEXTS(k, d, r, MP_F_SOURCE, MP_F_SPREAD, MP_F_GROUP, MP_F_PERIOD);
}

static double spacing_group(const mp_rep_data *d, const mp_rep_row *r,
                            char *label)
{
    return field_group(label, d, r, MP_F_SPACING, "", " B apart");
}

static void const_values(const mp_rep_data *d, const mp_rep_row *r,
                         char v[][KEYLEN], int *mark)
{
    put_measured(v[0], &mark[0], d, r, MP_F_REPLAYS, 4);
    put_count(v[1], d, r, MP_F_MODEL_REPLAYS, 4);
    put(v[2], d, r, MP_F_CYCLES, 2);
}

static const char *const const_kh[] = {"source", "spread", "group",
                                       "period"};
static const char *const const_sh[] = {"replays", "model", "cycles"};

const mp_rep_spec mp_rep_spec_const = {
    "const",
    "Constant memory: replays per warp-level load (measured, model) and "
    "cycles per load, by source, distinct addresses per warp (spread), "
    "lanes per address (group), lanes after which addresses repeat "
    "(period) and the addresses' spacing",
    N(const_kh), const_kh, N(const_sh), const_sh, NULL,
    const_want, const_keys, spacing_group, const_values
};

