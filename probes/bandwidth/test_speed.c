/*
 * test_speed.c - CPU tests of the speed instruments:
 * the cost breakdown (runtime/cost.c) as numbers in its CSV, the ETA
 * arithmetic of the progress line (runtime/stats.c), and `memprobe
 * compare` (report/compare.c) on hand-made result CSVs, plus the cost
 * breakdown of a whole run on the fake device (MEMPROBE_FAKE_DEVICE).
 */
#include "cli_util.h"
#include <limits.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bw_shape.h"
#include "clock_watch.h"
#include "compare.h"
#include "cost.h"
#include "csv_table.h"
#include "runner.h"
#include "stats.h"

/* ---- helpers ----------------------------------------------------------- */
/* The repository root: the directory the test starts in (make test runs
 * from there; the binary may live in build/san/, so its path says nothing). */
static char repo[PATH_MAX];


/* The number in row `scope`,`name` (name NULL: the first row of the
 * scope) under column col of a cost CSV. */
static double cost_cell(const mp_csv_table *t, const char *scope,
                        const char *name, const char *col)
{
    int c = mp_csv_column(t, col);
    assert_true(c >= 0);
    for (int r = 0; r < t->nrows; r++)
        if (!strcmp(t->cells[r][0], scope)
            && (!name || !strcmp(t->cells[r][1], name))) {
            double x;
            assert_int_equal(mp_csv_number(t, r, c, &x), 0);
            return x;
        }
    fail_msg("no row %s,%s", scope, name ? name : "*");
    return NAN;
}

static int count_scope(const mp_csv_table *t, const char *scope)
{
    int n = 0;
    for (int r = 0; r < t->nrows; r++)
        n += !strcmp(t->cells[r][0], scope);
    return n;
}

/* ---- the cost breakdown -------------------------------------------------- */

static void cost_off_records_nothing(void **state)
{
    (void)state;
    unsetenv(MP_COST_ENV);
    assert_int_equal(mp_cost_start(), 0);
    assert_int_equal(mp_cost_enabled(), 0);
    mp_cost_config(0, "x");
    mp_cost_add_seconds(MP_COST_SETUP, 0, 1.0);
    FILE *f = tmpfile();
    assert_int_equal(mp_cost_write(f), 0);
    rewind(f);
    char line[4096];
    int lines = 0;
    while (fgets(line, sizeof line, f))
        lines++;
    fclose(f);
    /* header, run, total, per_config: no configuration row */
    assert_int_equal(lines, 4);
    mp_cost_finish();
}

