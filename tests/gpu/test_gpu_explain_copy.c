/*
 * test_gpu_explain_copy.c - GPU tests of `memprobe explain` on cp.async
 * (LDGSTS): build/tests/profile/copy_tile (tests/profile/real/copy_tile.cu).
 *
 * Runs (files in $GPU_TEST_DIR/explain-copy/, default results/gpu-test):
 *   memprobe explain -o copy.csv -- copy_tile
 * and asserts:
 *   - copy_rows's LDGSTS (each source line's 8 lanes landing on one bank,
 *     four lines a copy) is captured with its sources and explained by
 *     the copy rule, model = measured, above its ideal; so are the
 *     LDGSTS of copy_pad33 and copy_xor (banks each written from several
 *     places in the lines: 7) and of copy_pad36 (4);
 *   - the padding explain offers for copy_rows (36-word rows), written
 *     out as copy_pad36, measures on its LDGSTS what explain predicted
 *     for it, fewer wavefronts than copy_rows's.
 * Every row of copy.csv and the kernels' shared counts are printed to the
 * TAP log first, so that a failure shows its numbers.
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
#define GL_COL "smsp__sass_sectors_mem_global"
#define PAD_FIX "pad each"

static gpu_explain_run run;

#define NEED_RUN() GPU_EXPLAIN_NEED_RUN(&run)

/* Whether profile line r is kernel k's LDGSTS: its opcode when the
 * profile has one, else the instruction that both reads global memory
 * and writes shared memory. */
static int is_copy_line(int r, const char *k)
{
    const gpu_explain_run *x = &run;
    if (strncmp(gpu_cell(&x->plines, r, "kernel"), k, strlen(k)))
        return 0;
    const char *op = gpu_cell(&x->plines, r, "opcode");
    if (op[0])
        return !strncmp(op, "LDGSTS", 6);
    return gpu_number(&x->plines, r, SH_COL) > 0
           && gpu_number(&x->plines, r, GL_COL) > 0;
}

/* Every row of copy.csv and the two kernels' shared lines, to the log. */
static void dump(void)
{
    static const char *const cols[] = {
        "kernel", "function_offset", "opcode", "executions", "measured",
        "measured_ideal", "model", "equal", "explained", "why_not_compared",
        "fix", "predicted", "reaches_ideal"};
    for (int r = 0; r < run.xp.nrows; r++) {
        printf("# copy.csv %d:", r);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            printf(" %s=%.60s", cols[c], gpu_cell(&run.xp, r, cols[c]));
        printf("\n");
    }
    for (int r = 0; r < run.plines.nrows; r++)
        if (gpu_number(&run.plines, r, SH_COL) > 0)
            printf("# line %.40s %s %s: shared %s ideal %s, global %s\n",
                   gpu_cell(&run.plines, r, "kernel"),
                   gpu_cell(&run.plines, r, "function_offset"),
                   gpu_cell(&run.plines, r, "opcode"),
                   gpu_cell(&run.plines, r, SH_COL),
                   gpu_cell(&run.plines, r, SH_COL "_ideal"),
                   gpu_cell(&run.plines, r, GL_COL));
}

static void test_runs(void **state)
{
    (void)state;
    NEED_RUN();
    dump();
    gpu_explain_assert_ran(&run);
}

/* Kernel k's LDGSTS rows of copy.csv: explained by the copy rule,
 * model equal to measured, above the ideal; how many. */
static int copies_equal(const char *k)
{
    int n = 0;
    for (int r = 0; r < run.xp.nrows; r++) {
        if (strncmp(gpu_cell(&run.xp, r, "kernel"), k, strlen(k))
            || strncmp(gpu_cell(&run.xp, r, "opcode"), "LDGSTS", 6))
            continue;
        n++;
        gpu_explain_assert_equal(&run, r);
    }
    return n;
}

/* The four kernels' LDGSTS: explained by the copy rule, model equal to
 * measured, above the ideal. */
static void test_model_equals_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(run.have_xp);
    assert_true(copies_equal("copy_rows") >= 1);
    assert_true(copies_equal("copy_pad33") >= 1);
    assert_true(copies_equal("copy_pad36") >= 1);
    assert_true(copies_equal("copy_xor") >= 1);
}

/* Kernel k's LDGSTS wavefronts as the profile measured them, summed
 * over its copies; *n their instructions. */
static long long copy_wavefronts(const char *k, int *n)
{
    long long sum = 0;
    *n = 0;
    for (int r = 0; r < run.plines.nrows; r++)
        if (is_copy_line(r, k)) {
            (*n)++;
            sum += (long long)gpu_number(&run.plines, r, SH_COL);
        }
    return sum;
}

/* The padding explain offers for copy_rows, written out as copy_pad36:
 * its copies measure what explain predicted for the fix, fewer
 * wavefronts than copy_rows's. */
static void test_padding_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(run.have_xp && run.have_plines);
    long long predicted = 0;
    for (int r = 0; r < run.xp.nrows; r++)
        if (!strncmp(gpu_cell(&run.xp, r, "kernel"), "copy_rows", 9)
            && !strncmp(gpu_cell(&run.xp, r, "fix"), PAD_FIX, strlen(PAD_FIX)))
            predicted += (long long)gpu_number(&run.xp, r, "predicted");
    int nrows = 0, npad = 0;
    long long rows = copy_wavefronts("copy_rows", &nrows);
    long long padded = copy_wavefronts("copy_pad36", &npad);
    printf("# copy_rows's %d copies measured %lld; %s predicted %lld; "
           "copy_pad36's %d copies measured %lld\n", nrows, rows, PAD_FIX,
           predicted, npad, padded);
    assert_true(nrows >= 1);
    assert_int_equal(npad, nrows);
    assert_true(padded < rows);
    assert_int_equal(predicted, padded);
}

int main(void)
{
    static const char *const args[] = {NULL};
    gpu_explain_program(&run, "explain-copy", "copy_tile", "copy", args);
    static const struct CMUnitTest tests[] = {
        GPU_TEST("explain_runs", test_runs),
        GPU_TEST("copy_model_equals_measured", test_model_equals_measured),
        GPU_TEST("padding_measures_predicted", test_padding_measured),
    };
    int rc = cmocka_run_group_tests_name("gpu_explain_copy", tests, NULL,
                                         NULL);
    gpu_explain_free(&run);
    return rc;
}
