/*
 * bank_metrics.c - the bank family's metric set, "shared": bank conflicts,
 * wavefronts and instructions of shared-memory loads and stores.
 */
#include "metric_set.h"

static const mp_metric shared_set[] = {
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "conflicts",
      "shared-memory bank conflicts counted by L1TEX for loads (LDS, LDSM)", ARBITRATION },
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "conflicts",
      "shared-memory bank conflicts counted by L1TEX for stores (STS, STSM)", STORE_ARBITRATION },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts",
      "shared-memory wavefronts processed by the L1TEX data stage for loads", ARBITRATION },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts",
      "shared-memory wavefronts processed by the L1TEX data stage for stores", STORE_ARBITRATION },
    { "smsp__sass_inst_executed_op_shared_ld.sum", "instructions",
      "warp-level shared-memory load instructions executed (LDS, LD)", EXACT },
    { "smsp__sass_inst_executed_op_shared_st.sum", "instructions",
      "warp-level shared-memory store instructions executed (STS, ST)", EXACT },
    { "smsp__sass_inst_executed_op_ldsm.sum", "instructions",
      "warp-level LDSM (ldmatrix) instructions executed", EXACT },
    { "smsp__sass_inst_executed_op_shared_stsm.sum", "instructions",
      "warp-level STSM (stmatrix) instructions executed", EXACT },
    { "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum", "wavefronts",
      "shared-memory wavefronts of LDSM instructions", ARBITRATION },
    { "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum", "wavefronts",
      "shared-memory wavefronts of STSM instructions", STORE_ARBITRATION },
    TIME_ROW
};

const mp_metric_set_def mp_set_shared =
    MP_METRIC_SET(shared_set, "shared", 1);