static void cost_rows_totals_and_means(void **state)
{
    (void)state;
    setenv(MP_COST_ENV, "cost.csv", 1);
    assert_int_equal(mp_cost_start(), 1);
    mp_cost_config(0, "bank/ld/w4,odd\"name");
    mp_cost_config(1, "bank/ld/w8");
    mp_cost_add_seconds(MP_COST_SETUP, 0, 0.002);
    mp_cost_add_seconds(MP_COST_SETUP, 1, 0.004);
    mp_cost_add_seconds(MP_COST_PROF_LAUNCH, 0, 0.010);
    mp_cost_add_seconds(MP_COST_PROF_LAUNCH, 0, 0.005);   /* adds up */
    mp_cost_kernel(0, 2000.0);
    mp_cost_kernel(1, 4000.0);
    mp_cost_batch(2);
    mp_cost_add_seconds(MP_COST_BEGIN_START, 0, 0.150);
    mp_cost_add_seconds(MP_COST_END_EVALUATE, 7, 0.001);  /* index ignored */
    mp_cost_add_seconds(MP_COST_OPEN, 3, 0.200);
    mp_cost_add_seconds(MP_COST_PHASES, 0, 9.0);           /* ignored */
    double t0 = mp_cost_now();
    mp_cost_add(MP_COST_ROW, 1, t0 - 0.5);                  /* >= 0.5 s */
    mp_cost_finish();   /* writes cost.csv, turns recording off */
    assert_int_equal(mp_cost_enabled(), 0);

    mp_csv_table t;
    char err[256];
    assert_int_equal(mp_csv_table_read("cost.csv", &t, err, sizeof err), 0);
    assert_int_equal(count_scope(&t, "config"), 2);
    assert_int_equal(count_scope(&t, "batch"), 1);
    assert_string_equal(t.cells[0][1], "bank/ld/w4,odd\"name");
    assert_float_equal(cost_cell(&t, "config", "bank/ld/w4,odd\"name",
                                 "prof_launch"), 15.0, 1e-6);
    assert_float_equal(cost_cell(&t, "config", "bank/ld/w8", "setup"), 4.0,
                       1e-6);
    double row = cost_cell(&t, "config", "bank/ld/w8", "row");
    assert_true(row >= 500.0 && row < 5000.0);
    assert_float_equal(cost_cell(&t, "config", "bank/ld/w8", "wall"),
                       4.0 + row, 1e-3);
    assert_float_equal(cost_cell(&t, "batch", NULL, "begin_start"), 150.0,
                       1e-6);
    assert_float_equal(cost_cell(&t, "batch", NULL, "end_evaluate"), 1.0,
                       1e-6);
    assert_float_equal(cost_cell(&t, "run", NULL, "open"), 200.0, 1e-6);
    assert_float_equal(cost_cell(&t, "total", NULL, "setup"), 6.0, 1e-6);
    assert_float_equal(cost_cell(&t, "total", NULL, "kernel_ms"), 0.006,
                       1e-9);
    double wall = cost_cell(&t, "total", NULL, "wall");
    assert_float_equal(wall, 6.0 + 15.0 + row + 150.0 + 1.0 + 200.0, 1e-3);
    assert_float_equal(cost_cell(&t, "per_config", NULL, "wall"), wall / 2,
                       1e-3);
    assert_float_equal(cost_cell(&t, "per_config", NULL, "begin_start"),
                       75.0, 1e-6);
    mp_csv_free(&t);
    unlink("cost.csv");
    unsetenv(MP_COST_ENV);
}

static void cost_phase_names(void **state)
{
    (void)state;
    assert_string_equal(mp_cost_phase_name(MP_COST_SETUP), "setup");
    assert_string_equal(mp_cost_phase_name(MP_COST_CLOSE), "close");
    assert_null(mp_cost_phase_name(MP_COST_PHASES));
    for (int p = 0; p < MP_COST_PHASES; p++)
        assert_non_null(mp_cost_phase_name((mp_cost_phase)p));
    /* The CSV's columns: only phases something records (no prof_setup or
     * prof_teardown since the short profiled launches went). */
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(mp_cost_write(f), 0);
    rewind(f);
    char line[4096];
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "scope,name,setup,verify,timed,release,"
                        "prof_launch,prof_verify,row,begin_config,"
                        "begin_start,end_sync,end_stop,end_decode,"
                        "end_evaluate,open,close,wall,kernel_ms\n");
    mp_cost_reset();
}

/* A sweep on the fake device with the breakdown on: one config row per
 * configuration, in the order of --list, and a summary line. */
static void cost_of_a_fake_run(void **state)
{
    (void)state;
    char conf[PATH_MAX + 32];
    setenv("MEMPROBE_FAKE_DEVICE", "0", 1);
    setenv(MP_COST_ENV, "run-cost.csv", 1);
    snprintf(conf, sizeof conf, "%s/configs/const.conf", repo);
    const char *args[] = {"sweep", conf, "--batch", "8", "-o", "fake.csv",
                          NULL};
    cli_result r;
    cli_run(args, &r);
    unsetenv("MEMPROBE_FAKE_DEVICE");
    unsetenv(MP_COST_ENV);
    cli_expect_status(&r, 0);
    cli_must_contain("stderr", r.err, "memprobe: cost: ");
    cli_result_free(&r);

    const char *list[] = {"sweep", conf, "--list", NULL};
    cli_run_ok(list, &r);
    int n = 0;
    for (const char *p = r.out; (p = strchr(p, '\n')); p++)
        n++;
    n--;   /* the count line */

    mp_csv_table t;
    char err[256];
    assert_int_equal(mp_csv_table_read("run-cost.csv", &t, err, sizeof err),
                     0);
    assert_int_equal(count_scope(&t, "config"), n);
    /* the first configuration row is the first name --list prints */
    size_t first = strcspn(r.out, "\n");
    assert_int_equal(strlen(t.cells[0][1]), first);
    assert_int_equal(strncmp(t.cells[0][1], r.out, first), 0);
    /* no counters on the fake device: no batch rows */
    assert_int_equal(count_scope(&t, "batch"), 0);
    char total[64];
    snprintf(total, sizeof total, "%d configurations", n);
    assert_string_equal(t.cells[t.nrows - 2][1], total);
    mp_csv_free(&t);
    cli_result_free(&r);
}

