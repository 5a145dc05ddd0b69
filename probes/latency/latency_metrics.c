/*
 * latency_metrics.c - the latency family's metric set: L1 and L2 hits
 * and DRAM bytes of the chase.
 */
#include "metric_set.h"

/* The latency probe's chase: one thread, one load at a time. Which level
 * served the loads: L1 hits of the global-load sectors, L2 hits of the
 * sectors L1 sent on, DRAM bytes read. Hits depend on what the caches
 * held before the launch (the profiled launch follows a fresh setup):
 * 10% plus one L2 for L2 and DRAM traffic, as for the global set. */
static const mp_metric latency_set[] = {
    { "smsp__sass_inst_executed_op_global_ld.sum", "instructions",
      "warp-level global load instructions executed (LDG)", EXACT },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors",
      "32-byte sectors requested by global loads at L1TEX", TRAFFIC },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "sectors",
      "global-load sectors that hit in L1TEX", CACHED_SECTORS },
    { "lts__t_sectors_srcunit_tex_op_read.sum", "sectors",
      "L2 sectors read on behalf of L1TEX (SM) traffic", CACHED_SECTORS },
    { "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "sectors",
      "L2 sectors read on behalf of L1TEX that hit in L2", CACHED_SECTORS },
    { "dram__bytes_read.sum", "bytes",
      "bytes read from device memory (HBM)", CACHED_BYTES },
    TIME_ROW
};

MP_METRIC_SET_DEF(mp_set_latency, latency_set, "latency", 0);
