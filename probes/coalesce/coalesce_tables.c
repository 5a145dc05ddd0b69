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

static void coal_keys(const mp_rep_data *d, const mp_rep_row *r,
                      char k[][KEYLEN])
{
    PUT_TEXTS(k, d, r, MP_F_CACHE, MP_F_OP, MP_F_WIDTH, MP_F_OFFSET);
}

static double stride_group(const mp_rep_data *d, const mp_rep_row *r,
                           char *label)
{
    return field_group(label, d, r, MP_F_STRIDE, "stride ", "");
}

static void coal_values(const mp_rep_data *d, const mp_rep_row *r,
                        char v[][KEYLEN], int *mark)
{
    put_measured(v[0], &mark[0], d, r, MP_F_SECTORS, 4);
    put_count(v[1], d, r, MP_F_MODEL_SECTORS, 4);
}

static const char *const coal_kh[] = {"cache", "op", "width", "offset"};
static const char *const coal_sh[] = {"sectors", "model"};

const mp_rep_spec mp_rep_spec_coalesce = {
    "coalesce",
    "Coalescing: 32-byte sectors per warp-level global request (measured, "
    "model), by cache path, op, width (bytes), start offset (bytes) and "
    "stride (elements)",
    N(coal_kh), coal_kh, N(coal_sh), coal_sh, NULL,
    coal_want, coal_keys, stride_group, coal_values
};

/* ---- layouts: AoS, SoA, aligned, staged ---- */

static int layout_want(const mp_rep_data *d, const mp_rep_row *r)
{
    return is(d, r, MP_F_PROBE, "coalesce")
           && !is(d, r, MP_F_LAYOUT, "pattern");
}

static void layout_keys(const mp_rep_data *d, const mp_rep_row *r,
                        char k[][KEYLEN])
{
    snprintf(k[0], KEYLEN, "%s", txt(d, r, MP_F_LAYOUT));
}

static void layout_values(const mp_rep_data *d, const mp_rep_row *r,
                          char v[][KEYLEN], int *mark)
{
    put_measured(v[0], &mark[0], d, r, MP_F_SECTORS, 4);
    put_count(v[1], d, r, MP_F_MODEL_SECTORS, 4);
    put_count(v[2], d, r, MP_F_REQUESTS, 0);
    put_value(v[3], num(d, r, MP_F_TIME_NS) / 1e3, 1);
    put(v[4], d, r, MP_F_BANDWIDTH, 1);
}

static const char *const layout_kh[] = {"layout"};
static const char *const layout_sh[] = {"sectors", "model", "requests",
                                        "us", "GB/s"};

const mp_rep_spec mp_rep_spec_layouts = {
    "layouts",
    "Layouts: the seeds' 12-byte struct (aos12), the __align__(16) struct "
    "(aos16), three arrays (soa) and shared-memory staging (aos12-staged): "
    "sectors per load request, load requests, time of one launch",
    N(layout_kh), layout_kh, N(layout_sh), layout_sh, NULL,
    layout_want, layout_keys, no_group, layout_values
};