/* ---- ETA ------------------------------------------------------------------- */

static void eta_arithmetic(void **state)
{
    (void)state;
    assert_float_equal(mp_eta_seconds(10.0, 100, 1508), 10.0 * 1408 / 100,
                       1e-9);
    assert_float_equal(mp_eta_seconds(60.0, 1, 2), 60.0, 1e-9);
    assert_float_equal(mp_eta_seconds(5.0, 7, 7), 0.0, 0);
    assert_float_equal(mp_eta_seconds(0.0, 3, 9), 0.0, 0);
    assert_true(mp_eta_seconds(10.0, 0, 9) < 0);      /* nothing done */
    assert_true(mp_eta_seconds(10.0, 10, 9) < 0);     /* beyond total */
    assert_true(mp_eta_seconds(-1.0, 1, 9) < 0);
    assert_true(mp_eta_seconds(NAN, 1, 9) < 0);
}

/* ---- the clock note ------------------------------------------------------- */

static void clock_notes(void **state)
{
    (void)state;
    char buf[96];
    assert_string_equal(mp_clock_note(1980, 1980, 1980, buf, sizeof buf), "");
    assert_string_equal(mp_clock_note(1980, 1755, 1980, buf, sizeof buf),
                        "sm clock 1980->1755 MHz during timing");
    assert_string_equal(mp_clock_note(1755, 1980, 1980, buf, sizeof buf),
                        "sm clock 1755->1980 MHz during timing");
    assert_string_equal(mp_clock_note(1755, 1755, 1980, buf, sizeof buf),
                        "sm clock 1755 MHz, below 1980");
    /* above the nominal clock (boost beyond the reported peak): steady */
    assert_string_equal(mp_clock_note(1990, 1990, 1980, buf, sizeof buf), "");
    assert_string_equal(mp_clock_note(-1, 1755, 1980, buf, sizeof buf), "");
    assert_string_equal(mp_clock_note(1980, -1, 1980, buf, sizeof buf), "");
    assert_string_equal(mp_clock_note(1500, 1500, 0, buf, sizeof buf), "");
    char tiny[8];
    mp_clock_note(1980, 1755, 1980, tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), 7);   /* cut, terminated */
    /* no NVML on this machine (or no such device): unknown */
    assert_int_equal(mp_sm_clock_mhz(-1), -1);
}

/* ---- the bandwidth shape cache ---------------------------------------------- */

