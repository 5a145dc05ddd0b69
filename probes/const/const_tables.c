/*
 * const_tables.c - the constant family's report table: replays per request by spread and spacing. report/table_spec.h says what a spec holds.
 */
#include "part.h"

/* ---- const: spread x spacing ---- */

PROBE_ROWS(const_want, "const")
TEXT_KEYS(const_keys, MP_F_SOURCE, MP_F_SPREAD, MP_F_GROUP, MP_F_PERIOD)
FIELD_GROUP(spacing_group, MP_F_SPACING, "", " B apart")
VS_MODEL_CYCLES(const_values, MP_F_REPLAYS, MP_F_MODEL_REPLAYS)

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

