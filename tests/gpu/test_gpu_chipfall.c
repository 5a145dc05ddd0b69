/*
 * test_gpu_chipfall.c - GPU test of the collector on a chip that lacks
 * some names of a metric set (run by `make test-gpu` or
 * scripts/gpu-check.sh chipfall).
 *
 * The H200 has every name, so the test makes it lack three through the
 * collector's test hook (MEMPROBE_DROP_METRICS, runtime/collector.h): the
 * two STSM counters that Turing, Ampere and Ada lack, and the shared-load
 * wavefronts the bank probe's derive needs. The same bank sweep (strides
 * 0..31, loads) runs with the full set and with the hook; then:
 *   - full run: counters_status "ok" (nothing lacking), model_match yes;
 *   - hook run: counters_status "ok; unavailable on CHIP: " and exactly
 *     the three names; their cells empty; every other counter present
 *     and, for the exact ones (instructions, store wavefronts, conflicts
 *     of stores), equal to the full run's; wavefronts_per_request and
 *     model_match empty (no verdict from a missing counter).
 * Expected run time on the H200: about 10 s.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collector.h"
#include "gpu_util.h"
#include "metrics.h"
#include "../mp_sets.h"

#define LD_WF "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define STSM_INST "smsp__sass_inst_executed_op_shared_stsm.sum"
#define STSM_WF "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"
#define ARGS "--stride 0..31 --op ld --runs 3"

static mp_csv_table full, drop;

static int lacked(const char *name)
{
    return !strcmp(name, LD_WF) || !strcmp(name, STSM_INST)
           || !strcmp(name, STSM_WF);
}

static void test_rows(void **state)
{
    (void)state;
    size_t n;
    const mp_metric *m = mp_metric_set_get(MP_SET_SHARED, &n);
    assert_int_equal(full.nrows, 32);
    assert_int_equal(drop.nrows, 32);
    for (int i = 0; i < drop.nrows; i++) {
        const char *config = gpu_cell(&drop, i, "config");
        int j = gpu_find_row(&full, config);
        assert_string_equal(gpu_cell(&full, j, "counters_status"), "ok");
        assert_string_equal(gpu_cell(&full, j, "model_match"), "yes");
        const char *st = gpu_cell(&drop, i, "counters_status");
        printf("# %s: %s\n", config, st);
        assert_true(mp_counters_status_ok(st));
        assert_non_null(strstr(st, "ok; unavailable on "));
        assert_string_equal(gpu_cell(&drop, i, "verified"), "yes");
        for (size_t k = 0; k < n; k++) {
            const char *cell = gpu_cell(&drop, i, m[k].name);
            if (lacked(m[k].name)) {
                assert_true(mp_counters_status_lacks(st, m[k].name));
                assert_string_equal(cell, "");
                continue;
            }
            assert_false(mp_counters_status_lacks(st, m[k].name));
            double x = gpu_number(&drop, i, m[k].name);
            double y = gpu_number(&full, j, m[k].name);
            /* Instruction counts are exact; the rest within the table's
             * tolerance of one another. */
            if (strstr(m[k].name, "inst_executed"))
                assert_true(x == y);
            else
                assert_true(fabs(x - y) <= mp_metric_allowed(
                                &m[k], y, gpu_number(&full, j, "requests")));
        }
        assert_string_equal(gpu_cell(&drop, i, "wavefronts_per_request"), "");
        assert_string_equal(gpu_cell(&drop, i, "model_match"), "");
    }
}

int main(void)
{
    unsetenv(MP_DROP_METRICS_ENV);
    int rc = gpu_run_sweep("bank", "chipfall-full", ARGS, &full);
    if (rc) {
        fprintf(stderr, "full run failed (exit %d)\n", rc);
        return 1;
    }
    setenv(MP_DROP_METRICS_ENV, STSM_INST "," LD_WF "," STSM_WF, 1);
    rc = gpu_run_sweep("bank", "chipfall-drop", ARGS, &drop);
    unsetenv(MP_DROP_METRICS_ENV);
    if (rc) {
        fprintf(stderr, "run with names dropped failed (exit %d)\n", rc);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    mp_csv_free(&full);
    mp_csv_free(&drop);
    return failed;
}