static void shape_cache_file(void **state)
{
    (void)state;
    const char *path = "cache-dir/memprobe/bandwidth-shapes";
    const char *dev = "NVIDIA H200;driver 13000;memprobe 0.1.0 built x";
    const char *other = "NVIDIA H200;driver 13010;memprobe 0.1.0 built x";
    mp_bw_shape got, a = {8, 1024, 2, 4567.8}, b = {4, 256, 1, 4400.0};
    /* no file yet */
    assert_int_equal(mp_bw_shape_cache_lookup(path, dev, "read/x", &got), -1);
    /* written (folders made), read back */
    assert_int_equal(mp_bw_shape_cache_store(path, dev, "read/x", &a), 0);
    assert_int_equal(mp_bw_shape_cache_lookup(path, dev, "read/x", &got), 0);
    assert_int_equal(got.inflight, 8);
    assert_int_equal(got.threads, 1024);
    assert_int_equal(got.cache, 2);
    assert_float_equal(got.gbs, 4567.8, 1e-9);
    /* another configuration, another driver: not found (invalidated) */
    assert_int_equal(mp_bw_shape_cache_lookup(path, dev, "read/xy", &got), -1);
    assert_int_equal(mp_bw_shape_cache_lookup(path, dev, "read", &got), -1);
    assert_int_equal(mp_bw_shape_cache_lookup(path, other, "read/x", &got),
                     -1);
    /* the newer driver's own entry, and a later entry wins */
    assert_int_equal(mp_bw_shape_cache_store(path, other, "read/x", &b), 0);
    assert_int_equal(mp_bw_shape_cache_lookup(path, other, "read/x", &got), 0);
    assert_int_equal(got.threads, 256);
    assert_int_equal(mp_bw_shape_cache_lookup(path, dev, "read/x", &got), 0);
    assert_int_equal(got.threads, 1024);
    assert_int_equal(mp_bw_shape_cache_store(path, dev, "read/x", &b), 0);
    assert_int_equal(mp_bw_shape_cache_lookup(path, dev, "read/x", &got), 0);
    assert_int_equal(got.threads, 256);
    /* '|' in a key cannot split the line */
    assert_int_equal(mp_bw_shape_cache_store(path, "a|b", "c|d", &a), 0);
    assert_int_equal(mp_bw_shape_cache_lookup(path, "a_b", "c_d", &got), 0);
    assert_int_equal(mp_bw_shape_cache_lookup(path, "a|b", "c|d", &got), 0);
    /* damaged lines are skipped, the good ones still read */
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fprintf(f, "%s|read/y|8 33 0 1.0\n%s|read/y|x\n%s|read/y|2 64 0",
            dev, dev, dev);
    fclose(f);
    assert_int_equal(mp_bw_shape_cache_lookup(path, dev, "read/y", &got), -1);
    assert_int_equal(mp_bw_shape_cache_lookup(path, dev, "read/x", &got), 0);
    /* an unwritable place: -1, no crash */
    assert_int_equal(mp_bw_shape_cache_store("/proc/nope/x/y", dev, "k", &a),
                     -1);
    assert_int_equal(mp_bw_shape_cache_store(NULL, dev, "k", &a), -1);
    assert_int_equal(mp_bw_shape_cache_lookup(NULL, dev, "k", &got), -1);
    unlink(path);
    rmdir("cache-dir/memprobe");
    rmdir("cache-dir");
}

static void shape_cache_path(void **state)
{
    (void)state;
    char buf[256];
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("MEMPROBE_SHAPE_CACHE", "/x/y", 1);
    assert_string_equal(mp_bw_shape_cache_path(buf, sizeof buf), "/x/y");
    unsetenv("MEMPROBE_SHAPE_CACHE");
    setenv("XDG_CACHE_HOME", "/c", 1);
    assert_string_equal(mp_bw_shape_cache_path(buf, sizeof buf),
                        "/c/memprobe/bandwidth-shapes");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/h", 1);
    assert_string_equal(mp_bw_shape_cache_path(buf, sizeof buf),
                        "/h/.cache/memprobe/bandwidth-shapes");
    unsetenv("HOME");
    assert_null(mp_bw_shape_cache_path(buf, sizeof buf));
    if (home) {
        setenv("HOME", home, 1);
        free(home);
    }
}

/* Without shape options the rows say auto; a given option stays in the
 * name (fake device: nothing launched). */
