/*
 * test_hierarchy.c - the memory-hierarchy figures (report/hierarchy.c)
 * from a hand-made latency CSV whose staircase is known: L1 33 cycles up
 * to 192 KiB, L2 260 cycles from 512 KiB to 16 MiB (cg: 260 from the
 * start), DRAM 600 cycles from 64 MiB (700 at 1 GiB), a stride sweep
 * whose loads are all slow from 32 bytes on, a TLB rise after 16 pages,
 * shared 30 and constant 20..90 cycles. Then `memprobe hierarchy` on it,
 * and its bad input (exit 2).
 */
#include "cli_util.h"
#include "hierarchy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV "latency-test.csv"

static void row(FILE *f, double fp, double stride, const char *order,
                const char *cache, const char *space, double cycles)
{
    fprintf(f, "latency,latency/%s/%s/%s/f%.0f/s%.0f,yes,%.0f,%.0f,%s,%s,%s,"
            "%.2f,%.2f\r\n", space, cache, order, fp, stride, fp, stride,
            order, cache, space, cycles, cycles / 1.98);
}

/* The latency columns the figures read. */
static void header(FILE *f)
{
    fprintf(f, "probe,config,verified,footprint_bytes,stride_bytes,order,"
            "cache,space,cycles_per_load,ns_per_load\r\n");
}

static void write_csv(void)
{
    FILE *f = fopen(CSV, "w");
    assert_non_null(f);
    header(f);
    /* Staircase, random, stride 128, default and cg. */
    for (double fp = 8192; fp <= 1073741824.0; fp *= 2) {
        double l1 = fp <= 196608 ? 33 : fp < 524288 ? 150 : 260;
        double l2 = fp <= 16777216 ? 260 : fp < 67108864 ? 430 : 600;
        double d = fp >= 1073741824.0 ? 700 : fp >= 67108864 ? 600 : 0;
        row(f, fp, 128, "random", "default", "global",
            d ? d : fp <= 262144 && l1 < 260 ? l1 : l2 > 260 ? l2 : l1);
        row(f, fp, 128, "random", "cg", "global", d ? d : l2);
    }
    /* A row that failed verification: never used. */
    fprintf(f, "latency,bad,no,65536,128,random,default,global,9999,1\r\n");
    /* Stride sweep at 2 MiB (L2-sized): slow from 32 bytes on. */
    static const double strides[] = {8, 16, 32, 64, 128, 256};
    static const double cyc2m[] = {90, 147, 260, 261, 260, 262};
    static const double cycdr[] = {180, 330, 420, 600, 601, 600};
    for (int i = 0; i < 6; i++) {
        row(f, 2097152, strides[i], "seq", "default", "global", cyc2m[i]);
        row(f, 268435456, strides[i], "seq", "default", "global", cycdr[i]);
    }
    /* TLB: one load per 2 MiB page, 8 .. 128 pages, through L2 (cg);
     * through L1 the same pages are the L1's, not the TLB's, and no
     * figure of it. */
    static const double tlb[] = {262, 263, 262, 330, 420};
    for (int i = 0; i < 5; i++) {
        row(f, 16777216.0 * (1 << i), 2097152, "seq", "cg", "global",
            tlb[i]);
        row(f, 16777216.0 * (1 << i), 2097152, "seq", "default", "global",
            i < 2 ? 32 : 262);
    }
    row(f, 16384, 64, "random", "default", "shared", 30);
    row(f, 4096, 64, "random", "default", "shared", 31);
    row(f, 256, 64, "random", "default", "constant", 20);
    row(f, 65536, 64, "random", "default", "constant", 90);
    /* Another probe's row is skipped. */
    fprintf(f, "bank,bank/x,yes,,,,,,,\r\n");
    fclose(f);
}

static void load(mp_hier *h, mp_csv_table *t)
{
    char err[256];
    write_csv();
    assert_int_equal(mp_csv_table_read(CSV, t, err, sizeof err), 0);
    memset(h, 0, sizeof *h);
    mp_hier_add(h, t, CSV);
}

static const mp_hier_figure *figure(const mp_hier_figure *f, int n,
                                    const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i].name, name))
            return &f[i];
    fail_msg("no figure '%s'", name);
    return NULL;
}

