/*
 * const_tables.c - the constant family's report table: replays per request by spread and spacing. report/table_spec.h says what a spec holds.
 */
#include "part.h"

/* ---- const: spread x spacing ---- */

PROBE_ROWS(const_want, "const")
TEXT_KEYS(const_keys, MP_F_SOURCE, MP_F_SPREAD, MP_F_GROUP, MP_F_PERIOD)
FIELD_GROUP(spacing_group, MP_F_SPACING, "", " B apart")

static void const_values(const mp_rep_data *d, const mp_rep_row *r,
                         char v[][KEYLEN], int *mark)
{
    put_vs_model(v, mark, d, r, MP_F_REPLAYS, MP_F_MODEL_REPLAYS);
    put(v[2], d, r, MP_F_CYCLES, 2);
}

const mp_rep_spec mp_rep_spec_const = {
    "const",
    "Constant memory: replays per warp-level load (measured, model) and "
    "cycles per load, by source, distinct addresses per warp (spread), "
    "lanes per address (group), lanes after which addresses repeat "
    "(period) and the addresses' spacing",
    HEADERS("source", "spread", "group", "period"),
    HEADERS("replays", "model", "cycles"), NULL,
    const_want, const_keys, spacing_group, const_values
};