static void bandwidth_auto_names(void **state)
{
    (void)state;
    setenv("MEMPROBE_FAKE_DEVICE", "0", 1);
    const char *plain[] = {"bandwidth", "--kernel", "read,copy", "-o", "-",
                           NULL};
    cli_result r;
    /* The limit by default: 8 GiB arrays (the fake H200's memory / 8,
     * capped) and the one-shot grid for contiguous 16-byte walks. */
    cli_run_expect(plain, -1,
                   ",bandwidth/read/w16/o0/s1/b8589934592/auto/oneshot,",
                   ",bandwidth/copy/w16/o0/s1/b8589934592/auto/oneshot,",
                   NULL);
    const char *sized[] = {"bandwidth", "--kernel", "read", "--bytes",
                           "1073741824", "--grid", "persistent,oneshot",
                           "-o", "-", NULL};
    cli_run_ok(sized, &r);
    cli_must_contain("stdout", r.out,
                     ",bandwidth/read/w16/o0/s1/b1073741824/auto,");
    cli_must_contain("stdout", r.out,
                     ",bandwidth/read/w16/o0/s1/b1073741824/auto/oneshot,");
    cli_result_free(&r);
    const char *narrow[] = {"bandwidth", "--kernel", "read", "--width", "4",
                            "-o", "-", NULL};
    cli_run_ok(narrow, &r);
    cli_must_contain("stdout", r.out,
                     ",bandwidth/read/w4/o0/s1/b8589934592/auto,");
    assert_null(strstr(r.out, "oneshot"));
    cli_result_free(&r);
    const char *given[] = {"bandwidth", "--kernel", "read", "--inflight",
                           "8", "--threads", "1024", "--cache", "na", "-o",
                           "-", NULL};
    cli_run_ok(given, &r);
    cli_must_contain("stdout", r.out,
                     ",bandwidth/read/w16/o0/s1/b1073741824/i8/na/t1024,");
    assert_null(strstr(r.out, "/auto"));
    cli_result_free(&r);
    const char *cache_only[] = {"bandwidth", "--kernel", "write", "--cache",
                                "auto", "--inflight", "4", "--threads",
                                "256", "-o", "-", NULL};
    cli_run_expect(cache_only, -1,
                   ",bandwidth/write/w16/o0/s1/b1073741824/auto,",
                   NULL);
    /* sweeps keep the plain defaults (the study's names) */
    cli_write_file("bw.conf", "[bandwidth]\nkernel = read\n");
    const char *sweep[] = {"sweep", "bw.conf", "-o", "-", NULL};
    cli_run_expect(sweep, -1,
                   ",bandwidth/read/w16/o0/s1/b1073741824,",
                   NULL);
    unlink("bw.conf");
    unsetenv("MEMPROBE_FAKE_DEVICE");
}

/* ---- compare --------------------------------------------------------------- */

#define HEAD "config,requests,time_ns_median,model_match," \
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum," \
             "smsp__sass_inst_executed_op_shared_ld.sum," \
             "lts__t_sectors_srcunit_tex_op_read.sum\n"

static void compare_within_and_beyond(void **state)
{
    (void)state;
    /* conflicts: 1e-3 per request (1000 requests: 1 event allowed);
     * instructions exact. */
    cli_write_file("base.csv", HEAD
                   "a,1000,100,yes,500,1000,\n"
                   "b,1000,200,yes,0,1000,\n"
                   "a,1000,999,yes,9,9,\n"          /* a repeat: ignored */
                   "c,1000,300,,7,1000,\n");
    cli_write_file("same.csv", HEAD
                   "c,1000,330,,7,1000,\n"
                   "b,1000,180,yes,1,1000,\n"       /* 1 event: allowed */
                   "a,1000,100,yes,500,1000,\n"
                   "d,1000,1,yes,0,0,\n");          /* only here: fine */
    mp_compare_result res;
    FILE *out = tmpfile();
    assert_int_equal(mp_compare_files("base.csv", "same.csv", 0, out, &res),
                     0);
    fclose(out);
    assert_int_equal(res.base_rows, 4);
    assert_int_equal(res.matched, 3);
    assert_int_equal(res.only_base, 0);
    assert_int_equal(res.only_new, 1);
    assert_int_equal(res.values, 6);
    assert_int_equal(res.differ, 0);
    assert_int_equal(res.time_pairs, 3);
    assert_float_equal(res.time_ratio_median, 1.0, 1e-12);
    assert_float_equal(res.time_ratio_min, 0.9, 1e-12);
    assert_float_equal(res.time_ratio_max, 1.1, 1e-12);

    cli_write_file("worse.csv", HEAD
                   "a,1000,100,yes,502,1000,\n"     /* 2 events: beyond */
                   "b,1000,200,no,0,1001,\n");      /* inst off by one; model */
    assert_int_equal(mp_compare_files("base.csv", "worse.csv", 0, stderr,
                                      &res), 1);
    assert_int_equal(res.matched, 2);
    assert_int_equal(res.only_base, 1);   /* c is missing */
    assert_int_equal(res.differ, 2);
    assert_int_equal(res.model_mismatch, 1);
    unlink("base.csv");
    unlink("same.csv");
    unlink("worse.csv");
}

/* Each row is judged by its probe's own set: the study re-run's 124 load
 * conflicts on 26400 requests pass for reduce (shared-mixed, 1e-2 + 4)
 * and fail for bank (shared, 1e-3); a row without a probe column falls
 * back to the first set that lists the metric (shared). */
