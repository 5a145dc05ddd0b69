/*
 * test_ncu_spread.c - `memprobe ncu-check --spread` (crosscheck/ncu_spread.c)
 * on small CSVs made here: repeated ncu runs that agree, that differ by
 * less than a third of a tolerance, by more, an exact metric that moves,
 * and files that cannot be compared. No GPU.
 *
 * The bitmap probe's set (shared-mixed): load wavefronts allow 1e-2 per
 * request + 4 events (the metric sets: probes/NAME/NAME_metrics.c, probes/metric_sets.c), instruction counts nothing.
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

#include "cli_util.h"
#include "metrics.h"
#include "ncu_spread.h"
#include "probe.h"

#define LD "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define INST "smsp__sass_inst_executed_op_shared_ld.sum"

static char dir[] = "/tmp/test_ncu_spread.XXXXXX";

static const char *path_of(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void write_file(const char *name, const char *text)
{
    cli_write_file(path_of(name), text);
}

/* memprobe's CSV: two configurations of 32768 requests each. */
static void write_memprobe(void)
{
    write_file("memprobe.csv",
               "config,requests,counters_status," LD "," INST "\r\n"
               "bitmap/st/seed,32768,ok,265918,32768\r\n"
               "bitmap/ld/seed,32768,ok,276000,32768\r\n");
}

/* An ncu --csv --page raw file with the two launches' values. */
static void write_ncu(const char *name, double ld0, double ld1, double in0)
{
    char text[1024];
    snprintf(text, sizeof text,
             "==PROF== Connected to process 1 (/x/memprobe)\n"
             "\"ID\",\"Kernel Name\",\"" LD "\",\"" INST "\"\n"
             "\"\",\"\",\"\",\"\"\n"
             "\"0\",\"k\",\"%.0f\",\"%.0f\"\n"
             "\"1\",\"k\",\"%.0f\",\"32,768\"\n", ld0, in0, ld1);
    write_file(name, text);
}

/* Runs the spread over ncu-1..ncu-n, output into *out (malloc'd). */
static int spread(int n, char **out)
{
    const mp_probe *p = mp_probe_find("bitmap");
    assert_non_null(p);
    const char *files[8];
    char names[8][32];
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "ncu-%d.csv", i + 1);
        files[i] = strdup(path_of(names[i]));
    }
    size_t len = 0;
    FILE *f = open_memstream(out, &len);
    assert_non_null(f);
    int rc = mp_ncu_spread(p, path_of("memprobe.csv"), files, n, f);
    fclose(f);
    for (int i = 0; i < n; i++)
        free((void *)files[i]);
    return rc;
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cli_remove_tree(dir);
    return 0;
}

/* Three identical runs: no spread, every tolerance covers it. */
static void identical_runs(void **state)
{
    (void)state;
    write_memprobe();
    for (int i = 1; i <= 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "ncu-%d.csv", i);
        write_ncu(name, 266000, 276000, 32768);
    }
    char *out;
    assert_int_equal(spread(3, &out), 0);
    assert_non_null(strstr(out, LD));
    assert_non_null(strstr(out, "3 runs, 4 configuration x metric spreads"));
    assert_null(strstr(out, "TOO TIGHT"));
    free(out);
}

/* 1e-2 x 32768 + 4 = 331.7 allowed: a spread of 100 needs 300 (ok), one
 * of 345 (266263 vs 265918 load wavefronts, the repeat that failed a
 * recheck at 332 allowed) needs 1031 (too tight); the needed tolerance is
 * (3 x 345 - 4) / 32768 = 0.0315. */
static void spread_against_tolerance(void **state)
{
    (void)state;
    write_memprobe();
    write_ncu("ncu-1.csv", 266000, 276000, 32768);
    write_ncu("ncu-2.csv", 266100, 276050, 32768);
    char *out;
    assert_int_equal(spread(2, &out), 0);
    assert_null(strstr(out, "TOO TIGHT"));
    free(out);
    write_ncu("ncu-2.csv", 265918, 276000, 32768);
    write_ncu("ncu-1.csv", 266263, 276000, 32768);
    assert_int_equal(spread(2, &out), 1);
    char *line = strstr(out, LD);
    assert_non_null(line);
    assert_non_null(strstr(line, "TOO TIGHT"));
    assert_non_null(strstr(line, "0.0315"));
    assert_non_null(strstr(line, "bitmap/st/seed"));
    /* A metric that is too tight does not end the table: the next is
     * judged too. */
    assert_non_null(strstr(line, INST));
    free(out);
}

/* An instruction count that moves between runs is a failure. */
static void exact_metric_moves(void **state)
{
    (void)state;
    write_memprobe();
    write_ncu("ncu-1.csv", 266000, 276000, 32768);
    write_ncu("ncu-2.csv", 266000, 276000, 32769);
    char *out;
    assert_int_equal(spread(2, &out), 1);
    assert_non_null(strstr(out, "EXACT METRIC DIFFERS"));
    free(out);
}

/* Runs of other launches, a missing file: exit 2, nothing judged. */
static void files_that_do_not_fit(void **state)
{
    (void)state;
    write_memprobe();
    write_ncu("ncu-1.csv", 266000, 276000, 32768);
    write_file("ncu-2.csv",
               "\"ID\",\"Kernel Name\",\"" LD "\"\n\"\",\"\",\"\"\n"
               "\"0\",\"k\",\"1\"\n");
    char *out;
    assert_int_equal(spread(2, &out), 2);
    assert_null(strstr(out, "TOO TIGHT"));
    free(out);
    unlink(path_of("ncu-2.csv"));
    assert_int_equal(spread(2, &out), 2);
    free(out);
    assert_int_equal(spread(1, &out), 2);   /* one run is no spread */
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_runs),
        cmocka_unit_test(spread_against_tolerance),
        cmocka_unit_test(exact_metric_moves),
        cmocka_unit_test(files_that_do_not_fit),
    };
    return cmocka_run_group_tests_name("ncu_spread", tests, setup, teardown);
}