static void expect(const mp_hier_figure *f, int n, const char *name,
                   const char *value_prefix)
{
    const mp_hier_figure *x = figure(f, n, name);
    if (strncmp(x->value, value_prefix, strlen(value_prefix)))
        fail_msg("%s: '%s', expected '%s...'", name, x->value, value_prefix);
    assert_true(x->from[0] != '\0');
}

/* The TLB rows alone, as the H200's sweep measured them (one line at the
 * start of each page from one SM, cg): the lines' L2 homes spread the
 * rows by 11 cycles with no step, read as such rather than as a reach
 * beyond the last page count; a step after noise of its own size is
 * not one, and a step above all rows before it (270 .. 277, then 290)
 * is. */
static void tlb_figure(const double *cycles, int n, char *value,
                       size_t size)
{
    FILE *f = fopen(CSV, "w");
    assert_non_null(f);
    header(f);
    for (int i = 0; i < n; i++)
        row(f, 16777216.0 * (1 << i), 2097152, "seq", "cg", "global",
            cycles[i]);
    fclose(f);
    mp_csv_table t;
    char err[256];
    assert_int_equal(mp_csv_table_read(CSV, &t, err, sizeof err), 0);
    mp_hier h;
    memset(&h, 0, sizeof h);
    mp_hier_add(&h, &t, CSV);
    mp_hier_figure fig[MP_HIER_FIGURES];
    int k = mp_hier_derive(&h, fig);
    snprintf(value, size, "%s", figure(fig, k, "TLB reach (2 MiB pages)")->value);
    mp_hier_free(&h);
    mp_csv_free(&t);
}

static void test_tlb_step(void **state)
{
    (void)state;
    char v[160];
    static const double h200[] = {291.14, 287.16, 288.30, 284.07, 283.09,
                                  280.10, 281.34, 281.45, 280.66, 281.10,
                                  280.90};
    tlb_figure(h200, 11, v, sizeof v);
    assert_string_equal(v, "no step from 8 to 8192 pages: 280.1-291.1 "
                        "cycles, the L2 homes' spread (memprobe l2map --tlb)");
    /* 300 is 2% above the median 277 but not above 302 before it. */
    static const double noisy[] = {272, 302, 277, 300, 301};
    tlb_figure(noisy, 5, v, sizeof v);
    assert_string_equal(v, "no step from 8 to 128 pages: 272.0-302.0 "
                        "cycles, the L2 homes' spread (memprobe l2map --tlb)");
    static const double step[] = {270, 277, 272, 290, 291, 295};
    tlb_figure(step, 6, v, sizeof v);
    assert_string_equal(v, "32 pages (64 MiB: 272.0 cycles) fit, 64 pages "
                        "(290.0 cycles) do not; 256 pages: 295.0 cycles");
}

