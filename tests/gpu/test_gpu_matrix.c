/*
 * test_gpu_matrix.c - GPU tests of the bank probe's matrix ops (ldmatrix /
 * stmatrix) and of --offsets (run by `make test-gpu` or
 * scripts/gpu-check.sh ldsm).
 *
 * Sweeps with counters from memprobe's own collector (a subset of
 * configs/matrix.conf that runs in well under a minute):
 *   matrix-plain  ldsm,stsm x .x1/.x2/.x4 x pitch 16,32,64,128,144,272 x
 *                 every swizzle, plain rows
 *   matrix-mma    the same on the MMA fragment's quadrants, pitch >= 32
 *   matrix-trans  .trans: .x4, pitch 32,128,272 (16 is no MMA row: refused), swizzle none,128
 *   offsets       --offsets for ld, st (4-byte: a permutation of 32
 *                 words, and a 2-way pattern) and for ldsm, stsm (rows
 *                 128 bytes apart, plain and swizzled by hand)
 * Every row: output verified against the CPU (ldmatrix registers, the
 * stmatrix tile), exactly one LDSM/STSM (or LDS/STS) per warp per
 * iteration counted by smsp__sass_inst_executed_op_ldsm /
 * ..._op_shared_stsm, and the wavefronts per instruction equal to the
 * model. The matrix model is a HYPOTHESIS (model/bank_model.c): a failure
 * here is the measurement saying the rule is different; the printed table
 * (config, measured, model, the l1tex ld/st wavefront counters) is what
 * the rule is then fitted to.
 *
 * Expected run time on the H200: about 40 s (around 290 configurations).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_util.h"

/* Loads: arbitration noise 1e-3 per request; stores that only store are
 * exact on the bank probe. */
#define NOISE 0.001

#define ROWS128 "0;128;256;384;512;640;768;896;1024;1152;1280;1408;1536;" \
    "1664;1792;1920;2048;2176;2304;2432;2560;2688;2816;2944;3072;3200;" \
    "3328;3456;3584;3712;3840;3968"
/* The same rows swizzled by hand: row i at chunk i % 8 (1 per matrix). */
#define ROWS_SW "0;144;288;432;576;720;864;1008;1024;1168;1312;1456;1600;1744;1888;2032;2048;2192;2336;2480;2624;2768;2912;3056;3072;3216;3360;3504;3648;3792;3936;4080"
/* 4-byte lanes: a permutation of 32 consecutive words, then 2-way. */
#define WORDS "124;0;4;8;12;16;20;24;28;32;36;40;44;48;52;56;60;64;68;72;" \
    "76;80;84;88;92;96;100;104;108;112;116;120"
#define WORDS2 "0;128;8;136;16;144;24;152;32;160;40;168;48;176;56;184;64;" \
    "192;72;200;80;208;88;216;96;224;104;232;112;240;120;248"

enum { PLAIN, MMA, TRANS, OFFSETS, MATRIX_OFFSETS, NSWEEPS };
static mp_csv_table sweeps[NSWEEPS];

static const char *inst_counter(const char *op)
{
    if (!strcmp(op, "ldsm"))
        return "smsp__sass_inst_executed_op_ldsm.sum";
    if (!strcmp(op, "stsm"))
        return "smsp__sass_inst_executed_op_shared_stsm.sum";
    if (!strcmp(op, "ld"))
        return "smsp__sass_inst_executed_op_shared_ld.sum";
    return "smsp__sass_inst_executed_op_shared_st.sum";
}

static void check_row(const mp_csv_table *t, int i)
{
    const char *op = gpu_cell(t, i, "op");
    double inst = gpu_number(t, i, inst_counter(op));
    double measured = gpu_number(t, i, "wavefronts_per_request");
    double model = gpu_number(t, i, "model_wavefronts_per_request");
    printf("# %-32s inst/request %.4f measured %8.4f model %3.0f  l1tex "
           "ld %.0f st %.0f\n", gpu_cell(t, i, "config"),
           inst / gpu_number(t, i, "requests"), measured, model,
           gpu_number(t, i,
                      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
           gpu_number(t, i,
                      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"));
    assert_true(inst == gpu_number(t, i, "requests"));
    if (!(measured >= model - 1e-9 && measured - model <= NOISE))
        fail_msg("%s: measured %.4f wavefronts per instruction, model %.0f",
                 gpu_cell(t, i, "config"), measured, model);
}

int main(void)
{
    static const gpu_sweep defs[NSWEEPS] = {
        [PLAIN] = {"matrix-plain",
                   "--op ldsm,stsm --matrices 1,2,4 --trans 0 "
                   "--pitch 16,32,64,128,144,272 --rows plain "
                   "--swizzle none,32,64,128 --iterations 1024 --runs 3"},
        [MMA] = {"matrix-mma",
                 "--op ldsm,stsm --matrices 1,2,4 --trans 0 "
                 "--pitch 32,64,128,144,272 --rows mma "
                 "--swizzle none,32,64,128 --iterations 1024 --runs 3"},
        [TRANS] = {"matrix-trans",
                   "--op ldsm,stsm --matrices 4 --trans 1 "
                   "--pitch 32,128,272 --rows plain,mma --swizzle none,128 "
                   "--iterations 1024 --runs 3"},
        [OFFSETS] = {"matrix-offsets",
                     "--op ld,st --offsets " WORDS "," WORDS2 " "
                     "--iterations 1024 --runs 3"},
        [MATRIX_OFFSETS] = {"matrix-row-offsets",
                            "--op ldsm,stsm --matrices 1,4 --offsets "
                            ROWS128 "," ROWS_SW " --iterations 1024 "
                            "--runs 3"},
    };
    if (getenv("GPU_TEST_SKIP_SWEEP") == NULL) {
        gpu_run_sweeps("bank", defs, NSWEEPS, sweeps, NULL);
    }
    return gpu_run_row_tests("gpu_matrix", sweeps, NSWEEPS, check_row, NULL,
                             0, NULL, 0);
}
