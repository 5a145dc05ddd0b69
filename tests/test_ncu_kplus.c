/*
 * test_ncu_kplus.c - `memprobe ncu-check --profile --level kernel+`'s
 * comparison (crosscheck/ncu_kplus.c) on small tables made here with the H200's
 * figures for tests/profile/app (results/h200/profile/l2-hit/): launches
 * within tolerance, one outside, a run of two launches summed, a graph
 * launch not compared, launch sequences that differ, missing columns.
 * No GPU.
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

#include "check.h"
#include "cli_util.h"
#include "ncu_kplus.h"

static char dir[] = "/tmp/test_ncu_kplus.XXXXXX";

#define PROF_HEADER                                                          \
    "kernel,mangled,launch,launches,graph,l1tex__t_sector_hit_rate.pct,"    \
    "lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum," \
    "range_counters,range_why,lts__t_sectors_lookup_hit.sum,"               \
    "lts__t_sectors.sum\n"

/* memprobe's rows: transpose_naive, load_aligned, a run of two
 * reduce_interleaved launches, and a graph launch of transpose_naive. */
static const char prof_rows[] =
    "transpose_naive,transpose_naive,0,1,0,0,62.2,265472,0,range_profiler,,"
    "20446,32894\n"
    "load_aligned,load_aligned,1,1,0,0,55.8,264704,0,range_profiler,,"
    "15737,28193\n"
    "reduce_interleaved,reduce_interleaved,2,2,0,0,43.7,135680,0,"
    "range_profiler,,5068,11604\n"
    "transpose_naive,transpose_naive,4,1,1,,,,,unavailable,graph launch: "
    "the range pass does not measure kernels run by cuGraphLaunch,,\n";

#define NCU_HEADER                                                           \
    "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\","                      \
    "\"dram__bytes_write.sum\",\"l1tex__t_sector_hit_rate.pct\","           \
    "\"lts__t_sectors.sum\",\"lts__t_sectors_lookup_hit.sum\","             \
    "\"lts__t_sectors_lookup_miss.sum\",\"lts__t_sector_hit_rate.pct\"\n"   \
    "\"\",\"\",\"byte\",\"byte\",\"%\",\"sector\",\"sector\",\"sector\","   \
    "\"%\"\n"

/* ncu's rows of the same five launches (--cache-control all). */
static const char *const ncu_rows[5] = {
    "\"0\",\"transpose_naive\",\"265220\",\"0\",\"0\",\"33390\",\"23234\","
    "\"12499\",\"69.58\"\n",
    "\"1\",\"load_aligned\",\"264960\",\"0\",\"0\",\"28175\",\"17885\","
    "\"12479\",\"63.48\"\n",
    "\"2\",\"reduce_interleaved\",\"69890\",\"0\",\"0\",\"5721\",\"4933\","
    "\"3327\",\"86.23\"\n",
    "\"3\",\"reduce_interleaved\",\"69890\",\"0\",\"0\",\"6090\",\"4921\","
    "\"3331\",\"80.80\"\n",
    "\"4\",\"transpose_naive\",\"265220\",\"0\",\"0\",\"33337\",\"23454\","
    "\"12495\",\"70.35\"\n",
};

/* Compares prof_rows (every `from` replaced by `to`) against ncu's rows
 * (skipping row `drop`, -1: none; the first `ncu_from` replaced by
 * `ncu_to` of the same length); the status, the output in out. */
static int compare(const char *from, const char *to, int drop,
                   const char *ncu_from, const char *ncu_to, char *out,
                   size_t outlen, char *err)
{
    char path[512], text[4096];
    snprintf(text, sizeof text, "%s%s", PROF_HEADER, prof_rows);
    for (char *at = from ? strstr(text, from) : NULL; at;
         at = strstr(at + strlen(to), from)) {
        char rest[4096];
        snprintf(rest, sizeof rest, "%s", at + strlen(from));
        snprintf(at, sizeof text - (size_t)(at - text), "%s%s", to, rest);
    }
    assert_true(!from || strstr(text, to));
    snprintf(path, sizeof path, "%s/prof.csv", dir);
    cli_write_file(path, text);
    mp_csv_table p, n;
    assert_int_equal(mp_csv_table_read(path, &p, err, 512), 0);
    snprintf(text, sizeof text, "%s", NCU_HEADER);
    for (int i = 0; i < 5; i++)
        if (i != drop)
            strncat(text, ncu_rows[i], sizeof text - strlen(text) - 1);
    if (ncu_from) {
        char *at = strstr(text, ncu_from);
        assert_non_null(at);
        memcpy(at, ncu_to, strlen(ncu_to));   /* same length */
    }
    assert_int_equal(mp_ncu_parse(text, strlen(text), "ncu.csv", &n, err,
                                  512), 0);
    FILE *f = tmpfile();
    assert_non_null(f);
    int rc = mp_ncu_kplus_compare(&p, &n, f, err, 512);
    rewind(f);
    size_t got = fread(out, 1, outlen - 1, f);
    out[got] = '\0';
    fclose(f);
    mp_csv_free(&p);
    mp_csv_free(&n);
    return rc;
}

