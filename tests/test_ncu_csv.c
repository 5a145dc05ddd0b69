/*
 * test_ncu_csv.c - CPU-only tests of the Nsight Compute CSV reader
 * (runtime/csv_table.c): the real H200 sample in tests/data, synthetic edge
 * cases (in memory, or written to temporary files where the file path
 * matters), and the number-text table.
 *
 * Fixture paths are relative to the repository root, where `make test`
 * runs; set MP_TEST_DATA to run from elsewhere.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv_table.h"
#include "row.h"

/* Facts about tests/data/ncu-bank-sample.csv, read off the file by hand. */
#define SAMPLE "ncu-bank-sample.csv"
#define SAMPLE_ROWS 4     /* lines 7-10: IDs 0, 387, 388, 389 */
#define SAMPLE_COLS 299
#define LD_WAVEFRONTS "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define LD_WAVEFRONTS_ROW0 8448.0   /* "8,448" on line 7 */
#define LD_WAVEFRONTS_ROW1 239153.0 /* "239,153" on line 8 */

static const char *data_path(const char *file)
{
    static char path[1024];
    const char *dir = getenv("MP_TEST_DATA");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", file);
    return path;
}

/* Parses a NUL-terminated literal as a file called `name`. */
static int parse_str(const char *text, const char *name, mp_csv_table *t,
                     char *err, size_t errlen)
{
    return mp_ncu_parse(text, strlen(text), name, t, err, errlen);
}

/* Writes len bytes to a new temporary file; its path goes to path. */
static void write_temp(const char *data, size_t len, char *path, size_t plen)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, plen, "%s/test_ncu_csv.XXXXXX", dir ? dir : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

/* ------------------------------------------------------------------ */
/* The real sample                                                    */

