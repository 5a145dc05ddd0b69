/*
 * reduce_tables.c - the reduction ladder's table. report/table_spec.h says
 * what a table's spec holds; report/tables.c builds and prints the tables.
 */
#include "part.h"

/* ---- reduction ladder: variant by workload, size and grid ---- */

PROBE_ROWS(red_want, "reduce")
TEXT_KEYS(red_keys, MP_F_WORKLOAD, MP_F_ELEMENTS, MP_F_BLOCKS, MP_F_VARIANT)

/* Loads: wavefronts per LDS against the model (marked when the row's
 * model_match is no). Stores: wavefronts per STS from the raw counters,
 * which carry an arbitration excess the address model does not predict
 * where warps interleave LDS and STS (docs/reduce.md). */
static void red_values(const mp_rep_data *d, const mp_rep_row *r,
                       char v[][KEYLEN], int *mark)
{
    if (put_wrong(v[0], d, r))
        return;
    put_us(v[0], d, r);
    put(v[1], d, r, MP_F_BANDWIDTH, 1);
    put_percent(v[2], d, r, MP_F_FRACTION);
    put_vs_model(&v[3], &mark[3], d, r, MP_F_WF, MP_F_MODEL_WF);
    double sts = num(d, r, MP_F_ST_INST);
    put_count_value(v[5], sts > 0 ? num(d, r, MP_F_ST_WF) / sts : NAN, 4);
}

const mp_rep_spec mp_rep_spec_reduction = {
    "reduction",
    "Reduction ladder: each way of combining a block's partial sums, "
    "with its time, bandwidth (bytes read / time, and as a % of the "
    "device's measured 16-byte read bandwidth), shared-memory wavefronts "
    "per LDS (measured, model) and per STS",
    HEADERS("workload", "elements", "blocks", "variant"),
    HEADERS("us", "GB/s", "% read", "wf/LDS", "model", "wf/STS"),
    "no rows: no reduce configuration in these CSVs",
    red_want, red_keys, no_group, red_values
};
