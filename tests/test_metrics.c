/*
 * test_metrics.c - CPU-only tests of the metric tables (the metric sets: probes/NAME/NAME_metrics.c, probes/metric_sets.c)
 * and of the collector's paths that need no GPU (runtime/collector.c).
 *
 * Validation goes through the CUPTI Profiler Host API for chip "GH100"
 * (H100/H200), which works without a GPU or driver. The collector is only
 * opened where it must refuse: bad arguments, an injected profiler, and (on
 * a machine without a driver) no GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mp_skip.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "metrics.h"

#define CHIP "GH100"

#include "asan_dlopen.h"
#include "mp_sets.h"

/* Names of a set, as the list the validator and the collector take. */
static size_t set_names(mp_metric_set set, const char **names, size_t max)
{
    size_t count = 0;
    assert_non_null(mp_metric_set_get(set, &count));
    assert_true(count <= max);
    assert_int_equal(mp_metric_set_names(set, names, max), count);
    return count;
}

/* Every metric of every set is valid for GH100; print the pass counts. */
static void test_sets_validate_for_gh100(void **state)
{
    (void)state;
    for (int s = 0; s < MP_SET_COUNT; s++) {
        const char *names[64];
        char why[512] = "";
        size_t passes = 0;
        size_t n = set_names(mp_test_set_at(s), names, 64);

        /* One at a time first, so a failure names the metric. */
        for (size_t i = 0; i < n; i++) {
            int rc = mp_metrics_validate(CHIP, &names[i], 1, NULL, why, sizeof why);
            if (rc) fail_msg("%s", why);
        }
        if (mp_metrics_validate(CHIP, names, n, &passes, why, sizeof why))
            fail_msg("set %s: %s", mp_metric_set_name(mp_test_set_at(s)), why);
        assert_true(passes >= 1);
        printf("metric set %s: %zu metrics, %zu pass(es)\n",
               mp_metric_set_name(mp_test_set_at(s)), n, passes);
    }
}