static void test_figures(void **state)
{
    (void)state;
    mp_hier h;
    mp_csv_table t;
    load(&h, &t);
    /* 18 x 2 staircase + 12 strides + 5 x 2 TLB + 4 spaces. */
    assert_int_equal(h.n, 36 + 12 + 10 + 4);
    mp_hier_figure f[MP_HIER_FIGURES];
    int n = mp_hier_derive(&h, f);
    assert_int_equal(n, MP_HIER_FIGURES);
    expect(f, n, "L1 hit latency", "33.0 cycles");
    expect(f, n, "L2 hit latency", "260.0 cycles");
    expect(f, n, "device-memory latency", "600.0 cycles (random, 256 MiB)");
    expect(f, n, "device memory, largest footprint",
           "700.0 cycles (random, 1024 MiB)");
    /* Midpoint (33 + 260) / 2 = 146.5: 128 KiB at 33, 256 KiB at 150. */
    expect(f, n, "effective L1 capacity",
           "between 128 KiB (33.0 cycles) and 256 KiB (150.0 cycles)");
    /* Midpoint (260 + 600) / 2 = 430: 16 MiB at 260, 32 MiB at 430. */
    expect(f, n, "effective L2 capacity",
           "between 16 MiB (260.0 cycles) and 32 MiB (430.0 cycles)");
    expect(f, n, "L1 fetch granularity", "32 bytes");
    expect(f, n, "L2 fetch granularity from DRAM", "64 bytes");
    expect(f, n, "TLB reach (2 MiB pages)", "32 pages (64 MiB: 262.0 cycles) "
           "fit, 64 pages (330.0 cycles) do not");
    expect(f, n, "shared-memory latency", "30.5 cycles");
    expect(f, n, "constant cache hit", "20.0 cycles (256 B)");
    expect(f, n, "constant, largest", "90.0 cycles (64 KiB)");
    /* The failed row's 9999 cycles are in no figure. */
    for (int i = 0; i < n; i++)
        assert_null(strstr(f[i].value, "9999"));

    mp_hier_latency l;
    mp_hier_latencies(&h, &l);
    assert_true(l.l1 == 33 && l.l2 == 260 && l.dram == 600);
    assert_true(l.dram_tlb == 700 && l.shared == 30.5);
    assert_true(l.constant_hit == 20 && l.constant_miss == 90);

    /* Plot data: four series (random/seq x default/cg) where measured:
     * the two random staircases, and the stride sweeps' 128-byte rows as
     * a sequential series of two points. */
    assert_int_equal(mp_hier_plot_data(&h, "."), 0);
    size_t len;
    char *dat = cli_read_file("latency-footprint.dat", &len);
    assert_non_null(strstr(dat, "\"random, through L1\"\n8 33.00\n"));
    assert_non_null(strstr(dat, "\"random, cg (L2 only)\"\n8 260.00\n"));
    assert_non_null(strstr(dat, "\"seq, through L1\"\n2048 260.00\n"
                               "262144 601.00\n"));
    assert_null(strstr(dat, "\"seq, cg"));
    free(dat);
    mp_hier_free(&h);
    mp_csv_free(&t);
}

/* Nothing measured: every figure empty, plot data a comment only. */
static void test_empty(void **state)
{
    (void)state;
    mp_hier h = {0, 0, NULL};
    mp_hier_figure f[MP_HIER_FIGURES];
    int n = mp_hier_derive(&h, f);
    for (int i = 0; i < n; i++)
        assert_string_equal(f[i].value, "");
    mp_hier_latency l;
    mp_hier_latencies(&h, &l);
    assert_true(isnan(l.l1) && isnan(l.dram) && isnan(l.shared));
    assert_int_equal(mp_hier_plot_data(&h, "."), 0);
    size_t len;
    char *dat = cli_read_file("latency-footprint.dat", &len);
    assert_int_equal(cli_count_char(dat, '\n'), 1);
    free(dat);
}

static void test_command(void **state)
{
    (void)state;
    write_csv();
    const char *args[] = {"hierarchy", CSV, "--format", "md", NULL};
    cli_run_expect(args, -1,
                   "| figure | measured | from rows |",
                   "| L1 hit latency | 33.0 cycles | latency/global/",
                   NULL);
}

/* The study from a results folder holding only latency/latency.csv (the
 * test's CSV with a device column): the section's table and both claims
 * of seed 000 with the synthetic figures. */
static void test_study(void **state)
{
    (void)state;
    write_csv();
    size_t len;
    char *text = cli_read_file(CSV, &len);
    assert_int_equal(system("mkdir -p res/latency"), 0);
    FILE *f = fopen("res/latency/latency.csv", "w");
    assert_non_null(f);
    /* device_name first on every line; the bank row left out (the
     * report wants a bank row's own columns). */
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, "bank,", 5))
            fprintf(f, "%s,%s\n",
                    line == text ? "device_name" : "NVIDIA H200", line);
    fclose(f);
    free(text);
    const char *args[] = {"report", "--study", "study.md", "--results", "res",
                          NULL};
    cli_result r;
    cli_run(args, &r);
    if (r.status != 0)
        fail_msg("report --study: %s", r.err);
    cli_result_free(&r);
    char *md = cli_read_file("study.md", &len);
    cli_must_contain("study", md, "## The memory hierarchy");
    cli_must_contain("study", md, "| L2 hit latency | 260.0 cycles |");
    cli_must_contain("study", md, "plots/latency-footprint.svg");
    cli_must_contain("study", md, "33 cycles per load from L1");
    cli_must_contain("study", md, "Global memory IS cached");
    cli_must_contain("study", md, "A dependent shared-memory load takes 30 "
                     "cycles");
    assert_null(strstr(md, "No H200 measurement is committed yet (`latency"));
    free(md);
}

