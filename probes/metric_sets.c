/*
 * metric_sets.c - the metric sets several families share: "shared-mixed"
 * (reduce, bitmap: the shared counters with the wider tolerances of
 * kernels whose warps mix loads and stores) and "global" (coalesce,
 * bandwidth, transfer), the LSU's shared counters of one op, and the
 * verdict of the shared-memory families on them and their model columns.
 * Declared in metric_sets.h.
 */
#include <math.h>
#include <stdio.h>

#include "metric_set.h"

#include "metric_sets.h"

/* The shared set's counters, for kernels in which some warps load while
 * others store (the reduction trees, the bitmap kernel's write then
 * mirrored read): there the load counters too vary from run to run, by
 * more than the shared set's 1e-3 per request. Measured on the H200:
 * - loads: ncu-check of bitmap, memprobe vs ncu, 164 load wavefronts (and
 *   conflicts) apart on 32768 LDS (5.0e-3 per request; seed layout, ld
 *   side; 62 on the st side, 56 for pad); the study re-run vs the
 *   committed study, 124 apart for reduce/tree-strided/dot/n33792 on
 *   26400 requests (4.7e-3), 2 apart on 1056 for reduce/atomic/cubes and
 *   warp-shuffle/dot (1.9e-3). Allowed 1e-2 per request plus 4 events
 *   (twice the largest measured rate).
 * - stores: the study re-run vs the committed study, 27 store wavefronts
 *   (and conflicts) apart for reduce/atomic/dot/n67108864 on 1056 requests
 *   (2.6e-2 per request: beyond the shared set's 1e-2 + 4); bitmap's
 *   stores were exact. Allowed 3e-2 per request plus 4 events (1.2 times
 *   the measured rate: one more H200 run may widen it).
 * Tolerances from repeat spread: ncu itself, five runs of the
 * bitmap standard set on the H200, counted the seed layout's load
 * wavefronts and conflicts up to 299 apart on 32768 LDS (9.1e-3 per
 * request; memprobe vs ncu 347 apart in one of the five cross-checks):
 * 3 x that spread needs (3 x 299 - 4) / 32768 = 2.73e-2 per request.
 * Allowed 3e-2 per request plus 4 events (results/h200/bitmap/
 * ncu-repeat/spread.txt).
 * Instruction counts stay exact. */
#define MIXED_LOADS 3e-2, MP_TOL_REQUEST, 4
/* Profiling in groups (configurations profiled together) widened the
 * stores: reduce/warp-shuffle/dot/n67108864 57 store wavefronts apart from
 * the committed study on ~1060 requests (5.3e-2),
 * reduce/tree-strided/cubes/b32 38 apart from ncu on ~800 (4.8e-2).
 * Allowed 8e-2 per request plus 4. */
#define MIXED_STORES 8e-2, MP_TOL_REQUEST, 4

static const mp_metric shared_mixed_set[] = {
    SHARED_ROWS(MIXED_LOADS, MIXED_STORES),
    TIME_ROW
};

/* No cache counters either; profiled after an L2 flush, the 32-block
 * reductions of ncu-check ran 50 us where ncu says 25 (H200, profiled in
 * groups), and their arbitration counts stay within tolerance without it. */
MP_METRIC_SET_DEF(mp_set_shared_mixed, shared_mixed_set, "shared-mixed", 1);
static const mp_metric global_set[] = {
    { "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests",
      "global-load requests sent to the L1TEX tag stage", EXACT },
    { "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "requests",
      "global-store requests sent to the L1TEX tag stage", EXACT },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors",
      "32-byte sectors requested by global loads at L1TEX", TRAFFIC },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sectors",
      "32-byte sectors requested by global stores at L1TEX", TRAFFIC },
    { "lts__t_sectors_srcunit_tex_op_read.sum", "sectors",
      "L2 sectors read on behalf of L1TEX (SM) traffic", CACHED_SECTORS },
    { "lts__t_sectors_srcunit_tex_op_write.sum", "sectors",
      "L2 sectors written on behalf of L1TEX (SM) traffic", CACHED_SECTORS },
    { "dram__bytes_read.sum", "bytes",
      "bytes read from device memory (HBM)", CACHED_BYTES },
    { "dram__bytes_write.sum", "bytes",
      "bytes written to device memory (HBM)", CACHED_BYTES },
    { "smsp__sass_inst_executed_op_global_ld.sum", "instructions",
      "warp-level global load instructions executed (LDG)", EXACT },
    { "smsp__sass_inst_executed_op_global_st.sum", "instructions",
      "warp-level global store instructions executed (STG)", EXACT },
    TIME_ROW
};

MP_METRIC_SET_DEF(mp_set_global, global_set, "global", 0);

void mp_shared_op_counters(const mp_measurement *m, mp_metric_set set,
                           const char *op, double *wavefronts, double *inst)
{
    char wname[96], iname[96];
    snprintf(wname, sizeof wname,
             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum", op);
    snprintf(iname, sizeof iname, "smsp__sass_inst_executed_op_shared_%s.sum",
             op);
    *wavefronts = mp_counter(m, set, wname);
    *inst = mp_counter(m, set, iname);
}

void mp_row_set_wavefronts(mp_row *row, double wavefronts, double inst,
                           double requests, const mp_prediction *p)
{
    if (inst <= 0 || wavefronts < 0)   /* < 0: the chip lacks it */
        return;
    double per_request = wavefronts / inst;
    mp_row_set(row, MP_COL_WAVEFRONTS_PER_REQUEST, "%.4f", per_request);
    mp_row_set(row, MP_COL_EXCESS_WAVEFRONTS, "%.4f",
               per_request - p->value[1]);
    mp_row_set_match(row, inst == requests
                              && fabs(per_request - p->value[0]) < 0.5);
}

void mp_row_set_wavefront_model(mp_row *row, const mp_prediction *p)
{
    mp_row_set(row, MP_COL_MODEL_WAVEFRONTS, "%g", p->value[0]);
    mp_row_set(row, MP_COL_MODEL_IDEAL, "%g", p->value[1]);
    mp_row_set(row, MP_COL_MODEL_CONFLICT_WAYS, "%.4g", p->value[2]);
}
