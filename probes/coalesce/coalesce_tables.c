/*
 * coalesce_tables.c - the coalesce family's report tables: sectors per request by offset, width and stride (coalesce), and the struct layouts (layouts). report/table_spec.h says what a spec holds.
 */
#include "part.h"

/* ---- coalesce: offset x width x stride ---- */

static int coal_want(const mp_rep_data *d, const mp_rep_row *r)
{
    return is(d, r, MP_F_PROBE, "coalesce") && is(d, r, MP_F_LAYOUT, "pattern")
           && num_is(d, r, MP_F_GROUP, 1) && num_is(d, r, MP_F_PERIOD, 32);
}

TEXT_KEYS(coal_keys, MP_F_CACHE, MP_F_OP, MP_F_WIDTH, MP_F_OFFSET)
FIELD_GROUP(stride_group, MP_F_STRIDE, "stride ", "")

static void coal_values(const mp_rep_data *d, const mp_rep_row *r,
                        char v[][KEYLEN], int *mark)
{
    put_vs_model(v, mark, d, r, MP_F_SECTORS, MP_F_MODEL_SECTORS);
}

const mp_rep_spec mp_rep_spec_coalesce = {
    "coalesce",
    "Coalescing: 32-byte sectors per warp-level global request (measured, "
    "model), by cache path, op, width (bytes), start offset (bytes) and "
    "stride (elements)",
    HEADERS("cache", "op", "width", "offset"), HEADERS("sectors", "model"),
    NULL,
    coal_want, coal_keys, stride_group, coal_values
};

/* ---- layouts: AoS, SoA, aligned, staged ---- */

static int layout_want(const mp_rep_data *d, const mp_rep_row *r)
{
    return is(d, r, MP_F_PROBE, "coalesce")
           && !is(d, r, MP_F_LAYOUT, "pattern");
}

TEXT_KEYS(layout_keys, MP_F_LAYOUT)

static void layout_values(const mp_rep_data *d, const mp_rep_row *r,
                          char v[][KEYLEN], int *mark)
{
    put_vs_model(v, mark, d, r, MP_F_SECTORS, MP_F_MODEL_SECTORS);
    put_count(v[2], d, r, MP_F_REQUESTS, 0);
    put_us(v[3], d, r);
    put(v[4], d, r, MP_F_BANDWIDTH, 1);
}

const mp_rep_spec mp_rep_spec_layouts = {
    "layouts",
    "Layouts: the seeds' 12-byte struct (aos12), the __align__(16) struct "
    "(aos16), three arrays (soa) and shared-memory staging (aos12-staged): "
    "sectors per load request, load requests, time of one launch",
    HEADERS("layout"), HEADERS("sectors", "model", "requests", "us", "GB/s"),
    NULL,
    layout_want, layout_keys, no_group, layout_values
};

