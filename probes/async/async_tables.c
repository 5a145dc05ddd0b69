/*
 * async_tables.c - the async family's report table:
 *
 *   async    global -> shared copies: GB/s, % of the DRAM peak and
 *            shared-store wavefronts per copy instruction (measured,
 *            model) by method, width, cache operator, swizzle and tile,
 *            one column group for DRAM-sized arrays and one for
 *            L2-resident ones (array below 60 MiB, copied many times) *
 * Built and printed by report/tables.c like every other table; registered
 * by the async family's part (async_family.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part.h"

#define KL MP_REP_KEYLEN
/* Arrays below this stay in the H200's 60 MiB L2 across passes. */
#define L2_RESIDENT_BYTES (48.0 * 1024 * 1024)

PROBE_ROWS(async_want, "async")
TEXT_KEYS(async_keys, MP_F_METHOD, MP_F_WIDTH, MP_F_CACHE, MP_F_SWIZZLE,
          MP_F_TILE_BYTES)

static double async_group(const mp_rep_data *d, const mp_rep_row *r,
                          char *label)
{
    double b;
    int l2 = mp_rep_num(d, r, MP_F_ARRAY_BYTES, &b) == 0
             && b < L2_RESIDENT_BYTES;
    snprintf(label, KL, "%s", l2 ? "L2-resident" : "DRAM");
    return l2;
}

/* GB/s, % of DRAM peak, wavefronts per request (marked when the row says
 * it does not match the model), the model's. */
static void async_values(const mp_rep_data *d, const mp_rep_row *r,
                         char v[][KL], int *mark)
{
    if (put_wrong(v[0], d, r))
        return;
    put_count(v[0], d, r, MP_F_BANDWIDTH, 1);
    put_count_value(v[1], 100 * num(d, r, MP_F_FRACTION), 1);
    put_count(v[2], d, r, MP_F_WF, 3);
    put_count(v[3], d, r, MP_F_MODEL_WF, 3);
    mark[2] = is(d, r, MP_F_MATCH, "no");
}

const mp_rep_spec mp_rep_spec_async = {
    "async",
     "Async copies global -> shared: bandwidth (bytes copied / median "
     "time), % of the DRAM peak, and shared-store wavefronts per copy "
     "instruction (STS or LDGSTS; 0 for the TMA's bulk and tensor copies) "
     "with the model's, by method, width, cache operator, swizzle and "
     "tile; DRAM-sized arrays and L2-resident ones",
     HEADERS("method", "width", "cache", "swizzle", "tile"),
     HEADERS("GB/s", "% DRAM", "wf/req", "model"),
     "no rows: no async configuration in these CSVs",
     async_want, async_keys, async_group, async_values};

