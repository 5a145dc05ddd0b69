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
    snprintf(out, sizeof out, "%s/atomics.csv", dir);
    snprintf(log, sizeof log, "%s/atomics.log", dir);
    char *argv[] = {(char *)gpu_memprobe(), "explain", "--max-warps",
                    "262144", "-o", out, "--", prog, NULL};
    rc_explain = mp_spawn_wait_timeout(argv, log, 120);
    printf("# memprobe explain --max-warps 262144 -o %s -- %s -> exit %d "
           "(log %s)\n", out, prog, rc_explain, log);
    have_xp = gpu_read_csv(dir, "atomics.csv", &xp);
    have_plines = gpu_read_csv(dir, "atomics-profile-lines.csv", &plines);
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

/* Each offender explained, model equal to measured, all captured; the
 * fixed kernel is none. */
static void test_model_equals_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(have_xp);
    static const char *const offenders[] = {"hist_shared", "hist_global"};
    for (size_t k = 0; k < 2; k++) {
        int r = row_of(offenders[k]);
        if (r < 0)
            fail_msg("no row of %s in atomics.csv", offenders[k]);
        printf("# %s %s %s (%s): measured %s, model %s, executions %s, "
               "equal %s %s\n", offenders[k],
               gpu_cell(&xp, r, "function_offset"),
               gpu_cell(&xp, r, "opcode"), gpu_cell(&xp, r, "space"),
               gpu_cell(&xp, r, "measured"), gpu_cell(&xp, r, "model"),
               gpu_cell(&xp, r, "executions"), gpu_cell(&xp, r, "equal"),
               gpu_cell(&xp, r, "why_not_compared"));
        assert_string_equal(gpu_cell(&xp, r, "explained"), "yes");
        assert_string_equal(gpu_cell(&xp, r, "equal"), "yes");
        assert_true(gpu_number(&xp, r, "model")
                    == gpu_number(&xp, r, "measured"));
        assert_true(gpu_number(&xp, r, "measured")
                    > gpu_number(&xp, r, "measured_ideal"));
    }
    assert_int_equal(row_of("hist_private"), -1);
}

/* The private copies' predicted wavefronts against hist_private's. */
static void test_private_fix_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(have_xp && have_plines);
    long long predicted = -1, measured = 0, ideal = 0;
    for (int r = 0; r < xp.nrows; r++)
        if (!strncmp(gpu_cell(&xp, r, "kernel"), "hist_shared", 11)
            && !strncmp(gpu_cell(&xp, r, "fix"), PRIVATE_FIX,
                        strlen(PRIVATE_FIX))) {
            predicted = (long long)gpu_number(&xp, r, "predicted");
            assert_string_equal(gpu_cell(&xp, r, "reaches_ideal"), "yes");
        }
    int n = 0;
    for (int r = 0; r < plines.nrows; r++) {
        /* the private kernel's shared atomic: its line is atomicAdd's in
         * the toolkit's header (its zeroing stores and its reads are on
         * histogram.cu's lines, its global atomic counts no wavefront) */
        if (strncmp(gpu_cell(&plines, r, "kernel"), "hist_private", 12)
            || strcmp(gpu_base_name(gpu_cell(&plines, r, "file")),
                      "device_atomic_functions.hpp")
            || gpu_number(&plines, r, SH_COL) == 0)
            continue;
        n++;
        measured += (long long)gpu_number(&plines, r, SH_COL);
        ideal += (long long)gpu_number(&plines, r, SH_COL "_ideal");
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
    gpu_test_subdir("explain-atomics", dir, sizeof dir);
    snprintf(prog, sizeof prog, "%s/tests/profile/histogram",
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
        GPU_TEST("atomics_model_equals_measured", test_model_equals_measured),
        GPU_TEST("private_copies_measure_the_prediction",
                 test_private_fix_measured),
    };
    int rc = cmocka_run_group_tests_name("gpu_explain_atomics", tests, NULL,
                                         NULL);
    if (have_xp)
        mp_ncu_free(&xp);
    if (have_plines)
        mp_ncu_free(&plines);
    return rc;
}