/* Each sample test gets a freshly read table. */
static int sample_setup(void **state)
{
    mp_csv_table *t = malloc(sizeof *t);
    char err[512] = "";
    if (!t)
        return -1;
    if (mp_ncu_read(data_path(SAMPLE), t, err, sizeof err) != 0) {
        print_error("%s\n", err);
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int sample_teardown(void **state)
{
    mp_csv_free(*state);
    free(*state);
    return 0;
}

static void test_sample_shape(void **state)
{
    const mp_csv_table *t = *state;
    assert_int_equal(t->nrows, SAMPLE_ROWS);
    assert_int_equal(t->ncols, SAMPLE_COLS);
    assert_string_equal(t->header[0], "ID");
    assert_string_equal(t->header[4], "Kernel Name");
    /* Rows in file order, which is ncu's launch order. */
    const char *ids[SAMPLE_ROWS] = {"0", "387", "388", "389"};
    for (int r = 0; r < SAMPLE_ROWS; r++)
        assert_string_equal(t->cells[r][0], ids[r]);
}

static void test_sample_kernel_name(void **state)
{
    const mp_csv_table *t = *state;
    int col = mp_csv_column(t, "Kernel Name");
    assert_int_equal(col, 4);
    /* A quoted cell with commas inside stays one cell. */
    assert_non_null(strstr(t->cells[0][col], "bank_probe<4, 0>"));
    assert_string_equal(t->cells[1][col],
                        "void bank_probe<16, 1>(lane_offsets, unsigned int, "
                        "int, unsigned int *, long long *)");
}

static void test_sample_counter(void **state)
{
    const mp_csv_table *t = *state;
    int col = mp_csv_column(t, LD_WAVEFRONTS);
    double v = -1;
    assert_true(col > 0);
    assert_string_equal(t->cells[0][col], "8,448");
    assert_int_equal(mp_csv_number(t, 0, col, &v), 0);
    assert_true(v == LD_WAVEFRONTS_ROW0);
    assert_int_equal(mp_csv_number(t, 1, col, &v), 0);
    assert_true(v == LD_WAVEFRONTS_ROW1);
    /* An average with separators and decimals: "1,811.77". */
    col = mp_csv_column(t, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.avg");
    assert_true(col > 0);
    assert_int_equal(mp_csv_number(t, 1, col, &v), 0);
    assert_true(v == 1811.77);
}

static void test_sample_clock_rate(void **state)
{
    const mp_csv_table *t = *state;
    int col = mp_csv_column(t, "device__attribute_clock_rate");
    double v = -1;
    assert_true(col > 0);
    assert_int_equal(mp_csv_number(t, 0, col, &v), 0);
    assert_true(v == 1980000.0);
}

static void test_sample_text_cells(void **state)
{
    const mp_csv_table *t = *state;
    double v = 42;
    int col = mp_csv_column(t, "Block Size");
    assert_true(col > 0);
    assert_string_equal(t->cells[0][col], "(256, 1, 1)");
    assert_int_equal(mp_csv_number(t, 0, col, &v), -1);
    col = mp_csv_column(t, "device__attribute_confidential_computing_mode");
    assert_true(col > 0);
    assert_string_equal(t->cells[0][col], "No-CC");
    assert_int_equal(mp_csv_number(t, 0, col, &v), -1);
    col = mp_csv_column(t, "launch__kernel_name");  /* empty in this ncu */
    assert_true(col > 0);
    assert_string_equal(t->cells[0][col], "");
    assert_int_equal(mp_csv_number(t, 0, col, &v), -1);
    assert_true(v == 42);  /* untouched on failure */
}

static void test_sample_lookups_out_of_range(void **state)
{
    const mp_csv_table *t = *state;
    double v;
    assert_int_equal(mp_csv_column(t, "no__such_metric.sum"), -1);
    assert_int_equal(mp_csv_column(t, ""), -1);
    assert_int_equal(mp_csv_column(t, NULL), -1);
    assert_int_equal(mp_csv_column(NULL, "ID"), -1);
    assert_int_equal(mp_csv_number(t, -1, 0, &v), -1);
    assert_int_equal(mp_csv_number(t, SAMPLE_ROWS, 0, &v), -1);
    assert_int_equal(mp_csv_number(t, 0, -1, &v), -1);
    assert_int_equal(mp_csv_number(t, 0, SAMPLE_COLS, &v), -1);
    assert_int_equal(mp_csv_number(NULL, 0, 0, &v), -1);
}

static void test_sample_units(void **state)
{
    const mp_csv_table *t = *state;
    assert_string_equal(t->units[0], "");
    assert_string_equal(t->units[mp_csv_column(t, "gpu__time_duration.sum")],
                        "ns");
    assert_string_equal(
        t->units[mp_csv_column(t, "launch__shared_mem_per_block")],
        "byte/block");
}

/* ------------------------------------------------------------------ */
/* Edge cases                                                         */

/* A small table in ncu's shape: header, units row, two launches. */
#define HDR "\"ID\",\"Kernel Name\",\"a.sum\"\n"
#define UNITS "\"\",\"\",\"byte\"\n"
#define ROW0 "\"0\",\"k<1, 2>(int, int)\",\"1,024\"\n"
#define ROW1 "\"1\",\"k<3, 4>(int, int)\",\"87.50\"\n"

static void test_no_header_file(void **state)
{
    (void)state;
    /* What ncu prints when it profiled nothing; no table follows. */
    static const char text[] =
        "==PROF== Connected to process 1 (/x/memprobe)\n"
        "==PROF== Disconnected from process 1\n"
        "==WARNING== No kernels were profiled.\n";
    char path[512], err[512] = "";
    mp_csv_table t;
    write_temp(text, sizeof text - 1, path, sizeof path);
    assert_int_equal(mp_ncu_read(path, &t, err, sizeof err), -1);
    unlink(path);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "no ncu header"));
    assert_non_null(strstr(err, "No kernels were profiled"));
    assert_int_equal(t.nrows, 0);
    assert_null(t.header);

    /* Data rows without a header are no table either. */
    assert_int_equal(parse_str(ROW0 ROW1, "nohdr.csv", &t, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "nohdr.csv: no ncu header"));
}

static void test_ragged_row(void **state)
{
    (void)state;
    char err[512] = "";
    mp_csv_table t;
    static const char text[] =
        "==PROF== Connected to process 1 (/x/memprobe)\n" /* line 1 */
        HDR UNITS ROW0                                   /* lines 2-4 */
        "\"1\",\"k\"\n"                                  /* line 5 */
        ROW1;
    assert_int_equal(parse_str(text, "ragged.csv", &t, err, sizeof err), -1);
    assert_string_equal(err, "ragged.csv:5: row has 2 cells, header has 3");
    assert_null(t.cells);

    /* Too many cells, and a ragged units row. */
    assert_int_equal(parse_str(HDR UNITS "\"0\",\"k\",\"1\",\"2\"\n",
                               "long.csv", &t, err, sizeof err), -1);
    assert_string_equal(err, "long.csv:3: row has 4 cells, header has 3");
    assert_int_equal(parse_str(HDR "\"\",\"\"\n" ROW0, "units.csv", &t, err,
                               sizeof err), -1);
    assert_string_equal(err, "units.csv:2: row has 2 cells, header has 3");
}

static void test_unterminated_quote(void **state)
{
    (void)state;
    char err[512] = "";
    mp_csv_table t;
    assert_int_equal(parse_str(HDR UNITS ROW0 "\"1\",\"k<3, 4>(int",
                               "cut.csv", &t, err, sizeof err), -1);
    assert_string_equal(err, "cut.csv:4: quoted cell opened here is not "
                             "closed at end of file");
    /* Also when the open cell swallows further lines. */
    assert_int_equal(parse_str(HDR UNITS "\"0\",\"k\n" ROW1, "open.csv", &t,
                               err, sizeof err), -1);
    assert_non_null(strstr(err, "open.csv:"));
    /* A stray quote is malformed, with the line it is on. */
    assert_int_equal(parse_str(HDR UNITS "\"0\",\"k\"x,\"1\"\n", "stray.csv",
                               &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "stray.csv:3: malformed CSV"));
    assert_null(t.header);
}

static void test_empty_file(void **state)
{
    (void)state;
    char path[512], err[512] = "";
    mp_csv_table t;
    write_temp("", 0, path, sizeof path);
    assert_int_equal(mp_ncu_read(path, &t, err, sizeof err), -1);
    unlink(path);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "empty"));
    /* Blank lines only: no header. */
    assert_int_equal(parse_str("\n\r\n  \n", "blank.csv", &t, err,
                               sizeof err), -1);
    assert_non_null(strstr(err, "blank.csv: no ncu header"));
    assert_int_equal(mp_ncu_parse(NULL, 0, "null.csv", &t, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "null.csv: empty"));
}

