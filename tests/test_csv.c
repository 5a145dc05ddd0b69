/*
 * test_csv.c - CPU tests of the result-writing path: the RFC 4180 writer
 * (runtime/csv_writer.c), the timing statistics (runtime/stats.c) and the
 * configuration cross product (runtime/configs.c) on the bank probe.
 *
 * File tests run in a fresh mkdtemp directory that is removed afterwards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configs.h"
#include "csv_writer.h"
#include "params.h"
#include "probe.h"
#include "stats.h"

extern const mp_probe mp_probe_bank;

/* ---- helpers -------------------------------------------------------- */

typedef struct {
    char dir[64];
    char path[128];
} tmp_files;

static int make_tmp(void **state)
{
    tmp_files *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    snprintf(t->dir, sizeof t->dir, "/tmp/memprobe-csv-XXXXXX");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    snprintf(t->path, sizeof t->path, "%s/out.csv", t->dir);
    *state = t;
    return 0;
}

static int remove_tmp(void **state)
{
    tmp_files *t = *state;
    unlink(t->path);
    rmdir(t->dir);
    free(t);
    return 0;
}

/* Whole file into a malloc'd, NUL-terminated buffer (NULL if missing). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
        assert_non_null(buf);
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void assert_file(const char *path, const char *want)
{
    size_t len = 0;
    char *have = slurp(path, &len);
    assert_non_null(have);
    assert_string_equal(have, want);
    assert_int_equal(len, strlen(want));   /* no NUL bytes either */
    free(have);
}

static const char *const header3[] = {"a", "b", "c"};

/* ---- mp_csv_escape -------------------------------------------------- */