/* Bandwidth against footprint: rows of repeated walks only ("/r0"), one
 * block per kernel, sorted by size. */
static void test_bandwidth_plot_data(void **state)
{
    (void)state;
    FILE *f = fopen("bw.csv", "w");
    assert_non_null(f);
    fprintf(f, "probe,config,kernel,array_bytes,bandwidth_gbs\r\n"
            "bandwidth,bandwidth/read/w16/o0/s1/b8192/r0,read,8192,900\r\n"
            "bandwidth,bandwidth/read/w16/o0/s1/b4096/r0,read,4096,500\r\n"
            "bandwidth,bandwidth/read/w16/o0/s1/b1073741824,read,1073741824,"
            "4200\r\n"
            "bandwidth,bandwidth/copy/w16/o0/s1/b4096/r2,copy,4096,300\r\n");
    fclose(f);
    mp_csv_table t;
    char err[256];
    assert_int_equal(mp_csv_table_read("bw.csv", &t, err, sizeof err), 0);
    const mp_csv_table *tables[] = {&t};
    assert_int_equal(mp_hier_bandwidth_plot_data(tables, 1, "."), 0);
    size_t len;
    char *dat = cli_read_file("bandwidth-footprint.dat", &len);
    assert_non_null(strstr(dat, "\"read\"\n4 500.0\n8 900.0\n"));
    assert_non_null(strstr(dat, "\"copy\"\n4 300.0\n"));
    assert_null(strstr(dat, "4200"));    /* one walk: not this plot's */
    assert_null(strstr(dat, "write"));
    free(dat);
    mp_csv_free(&t);
}

/* An impossible latency (below 0, not a number, infinite) in a CSV is
 * bad input for every command that reads it, named by file, row and
 * column; an empty cell (not measured) is not. */
static void test_impossible_values(void **state)
{
    (void)state;
    static const char *const bad[] = {"-5", "-0.5", "nan", "NaN", "inf",
                                      "-inf", "1e999", "fast", NULL};
    const char *header = "device_name,probe,config,verified,footprint_bytes,"
                         "stride_bytes,order,cache,space,cycles_per_load,"
                         "ns_per_load\r\n";
    FILE *f = fopen("good.csv", "w");
    assert_non_null(f);
    fprintf(f, "%sH200,latency,latency/a,yes,8192,128,random,default,global,"
            "33,16.7\r\nH200,latency,latency/b,yes,16384,128,random,"
            "default,global,,\r\n", header);
    fclose(f);
    /* The empty cells are allowed: the row is left out, not refused. */
    const char *ok[] = {"hierarchy", "good.csv", NULL};
    cli_run_expect(ok, -1,
                   "33.0 cycles",
                   NULL);
    for (int i = 0; bad[i]; i++) {
        f = fopen("bad.csv", "w");
        assert_non_null(f);
        fprintf(f, "%sH200,latency,latency/a,yes,8192,128,random,default,"
                "global,33,16.7\r\nH200,latency,latency/b,yes,16384,128,"
                "random,default,global,%s,1\r\n", header, bad[i]);
        fclose(f);
        char want[128];
        snprintf(want, sizeof want, "bad.csv: data row 2, column "
                 "cycles_per_load: '%s' is ", bad[i]);
        const char *hier[] = {"hierarchy", "bad.csv", NULL};
        const char *report[] = {"report", "bad.csv", NULL};
        const char *compare[] = {"compare", "good.csv", "bad.csv", NULL};
        cli_expect_usage_error(hier, want);
        cli_expect_usage_error(report, want);
        cli_expect_usage_error(compare, want);
    }
}

static const cli_bad_case bad_cases[] = {
    {{"hierarchy"}, "hierarchy"},
    {{"hierarchy", "missing.csv"}, "missing.csv"},
    {{"hierarchy", ".", NULL}, "folder"},
    {{"hierarchy", "--format", "html", "x.csv"}, "--format"},
    {{"hierarchy", "--bogus"}, "--bogus"},
};

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_tlb_step),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_study),
        cmocka_unit_test(test_bandwidth_plot_data),
        cmocka_unit_test(test_impossible_values),
    };
    return CLI_RUN_BAD("hierarchy", bad_cases, fixed);
}
