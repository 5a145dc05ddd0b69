/*
 * test_probes.c - the helpers every probe shares (runtime/probe.c): the
 * probe table, counter lookup, the per-request time columns and the row
 * helpers describe and derive share (parameter, launch-shape and bandwidth
 * columns), the launch traits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "probe.h"
#include "mp_sets.h"

static mp_device h200(void)
{
    mp_device d;
    memset(&d, 0, sizeof d);
    d.sm_count = 132;
    d.sm_clock_khz = 1980000;
    return d;
}

static double cell(const mp_row *r, int col)
{
    const char *text = mp_row_get(r, col);
    assert_true(text[0] != '\0');
    return atof(text);
}

/* 132000 requests in 1000 ns on 132 SMs: one SM spends 1 ns = 1.98 cycles
 * per request; the seeds' span of 2640 cycles is 2.64 cycles per request,
 * the block median of 1320 cycles 1.32. */
static void test_per_request_full_gpu(void **state)
{
    (void)state;
    mp_device d = h200();
    mp_measurement m;
    memset(&m, 0, sizeof m);
    m.time_ns.n = 5;
    m.time_ns.median = 1000;
    m.clock64_span = 2640;
    m.clock64_block_median = 1320;
    mp_row r;
    assert_int_equal(mp_row_init(&r), 0);
    mp_row_set_per_request(&r, &d, &m, 132000, 1056);
    assert_true(cell(&r, MP_COL_REQUESTS) == 132000);
    assert_true(cell(&r, MP_COL_NS_PER_REQUEST) == 1.0);
    assert_true(cell(&r, MP_COL_CYCLES_PER_REQUEST) == 1.98);
    assert_true(cell(&r, MP_COL_CLOCK64_CYCLES_PER_REQUEST) == 2.64);
    assert_true(cell(&r, MP_COL_CLOCK64_BLOCK_CYCLES_PER_REQUEST) == 1.32);
    mp_row_free(&r);
}

/* 10 blocks keep 10 SMs busy: 1000 ns x 10 / 1000 requests = 10 ns. No
 * timed runs and no stamps: only the request count is written. */
static void test_per_request_few_blocks_and_empty(void **state)
{
    (void)state;
    mp_device d = h200();
    assert_true(mp_active_sms(&d, 10) == 10);
    assert_true(mp_active_sms(&d, 5000) == 132);
    mp_measurement m;
    memset(&m, 0, sizeof m);
    m.time_ns.n = 3;
    m.time_ns.median = 1000;
    mp_row r;
    assert_int_equal(mp_row_init(&r), 0);
    mp_row_set_per_request(&r, &d, &m, 1000, 10);
    assert_true(cell(&r, MP_COL_NS_PER_REQUEST) == 10.0);
    assert_string_equal(mp_row_get(&r, MP_COL_CLOCK64_CYCLES_PER_REQUEST), "");
    mp_row_clear(&r);
    m.time_ns.n = 0;
    mp_row_set_per_request(&r, &d, &m, 1000, 10);
    assert_string_equal(mp_row_get(&r, MP_COL_REQUESTS), "1000");
    assert_string_equal(mp_row_get(&r, MP_COL_NS_PER_REQUEST), "");
    mp_row_free(&r);
}

/* counters_status of a chip lacking three of the shared set's names (the
 * H200's chipfall run): the whole text survives in its cell. */
static void test_long_counters_status(void **state)
{
    (void)state;
    const char *text = "ok; unavailable on GH100: "
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum, "
        "smsp__sass_inst_executed_op_shared_stsm.sum, "
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum";
    mp_row r;
    assert_int_equal(mp_row_init(&r), 0);
    mp_row_set(&r, MP_COL_COUNTERS_STATUS, "%s", text);
    assert_string_equal(mp_row_get(&r, MP_COL_COUNTERS_STATUS), text);
    mp_row_free(&r);
}

/* Counters come in the metric set's order; a name the set lacks is -1. */
static void test_counter_lookup(void **state)
{
    (void)state;
    size_t n;
    const mp_metric *set = mp_metric_set_get(MP_SET_SHARED, &n);
    double values[32];
    for (size_t i = 0; i < n; i++)
        values[i] = 100.0 + (double)i;
    mp_measurement m;
    memset(&m, 0, sizeof m);
    m.counters = values;
    for (size_t i = 0; i < n; i++)
        assert_true(mp_counter(&m, MP_SET_SHARED, set[i].name)
                    == 100.0 + (double)i);
    assert_true(mp_counter(&m, MP_SET_SHARED, "dram__bytes_read.sum") == -1);
    /* A name the chip lacks is NaN in the collector's values: -1 here,
     * so a derive's "< 0" test keeps it out of every division. */
    values[1] = NAN;
    assert_true(mp_counter(&m, MP_SET_SHARED, set[1].name) == -1);
    assert_true(mp_counter(&m, MP_SET_SHARED, set[2].name) == 102.0);
}

/* Every probe is in the table once, found by its name. */
static void test_probe_table(void **state)
{
    (void)state;
    int n = 0;
    for (int i = 0; mp_probe_at(i); i++, n++) {
        assert_ptr_equal(mp_probe_find(mp_probe_at(i)->name), mp_probe_at(i));
        for (int j = 0; j < i; j++)
            assert_string_not_equal(mp_probe_at(i)->name, mp_probe_at(j)->name);
    }
    assert_true(n >= 6);
    assert_null(mp_probe_find("nosuchprobe"));
}

/* Parameters go into their columns: an integer as its value, a choice as
 * its name; unmapped columns stay empty. */
