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

static char dir[1024], prog[1024], capture_lib[1024], skip_why[1200];
static int rc_explain = -1;
static mp_ncu_table xp, plines;
static int have_xp, have_plines;

#define NEED_RUN()                                                        \
    do {                                                                  \
        if (skip_why[0])                                                  \
            MP_SKIP("%s", skip_why);                                      \
    } while (0)

static void run_explain(void)
{
    char out[1200], log[1200];
    snprintf(out, sizeof out, "%s/matrix.csv", dir);
    snprintf(log, sizeof log, "%s/matrix.log", dir);
    char *argv[] = {(char *)gpu_memprobe(), "explain", "-o", out, "--", prog,
                    NULL};
    rc_explain = mp_spawn_wait_timeout(argv, log, 120);
    printf("# memprobe explain -o %s -- %s -> exit %d (log %s)\n", out, prog,
           rc_explain, log);
    have_xp = gpu_read_csv(dir, "matrix.csv", &xp);
    have_plines = gpu_read_csv(dir, "matrix-profile-lines.csv", &plines);
}

/* explain.csv's first row of the kernel whose name starts with k. */
static int row_of(const char *k)
{
    for (int r = 0; r < xp.nrows; r++)
        if (!strncmp(gpu_cell(&xp, r, "kernel"), k, strlen(k)))
            return r;
    return -1;
}

static void test_runs(void **state)
{
    (void)state;
    NEED_RUN();
    assert_int_equal(rc_explain, 0);
    assert_true(have_xp);
    assert_true(have_plines);
}

/* Each offender explained by the matrix rule, model equal to measured;
 * the swizzled kernels are none. */
static void test_model_equals_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(have_xp);
    static const char *const offenders[] = {"ldsm_rows", "stsm_rows"};
    for (size_t k = 0; k < 2; k++) {
        int r = row_of(offenders[k]);
        if (r < 0)
            fail_msg("no row of %s in matrix.csv", offenders[k]);
        printf("# %s %s %s: measured %s, model %s, executions %s, equal %s "
               "%s\n", offenders[k], gpu_cell(&xp, r, "function_offset"),
               gpu_cell(&xp, r, "opcode"), gpu_cell(&xp, r, "measured"),
               gpu_cell(&xp, r, "model"), gpu_cell(&xp, r, "executions"),
               gpu_cell(&xp, r, "equal"),
               gpu_cell(&xp, r, "why_not_compared"));
        assert_string_equal(gpu_cell(&xp, r, "explained"), "yes");
        assert_string_equal(gpu_cell(&xp, r, "equal"), "yes");
        assert_true(gpu_number(&xp, r, "model")
                    == gpu_number(&xp, r, "measured"));
        assert_true(gpu_number(&xp, r, "measured")
                    > gpu_number(&xp, r, "measured_ideal"));
    }
    assert_int_equal(row_of("ldsm_swizzled"), -1);
    assert_int_equal(row_of("stsm_swizzled"), -1);
}

/* The predicted wavefronts of the XOR swizzle for kernel `from` against
 * the measured ones of `to`'s shared load (load 1) or store (load 0). */
static void check_fix(const char *from, const char *to, int load)
{
    long long predicted = -1, measured = 0, ideal = 0;
    for (int r = 0; r < xp.nrows; r++)
        if (!strncmp(gpu_cell(&xp, r, "kernel"), from, strlen(from))
            && !strncmp(gpu_cell(&xp, r, "fix"), XOR_FIX, strlen(XOR_FIX))) {
            predicted = (long long)gpu_number(&xp, r, "predicted");
            assert_string_equal(gpu_cell(&xp, r, "reaches_ideal"), "yes");
        }
    int n = 0;
    for (int r = 0; r < plines.nrows; r++) {
        /* the kernel's only shared load (ldsm: its fill is a store) or
         * only shared store (stsm: its copy out is a load) */
        if (strncmp(gpu_cell(&plines, r, "kernel"), to, strlen(to))
            || gpu_number(&plines, r, SH_COL) == 0
            || (gpu_number(&plines, r, "smsp__sass_inst_executed_op_ld") > 0)
                   != load)
            continue;
        n++;
        measured += (long long)gpu_number(&plines, r, SH_COL);
        ideal += (long long)gpu_number(&plines, r, SH_COL "_ideal");
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
    assert_true(have_xp && have_plines);
    check_fix("ldsm_rows", "ldsm_swizzled", 1);
    check_fix("stsm_rows", "stsm_swizzled", 0);
}

int main(void)
{
    gpu_test_subdir("explain-matrix", dir, sizeof dir);
    snprintf(prog, sizeof prog, "%s/tests/profile/matrix_tile",
             gpu_build_dir());
    snprintf(capture_lib, sizeof capture_lib,
             "%s/lib/libmemprobe_capture.so", gpu_build_dir());
    if (access("/dev/nvidiactl", F_OK))
        snprintf(skip_why, sizeof skip_why, "no NVIDIA GPU here "
                 "(/dev/nvidiactl missing)");
    else if (access(prog, X_OK))
        snprintf(skip_why, sizeof skip_why, "%s not built (make real-cpp)",
                 prog);
    else if (access(capture_lib, R_OK))
        snprintf(skip_why, sizeof skip_why, "no capture library %s (make "
                 "capture: it needs the toolkit's compute-sanitizer)",
                 capture_lib);
    else {
        gpu_make_test_dirs(dir);
        run_explain();
    }
    static const struct CMUnitTest tests[] = {
        GPU_TEST("explain_runs", test_runs),
        GPU_TEST("matrix_model_equals_measured", test_model_equals_measured),
        GPU_TEST("swizzle_measures_the_prediction", test_swizzle_measured),
    };
    int rc = cmocka_run_group_tests_name("gpu_explain_matrix", tests, NULL,
                                         NULL);
    if (have_xp)
        mp_ncu_free(&xp);
    if (have_plines)
        mp_ncu_free(&plines);
    return rc;
}
