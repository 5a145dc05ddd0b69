/*
 * test_gpu_explain_matrix.c - GPU tests of `memprobe explain` on
 * ldmatrix and stmatrix: build/tests/profile/matrix_tile
 * (tests/profile/real/matrix_tile.cu).
 *
 * Runs (files in $GPU_TEST_DIR/explain-matrix/, default results/gpu-test):
 *   memprobe explain -o matrix.csv -- matrix_tile
 * and asserts:
 *   - the offenders ldsm_rows's LDSM and stsm_rows's STSM (rows 128 bytes
 *     apart, a matrix's 8 rows in one bank group) are captured and
 *     explained by the matrix rule, model = measured;
 *   - the XOR swizzle explain offers measures what it predicted:
 *     ldsm_swizzled's LDSM and stsm_swizzled's STSM, written so, count the
 *     predicted wavefronts, and neither kernel is an offender.
 * Skips without a GPU, the program, or the capture library.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../mp_skip.h"
#include "gpu_util.h"
#include "subprocess.h"

#define SH_COL "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
#define XOR_FIX "XOR swizzle"

static gpu_explain_run run;

#define NEED_RUN() GPU_EXPLAIN_NEED_RUN(&run)

/* explain.csv's first row of the kernel whose name starts with k. */
static int row_of(const char *k)
{
    return gpu_explain_row(&run, k);
}

static void test_runs(void **state)
{
    (void)state;
    NEED_RUN();
    gpu_explain_assert_ran(&run);
}

/* Each offender explained by the matrix rule, model equal to measured;
 * the swizzled kernels are none. */
static void test_model_equals_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(run.have_xp);
    static const char *const offenders[] = {"ldsm_rows", "stsm_rows"};
    for (size_t k = 0; k < 2; k++) {
        int r = row_of(offenders[k]);
        if (r < 0)
            fail_msg("no row of %s in matrix.csv", offenders[k]);
        printf("# %s %s %s: measured %s, model %s, executions %s, equal %s "
               "%s\n", offenders[k], gpu_cell(&run.xp, r, "function_offset"),
               gpu_cell(&run.xp, r, "opcode"), gpu_cell(&run.xp, r, "measured"),
               gpu_cell(&run.xp, r, "model"), gpu_cell(&run.xp, r, "executions"),
               gpu_cell(&run.xp, r, "equal"),
               gpu_cell(&run.xp, r, "why_not_compared"));
        gpu_explain_assert_equal(&run, r);
    }
    assert_int_equal(row_of("ldsm_swizzled"), -1);
    assert_int_equal(row_of("stsm_swizzled"), -1);
}

/* The predicted wavefronts of the XOR swizzle for kernel `from` against
 * the measured ones of `to`'s shared load (load 1) or store (load 0). */
static void check_fix(const char *from, const char *to, int load)
{
    long long predicted = -1, measured = 0, ideal = 0;
    for (int r = 0; r < run.xp.nrows; r++)
        if (!strncmp(gpu_cell(&run.xp, r, "kernel"), from, strlen(from))
            && !strncmp(gpu_cell(&run.xp, r, "fix"), XOR_FIX, strlen(XOR_FIX))) {
            predicted = (long long)gpu_number(&run.xp, r, "predicted");
            assert_string_equal(gpu_cell(&run.xp, r, "reaches_ideal"), "yes");
        }
    int n = 0;
    for (int r = 0; r < run.plines.nrows; r++) {
        /* the kernel's only shared load (ldsm: its fill is a store) or
         * only shared store (stsm: its copy out is a load) */
        if (strncmp(gpu_cell(&run.plines, r, "kernel"), to, strlen(to))
            || gpu_number(&run.plines, r, SH_COL) == 0
            || (gpu_number(&run.plines, r, "smsp__sass_inst_executed_op_ld") > 0)
                   != load)
            continue;
        n++;
        measured += (long long)gpu_number(&run.plines, r, SH_COL);
        ideal += (long long)gpu_number(&run.plines, r, SH_COL "_ideal");
    }
    printf("# %s, %s: predicted %lld; %s measured %lld (ideal %lld, %d "
           "instruction%s)\n", from, XOR_FIX, predicted, to, measured, ideal,
           n, n == 1 ? "" : "s");
    assert_int_equal(n, 1);
    assert_true(predicted > 0);
    assert_int_equal(measured, predicted);
    assert_int_equal(measured, ideal);
}

static void test_swizzle_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(run.have_xp && run.have_plines);
    check_fix("ldsm_rows", "ldsm_swizzled", 1);
    check_fix("stsm_rows", "stsm_swizzled", 0);
}

int main(void)
{
    static const char *const args[] = {NULL};
    gpu_explain_program(&run, "explain-matrix", "matrix_tile", "matrix", args);
    static const struct CMUnitTest tests[] = {
        GPU_TEST("explain_runs", test_runs),
        GPU_TEST("matrix_model_equals_measured", test_model_equals_measured),
        GPU_TEST("swizzle_measures_the_prediction", test_swizzle_measured),
    };
    int rc = cmocka_run_group_tests_name("gpu_explain_matrix", tests, NULL,
                                         NULL);
    gpu_explain_free(&run);
    return rc;
}
