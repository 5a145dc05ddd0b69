/*
 * cluster_metrics.c - the cluster family's metric set: distributed
 * shared-memory requests, bytes and wavefronts.
 */
#include "metric_set.h"

/* Distributed shared memory (probes/cluster/cluster.c): loads and stores to
 * another block's shared memory are generic LD/ST in the SASS and reach
 * L1TEX as "dshared" requests; local ones are LDS/STS. Tolerances as for
 * the shared set: the H200's ncu-check --probe cluster (176 values) stayed
 * within them, the largest gaps 721 store wavefronts on about 2.16e6
 * requests (3.3e-4 per request, remote st) and 83 load wavefronts
 * (3.8e-5, local ld). */
static const mp_metric cluster_set[] = {
    { "l1tex__t_requests_pipe_lsu_mem_dshared_op_ld.sum", "requests",
      "distributed-shared-memory load requests (another block's shared memory)", EXACT },
    { "l1tex__t_requests_pipe_lsu_mem_dshared_op_st.sum", "requests",
      "distributed-shared-memory store requests", EXACT },
    { "l1tex__t_bytes_pipe_lsu_mem_dshared_op_ld.sum", "bytes",
      "bytes loaded from distributed shared memory", TRAFFIC },
    { "l1tex__t_bytes_pipe_lsu_mem_dshared_op_st.sum", "bytes",
      "bytes stored to distributed shared memory", TRAFFIC },
    { "smsp__inst_executed_op_generic_ld.sum", "instructions",
      "warp-level generic loads executed (LD: remote shared memory in the SASS)", EXACT },
    { "smsp__inst_executed_op_generic_st.sum", "instructions",
      "warp-level generic stores executed (ST)", EXACT },
    { "smsp__sass_inst_executed_op_shared_ld.sum", "instructions",
      "warp-level shared-memory load instructions executed (LDS, LD)", EXACT },
    { "smsp__sass_inst_executed_op_shared_st.sum", "instructions",
      "warp-level shared-memory store instructions executed (STS, ST)", EXACT },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts",
      "shared-memory wavefronts processed by the L1TEX data stage for loads", ARBITRATION },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts",
      "shared-memory wavefronts processed by the L1TEX data stage for stores", STORE_ARBITRATION },
    TIME_ROW
};

MP_METRIC_SET_DEF(mp_set_cluster, cluster_set, "cluster", 0);