static void escape_is(const char *field, const char *want)
{
    char buf[128];
    memset(buf, '#', sizeof buf);
    size_t n = mp_csv_escape(field, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
    /* The length alone, without a buffer. */
    assert_int_equal(mp_csv_escape(field, NULL, 0), strlen(want));
}

static void test_escape(void **state)
{
    (void)state;
    escape_is("plain", "plain");
    escape_is("", "");
    escape_is("a b;c\t", "a b;c\t");          /* no quoting needed */
    escape_is("a,b", "\"a,b\"");
    escape_is("say \"hi\"", "\"say \"\"hi\"\"\"");
    escape_is("\"", "\"\"\"\"");
    escape_is("a\rb", "\"a\rb\"");
    escape_is("a\nb", "\"a\nb\"");
    escape_is("x\r\n", "\"x\r\n\"");
    escape_is(",", "\",\"");
}

static void test_escape_truncates(void **state)
{
    (void)state;
    char buf[4];
    memset(buf, '#', sizeof buf);
    /* Like snprintf: returns the full length, writes len-1 and a NUL. */
    assert_int_equal(mp_csv_escape("hello", buf, sizeof buf), 5);
    assert_string_equal(buf, "hel");
    assert_int_equal(mp_csv_escape("a,b", buf, sizeof buf), 5);
    assert_string_equal(buf, "\"a,");
    assert_int_equal(mp_csv_escape("abc", buf, sizeof buf), 3);
    assert_string_equal(buf, "abc");
}

/* ---- writer ---------------------------------------------------------- */

static void test_new_file_gets_header_once(void **state)
{
    tmp_files *t = *state;
    mp_csv_writer w;
    char err[512] = "";
    const char *const r1[] = {"1", "2", "3"};
    const char *const r2[] = {"4", "5", "6"};

    if (mp_csv_open(&w, t->path, header3, 3, err, sizeof err))
        fail_msg("open: %s", err);
    assert_int_equal(mp_csv_write_row(&w, r1, err, sizeof err), 0);
    assert_int_equal(mp_csv_close(&w), 0);
    assert_file(t->path, "a,b,c\r\n1,2,3\r\n");

    /* Second open of the same file: rows appended, no second header. */
    if (mp_csv_open(&w, t->path, header3, 3, err, sizeof err))
        fail_msg("reopen: %s", err);
    assert_int_equal(mp_csv_write_row(&w, r2, err, sizeof err), 0);
    assert_int_equal(mp_csv_write_row(&w, r1, err, sizeof err), 0);
    assert_int_equal(mp_csv_close(&w), 0);
    assert_file(t->path, "a,b,c\r\n1,2,3\r\n4,5,6\r\n1,2,3\r\n");
}

static void test_header_only_file_and_empty_file(void **state)
{
    tmp_files *t = *state;
    mp_csv_writer w;
    char err[512] = "";

    /* An open with no rows leaves the header (flushed at open). */
    assert_int_equal(mp_csv_open(&w, t->path, header3, 3, err, sizeof err),
                     0);
    assert_file(t->path, "a,b,c\r\n");
    assert_int_equal(mp_csv_close(&w), 0);

    /* An existing but empty file is treated as new: it gets the header. */
    spit(t->path, "");
    assert_int_equal(mp_csv_open(&w, t->path, header3, 3, err, sizeof err),
                     0);
    assert_int_equal(mp_csv_close(&w), 0);
    assert_file(t->path, "a,b,c\r\n");
}

static void test_quoted_header_matches_on_reopen(void **state)
{
    tmp_files *t = *state;
    mp_csv_writer w;
    char err[512] = "";
    const char *const h[] = {"x,y", "say \"z\""};
    const char *const r[] = {"1", "2"};
    for (int i = 0; i < 2; i++) {
        if (mp_csv_open(&w, t->path, h, 2, err, sizeof err))
            fail_msg("open %d: %s", i, err);
        assert_int_equal(mp_csv_write_row(&w, r, err, sizeof err), 0);
        assert_int_equal(mp_csv_close(&w), 0);
    }
    assert_file(t->path, "\"x,y\",\"say \"\"z\"\"\"\r\n1,2\r\n1,2\r\n");
}

static void test_different_header_refused(void **state)
{
    tmp_files *t = *state;
    mp_csv_writer w;
    static const char *const old_files[] = {
        "x,y,z\r\n1,2,3\r\n",        /* other names */
        "a,b\r\n1,2\r\n",            /* a prefix of ours */
        "a,b,c,d\r\n1,2,3,4\r\n",    /* ours is a prefix of it */
        "A,b,c\r\n",                 /* case differs */
        "a,b,c ",                    /* trailing space, no newline */
    };
    for (size_t i = 0; i < sizeof old_files / sizeof old_files[0]; i++) {
        char err[512] = "";
        spit(t->path, old_files[i]);
        int rc = mp_csv_open(&w, t->path, header3, 3, err, sizeof err);
        if (rc != -1)
            fail_msg("header '%s' accepted", old_files[i]);
        if (!strstr(err, t->path) || !strstr(err, "header"))
            fail_msg("message '%s' names neither path nor header", err);
        assert_null(strchr(err, '\n'));
        /* Byte-for-byte unchanged. */
        assert_file(t->path, old_files[i]);
        assert_int_equal(mp_csv_close(&w), 0);   /* safe after refusal */
    }
}

/* A file holding exactly our header but no line end (written by hand, or
 * cut short) is accepted as ours; the next row must still start on a line
 * of its own. Either refusing the file (left unchanged) or completing the
 * line is acceptable; gluing the row onto the header is not. */
static void test_header_without_line_end(void **state)
{
    tmp_files *t = *state;
    mp_csv_writer w;
    char err[512] = "";
    const char *const r[] = {"1", "2", "3"};
    spit(t->path, "a,b,c");
    if (mp_csv_open(&w, t->path, header3, 3, err, sizeof err)) {
        assert_file(t->path, "a,b,c");
        return;
    }
    assert_int_equal(mp_csv_write_row(&w, r, err, sizeof err), 0);
    assert_int_equal(mp_csv_close(&w), 0);
    assert_file(t->path, "a,b,c\r\n1,2,3\r\n");
}

static void test_row_cells(void **state)
{
    tmp_files *t = *state;
    mp_csv_writer w;
    char err[512] = "";
    const char *const empty[] = {NULL, "", "x"};
    const char *const all_null[] = {NULL, NULL, NULL};
    const char *const quoted[] = {"a,b", "say \"hi\"", "l1\nl2"};
    assert_int_equal(mp_csv_open(&w, t->path, header3, 3, err, sizeof err),
                     0);
    assert_int_equal(mp_csv_write_row(&w, empty, err, sizeof err), 0);
    assert_int_equal(mp_csv_write_row(&w, all_null, err, sizeof err), 0);
    assert_int_equal(mp_csv_write_row(&w, quoted, err, sizeof err), 0);
    /* Flushed per row: visible before close. */
    assert_file(t->path, "a,b,c\r\n,,x\r\n,,\r\n"
                         "\"a,b\",\"say \"\"hi\"\"\",\"l1\nl2\"\r\n");
    assert_int_equal(mp_csv_close(&w), 0);
}

static void test_missing_directory(void **state)
{
    tmp_files *t = *state;
    mp_csv_writer w;
    char err[512] = "";
    char path[256];
    snprintf(path, sizeof path, "%s/no/such/dir/out.csv", t->dir);
    assert_int_equal(mp_csv_open(&w, path, header3, 3, err, sizeof err), -1);
    if (!strstr(err, path))
        fail_msg("message '%s' does not name %s", err, path);
    assert_null(strchr(err, '\n'));
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(mp_csv_close(&w), 0);
}

/* ---- stats ------------------------------------------------------------- */

static void test_stats_odd(void **state)
{
    (void)state;
    double x[] = {5, 1, 4, 2, 3};
    mp_stats s;
    mp_stats_compute(x, 5, &s);
    assert_int_equal(s.n, 5);
    assert_true(s.median == 3);
    assert_true(s.min == 1);
    assert_true(s.max == 5);
    assert_true(s.mean == 3);
    /* deviations -2..2: squares 4+1+0+1+4 = 10; sample var 10/4 = 2.5;
     * sd = 1.5811388300841898; cov = sd / 3 = 0.5270462766947299. */
    assert_true(fabs(s.cov - 0.5270462766947299) < 1e-12);
    /* Sorted in place, as documented. */
    for (int i = 0; i < 5; i++)
        assert_true(x[i] == i + 1);
}

static void test_stats_even(void **state)
{
    (void)state;
    double x[] = {9, 2, 4, 4, 5, 4, 7, 5};
    mp_stats s;
    mp_stats_compute(x, 8, &s);
    assert_int_equal(s.n, 8);
    /* sorted: 2 4 4 4 5 5 7 9 -> median (4 + 5) / 2 = 4.5 */
    assert_true(s.median == 4.5);
    assert_true(s.min == 2);
    assert_true(s.max == 9);
    /* mean 40/8 = 5; squares 9+1+1+1+0+0+4+16 = 32; sample var 32/7;
     * sd = sqrt(4.571428...) = 2.138089935299395; cov = 0.427617987059879 */
    assert_true(s.mean == 5);
    assert_true(fabs(s.cov - 0.427617987059879) < 1e-12);

    double y[] = {10, 20};
    mp_stats_compute(y, 2, &s);
    /* median 15; mean 15; deviations +-5: sample var (25+25)/1 = 50;
     * sd = 7.0710678118654755; cov = sd / 15 = 0.4714045207910317 */
    assert_true(s.median == 15);
    assert_true(s.min == 10);
    assert_true(fabs(s.cov - 0.4714045207910317) < 1e-12);
}

static void test_stats_edges(void **state)
{
    (void)state;
    mp_stats s;
    memset(&s, 0x7f, sizeof s);
    mp_stats_compute(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(s.median == 0 && s.min == 0 && s.max == 0 && s.mean == 0
                && s.cov == 0);

    double one[] = {1234.5};
    memset(&s, 0x7f, sizeof s);
    mp_stats_compute(one, 1, &s);
    assert_int_equal(s.n, 1);
    assert_true(s.median == 1234.5);
    assert_true(s.min == 1234.5);
    assert_true(s.max == 1234.5);
    assert_true(s.mean == 1234.5);
    assert_true(s.cov == 0);   /* one sample: no spread */

    double same[] = {7, 7, 7, 7};
    mp_stats_compute(same, 4, &s);
    assert_true(s.median == 7);
    assert_true(s.cov == 0);
}

/* Launch timing helpers (runtime/runner.c's samples, warm-up and
 * outliers), numbers against numbers. */
static void test_launch_timing_helpers(void **state)
{
    (void)state;
    /* 100 us samples: a 5-us launch 20 per sample, 3 us 34, a 150-us one
     * alone; the cap and unknown times. */
    assert_int_equal(mp_launches_per_sample(5000, 100000, 1000), 20);
    assert_int_equal(mp_launches_per_sample(3000, 100000, 1000), 34);
    assert_int_equal(mp_launches_per_sample(150000, 100000, 1000), 1);
    assert_int_equal(mp_launches_per_sample(100000, 100000, 1000), 1);
    assert_int_equal(mp_launches_per_sample(10, 100000, 1000), 1000);
    assert_int_equal(mp_launches_per_sample(0, 100000, 1000), 1);
    assert_int_equal(mp_launches_per_sample(-5, 100000, 1000), 1);
    assert_int_equal(mp_launches_per_sample(5000, 100000, 0), 1);

    /* Settled: medians 100 then 100.4 (0.4%) within 0.5%; 100 then 101
     * not; order inside a window does not matter, nor are they sorted. */
    double a[] = {103, 100, 99, 100, 250};
    double b[] = {100.4, 99, 101, 100.4, 100.5};
    double c[] = {101, 101, 101, 90, 120};
    assert_true(mp_timing_settled(a, b, 5, 0.005));
    assert_false(mp_timing_settled(a, c, 5, 0.005));
    assert_true(mp_timing_settled(a, c, 5, 0.0101));
    assert_true(a[0] == 103 && a[4] == 250);   /* read only */
    assert_false(mp_timing_settled(a, b, 0, 0.5));

    /* Outliers: the MAD of {98..102, 150} about 100.5 is 1.5, the bound
     * max(8.9, 1.005): 150 is out, 98 and 102 in. A tight sample: the 1%
     * floor decides (MAD 0.1; 1009 is within 1%, 1011 beyond it). */
    double x[] = {98, 99, 100, 101, 102, 150};
    assert_int_equal(mp_count_outliers(x, 6, 100.5), 1);
    double y[] = {999.9, 1000, 1000, 1000.1, 1009, 1011};
    assert_int_equal(mp_count_outliers(y, 6, 1000.05), 1);
    double z[] = {7, 7, 7};
    assert_int_equal(mp_count_outliers(z, 3, 7), 0);
    assert_int_equal(mp_count_outliers(NULL, 0, 0), 0);
}

static void test_median_and_comparator(void **state)
{
    (void)state;
    double a = 1, b = 2;
    assert_int_equal(mp_cmp_double(&a, &b), -1);
    assert_int_equal(mp_cmp_double(&b, &a), 1);
    assert_int_equal(mp_cmp_double(&a, &a), 0);
    double odd[] = {3, -1, 2};
    assert_true(mp_median(odd, 3) == 2);
    assert_true(odd[0] == -1 && odd[1] == 2 && odd[2] == 3);   /* sorted */
    double even[] = {8, 1, 5, 2};
    assert_true(mp_median(even, 4) == 3.5);
    double one[] = {42};
    assert_true(mp_median(one, 1) == 42);
    assert_true(isnan(mp_median(NULL, 0)));
}

/* ---- configs ---------------------------------------------------------- */

static int bank_index(const char *name)
{
    int i = mp_param_find(mp_probe_bank.params, mp_probe_bank.nparams, name);
    if (i < 0)
        fail_msg("bank has no parameter '%s'", name);
    return i;
}

static mp_value_list *parsed(const char *name, const char *text)
{
    mp_value_list *l = malloc(sizeof *l);
    char err[256];
    assert_non_null(l);
    if (mp_param_parse_list(&mp_probe_bank.params[bank_index(name)], text, l,
                            err, sizeof err))
        fail_msg("%s", err);
    return l;
}

static void test_configs_defaults_only(void **state)
{
    (void)state;
    const mp_probe *p = mp_probe_find("bank");
    assert_ptr_equal(p, &mp_probe_bank);
    mp_value_list *lists[MP_MAX_PARAMS] = {0};
    mp_config_list cl;
    char err[256];
    assert_int_equal(mp_configs_expand(p, lists, &cl, err, sizeof err), 0);
    assert_int_equal(cl.n, 1);
    assert_ptr_equal(cl.probe, p);
    for (int i = 0; i < p->nparams; i++)
        assert_int_equal(cl.v[0][i], p->params[i].def);
    /* The documented defaults. */
    assert_int_equal(cl.v[0][bank_index("op")], 0);
    assert_int_equal(cl.v[0][bank_index("width")], 4);
    assert_int_equal(cl.v[0][bank_index("stride")], 1);
    assert_int_equal(cl.v[0][bank_index("period")], 32);
    assert_int_equal(cl.v[0][bank_index("threads")], 256);
    mp_configs_free(&cl);
    assert_int_equal(cl.n, 0);
    assert_null(cl.v);
}

static void test_configs_cross_product_order(void **state)
{
    (void)state;
    const mp_probe *p = &mp_probe_bank;
    mp_value_list *lists[MP_MAX_PARAMS] = {0};
    int op = bank_index("op"), width = bank_index("width"),
        stride = bank_index("stride"), pad = bank_index("pad");
    lists[op] = parsed("op", "ld,st");
    lists[width] = parsed("width", "4,8,16");
    lists[stride] = parsed("stride", "0..3");
    mp_config_list cl;
    char err[256];
    assert_int_equal(mp_configs_expand(p, lists, &cl, err, sizeof err), 0);
    assert_int_equal(cl.n, 2 * 3 * 4);
    /* Odometer: op slowest, then width, then stride fastest. */
    static const long long widths[] = {4, 8, 16};
    for (int c = 0; c < cl.n; c++) {
        assert_int_equal(cl.v[c][op], c / 12);
        assert_int_equal(cl.v[c][width], widths[(c / 4) % 3]);
        assert_int_equal(cl.v[c][stride], c % 4);
        assert_int_equal(cl.v[c][pad], 0);                 /* default */
        assert_int_equal(cl.v[c][bank_index("iterations")],
                         p->params[bank_index("iterations")].def);
    }
    /* Spot checks: config 5 = ld, w8, s1; config 23 = st, w16, s3. */
    assert_int_equal(cl.v[5][op], 0);
    assert_int_equal(cl.v[5][width], 8);
    assert_int_equal(cl.v[5][stride], 1);
    assert_int_equal(cl.v[23][op], 1);
    assert_int_equal(cl.v[23][width], 16);
    assert_int_equal(cl.v[23][stride], 3);
    mp_configs_free(&cl);

    /* A list given for a later parameter only: the earlier ones stay at
     * their defaults and the list order is kept (not sorted). */
    free(lists[op]);
    free(lists[width]);
    lists[op] = lists[width] = NULL;
    free(lists[stride]);
    lists[stride] = parsed("stride", "9,2,5");
    assert_int_equal(mp_configs_expand(p, lists, &cl, err, sizeof err), 0);
    assert_int_equal(cl.n, 3);
    assert_int_equal(cl.v[0][stride], 9);
    assert_int_equal(cl.v[1][stride], 2);
    assert_int_equal(cl.v[2][stride], 5);
    assert_int_equal(cl.v[2][width], 4);
    mp_configs_free(&cl);
    free(lists[stride]);
}

static void test_configs_too_many(void **state)
{
    (void)state;
    const mp_probe *p = &mp_probe_bank;
    mp_value_list *lists[MP_MAX_PARAMS] = {0};
    mp_config_list cl;
    char err[256] = "";
    /* 4096 strides x 4096 bases = 16.7M > MP_MAX_CONFIGS. */
    lists[bank_index("stride")] = parsed("stride", "0..4095");
    lists[bank_index("base")] = parsed("base", "0..4095");
    assert_int_equal(mp_configs_expand(p, lists, &cl, err, sizeof err), -1);
    char want[64];
    snprintf(want, sizeof want, "more than %d configurations",
             MP_MAX_CONFIGS);
    if (!strstr(err, want))
        fail_msg("message '%s' lacks '%s'", err, want);
    free(lists[bank_index("base")]);
    lists[bank_index("base")] = NULL;
    /* 4096 x 2 x 3 = 24576 is fine. */
    lists[bank_index("op")] = parsed("op", "ld,st");
    lists[bank_index("width")] = parsed("width", "4,8,16");
    assert_int_equal(mp_configs_expand(p, lists, &cl, err, sizeof err), 0);
    assert_int_equal(cl.n, 24576);
    assert_int_equal(cl.v[24575][bank_index("stride")], 4095);
    assert_int_equal(cl.v[24575][bank_index("width")], 16);
    assert_int_equal(cl.v[24575][bank_index("op")], 1);
    mp_configs_free(&cl);
    for (int i = 0; i < MP_MAX_PARAMS; i++)
        free(lists[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_escape_truncates),
        cmocka_unit_test_setup_teardown(test_new_file_gets_header_once,
                                        make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_header_only_file_and_empty_file,
                                        make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_quoted_header_matches_on_reopen,
                                        make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_different_header_refused,
                                        make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_header_without_line_end, make_tmp,
                                        remove_tmp),
        cmocka_unit_test_setup_teardown(test_row_cells, make_tmp,
                                        remove_tmp),
        cmocka_unit_test_setup_teardown(test_missing_directory, make_tmp,
                                        remove_tmp),
        cmocka_unit_test(test_stats_odd),
        cmocka_unit_test(test_stats_even),
        cmocka_unit_test(test_stats_edges),
        cmocka_unit_test(test_launch_timing_helpers),
        cmocka_unit_test(test_median_and_comparator),
        cmocka_unit_test(test_configs_defaults_only),
        cmocka_unit_test(test_configs_cross_product_order),
        cmocka_unit_test(test_configs_too_many),
    };
    return cmocka_run_group_tests_name("csv_stats_configs", tests, NULL,
                                       NULL);
}