static void test_missing_file(void **state)
{
    (void)state;
    const char *path = "/nonexistent/dir/ncu-report.csv";
    char err[512] = "";
    mp_csv_table t;
    assert_int_equal(mp_ncu_read(path, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_null(t.header);
    /* A directory opens but cannot be read. */
    assert_int_equal(mp_ncu_read("/", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "/: "));
}

static void test_crlf(void **state)
{
    (void)state;
    static const char text[] =
        "==PROF== Connected to process 1 (/x/memprobe)\r\n"
        "\"ID\",\"Kernel Name\",\"a.sum\"\r\n"
        "\"\",\"\",\"byte\"\r\n"
        "\"0\",\"k<1, 2>(int, int)\",\"1,024\"\r\n"
        "\"1\",\"k<3, 4>(int, int)\",\"87.50\"\r\n"
        "==PROF== Report: x.ncu-rep\r\n";
    char path[512], err[512] = "";
    mp_csv_table t;
    double v;
    write_temp(text, sizeof text - 1, path, sizeof path);
    int rc = mp_ncu_read(path, &t, err, sizeof err);
    unlink(path);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(t.nrows, 2);
    assert_int_equal(t.ncols, 3);
    assert_string_equal(t.header[2], "a.sum");  /* no stray '\r' */
    assert_string_equal(t.units[2], "byte");
    assert_string_equal(t.cells[1][2], "87.50");
    assert_int_equal(mp_csv_number(&t, 0, 2, &v), 0);
    assert_true(v == 1024.0);
    mp_csv_free(&t);

    /* Line numbers count CRLF lines once. */
    assert_int_equal(parse_str("\"ID\",\"a\"\r\n\"\",\"\"\r\n\"0\"\r\n", "c.csv",
                               &t, err, sizeof err), -1);
    assert_string_equal(err, "c.csv:3: row has 1 cells, header has 2");
}

/* ncu's messages after the data, a second identical header block, and the
 * application's own output before the header. */
static void test_messages_and_second_block(void **state)
{
    (void)state;
    static const char text[] =
        "probe,stride,ns\n"                         /* app output */
        "bank,\"4\n"                                /* even a broken one */
        "==PROF== Connected to process 7 (/x/memprobe)\n"
        HDR UNITS ROW0
        "==PROF== Disconnected from process 7\n"
        "\n"
        HDR UNITS ROW1
        "==PROF== Report: /tmp/x.ncu-rep\n";
    char err[512] = "";
    mp_csv_table t;
    if (parse_str(text, "two.csv", &t, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(t.nrows, 2);
    assert_string_equal(t.cells[0][0], "0");
    assert_string_equal(t.cells[1][0], "1");
    assert_string_equal(t.cells[1][1], "k<3, 4>(int, int)");
    mp_csv_free(&t);

    /* A second header with other columns cannot be appended. */
    assert_int_equal(parse_str(HDR UNITS ROW0 "\"ID\",\"Kernel Name\",\"b\"\n",
                               "diff.csv", &t, err, sizeof err), -1);
    assert_string_equal(err, "diff.csv:4: second header block differs from "
                             "the first one");
}

/* A cell spanning lines: a line inside it that starts with "==" is data,
 * and later line numbers still count physical lines. */
static void test_multiline_cell(void **state)
{
    (void)state;
    static const char text[] =
        HDR UNITS
        "\"0\",\"two\n"
        "==lines\",\"1\"\n"   /* line 4: inside the quoted cell */
        "\"1\",\"k\"\n";      /* line 5: ragged */
    char err[512] = "";
    mp_csv_table t;
    assert_int_equal(parse_str(text, "ml.csv", &t, err, sizeof err), -1);
    assert_string_equal(err, "ml.csv:5: row has 2 cells, header has 3");
    assert_int_equal(parse_str(HDR UNITS "\"0\",\"two\n==lines\",\"1\"\n",
                               "ml.csv", &t, err, sizeof err), 0);
    assert_int_equal(t.nrows, 1);
    assert_string_equal(t.cells[0][1], "two\n==lines");
    mp_csv_free(&t);
}

/* Variants ncu might print: no units row, unquoted cells, no final
 * newline, a quote doubled inside a cell. */
static void test_variants(void **state)
{
    (void)state;
    char err[512] = "";
    mp_csv_table t;
    double v;
    if (parse_str("ID,Kernel Name,a.sum\n0,k,\"1,5e3\"\n1,\"say \"\"hi\"\"\",7",
                  "v.csv", &t, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(t.nrows, 2);
    assert_string_equal(t.units[2], "");  /* no units row */
    assert_string_equal(t.cells[1][1], "say \"hi\"");
    assert_int_equal(mp_csv_number(&t, 1, 2, &v), 0);
    assert_true(v == 7.0);
    assert_int_equal(mp_csv_number(&t, 0, 2, &v), -1);  /* "1,5e3" */
    mp_csv_free(&t);
    mp_csv_free(&t);  /* twice is harmless */

    /* A header only: a table with no launches. */
    assert_int_equal(parse_str(HDR UNITS, "h.csv", &t, err, sizeof err), 0);
    assert_int_equal(t.nrows, 0);
    assert_int_equal(t.ncols, 3);
    mp_csv_free(&t);
}

static void test_bad_bytes_and_small_err(void **state)
{
    (void)state;
    static const char text[] = HDR UNITS "\"0\",\"k\0\",\"1\"\n";
    char err[16];
    mp_csv_table t;
    assert_int_equal(mp_ncu_parse(text, sizeof text - 1, "nul.csv", &t, err,
                                  sizeof err), -1);
    assert_string_equal(err, "nul.csv:3: NUL ");  /* cut to fit */
    assert_int_equal(parse_str(HDR "x\n", "n.csv", &t, NULL, 0), -1);
    assert_int_equal(mp_ncu_read(NULL, &t, err, sizeof err), -1);
}

/* Every prefix of a table, in an exactly sized heap copy (so that sanitizers
 * and valgrind see any read past the end), parses or fails cleanly. */
static void test_every_prefix(void **state)
{
    (void)state;
    static const char text[] =
        "==PROF== Connected\r\n" HDR UNITS ROW0 "\"2\",\"a\nb\",\"\"\"\"\"\n"
        ROW1 "==PROF== Disconnected\n";
    size_t len = sizeof text - 1;
    int ok = 0;
    for (size_t n = 0; n <= len; n++) {
        char *copy = malloc(n ? n : 1);
        char err[256];
        mp_csv_table t;
        assert_non_null(copy);
        memcpy(copy, text, n);
        if (mp_ncu_parse(copy, n, "prefix.csv", &t, err, sizeof err) == 0) {
            ok++;
            /* A header cut short is a narrower table; rows must fit. */
            assert_true(t.nrows >= 0 && t.nrows <= 3);
            assert_true(t.ncols >= 1 && t.ncols <= 3);
            if (t.nrows)
                assert_int_equal(t.ncols, 3);
        } else {
            assert_non_null(strstr(err, "prefix.csv"));
        }
        mp_csv_free(&t);
        free(copy);
    }
    assert_true(ok > 0);
}

/* ------------------------------------------------------------------ */
/* Number text                                                        */

static void test_number_table(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int ok;
        double value;
    } cases[] = {
        {"8,448", 1, 8448},
        {"1,980,000", 1, 1980000},
        {"87.50", 1, 87.5},
        {"-3", 1, -3},
        {"1e3", 1, 1000},
        {"0", 1, 0},
        {"1,587.77", 1, 1587.77},
        {"-1,024.5", 1, -1024.5},
        {"150,109,880,320", 1, 150109880320.0},
        {"2.5E-3", 1, 0.0025},
        {".5", 1, 0.5},
        {"+7", 1, 7},
        {"", 0, 0},
        {"n/a", 0, 0},
        {"1,98", 0, 0},
        {"12,3456", 0, 0},
        {"(256, 1, 1)", 0, 0},
        {"No-CC", 0, 0},
        {"1,0000", 0, 0},
        {"1234,567", 0, 0},
        {",123", 0, 0},
        {"1,234,", 0, 0},
        {"1,,234", 0, 0},
        {"1.234,5", 0, 0},
        {"-", 0, 0},
        {".", 0, 0},
        {"1e", 0, 0},
        {"1e+", 0, 0},
        {" 1", 0, 0},
        {"1 ", 0, 0},
        {"inf", 0, 0},
        {"nan", 0, 0},
        {"0x10", 0, 0},
        {"1e999", 0, 0},
        {"--1", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -12345;
        int rc = mp_csv_parse_number(cases[i].text, &v);
        if (rc != (cases[i].ok ? 0 : -1))
            fail_msg("\"%s\": returned %d", cases[i].text, rc);
        if (cases[i].ok && v != cases[i].value)
            fail_msg("\"%s\": %.17g, expected %.17g", cases[i].text, v,
                     cases[i].value);
        if (!cases[i].ok && v != -12345)
            fail_msg("\"%s\": output written on failure", cases[i].text);
    }
    /* Overlong text is refused, not overflowed. */
    char big[1000];
    memset(big, '1', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    double v;
    assert_int_equal(mp_csv_parse_number(big, &v), -1);
    assert_int_equal(mp_csv_parse_number(NULL, &v), -1);
    assert_int_equal(mp_csv_parse_number("1", NULL), -1);
}

/* memprobe's own CSVs (mp_csv_table_read): a numeric column of the schema
 * holds a finite number or nothing; counts, times and cycles also no
 * number below 0. Other columns, and ncu's own CSVs, hold anything. */
static void test_result_values(void **state)
{
    (void)state;
    assert_int_equal(mp_schema_value_rule("cycles_per_load"),
                     MP_VALUE_NONNEG);
    assert_int_equal(mp_schema_value_rule("time_ns_median"), MP_VALUE_NONNEG);
    assert_int_equal(mp_schema_value_rule(LD_WAVEFRONTS), MP_VALUE_NONNEG);
    assert_int_equal(mp_schema_value_rule("excess_wavefronts_per_request"),
                     MP_VALUE_FINITE);
    assert_int_equal(mp_schema_value_rule("swizzle"), MP_VALUE_ANY);
    assert_int_equal(mp_schema_value_rule("config"), MP_VALUE_ANY);
    assert_int_equal(mp_schema_value_rule("got"), MP_VALUE_ANY);
    assert_int_equal(mp_schema_value_rule(NULL), MP_VALUE_ANY);
    /* Every column of the schema that the writer fills with counts,
     * sizes or times is checked: none of them is ANY by mistake. */
    static const char *const numeric[] = {
        "sm_count", "stride", "array_bytes", "requests", "bandwidth_gbs",
        "footprint_bytes", "ns_per_load", "latency_us", "device_id",
        "model_conflict_ways", "gpu__time_duration.sum", NULL};
    for (int i = 0; numeric[i]; i++)
        if (mp_schema_value_rule(numeric[i]) != MP_VALUE_NONNEG)
            fail_msg("%s is not checked as a number >= 0", numeric[i]);

    static const struct {
        const char *cell;      /* in column `col` of data row 2 */
        const char *col;
        const char *error;     /* NULL: read */
    } cases[] = {
        {"", "cycles_per_load", NULL},            /* not measured */
        {"0", "cycles_per_load", NULL},
        {"33.5", "cycles_per_load", NULL},
        {"1980.25", "cycles_per_load", NULL},
        {"-5", "cycles_per_load", "data row 2, column cycles_per_load: "
                                  "'-5' is negative"},
        {"-0.01", "time_ns_median", "column time_ns_median: '-0.01' is "
                                    "negative"},
        {"nan", "cycles_per_load", "'nan' is not a finite number"},
        {"inf", "bandwidth_gbs", "column bandwidth_gbs: 'inf' is not a "
                                 "finite number"},
        {"-inf", "requests", "'-inf' is not a finite number"},
        {"1e999", "requests", "'1e999' is not a finite number"},
        {"abc", LD_WAVEFRONTS, "column " LD_WAVEFRONTS ": 'abc'"},
        {"-0.25", "excess_wavefronts_per_request", NULL},
        {"nan", "excess_wavefronts_per_request", "'nan' is not a finite"},
        {"-5", "got", NULL},                       /* not the schema's */
        {"nan", "swizzle", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512], path[256], err[256] = "";
        snprintf(text, sizeof text, "config,%s\r\na,1\r\nb,%s\r\n",
                 cases[i].col, cases[i].cell);
        write_temp(text, strlen(text), path, sizeof path);
        mp_csv_table t;
        int rc = mp_csv_table_read(path, &t, err, sizeof err);
        if (!cases[i].error) {
            if (rc != 0)
                fail_msg("%s '%s' refused: %s", cases[i].col, cases[i].cell,
                         err);
            assert_int_equal(t.nrows, 2);
            assert_string_equal(t.cells[1][1], cases[i].cell);
        } else {
            if (rc != -1)
                fail_msg("%s '%s' read", cases[i].col, cases[i].cell);
            assert_int_equal(t.nrows, 0);   /* left empty */
            assert_non_null(strstr(err, path));
            if (!strstr(err, cases[i].error))
                fail_msg("'%s' lacks '%s'", err, cases[i].error);
        }
        mp_csv_free(&t);
        unlink(path);
    }
    /* The same cells in Nsight Compute's CSV are its business. */
    mp_csv_table t;
    char err[256];
    assert_int_equal(parse_str("\"ID\",\"cycles_per_load\"\n\"0\",\"-5\"\n",
                               "ncu.csv", &t, err, sizeof err), 0);
    assert_string_equal(t.cells[0][1], "-5");
    mp_csv_free(&t);
}

#define SAMPLE_TEST(f) cmocka_unit_test_setup_teardown(f, sample_setup, \
                                                      sample_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        SAMPLE_TEST(test_sample_shape),
        SAMPLE_TEST(test_sample_kernel_name),
        SAMPLE_TEST(test_sample_counter),
        SAMPLE_TEST(test_sample_clock_rate),
        SAMPLE_TEST(test_sample_text_cells),
        SAMPLE_TEST(test_sample_lookups_out_of_range),
        SAMPLE_TEST(test_sample_units),
        cmocka_unit_test(test_no_header_file),
        cmocka_unit_test(test_ragged_row),
        cmocka_unit_test(test_unterminated_quote),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_messages_and_second_block),
        cmocka_unit_test(test_multiline_cell),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_bad_bytes_and_small_err),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_number_table),
        cmocka_unit_test(test_result_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