static void compare_uses_the_probes_set(void **state)
{
    (void)state;
    static const char *const head =
        "probe,config,requests,time_ns_median,model_match,"
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\n";
    char base[256], fresh[256];
    snprintf(base, sizeof base, "%sreduce,r,26400,1,yes,74427\n"
             "bank,k,26400,1,yes,74427\n", head);
    snprintf(fresh, sizeof fresh, "%sreduce,r,26400,1,yes,74303\n"
             "bank,k,26400,1,yes,74303\n", head);
    cli_write_file("mix-base.csv", base);
    cli_write_file("mix-new.csv", fresh);
    mp_compare_result res;
    FILE *out = tmpfile();
    assert_int_equal(mp_compare_files("mix-base.csv", "mix-new.csv", 1, out,
                                      &res), 1);
    assert_int_equal(res.values, 2);
    assert_int_equal(res.differ, 1);
    rewind(out);
    char line[512];
    int reduce_ok = 0, bank_differs = 0;
    while (fgets(line, sizeof line, out)) {
        reduce_ok += line[0] == 'r' && strstr(line, " ok") != NULL;
        bank_differs += line[0] == 'k' && strstr(line, "DIFFERS") != NULL;
    }
    fclose(out);
    assert_int_equal(reduce_ok, 1);
    assert_int_equal(bank_differs, 1);
    unlink("mix-base.csv");
    unlink("mix-new.csv");
}

static void compare_command_line(void **state)
{
    (void)state;
    cli_write_file("x.csv", HEAD "a,10,5,yes,1,10,\n");
    cli_write_file("y.csv", HEAD "a,10,5,yes,1,11,\n");
    const char *same[] = {"compare", "x.csv", "x.csv", NULL};
    cli_result r;
    cli_run_expect(same, -1,
                   "1 configurations in both",
                   "0 differ beyond tolerance",
                   NULL);
    const char *diff[] = {"compare", "x.csv", "y.csv", NULL};
    cli_run(diff, &r);
    cli_expect_status(&r, 1);
    cli_must_contain("stdout", r.out, "DIFFERS");
    cli_must_contain("stdout", r.out, "1 differ beyond tolerance");
    cli_result_free(&r);
    const char *missing[] = {"compare", "x.csv", "nope.csv", NULL};
    cli_run(missing, &r);
    cli_expect_status(&r, 2);
    cli_result_free(&r);
    const char *one[] = {"compare", "x.csv", NULL};
    cli_expect_usage_error(one, "compare");

    /* Comparing nothing is no pass: exit 2, one line saying why, nothing
     * on stdout. Files without counter values (timing-only runs)... */
    cli_write_file("t1.csv", HEAD "a,10,5,yes,,,\n" "b,10,6,yes,,,\n");
    cli_write_file("t2.csv", HEAD "b,10,7,yes,,,\n" "a,10,5,yes,,,\n");
    const char *timing[] = {"compare", "t1.csv", "t2.csv", NULL};
    cli_expect_usage_error(timing, "none of the 2 configurations in both "
                           "t1.csv and t2.csv has a counter value in both");
    /* ...counters in one file only... */
    const char *half[] = {"compare", "x.csv", "t1.csv", NULL};
    cli_expect_usage_error(half, "0 counter values compared");
    /* ...no configuration in common... */
    cli_write_file("z.csv", HEAD "zz,10,5,yes,1,10,\n");
    const char *apart[] = {"compare", "x.csv", "z.csv", NULL};
    cli_expect_usage_error(apart, "x.csv and z.csv have no configuration "
                           "in common");
    /* ...and a header without rows, on either side. */
    cli_write_file("h.csv", HEAD);
    const char *empty_base[] = {"compare", "h.csv", "x.csv", NULL};
    cli_expect_usage_error(empty_base, "h.csv has no data rows");
    const char *empty_new[] = {"compare", "x.csv", "h.csv", NULL};
    cli_expect_usage_error(empty_new, "h.csv has no data rows");
    mp_compare_result res;
    assert_int_equal(mp_compare_files("t1.csv", "t2.csv", 0, stdout, &res),
                     2);
    assert_int_equal(res.matched, 2);
    assert_int_equal(res.values, 0);
    assert_int_equal(res.time_pairs, 2);
    unlink("t1.csv");
    unlink("t2.csv");
    unlink("z.csv");
    unlink("h.csv");
    const char *bad[] = {"compare", "x.csv", "y.csv", "--what", NULL};
    cli_expect_usage_error(bad, "--what");
    unlink("x.csv");
    unlink("y.csv");
}