/* The H200's figures: every launch within tolerance; the run summed over
 * ncu's two launches (139,780 bytes read, 11,811 sectors); the graph
 * launch not compared; ncu's balance of hits + misses - sectors shown
 * (+2,343 for transpose_naive). */
static void within(void **state)
{
    (void)state;
    char out[8192], err[512] = "";
    int rc = compare(NULL, NULL, -1, NULL, NULL, out, sizeof out, err);
    printf("%s", out);
    assert_int_equal(rc, MP_EXIT_OK);
    cli_must_contain("out", out, "3 launch rows compared (DRAM bytes read "
                     "and written, L2 sectors, L1 hit rate), 3 within "
                     "tolerance, 0 outside; 1 not compared");
    cli_must_contain("out", out, "reduce_interleaved launch 2 (a run: "
                     "sums): DRAM read 135680 / 139780; DRAM written 0 / 0; "
                     "L2 sectors 11604 / 11811;");
    cli_must_contain("out", out, "transpose_naive launch 4: not compared "
                     "(graph launch");
    cli_must_contain("out", out, "L2 hits 20446 / 23234 (ncu's hits + "
                     "misses - sectors +2343), L2 hit % 62.2 / 69.58");
    /* a run's L1 rate is not judged (its rows' rates are weighted) */
    const char *run = strstr(out, "reduce_interleaved launch 2");
    assert_non_null(run);
    assert_true(strstr(run, "L1 hit") > strstr(run, "\n"));
}

/* One value beyond its tolerance: exit 1, the value marked. 290000 is
 * 9.5% above load_aligned's 264,704 bytes (5% + 4 KB allowed); 300 more
 * L2 sectors than 28,193 stay within 3% + 800, 2,000 more do not. */
static void outside(void **state)
{
    (void)state;
    char out[8192], err[512] = "";
    int rc = compare(NULL, NULL, -1, "\"264960\"", "\"290000\"", out,
                     sizeof out, err);
    assert_int_equal(rc, MP_EXIT_FAIL);
    cli_must_contain("out", out, "load_aligned launch 1: DRAM read 264704 / "
                     "290000 OUTSIDE;");
    cli_must_contain("out", out, "2 within tolerance, 1 outside");
    rc = compare(NULL, NULL, -1, "\"28175\"", "\"28475\"", out, sizeof out,
                 err);
    assert_int_equal(rc, MP_EXIT_OK);
    rc = compare(NULL, NULL, -1, "\"28175\"", "\"30193\"", out, sizeof out,
                 err);
    assert_int_equal(rc, MP_EXIT_FAIL);
    cli_must_contain("out", out, "L2 sectors 28193 / 30193 OUTSIDE;");
    /* a kernel+ value memprobe lacks is outside, never a pass */
    rc = compare("range_profiler,,15737,28193", "range_profiler,,15737,",
                 -1, NULL, NULL, out, sizeof out, err);
    assert_int_equal(rc, MP_EXIT_FAIL);
    cli_must_contain("out", out, "L2 sectors nan / 28175 OUTSIDE;");
}

/* Launch sequences that do not line up, and tables without a column:
 * exit 2 with the reason; no range values anywhere: nothing compared, 4. */
static void cannot_compare(void **state)
{
    (void)state;
    char out[8192], err[512] = "";
    assert_int_equal(compare(NULL, NULL, 1, NULL, NULL, out, sizeof out, err),
                     MP_EXIT_USAGE);
    cli_must_contain("err", err, "launch sequences differ: ncu row 2 is "
                     "reduce_interleaved, profile CSV row 2 load_aligned");
    assert_int_equal(compare(NULL, NULL, 4, NULL, NULL, out, sizeof out, err),
                     MP_EXIT_USAGE);
    cli_must_contain("err", err, "needs ncu rows 5-5, ncu has 4");
    assert_int_equal(compare("reduce_interleaved,reduce_interleaved,2,2",
                             "reduce_interleaved,reduce_interleaved,2,1", -1,
                             NULL, NULL, out, sizeof out, err),
                     MP_EXIT_USAGE);
    cli_must_contain("err", err, "launch sequences differ");
    assert_int_equal(compare("lts__t_sectors.sum\n", "lts__t_sectorz.sum\n",
                             -1, NULL, NULL, out, sizeof out, err),
                     MP_EXIT_USAGE);
    cli_must_contain("err", err, "profile CSV: no column lts__t_sectors.sum");
    /* one row without range values: the others still compared */
    int rc = compare("range_profiler,,20446", "unavailable,why,20446", -1,
                     NULL, NULL, out, sizeof out, err);
    assert_int_equal(rc, MP_EXIT_OK);
    cli_must_contain("out", out, "transpose_naive launch 0: not compared "
                     "(why)");
    /* none: nothing compared is never a pass */
    rc = compare(",range_profiler,", ",unavailable,", -1, NULL, NULL, out,
                 sizeof out, err);
    assert_int_equal(rc, MP_EXIT_COUNTERS);
    cli_must_contain("out", out, "0 launch rows compared");
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(within),
        cmocka_unit_test(outside),
        cmocka_unit_test(cannot_compare),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {
    }
    return rc;
}