/* A misspelled name fails with a reason that names it and the chip. */
static void test_misspelled_metric_fails(void **state)
{
    const char *names[] = {
        "dram__bytes_read.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldd.sum",  /* ldd */
    };
    char why[512] = "";
    size_t passes = 12345;

    (void)state;
    assert_int_not_equal(mp_metrics_validate(CHIP, names, 2, &passes, why, sizeof why), 0);
    assert_int_equal(passes, 12345);   /* untouched on failure */
    assert_non_null(strstr(why, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldd.sum"));
    assert_non_null(strstr(why, CHIP));
    assert_non_null(strstr(why, "CUPTI_ERROR_INVALID_METRIC_NAME"));
    assert_null(strchr(why, '\n'));
    printf("misspelled: %s\n", why);

    /* A missing rollup suffix is also a different name. */
    const char *bare[] = { "dram__bytes_read.summ" };
    assert_int_not_equal(mp_metrics_validate(CHIP, bare, 1, NULL, why, sizeof why), 0);
    assert_non_null(strstr(why, "dram__bytes_read.summ"));
}

/* Bad input to the validator: unknown chip, empty list, duplicates. */
static void test_validate_bad_input(void **state)
{
    const char *one[] = { "dram__bytes_read.sum" };
    const char *twice[] = { "dram__bytes_read.sum", "dram__bytes_read.sum" };
    char why[512];

    (void)state;
    assert_int_not_equal(mp_metrics_validate("GX999", one, 1, NULL, why, sizeof why), 0);
    assert_non_null(strstr(why, "GX999"));

    assert_int_not_equal(mp_metrics_validate(CHIP, one, 0, NULL, why, sizeof why), 0);
    assert_int_not_equal(mp_metrics_validate(NULL, one, 1, NULL, why, sizeof why), 0);
    assert_int_not_equal(mp_metrics_validate(CHIP, twice, 2, NULL, why, sizeof why), 0);
    assert_non_null(strstr(why, "listed twice"));

    /* NULL reason buffer is allowed. */
    assert_int_not_equal(mp_metrics_validate("GX999", one, 1, NULL, NULL, 0), 0);
}

/* Set lookup by name and back; unknown names fail. */
static void test_set_lookup(void **state)
{
    mp_metric_set set;

    (void)state;
    for (int s = 0; s < MP_SET_COUNT; s++) {
        const char *name = mp_metric_set_name(mp_test_set_at(s));
        assert_non_null(name);
        assert_int_equal(mp_metric_set_from_name(name, &set), 0);
        assert_ptr_equal(set, mp_test_set_at(s));
    }
    assert_string_equal(mp_metric_set_name(MP_SET_SHARED), "shared");
    assert_string_equal(mp_metric_set_name(MP_SET_SHARED_MIXED), "shared-mixed");
    assert_string_equal(mp_metric_set_name(MP_SET_GLOBAL), "global");
    assert_string_equal(mp_metric_set_name(MP_SET_CONSTANT), "constant");
    assert_string_equal(mp_metric_set_name(MP_SET_LATENCY), "latency");
    assert_int_equal(mp_metric_set_from_name("texture", &set), -1);
    assert_int_equal(mp_metric_set_from_name("Shared", &set), -1);
    assert_int_equal(mp_metric_set_from_name("", &set), -1);
    assert_int_equal(mp_metric_set_from_name(NULL, &set), -1);
    assert_null(mp_metric_set_name(NULL));

    size_t count = 99;
    assert_null(mp_metric_set_get(NULL, &count));
    assert_int_equal(count, 0);
}

/* Table shape: time in every set, no duplicates, every field filled. */
static void test_table_shape(void **state)
{
    (void)state;
    for (int s = 0; s < MP_SET_COUNT; s++) {
        size_t n = 0;
        const mp_metric *t = mp_metric_set_get(mp_test_set_at(s), &n);
        int has_time = 0;

        assert_true(n >= 2);
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(t[i].name);
            assert_true(len > 4);
            assert_string_equal(t[i].name + len - 4, ".sum");
            assert_non_null(strstr(t[i].name, "__"));
            assert_non_null(t[i].unit);
            assert_true(t[i].unit[0] != '\0');
            assert_non_null(t[i].description);
            assert_true(t[i].description[0] != '\0');
            assert_null(strchr(t[i].description, '\n'));
            if (strcmp(t[i].name, MP_METRIC_TIME) == 0) {
                has_time = 1;
                assert_string_equal(t[i].unit, "ns");
            }
            for (size_t j = 0; j < i; j++)
                if (strcmp(t[i].name, t[j].name) == 0)
                    fail_msg("set %s lists %s twice",
                             mp_metric_set_name(mp_test_set_at(s)), t[i].name);
        }
        assert_true(has_time);
    }
}

/* shared-mixed: the shared set's names in its order (same CSV columns),
 * tolerances no tighter, and wide enough for the gaps measured on the
 * H200 where warps mix LDS and STS (the metric sets: probes/NAME/NAME_metrics.c, probes/metric_sets.c). The async and
 * texture bounds cover their measured gaps too. */
static double allowed_for(mp_metric_set set, const char *name,
                          double value, double requests)
{
    size_t n = 0;
    const mp_metric *t = mp_metric_set_get(set, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return mp_metric_allowed(&t[i], value, requests);
    fail_msg("%s not in set %s", name, mp_metric_set_name(set));
    return -1;
}

static void test_measured_gaps_allowed(void **state)
{
    (void)state;
    size_t ns = 0, nm = 0;
    const mp_metric *s = mp_metric_set_get(MP_SET_SHARED, &ns);
    const mp_metric *m = mp_metric_set_get(MP_SET_SHARED_MIXED, &nm);
    assert_int_equal(ns, nm);
    for (size_t i = 0; i < ns; i++) {
        assert_string_equal(s[i].name, m[i].name);
        assert_true(mp_metric_allowed(&m[i], 1e6, 1e4)
                    >= mp_metric_allowed(&s[i], 1e6, 1e4));
    }
    static const char *const ld_wf =
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
    static const char *const st_wf =
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
    /* ncu-check bitmap: 164 on 32768 LDS; study re-run: tree-strided dot
     * 124 on 26400, atomic cubes 2 on 1056; atomic dot stores 27 on 1056. */
    assert_true(allowed_for(MP_SET_SHARED_MIXED, ld_wf, 266051, 32768) >= 164);
    assert_true(allowed_for(MP_SET_SHARED_MIXED, ld_wf, 100703, 26400) >= 124);
    assert_true(allowed_for(MP_SET_SHARED_MIXED, ld_wf, 1061, 1056) >= 2);
    assert_true(allowed_for(MP_SET_SHARED_MIXED, st_wf, 8719, 1056) >= 27);
    /* The shared set stays at 1e-3 for loads: it would refuse them. */
    assert_true(allowed_for(MP_SET_SHARED, ld_wf, 266051, 32768) < 164);
    assert_true(allowed_for(MP_SET_SHARED, st_wf, 8719, 1056) < 27);
    /* async/staged STS wavefronts 2866 on 131072; cpasync LDGSTS
     * conflicts 1060. */
    assert_true(allowed_for(MP_SET_ASYNC, st_wf, 568757, 131072) >= 2866);
    assert_true(allowed_for(MP_SET_ASYNC,
                            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
                            89441, 131072) >= 1060);
    /* texture global/column n4096: 5861 sectors on 524288 requests. */
    assert_true(allowed_for(MP_SET_TEXTURE,
                            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                            16776171, 524288) >= 5861);
}

/* Only the shared-memory sets are profiled without an L2 flush. */
static void test_cache_independent_sets(void **state)
{
    (void)state;
    assert_int_equal(mp_metric_set_cache_independent(MP_SET_SHARED), 1);
    assert_int_equal(mp_metric_set_cache_independent(MP_SET_SHARED_MIXED), 1);
    for (int s = 0; s < MP_SET_COUNT; s++)
        if (mp_test_set_at(s) != MP_SET_SHARED
            && mp_test_set_at(s) != MP_SET_SHARED_MIXED)
            assert_int_equal(mp_metric_set_cache_independent(mp_test_set_at(s)), 0);
    assert_int_equal(mp_metric_set_cache_independent(NULL), 0);
}

/* The collector links, and its NULL/closed paths are safe. */
static void test_collector_links(void **state)
{
    mp_counters_status (*open_fn)(mp_collector **, const char *const *, size_t,
                                  size_t, char *, size_t) = mp_collector_open;
    mp_counters_status (*begin_fn)(mp_collector *, size_t, char *, size_t) =
        mp_collector_begin;
    mp_counters_status (*pass_fn)(mp_collector *, int *, char *, size_t) =
        mp_collector_pass;
    mp_counters_status (*end_fn)(mp_collector *, size_t, double *, char *, size_t) =
        mp_collector_end;
    void (*close_fn)(mp_collector *) = mp_collector_close;
    char why[256];

    (void)state;
    assert_non_null(open_fn);
    assert_non_null(begin_fn);
    assert_non_null(pass_fn);
    assert_non_null(end_fn);
    assert_non_null(close_fn);

    mp_collector_close(NULL);
    assert_int_equal(mp_collector_max_ranges(NULL), 0);
    assert_int_equal(mp_collector_passes(NULL), 0);
    assert_int_equal(mp_collector_image_bytes(NULL), 0);
    assert_string_equal(mp_collector_chip(NULL), "");
    assert_int_equal(mp_collector_begin(NULL, 1, why, sizeof why), MP_COUNTERS_ERROR);
    int again = 7;
    assert_int_equal(mp_collector_pass(NULL, &again, why, sizeof why), MP_COUNTERS_ERROR);
    assert_int_equal(again, 0);
    assert_int_equal(mp_collector_end(NULL, 0, NULL, why, sizeof why), MP_COUNTERS_ERROR);
    assert_int_equal(mp_collector_retry(NULL), 0);
    assert_string_equal(mp_collector_replay(NULL), "");
}

/* Bad arguments are refused before CUPTI is touched. */
static void test_collector_bad_arguments(void **state)
{
    const char *names[] = { MP_METRIC_TIME };
    mp_collector *c = (mp_collector *)&c;   /* must be reset to NULL */
    char why[256];

    (void)state;
    assert_int_equal(mp_collector_open(NULL, names, 1, 4, why, sizeof why), MP_COUNTERS_ERROR);
    assert_int_equal(mp_collector_open(&c, names, 0, 4, why, sizeof why), MP_COUNTERS_ERROR);
    assert_null(c);
    assert_int_equal(mp_collector_open(&c, NULL, 1, 4, why, sizeof why), MP_COUNTERS_ERROR);
    assert_int_equal(mp_collector_open(&c, names, 1, 0, why, sizeof why), MP_COUNTERS_ERROR);
    assert_non_null(strstr(why, "max_ranges"));
    assert_null(c);
}

/* Under ncu/nsys (CUDA_INJECTION64_PATH set) counters are unavailable. */
static void test_collector_refuses_injection(void **state)
{
    const char *names[] = { MP_METRIC_TIME };
    const char *old = getenv("CUDA_INJECTION64_PATH");
    char *saved = old ? strdup(old) : NULL;
    mp_collector *c = NULL;
    char why[512] = "";

    (void)state;
    assert_int_equal(setenv("CUDA_INJECTION64_PATH", "/opt/nsight/libInjection.so", 1), 0);
    assert_int_equal(mp_collector_open(&c, names, 1, 4, why, sizeof why),
                     MP_COUNTERS_UNAVAILABLE);
    assert_null(c);
    assert_non_null(strstr(why, "CUDA_INJECTION64_PATH"));
    assert_null(strchr(why, '\n'));
    printf("injected: %s\n", why);

    if (saved) {
        setenv("CUDA_INJECTION64_PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("CUDA_INJECTION64_PATH");
    }
}

/* Without a driver, open() reports UNAVAILABLE with a reason and does not
 * crash (CUPTI itself crashes if called further after its init fails). */
static void test_collector_without_gpu(void **state)
{
    const char *names[64];
    size_t n = set_names(MP_SET_SHARED, names, 64);
    mp_collector *c = NULL;
    char why[512] = "";
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY);
    mp_counters_status st;

    (void)state;
    if (driver) dlclose(driver);
    if (getenv("CUDA_INJECTION64_PATH"))
        MP_SKIP("CUDA_INJECTION64_PATH is set (a profiler runs the tests): "
                "this test checks the collector without one");

    st = mp_collector_open(&c, names, n, 8, why, sizeof why);
    if (st == MP_COUNTERS_OK) {
        /* A driver and a current context exist after all. */
        mp_collector_close(c);
        MP_SKIP("a GPU is present: this test checks the no-GPU path");
    }
    assert_null(c);
    assert_true(why[0] != '\0');
    assert_null(strchr(why, '\n'));
    printf("no gpu: %s\n", why);
    if (!driver) assert_int_equal(st, MP_COUNTERS_UNAVAILABLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sets_validate_for_gh100),
        cmocka_unit_test(test_misspelled_metric_fails),
        cmocka_unit_test(test_validate_bad_input),
        cmocka_unit_test(test_set_lookup),
        cmocka_unit_test(test_table_shape),
        cmocka_unit_test(test_measured_gaps_allowed),
        cmocka_unit_test(test_cache_independent_sets),
        cmocka_unit_test(test_collector_links),
        cmocka_unit_test(test_collector_bad_arguments),
        cmocka_unit_test(test_collector_refuses_injection),
        cmocka_unit_test(test_collector_without_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