/* Rows of one configuration measured with different settings: different
 * iterations (or threads, blocks, ...) count different work, so compare
 * refuses in one line, exit 1, no DIFFERS lines; different timed runs
 * move only the times: the counters compare, with a note. */
static void compare_unlike_settings(void **state)
{
    (void)state;
#define SET_HEAD "probe,config,threads_per_block,iterations,timed_runs," \
                 "requests,time_ns_median," \
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum," \
                 "smsp__sass_inst_executed_op_shared_ld.sum\n"
    cli_write_file("s-base.csv", SET_HEAD
                   "bank,a,256,4096,20,1000,100,8000,1000\n"
                   "bank,b,256,4096,20,1000,100,4000,1000\n"
                   "bank,c,256,4096,20,1000,100,1000,1000\n");
    /* a quarter of the iterations: a quarter of every count */
    cli_write_file("s-iter.csv", SET_HEAD
                   "bank,a,256,1024,20,250,25,2000,250\n"
                   "bank,b,256,1024,20,250,25,1000,250\n"
                   "bank,c,256,1024,20,250,25,250,250\n");
    cli_result r;
    const char *iter[] = {"compare", "s-base.csv", "s-iter.csv", NULL};
    cli_run(iter, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(r.outlen, 0);
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    cli_must_contain("stderr", r.err, "memprobe: compare: s-base.csv and "
                     "s-iter.csv were measured with different iterations "
                     "(4096 vs 1024 in 3 configurations): their counters "
                     "are not comparable");
    cli_result_free(&r);
    /* one configuration of three, and a second setting besides */
    cli_write_file("s-one.csv", SET_HEAD
                   "bank,a,256,4096,20,1000,100,8000,1000\n"
                   "bank,b,128,1024,20,1000,100,4000,1000\n"
                   "bank,c,256,4096,20,1000,100,1000,1000\n");
    const char *one[] = {"compare", "s-base.csv", "s-one.csv", NULL};
    cli_run(one, &r);
    cli_expect_status(&r, 1);
    assert_int_equal(r.outlen, 0);
    cli_must_contain("stderr", r.err, "different threads_per_block (256 vs "
                     "128 in 1 configuration, and 1 other setting)");
    cli_result_free(&r);
    /* timed with 5 runs instead of 20: the same counters, a note */
    cli_write_file("s-runs.csv", SET_HEAD
                   "bank,a,256,4096,5,1000,110,8000,1000\n"
                   "bank,b,256,4096,5,1000,90,4000,1000\n"
                   "bank,c,256,4096,5,1000,100,1000,1000\n");
    const char *runs[] = {"compare", "s-base.csv", "s-runs.csv", NULL};
    cli_run_expect(runs, 2,
                   "note: s-base.csv and s-runs.csv were timed with "
                   "different timed_runs (20 vs 5 in 3 configurations)",
                   "6 counter values compared, 0 differ beyond tolerance",
                   NULL);
#undef SET_HEAD
    unlink("s-base.csv");
    unlink("s-iter.csv");
    unlink("s-one.csv");
    unlink("s-runs.csv");
}

int main(void)
{
    if (!getcwd(repo, sizeof repo))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_off_records_nothing),
        cmocka_unit_test(cost_rows_totals_and_means),
        cmocka_unit_test(cost_phase_names),
        cmocka_unit_test(cost_of_a_fake_run),
        cmocka_unit_test(eta_arithmetic),
        cmocka_unit_test(clock_notes),
        cmocka_unit_test(shape_cache_file),
        cmocka_unit_test(shape_cache_path),
        cmocka_unit_test(bandwidth_auto_names),
        cmocka_unit_test(compare_within_and_beyond),
        cmocka_unit_test(compare_uses_the_probes_set),
        cmocka_unit_test(compare_command_line),
        cmocka_unit_test(compare_unlike_settings),
    };
    return CLI_RUN_TESTS("speed", tests);
}
