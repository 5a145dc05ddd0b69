/*
 * test_gpu_explain_atomics.c - GPU tests of `memprobe explain` on
 * atomics: build/tests/profile/histogram (tests/profile/real/histogram.cu).
 *
 * Runs (files in $GPU_TEST_DIR/explain-atomics/, default
 * results/gpu-test):
 *   memprobe explain --max-warps 262144 -o atomics.csv -- histogram
 * and asserts:
 *   - both offenders are explained with model = measured: hist_shared's
 *     shared atomic (counted as the store of its addresses: the bank
 *     rule, lanes on one word merged) and hist_global's global atomic (the
 *     sectors of its addresses), every execution captured;
 *   - the fix explain offers the shared one, a private copy of the bins
 *     per lane, measures what explain predicted: hist_private, written
 *     so, counts the predicted wavefronts in its first launch, and is no
 *     offender.
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
#define PRIVATE_FIX "a private copy per lane"

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

/* Each offender explained, model equal to measured, all captured; the
 * fixed kernel is none. */
static void test_model_equals_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(run.have_xp);
    static const char *const offenders[] = {"hist_shared", "hist_global"};
    for (size_t k = 0; k < 2; k++) {
        int r = row_of(offenders[k]);
        if (r < 0)
            fail_msg("no row of %s in atomics.csv", offenders[k]);
        printf("# %s %s %s (%s): measured %s, model %s, executions %s, "
               "equal %s %s\n", offenders[k],
               gpu_cell(&run.xp, r, "function_offset"),
               gpu_cell(&run.xp, r, "opcode"), gpu_cell(&run.xp, r, "space"),
               gpu_cell(&run.xp, r, "measured"), gpu_cell(&run.xp, r, "model"),
               gpu_cell(&run.xp, r, "executions"), gpu_cell(&run.xp, r, "equal"),
               gpu_cell(&run.xp, r, "why_not_compared"));
        gpu_explain_assert_equal(&run, r);
    }
    assert_int_equal(row_of("hist_private"), -1);
}

/* The private copies' predicted wavefronts against hist_private's. */
static void test_private_fix_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(run.have_xp && run.have_plines);
    long long predicted = -1, measured = 0, ideal = 0;
    for (int r = 0; r < run.xp.nrows; r++)
        if (!strncmp(gpu_cell(&run.xp, r, "kernel"), "hist_shared", 11)
            && !strncmp(gpu_cell(&run.xp, r, "fix"), PRIVATE_FIX,
                        strlen(PRIVATE_FIX))) {
            predicted = (long long)gpu_number(&run.xp, r, "predicted");
            assert_string_equal(gpu_cell(&run.xp, r, "reaches_ideal"), "yes");
        }
    int n = 0;
    for (int r = 0; r < run.plines.nrows; r++) {
        /* the private kernel's shared atomic: its line is atomicAdd's in
         * the toolkit's header (its zeroing stores and its reads are on
         * histogram.cu's lines, its global atomic counts no wavefront) */
        if (strncmp(gpu_cell(&run.plines, r, "kernel"), "hist_private", 12)
            || strcmp(gpu_base_name(gpu_cell(&run.plines, r, "file")),
                      "device_atomic_functions.hpp")
            || gpu_number(&run.plines, r, SH_COL) == 0)
            continue;
        n++;
        measured += (long long)gpu_number(&run.plines, r, SH_COL);
        ideal += (long long)gpu_number(&run.plines, r, SH_COL "_ideal");
    }
    printf("# hist_shared, %s: predicted %lld; hist_private's atomic "
           "measured %lld (ideal %lld, %d instruction%s)\n", PRIVATE_FIX,
           predicted, measured, ideal, n, n == 1 ? "" : "s");
    assert_int_equal(n, 1);
    assert_true(predicted > 0);
    assert_int_equal(measured, predicted);
    assert_int_equal(measured, ideal);
}

int main(void)
{
    static const char *const args[] = {"--max-warps", "262144", NULL};
    gpu_explain_program(&run, "explain-atomics", "histogram", "atomics", args);
    static const struct CMUnitTest tests[] = {
        GPU_TEST("explain_runs", test_runs),
        GPU_TEST("atomics_model_equals_measured", test_model_equals_measured),
        GPU_TEST("private_copies_measure_the_prediction",
                 test_private_fix_measured),
    };
    int rc = cmocka_run_group_tests_name("gpu_explain_atomics", tests, NULL,
                                         NULL);
    gpu_explain_free(&run);
    return rc;
}