static void test_row_set_params(void **state)
{
    (void)state;
    static const char *const ops[] = {"ld", "st", NULL};
    static const mp_param_def defs[] = {
        {"op", MP_PARAM_CHOICE, 0, 0, 0, NULL, 0, ops, "op", NULL, NULL, NULL},
        {"stride", MP_PARAM_INT, 1, 0, 4096, NULL, 0, NULL, "stride", NULL, NULL, NULL},
        {"pad", MP_PARAM_INT, 0, 0, 64, NULL, 0, NULL, "pad", NULL, NULL, NULL},
    };
    static const mp_param_column cols[] = {
        {0, MP_COL_OP}, {1, MP_COL_STRIDE},
    };
    const long long v[] = {1, 4096, 7};
    mp_row r;
    assert_int_equal(mp_row_init(&r), 0);
    mp_row_set_params(&r, defs, v, cols, 2);
    assert_string_equal(mp_row_get(&r, MP_COL_OP), "st");
    assert_string_equal(mp_row_get(&r, MP_COL_STRIDE), "4096");
    assert_string_equal(mp_row_get(&r, MP_COL_PAD), "");
    mp_row_free(&r);
}

/* Launch shape: blocks print as integers whatever their type; shared bytes
 * only when given. Bandwidth: the fraction of the ceiling, or neither
 * column when there is no ceiling. */
static void test_row_set_launch_and_bandwidth(void **state)
{
    (void)state;
    mp_row r;
    assert_int_equal(mp_row_init(&r), 0);
    mp_row_set_launch(&r, 256, 1056.0, 4096);
    assert_string_equal(mp_row_get(&r, MP_COL_THREADS), "256");
    assert_string_equal(mp_row_get(&r, MP_COL_BLOCKS), "1056");
    assert_string_equal(mp_row_get(&r, MP_COL_SHARED_BYTES), "4096");
    mp_row_set_bandwidth(&r, 1200.04, 4800.0);
    assert_string_equal(mp_row_get(&r, MP_COL_BANDWIDTH_GBS), "1200.0");
    assert_string_equal(mp_row_get(&r, MP_COL_CEILING_GBS), "4800.0");
    assert_string_equal(mp_row_get(&r, MP_COL_BANDWIDTH_FRACTION), "0.2500");
    mp_row_clear(&r);
    mp_row_set_launch(&r, 32, 7, -1);
    assert_string_equal(mp_row_get(&r, MP_COL_BLOCKS), "7");
    assert_string_equal(mp_row_get(&r, MP_COL_SHARED_BYTES), "");
    mp_row_set_bandwidth(&r, 812.5, -1);
    assert_string_equal(mp_row_get(&r, MP_COL_BANDWIDTH_GBS), "812.5");
    assert_string_equal(mp_row_get(&r, MP_COL_CEILING_GBS), "");
    assert_string_equal(mp_row_get(&r, MP_COL_BANDWIDTH_FRACTION), "");
    mp_row_free(&r);
}

/* The schema page, docs/csv-schema.md, lists every column memprobe writes
 * (make test runs in the repository root). */
/* Launch traits: the probe's own answer, else PREPARED exactly when it
 * has a before_launch hook; mp_prepare_launch runs the hook only for a
 * PREPARED configuration. */
static int prepared_calls;
static void count_before(void *st)
{
    (void)st;
    prepared_calls++;
}
static unsigned traits_of_state(const void *st)
{
    return *(const unsigned *)st;
}

static void test_launch_traits(void **state)
{
    (void)state;
    mp_probe p;
    memset(&p, 0, sizeof p);
    unsigned st = 0;
    assert_int_equal(mp_launch_traits(&p, &st), 0);
    p.before_launch = count_before;
    assert_int_equal(mp_launch_traits(&p, &st), MP_LAUNCH_PREPARED);
    mp_prepare_launch(&p, &st);
    assert_int_equal(prepared_calls, 1);
    p.launch_traits = traits_of_state;
    assert_int_equal(mp_launch_traits(&p, &st), 0);
    mp_prepare_launch(&p, &st);
    assert_int_equal(prepared_calls, 1);
    st = MP_LAUNCH_WAITS;
    assert_int_equal(mp_launch_traits(&p, &st), MP_LAUNCH_WAITS);
    mp_prepare_launch(&p, &st);
    assert_int_equal(prepared_calls, 1);
    st = MP_LAUNCH_PREPARED | MP_LAUNCH_WAITS;
    mp_prepare_launch(&p, &st);
    assert_int_equal(prepared_calls, 2);
}

static void test_readme_lists_every_column(void **state)
{
    (void)state;
    FILE *f = fopen("docs/csv-schema.md", "r");
    assert_non_null(f);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (int i = 0; i < mp_schema_columns(); i++) {
        char quoted[256];
        snprintf(quoted, sizeof quoted, "`%s`", mp_schema_name(i));
        if (!strstr(text, quoted))
            fail_msg("docs/csv-schema.md does not list column %s", mp_schema_name(i));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_request_full_gpu),
        cmocka_unit_test(test_per_request_few_blocks_and_empty),
        cmocka_unit_test(test_long_counters_status),
        cmocka_unit_test(test_counter_lookup),
        cmocka_unit_test(test_probe_table),
        cmocka_unit_test(test_row_set_params),
        cmocka_unit_test(test_row_set_launch_and_bandwidth),
        cmocka_unit_test(test_launch_traits),
        cmocka_unit_test(test_readme_lists_every_column),
    };
    return cmocka_run_group_tests_name("probes", tests, NULL, NULL);
}
