/*
 * bandwidth_tables.c - the bandwidth family's report table: DRAM GB/s by kernel, width, offset and stride. report/table_spec.h says what a spec holds.
 */
#include "part.h"

/* ---- bandwidth: DRAM, by kernel, width, offset, stride ---- */

PROBE_ROWS(bw_want, "bandwidth")

static void bw_keys(const mp_rep_data *d, const mp_rep_row *r,
                    char k[][KEYLEN])
{
    PUT_TEXTS(k, d, r, MP_F_KERNEL, MP_F_WIDTH, MP_F_OFFSET, MP_F_STRIDE);
    put_count_value(k[4], num(d, r, MP_F_ARRAY_BYTES) / (1024.0 * 1024.0), 1);
    config_variant(k[5], txt(d, r, MP_F_CONFIG));
}

static void bw_values(const mp_rep_data *d, const mp_rep_row *r,
                      char v[][KEYLEN], int *mark)
{
    if (put_wrong(v[0], d, r))
        return;
    put(v[0], d, r, MP_F_BANDWIDTH, 1);
    put_percent(v[1], d, r, MP_F_FRACTION);
    put(v[2], d, r, MP_F_OF_MEMCPY, 2);
    put_vs_model(&v[3], &mark[3], d, r, MP_F_SECTORS, MP_F_MODEL_SECTORS);
}

const mp_rep_spec mp_rep_spec_bandwidth = {
    "bandwidth",
    "DRAM bandwidth: GB/s, share of the device's peak and of cudaMemcpy's, "
    "sectors per request (measured, model), by kernel, width (bytes), "
    "offset (bytes), stride (elements) and array size",
    HEADERS("kernel", "width", "offset", "stride", "MiB", "variant"),
    HEADERS("GB/s", "% peak", "x memcpy", "sectors", "model"), NULL,
    bw_want, bw_keys, no_group, bw_values
};
