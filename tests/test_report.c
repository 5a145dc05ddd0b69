/*
 * test_report.c - CPU tests of `memprobe report` (report/data.c, tables.c,
 * plotdata.c, cli/cmd_report.c) and of the gnuplot scripts (the .gp files
 * of probes/NAME/).
 *
 * Small CSVs written by the tests check the table cells, the marks on
 * values that differ from the model, two devices side by side, the choice
 * among repeated measurements and the one-line errors (missing column,
 * empty file, not a memprobe CSV). The committed H200 CSVs check that the
 * report runs on real data and shows numbers known from docs/results.md.
 * The plot scripts run when gnuplot is installed (skipped otherwise).
 *
 * The group runs in a fresh temporary directory (tests/cli_util.c); the
 * repository's files are reached through its absolute path, taken before.
 */
#include "cli_util.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics.h"
#include "csv_table.h"
#include "probe.h"
#include "report.h"
#include "part.h"
#include "subprocess.h"

/* ---- hand-made CSVs ---------------------------------------------------- */

#define BANK_HEADER                                                          \
    "tool_version,device_name,probe,config,op,width_bytes,stride,base,"       \
    "group,period,pad,cycles_per_request_per_sm,bandwidth_fraction,"          \
    "verified,model_wavefronts_per_request,model_conflict_ways,"              \
    "counters_status,wavefronts_per_request,model_match\r\n"

/* Device "GPU A": four bank configurations; the st one disagrees with its
 * model (3 wavefronts measured, 2 predicted, model_match no). */
static const char csv_a[] =
    BANK_HEADER
    "0.1.0,GPU A,bank,bank/ld/w4/s1/b0/g1/p32,ld,4,1,0,1,32,0,1.0300,0.97,"
    "yes,1,1,ok,1.0000,yes\r\n"
    "0.1.0,GPU A,bank,bank/ld/w4/s2/b0/g1/p32,ld,4,2,0,1,32,0,2.0500,0.49,"
    "yes,2,2,ok,2.0000,yes\r\n"
    "0.1.0,GPU A,bank,bank/ld/w8/s1/b0/g1/p32,ld,8,1,0,1,32,0,2.0200,0.99,"
    "yes,2,1,ok,2.0000,yes\r\n"
    "0.1.0,GPU A,bank,bank/st/w4/s2/b0/g1/p32,st,4,2,0,1,32,0,3.1000,0.33,"
    "yes,2,2,ok,3.0000,no\r\n";

/* Device "GPU B": two of the same configurations, other times. */
static const char csv_b[] =
    BANK_HEADER
    "0.1.0,GPU B,bank,bank/ld/w4/s1/b0/g1/p32,ld,4,1,0,1,32,0,1.5000,0.66,"
    "yes,1,1,ok,1.0000,yes\r\n"
    "0.1.0,GPU B,bank,bank/ld/w4/s2/b0/g1/p32,ld,4,2,0,1,32,0,3.0000,0.33,"
    "yes,2,2,ok,2.0000,yes\r\n";

/* GPU A again: a configuration measured twice, first without counters,
 * then with; and the padded version of stride 2 (the padding table). */
static const char csv_repeat[] =
    BANK_HEADER
    "0.1.0,GPU A,bank,bank/ld/w4/s16/b0/g1/p32,ld,4,16,0,1,32,0,16.2000,0.06,"
    "yes,16,16,off,,\r\n"
    "0.1.0,GPU A,bank,bank/ld/w4/s16/b0/g1/p32,ld,4,16,0,1,32,0,16.1000,0.06,"
    "yes,16,16,ok,16.0000,yes\r\n"
    "0.1.0,GPU A,bank,bank/ld/w4/s16/b0/g1/p32/pad1,ld,4,16,0,1,32,1,1.0800,"
    "0.9,yes,1,1,ok,1.0000,yes\r\n";

/* A bank row without the pad column. */
static const char csv_no_pad[] =
    "device_name,probe,config,op,width_bytes,stride,base,group,period,"
    "cycles_per_request_per_sm,verified,model_wavefronts_per_request,"
    "model_conflict_ways,counters_status,wavefronts_per_request,model_match\n"
    "GPU A,bank,bank/ld/w4/s1/b0/g1/p32,ld,4,1,0,1,32,1.03,yes,1,1,ok,1,yes\n";

/* Loads the named files of the working directory into d (must work). */
static void load(mp_rep_data *d, const char *const *paths, int n)
{
    char err[512] = "";
    if (mp_rep_load(d, n, paths, NULL, NULL, err, sizeof err))
        fail_msg("load: %s", err);
}

/* t rendered in format f contains every string of needles (NULL-ended);
 * a failure names the text `what`. */
static void expect_rendered(const mp_rep_table *t, mp_rep_format f,
                            const char *what, const char *const *needles)
{
    char *text = cli_table_text(t, f);
    for (int i = 0; needles[i]; i++)
        cli_must_contain(what, text, needles[i]);
    free(text);
}

/* A CSV file of a test: its name and text. */
typedef struct {
    const char *name, *text;
} csv_file;

/* Writes the n files, then loads them in that order. */
static void load_files(mp_rep_data *d, const csv_file *files, int n)
{
    const char *paths[4];
    assert_true(n <= 4);
    for (int i = 0; i < n; i++) {
        cli_write_file(files[i].name, files[i].text);
        paths[i] = files[i].name;
    }
    load(d, paths, n);
}

static const char *cell(const mp_rep_table *t, const char *k0,
                        const char *k1, int dev, const char *group,
                        const char *sub, int *mark)
{
    const char *keys[2] = {k0, k1};
    const mp_rep_cell *c = mp_rep_table_cell(t, keys, dev, group, sub);
    if (!c)
        fail_msg("no cell %s/%s dev %d %s %s", k0, k1, dev, group, sub);
    if (mark)
        *mark = c->mark;
    return c->text;
}

/* One device: the bank table's cells are the CSV's numbers; the st row is
 * marked; groups are widths in order. */
static void test_bank_cells(void **state)
{
    (void)state;
    mp_rep_data d;
    load_files(&d, (const csv_file[]){{"a.csv", csv_a}}, 1);
    assert_int_equal(d.ndev, 1);
    assert_int_equal(d.nrows, 4);
    mp_rep_table *t = mp_rep_table_build(&d, "bank");
    assert_non_null(t);
    assert_int_equal(t->ngroups, 2);
    assert_string_equal(t->groups[0], "4 B");   /* 4 before 8 */
    assert_string_equal(t->groups[1], "8 B");
    assert_int_equal(t->nrows, 3);              /* ld 1, ld 2, st 2 */
    assert_string_equal(t->rows[0].keys[0], "ld");
    assert_string_equal(t->rows[0].keys[1], "1");
    assert_string_equal(t->rows[2].keys[0], "st");
    int mark = -1;
    assert_string_equal(cell(t, "ld", "1", 0, "4 B", "wavefronts", &mark),
                        "1");
    assert_int_equal(mark, 0);
    assert_string_equal(cell(t, "ld", "1", 0, "4 B", "cycles", NULL), "1.03");
    assert_string_equal(cell(t, "ld", "2", 0, "4 B", "model", NULL), "2");
    assert_string_equal(cell(t, "ld", "1", 0, "8 B", "wavefronts", NULL),
                        "2");
    assert_string_equal(cell(t, "ld", "2", 0, "8 B", "wavefronts", NULL), "");
    /* The disagreeing cell is marked; its model and time are not. */
    assert_string_equal(cell(t, "st", "2", 0, "4 B", "wavefronts", &mark),
                        "3");
    assert_int_equal(mark, 1);
    cell(t, "st", "2", 0, "4 B", "model", &mark);
    assert_int_equal(mark, 0);
    assert_int_equal(t->marks, 1);

    expect_rendered(t, MP_REP_TXT, "txt", (const char *const[]){
        "device GPU A", "3*", "* the measured value differs from the model",
        "op  stride  wavefronts   model  cycles", NULL});
    expect_rendered(t, MP_REP_MD, "md", (const char *const[]){
        "| op | stride | 4 B wavefronts | 4 B model | 4 B cycles | 8 B "
        "wavefronts |",
        "| st | 2 | 3* | 2 | 3.10 | - | - | - |",
        "`*` the measured value differs", NULL});
    expect_rendered(t, MP_REP_CSV, "csv", (const char *const[]){
        "table,op,stride,4 B wavefronts,4 B model,4 B cycles,8 B wavefronts,"
        "8 B model,8 B cycles\r\n",
        "bank,ld,2,2,2,2.05,,,\r\n", "bank,st,2,3*,2,3.10,,,\r\n", NULL});
    mp_rep_table_free(t);
    mp_rep_free(&d);
}

/* Two devices: one block of columns per device, in file order. */
static void test_two_devices(void **state)
{
    (void)state;
    mp_rep_data d;
    load_files(&d, (const csv_file[]){{"a.csv", csv_a}, {"b.csv", csv_b}}, 2);
    assert_int_equal(d.ndev, 2);
    assert_string_equal(d.devices[0], "GPU A");
    assert_string_equal(d.devices[1], "GPU B");
    mp_rep_table *t = mp_rep_table_build(&d, "bank");
    assert_int_equal(t->ndev, 2);
    assert_int_equal(t->nrows, 3);
    assert_string_equal(cell(t, "ld", "1", 0, "4 B", "cycles", NULL), "1.03");
    assert_string_equal(cell(t, "ld", "1", 1, "4 B", "cycles", NULL), "1.50");
    assert_string_equal(cell(t, "ld", "2", 1, "4 B", "cycles", NULL), "3.00");
    /* B measured no 8-byte or store configuration. */
    assert_string_equal(cell(t, "ld", "1", 1, "8 B", "wavefronts", NULL), "");
    assert_string_equal(cell(t, "st", "2", 1, "4 B", "wavefronts", NULL), "");

    char *txt = cli_table_text(t, MP_REP_TXT);
    /* A line naming both devices above their columns, no "device" line. */
    char *line = strstr(txt, "GPU A");
    assert_non_null(line);
    char *eol = strchr(line, '\n');
    assert_non_null(eol);
    char *b = strstr(line, "GPU B");
    assert_true(b && b < eol);
    assert_null(strstr(txt, "device GPU"));
    free(txt);
    expect_rendered(t, MP_REP_MD, "md", (const char *const[]){
        "| GPU A 4 B wavefronts |", "| GPU B 8 B cycles |",
        "| ld | 1 | 1 | 1 | 1.03 | 2 | 2 | 2.02 | 1 | 1 | 1.50 | - | - | - |",
        NULL});
    mp_rep_table_free(t);

    /* --device keeps one of them. */
    const char *paths[] = {"a.csv", "b.csv"};
    mp_rep_data one;
    char err[256] = "";
    assert_int_equal(mp_rep_load(&one, 2, paths, "B", NULL, err, sizeof err),
                     0);
    assert_int_equal(one.ndev, 1);
    assert_string_equal(one.devices[0], "GPU B");
    assert_int_equal(one.nrows, 2);
    mp_rep_free(&one);
    assert_int_equal(mp_rep_load(&one, 2, paths, "C", NULL, err, sizeof err),
                     -1);
    cli_must_contain("err", err, "--device");
    mp_rep_free(&d);
}

/* A configuration measured twice keeps its row with counters; the padding
 * table takes the pad-0 row from one file and pad 1 from another. */
static void test_repeats_and_padding(void **state)
{
    (void)state;
    mp_rep_data d;
    load_files(&d, (const csv_file[]){{"r.csv", csv_repeat}, {"a.csv", csv_a}},
               2);
    assert_int_equal(d.nall, 7);
    assert_int_equal(d.nrows, 6);
    assert_int_equal(d.repeats, 1);
    mp_rep_table *t = mp_rep_table_build(&d, "bank");
    assert_string_equal(cell(t, "ld", "16", 0, "4 B", "wavefronts", NULL),
                        "16");
    assert_string_equal(cell(t, "ld", "16", 0, "4 B", "cycles", NULL),
                        "16.10");   /* the row with counters, not 16.20 */
    mp_rep_table_free(t);

    t = mp_rep_table_build(&d, "padding");
    assert_int_equal(t->nrows, 1);   /* only stride 16 has a padded row */
    assert_int_equal(t->ngroups, 2);
    assert_string_equal(t->groups[0], "pad 0");
    assert_string_equal(t->groups[1], "pad 1");
    const char *keys[4] = {"ld", "4", "16", "0"};
    const mp_rep_cell *c = mp_rep_table_cell(t, keys, 0, "pad 1",
                                             "wavefronts");
    assert_non_null(c);
    assert_string_equal(c->text, "1");
    c = mp_rep_table_cell(t, keys, 0, "pad 0", "cycles");
    assert_non_null(c);
    assert_string_equal(c->text, "16.10");
    mp_rep_table_free(t);

    /* mp_rep_find: a named file gives its own first row, without counters
     * too; no file gives the kept row. */
    const mp_rep_row *r = mp_rep_find(&d, "r.csv", "bank/ld/w4/s16/b0/g1/p32",
                                      0);
    assert_non_null(r);
    assert_string_equal(mp_rep_text(&d, r, MP_F_COUNTERS), "off");
    r = mp_rep_find(&d, NULL, "bank/ld/w4/s16/b0/g1/p32", 0);
    assert_string_equal(mp_rep_text(&d, r, MP_F_COUNTERS), "ok");
    assert_null(mp_rep_find(&d, NULL, "bank/ld/w4/s99/b0/g1/p32", 0));
    mp_rep_free(&d);
}

/* Every table prints "no rows" when the data has none for it. */
static void test_empty_tables(void **state)
{
    (void)state;
    mp_rep_data d;
    load_files(&d, (const csv_file[]){{"a.csv", csv_a}}, 1);
    for (int i = 0; mp_rep_table_name(i); i++) {
        if (!strcmp(mp_rep_table_name(i), "bank"))
            continue;
        mp_rep_table *t = mp_rep_table_build(&d, mp_rep_table_name(i));
        assert_int_equal(t->nrows, 0);
        expect_rendered(t, MP_REP_TXT, mp_rep_table_name(i),
                        (const char *const[]){"no rows", NULL});
        mp_rep_table_free(t);
    }
    mp_rep_table *t = mp_rep_table_build(&d, "reduction");
    expect_rendered(t, MP_REP_MD, "reduction", (const char *const[]){
        "no rows: no reduce configuration in these CSVs", NULL});
    mp_rep_table_free(t);
    assert_null(mp_rep_table_build(&d, "nosuchtable"));
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_int_equal(mp_rep_print_all(&d, "nosuchtable", MP_REP_TXT, m), -1);
    /* A table that has no row: nothing printed, -2. */
    assert_int_equal(mp_rep_print_all(&d, "reduction", MP_REP_TXT, m), -2);
    assert_int_equal(ftell(m), 0);
    assert_int_equal(mp_rep_print_all(&d, NULL, MP_REP_TXT, m), 0);
    fclose(m);
    cli_must_contain("report", buf, "4 configurations from 1 file; 1 cell "
                     "differs from the model.");
    free(buf);
    mp_rep_free(&d);
}

/* Load errors: one line naming the file, nothing kept. */
static void test_load_errors(void **state)
{
    (void)state;
    char err[512];
    mp_rep_data d;
    struct {
        const char *name, *text, *want;
    } cases[] = {
        {"empty.csv", "", "empty.csv: empty file"},
        {"nopad.csv", csv_no_pad, "nopad.csv: bank rows need column 'pad'"},
        {"other.csv", "a,b,c\n1,2,3\n", "other.csv: no column 'device_name': "
                                        "not a memprobe results CSV"},
        {"short.csv", BANK_HEADER "GPU A,bank\r\n", "short.csv:2: row has 2 "
                                                    "cells"},
        {"noconfig.csv", BANK_HEADER "0.1.0,GPU A,bank,,ld,4,1,0,1,32,0,1,1,"
                                     "yes,1,1,ok,1,yes\r\n",
         "noconfig.csv: data row 1 has no config"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cli_write_file(cases[i].name, cases[i].text);
        const char *paths[] = {cases[i].name};
        err[0] = '\0';
        assert_int_equal(mp_rep_load(&d, 1, paths, NULL, NULL, err,
                                     sizeof err), -1);
        cli_must_contain(cases[i].name, err, cases[i].want);
        assert_null(strchr(err, '\n'));
        assert_int_equal(d.nfiles, 0);
        assert_int_equal(d.nrows, 0);
    }
    const char *missing[] = {"no-such-file.csv"};
    assert_int_equal(mp_rep_load(&d, 1, missing, NULL, NULL, err, sizeof err),
                     -1);
    cli_must_contain("missing", err, "no-such-file.csv: cannot open");
    /* The same through the command line: exit 2, one stderr line. */
    const char *a1[] = {"report", "empty.csv", NULL};
    cli_expect_usage_error(a1, "empty.csv: empty file");
    const char *a2[] = {"report", "nopad.csv", NULL};
    cli_expect_usage_error(a2, "nopad.csv: bank rows need column 'pad'");
    cli_write_file("a.csv", csv_a);
    const char *a3[] = {"report", "a.csv", "other.csv", NULL};
    cli_expect_usage_error(a3, "other.csv");
}

/* Reporting nothing fails (exit 2, one line naming the file, nothing on
 * stdout): a header without rows, rows no table shows, --table NAME
 * without a row of its own. The same for ncu-check --compare. */
static void test_nothing_to_report(void **state)
{
    (void)state;
    char err[512] = "";
    mp_rep_data d;
    cli_write_file("header.csv", BANK_HEADER);
    const char *one[] = {"header.csv"};
    assert_int_equal(mp_rep_load(&d, 1, one, NULL, NULL, err, sizeof err),
                     -1);
    cli_must_contain("err", err, "header.csv: no data rows, only a header: "
                     "nothing to report");
    assert_int_equal(d.nfiles, 0);
    const char *two[] = {"header.csv", "header.csv"};
    assert_int_equal(mp_rep_load(&d, 2, two, NULL, NULL, err, sizeof err),
                     -1);
    cli_must_contain("err", err, "header.csv and the 1 other files given: "
                     "no data rows");
    const char *a1[] = {"report", "header.csv", NULL};
    cli_expect_usage_error(a1, "header.csv: no data rows");
    const char *a2[] = {"report", "--format", "csv", "header.csv", NULL};
    cli_expect_usage_error(a2, "header.csv: no data rows");
    const char *a3[] = {"report", "--plot-data", "p", "header.csv", NULL};
    cli_expect_usage_error(a3, "header.csv: no data rows");
    assert_false(cli_path_exists("p"));

    /* Rows, but of a probe no table shows. */
    cli_write_file("lat.csv", "device_name,probe,config,cycles_per_load\r\n"
                   "GPU A,latency,latency/a,33\r\n"
                   "GPU A,latency,latency/b,260\r\n");
    const char *a4[] = {"report", "lat.csv", NULL};
    cli_expect_usage_error(a4, "report: no table has a row from lat.csv "
                           "(their probes: latency): nothing to report");
    /* A table of its own that has no row, though others have. */
    cli_write_file("a.csv", csv_a);
    const char *a5[] = {"report", "--table", "reduction", "a.csv", NULL};
    cli_expect_usage_error(a5, "--table reduction: no row of a.csv belongs "
                           "to it (their probes: bank)");
    const char *a6[] = {"report", "--table", "bank", "a.csv", "lat.csv",
                        NULL};
    cli_run_expect(a6, -1,
                   "6 configurations from 2 files",
                   NULL);

    /* ncu-check comparing a memprobe CSV without rows. */
    const char *ncu = cli_in_repo("tests/data/ncu-bank-sample.csv");
    const char *a7[] = {"ncu-check", "--compare", "header.csv", ncu, NULL};
    cli_expect_usage_error(a7, "ncu-check: header.csv has no data rows: "
                           "nothing to compare");
}

/* --kind names what the files are: the same report as their headers
 * give, and a file whose header says otherwise refused, named (exit 2). */
static void test_report_kind(void **state)
{
    (void)state;
    const char *prof = cli_in_repo("results/h200/explain/csv/app-profile.csv");
    char *p = strdup(prof);
    const char *xp = cli_in_repo("results/h200/explain/csv/app.csv");
    cli_result r1, r2;
    const char *plain[] = {"report", p, xp, NULL};
    const char *kind[] = {"report", "--kind", "explain", p, xp, NULL};
    cli_run_ok(plain, &r1);
    cli_run_ok(kind, &r2);
    assert_true(strlen(r1.out) > 100);
    assert_string_equal(r1.out, r2.out);
    cli_result_free(&r1);
    cli_result_free(&r2);
    cli_write_file("a.csv", csv_a);
    const char *a1[] = {"report", "--kind", "profile", "a.csv", NULL};
    cli_expect_usage_error(a1, "--kind profile: a.csv is a CSV of memprobe's "
                           "results, not of memprobe profile's launches");
    const char *a2[] = {"report", "--kind", "results", p, NULL};
    cli_expect_usage_error(a2, "is a CSV of memprobe profile's launches");
    const char *a3[] = {"report", "--kind", "explain", p, NULL};
    cli_expect_usage_error(a3, "--kind explain: takes PROFILE.csv and "
                           "EXPLAIN.csv");
    const char *a4[] = {"report", "--kind", "tables", "a.csv", NULL};
    cli_expect_usage_error(a4, "--kind: 'tables' is not results, profile "
                           "or explain");
    const char *a5[] = {"report", "--kind", "results", "a.csv", NULL};
    cli_run_ok(a5, &r1);
    cli_must_contain("report", r1.out, "Bank conflicts");
    cli_result_free(&r1);
    free(p);
}

/* ncu-check never passes on nothing compared: rows whose every metric
 * the chip lacks compare 0 values and fail (exit 1) with a line saying
 * so. */
static void test_ncu_check_compares_something(void **state)
{
    (void)state;
    const char *ncu = cli_in_repo("tests/data/ncu-bank-sample.csv");
    mp_csv_table t;
    char err[256];
    assert_int_equal(mp_ncu_read(ncu, &t, err, sizeof err), 0);
    int rows = t.nrows;
    mp_csv_free(&t);
    /* counters_status: every metric of the bank set unavailable. */
    const mp_probe *bank = mp_probe_find("bank");
    size_t nm;
    const mp_metric *m = mp_metric_set_get(bank->metrics, &nm);
    char status[4096];
    size_t used = (size_t)snprintf(status, sizeof status,
                                   "ok; " MP_COUNTERS_UNAVAILABLE_ON
                                   "GV11B: ");
    for (size_t k = 0; k < nm; k++)
        used += (size_t)snprintf(status + used, sizeof status - used, "%s%s",
                                 k ? " " : "", m[k].name);
    FILE *f = fopen("lacks.csv", "w");
    assert_non_null(f);
    fprintf(f, "config,counters_status\r\n");
    for (int i = 0; i < rows; i++)
        fprintf(f, "bank/%d,\"%s\"\r\n", i, status);
    fclose(f);
    const char *args[] = {"ncu-check", "--compare", "lacks.csv", ncu, NULL};
    cli_result r;
    cli_run(args, &r);
    cli_expect_status(&r, 1);
    cli_must_contain("stdout", r.out, "UNAVAILABLE");
    cli_must_contain("stdout", r.out, "ncu-check: 0 values compared");
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    cli_must_contain("stderr", r.err, "memprobe: ncu-check: no value of "
                     "lacks.csv could be compared");
    cli_result_free(&r);
}

/* Nsight Compute's CSV among the files is skipped with a note; alone it
 * is an error. */
static void test_ncu_file_skipped(void **state)
{
    (void)state;
    cli_write_file("a.csv", csv_a);
    const char *ncu = cli_in_repo("tests/data/ncu-bank-sample.csv");
    const char *paths[] = {ncu, "a.csv"};
    mp_rep_data d;
    char err[512] = "";
    char *notes = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&notes, &len);
    assert_int_equal(mp_rep_load(&d, 2, paths, NULL, m, err, sizeof err), 0);
    fclose(m);
    assert_int_equal(d.skipped, 1);
    assert_int_equal(d.nfiles, 1);
    assert_int_equal(d.nrows, 4);
    cli_must_contain("notes", notes, "skipping");
    cli_must_contain("notes", notes, "ncu-bank-sample.csv: Nsight Compute");
    free(notes);
    mp_rep_free(&d);
    assert_int_equal(mp_rep_load(&d, 1, paths, NULL, NULL, err, sizeof err),
                     -1);
    cli_must_contain("err", err, "no memprobe results CSV");
}

/* The CLI: all formats, one table, the summary, the note on stderr. */
static void test_cli_report(void **state)
{
    (void)state;
    cli_write_file("a.csv", csv_a);
    cli_write_file("b.csv", csv_b);
    cli_result r;
    const char *txt[] = {"report", "a.csv", "b.csv", NULL};
    cli_run_ok(txt, &r);
    assert_int_equal(r.errlen, 0);
    cli_must_contain("stdout", r.out, "Bank conflicts");
    cli_must_contain("stdout", r.out, "GPU A");
    cli_must_contain("stdout", r.out, "no rows: no reduce configuration");
    cli_must_contain("stdout", r.out, "6 configurations from 2 files");
    cli_result_free(&r);

    const char *csv[] = {"report", "--format", "csv", "--table=bank",
                         "a.csv", NULL};
    cli_run_ok(csv, &r);
    assert_true(!strncmp(r.out, "table,op,stride,", 16));
    assert_int_equal(cli_count_char(r.out, '\n'), 4);   /* header + 3 */
    assert_int_equal(cli_count_char(r.out, '\r'), 4);
    cli_result_free(&r);

    const char *md[] = {"report", "a.csv", "--format=md", "--table",
                        "bank", NULL};
    cli_run_ok(md, &r);
    cli_must_contain("stdout", r.out, "**Bank conflicts");
    assert_null(strstr(r.out, "**Padding"));
    cli_result_free(&r);
    /* A table without a row is nothing to report (exit 2). */
    const char *none[] = {"report", "a.csv", "--format=md", "--table",
                          "padding", NULL};
    cli_expect_usage_error(none, "--table padding: no row of a.csv");

    /* A glob with Nsight Compute's file in it still works. */
    char ncu[PATH_MAX + 64];
    snprintf(ncu, sizeof ncu, "%s",
             cli_in_repo("tests/data/ncu-bank-sample.csv"));
    const char *with_ncu[] = {"report", ncu, "a.csv", NULL};
    cli_run_ok(with_ncu, &r);
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    cli_must_contain("stderr", r.err, "skipping");
    cli_result_free(&r);
}

/* ---- the committed H200 CSVs ------------------------------------------ */

static void load_h200(mp_rep_data *d, const char *const *names, int n)
{
    const char *paths[16];
    assert_true(n <= 16);
    for (int i = 0; i < n; i++)
        paths[i] = cli_in_repo(names[i]);
    load(d, paths, n);
}

/* Numbers docs/results.md quotes from results/h200: bank ld 4-byte stride
 * 32 -> 32 wavefronts, stride 17 -> 1, 16-byte stride 1 -> 4; coalescing
 * 4-byte offset 4 -> 5 sectors; two constant addresses -> 1 replay; 2262 bank
 * configurations measured, none marked. */
static void test_h200_known_numbers(void **state)
{
    (void)state;
    const char *names[] = {"results/h200/bank/bank-sweep.csv",
                           "results/h200/coalesce/coalesce-w4.csv",
                           "results/h200/const/const-sweep.csv",
                           "results/h200/texture/texture-4096.csv"};
    mp_rep_data d;
    load_h200(&d, names, 4);
    assert_int_equal(d.ndev, 1);
    assert_string_equal(d.devices[0], "NVIDIA H200");
    mp_rep_table *t = mp_rep_table_build(&d, "bank");
    assert_int_equal(t->nrows, 2 * 65);   /* ld, st x strides 0..64 */
    assert_int_equal(t->ngroups, 3);
    assert_int_equal(t->marks, 0);
    assert_string_equal(cell(t, "ld", "32", 0, "4 B", "wavefronts", NULL),
                        "32");
    assert_string_equal(cell(t, "ld", "32", 0, "4 B", "model", NULL), "32");
    assert_string_equal(cell(t, "ld", "17", 0, "4 B", "wavefronts", NULL),
                        "1");
    assert_string_equal(cell(t, "ld", "1", 0, "16 B", "wavefronts", NULL),
                        "4");
    assert_string_equal(cell(t, "ld", "32", 0, "4 B", "cycles", NULL),
                        "32.04");
    assert_string_equal(cell(t, "st", "0", 0, "8 B", "wavefronts", NULL),
                        "2");
    mp_rep_table_free(t);

    t = mp_rep_table_build(&d, "coalesce");
    const char *ck[4] = {"default", "ld", "4", "4"};
    const mp_rep_cell *c = mp_rep_table_cell(t, ck, 0, "stride 1", "sectors");
    assert_non_null(c);
    assert_string_equal(c->text, "5");
    assert_int_equal(t->marks, 0);
    mp_rep_table_free(t);

    t = mp_rep_table_build(&d, "const");
    const char *kk[4] = {"constant", "2", "16", "32"};
    c = mp_rep_table_cell(t, kk, 0, "4 B apart", "replays");
    assert_non_null(c);
    assert_string_equal(c->text, "1");
    mp_rep_table_free(t);

    /* texture-4096.csv, re-measured under the texture set's tolerances
     * (from repeat spread): no row off the model. */
    t = mp_rep_table_build(&d, "texture");
    assert_int_equal(t->marks, 0);
    const char *tk[2] = {"4096", "column"};
    c = mp_rep_table_cell(t, tk, 0, "tex2d", "sectors");
    assert_non_null(c);
    assert_string_equal(c->text, "2");
    assert_int_equal(c->mark, 0);
    c = mp_rep_table_cell(t, tk, 0, "global", "sectors");
    assert_string_equal(c->text, "32.0018");
    assert_int_equal(c->mark, 0);
    mp_rep_table_free(t);
    mp_rep_free(&d);
}

/* Keeps the coalesce rows of the default cache path. */
static int keep_default(char *const *k, void *ctx)
{
    (void)ctx;
    return !strcmp(k[0], "default");
}

/* An excerpt drops rows, and the column groups left without a value. */
static void test_keep_drops_empty_groups(void **state)
{
    (void)state;
    const char *names[] = {"results/h200/coalesce/coalesce-cg.csv",
                           "results/h200/coalesce/coalesce-w4.csv"};
    mp_rep_data d;
    load_h200(&d, names, 2);
    mp_rep_table *t = mp_rep_table_build(&d, "coalesce");
    assert_string_equal(t->groups[0], "stride 0");   /* cg has stride 0 */
    int n = t->ngroups;
    mp_rep_table_keep(t, keep_default, NULL);
    assert_int_equal(t->ngroups, n - 1);
    assert_string_equal(t->groups[0], "stride 1");
    for (int i = 0; i < t->nrows; i++)
        assert_string_equal(t->rows[i].keys[0], "default");
    assert_int_equal(t->nrows, 2 * 33);   /* ld, st x offsets 0..128 */
    mp_rep_table_free(t);
    mp_rep_free(&d);
}


/* `memprobe report` on every CSV of results/h200's family folders (the
 * Makefile's default FILES) works. */
static void test_h200_cli(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob(cli_in_repo("results/h200/*/*.csv"), 0, NULL, &g), 0);
    assert_true(g.gl_pathc > 10 && g.gl_pathc < 60);
    const char *args[64] = {"report"};
    size_t n = 1;
    for (size_t i = 0; i < g.gl_pathc; i++)
        args[n++] = g.gl_pathv[i];
    args[n] = NULL;
    cli_result r;
    cli_run_ok(args, &r);
    cli_must_contain("stdout", r.out, "Bank conflicts");
    cli_must_contain("stdout", r.out, "Padding");
    cli_must_contain("stdout", r.out, "Coalescing");
    cli_must_contain("stdout", r.out, "Layouts");
    cli_must_contain("stdout", r.out, "DRAM bandwidth");
    cli_must_contain("stdout", r.out, "Constant memory");
    cli_must_contain("stdout", r.out, "Texture");
    cli_must_contain("stdout", r.out, "Reduction ladder");
    /* The ladder's measured loads beside the model: the strided tree's
     * 2-way to 32-way conflicts come to 3.8 wavefronts per LDS. */
    cli_must_contain("stdout", r.out, "tree-strided");
    cli_must_contain("stdout", r.out, "3.8");
    cli_must_contain("stdout", r.out, "aos12-staged");
    /* Only the notes about Nsight Compute's CSVs reach stderr. */
    for (char *line = r.err; line && *line; line = strchr(line, '\n')) {
        if (*line == '\n')
            line++;
        if (*line)
            assert_true(!strncmp(line, "memprobe: report: skipping ", 27));
    }
    cli_result_free(&r);
    globfree(&g);
}

/* ---- plot data and the gnuplot scripts -------------------------------- */

static char *slurp(const char *path)
{
    size_t len;
    char *s = cli_read_file(path, &len);
    if (!s)
        fail_msg("cannot read %s", path);
    return s;
}

static void write_h200_plot_data(const char *dir)
{
    const char *names[] = {"results/h200/bank/bank-sweep.csv",
                           "results/h200/bandwidth/bandwidth-offset.csv",
                           "results/h200/bandwidth/bandwidth-stride.csv"};
    mp_rep_data d;
    char err[512] = "";
    load_h200(&d, names, 3);
    if (mp_rep_plot_data(&d, dir, err, sizeof err))
        fail_msg("%s", err);
    mp_rep_free(&d);
}

static void test_plot_data(void **state)
{
    (void)state;
    write_h200_plot_data("plots/data");   /* creates both levels */
    char path[256];
    int files = 0;   /* every file a family's part names is written */
    for (int p = 0; p < mp_report_nparts(); p++)
        for (int i = 0; mp_report_part(p)->plot_files
                        && mp_report_part(p)->plot_files[i]; i++, files++) {
            snprintf(path, sizeof path, "plots/data/%s",
                     mp_report_part(p)->plot_files[i]);
            assert_true(cli_path_exists(path));
        }
    assert_int_equal(files, 6);
    /* ld, stride 32, log2(4) = 2: 32 wavefronts (model 32). */
    char *s = slurp("plots/data/bank-heatmap.dat");
    cli_must_contain("heatmap", s, "\n0 32 2 32.0000 32 ");
    cli_must_contain("heatmap", s, "\n1 0 4 4.0000 4 ");   /* st 16 B s0 */
    assert_int_equal(cli_count_char(s, '\n'), 2 + 390);
    free(s);
    s = slurp("plots/data/bank-cycles.dat");
    cli_must_contain("cycles", s, "\n0 4 32 32.0445 32.0000\n");
    free(s);
    s = slurp("plots/data/bandwidth-offset.dat");
    cli_must_contain("offset", s, "\"x\" \"read, 4 B, 1024 MiB\"\n0 4241.8\n");
    cli_must_contain("offset", s, "\n64 3258.7\n");
    cli_must_contain("offset", s, "\n\n\n\"x\" \"copy, 4 B, 1024 MiB\"\n");
    free(s);
    s = slurp("plots/data/bandwidth-stride.dat");
    cli_must_contain("stride", s, "\"x\" \"read, 16 B, 1024 MiB\"\n1 4337.2\n"
                     "2 2234.6\n");
    free(s);
    /* Through the command line, into a directory that is a file: error. */
    cli_write_file("afile", "x");
    char err[256] = "";
    mp_rep_data d;
    const char *names[] = {"results/h200/bank/bank-sweep.csv"};
    load_h200(&d, names, 1);
    assert_int_equal(mp_rep_plot_data(&d, "afile/sub", err, sizeof err), -1);
    cli_must_contain("err", err, "afile");
    mp_rep_free(&d);
}

/* Every family's gnuplot script (probes/NAME/NAME.gp) draws a non-empty
 * SVG and PNG. */
static void test_gnuplot_scripts(void **state)
{
    (void)state;
    if (!cli_have_gnuplot())
        MP_SKIP("gnuplot not installed (apt-get install gnuplot-nox)");
    write_h200_plot_data("gp/data");
    glob_t g;
    assert_int_equal(glob(cli_in_repo("probes/*/*.gp"), 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 4);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *const argv[] = {"gnuplot", "-e",
                              "datadir='gp/data'; outdir='gp'",
                              g.gl_pathv[i], NULL};
        if (mp_spawn_wait(argv, "gp/log") != 0) {
            char *log = slurp("gp/log");
            fail_msg("gnuplot %s failed:\n%s", g.gl_pathv[i], log);
        }
        /* probes/FAMILY/NAME.gp -> gp/NAME.svg, gp/NAME.png */
        const char *base = strrchr(g.gl_pathv[i], '/') + 1;
        char name[128], path[256];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 3), base);
        struct stat st;
        snprintf(path, sizeof path, "gp/%s.svg", name);
        assert_int_equal(stat(path, &st), 0);
        assert_true(st.st_size > 2000);
        char *svg = slurp(path);
        cli_must_contain(path, svg, "<svg");
        cli_must_contain(path, svg, "</svg>");
        free(svg);
        snprintf(path, sizeof path, "gp/%s.png", name);
        assert_int_equal(stat(path, &st), 0);
        assert_true(st.st_size > 2000);
    }
    /* gnuplot's own complaints about a script or its data name the
     * script ("x.gp" line 12: warning: ...); a font library's chatter on
     * a bare machine does not count. */
    char *log = cli_read_file("gp/log", &(size_t){0});
    if (log && strstr(log, ".gp\" line"))
        fail_msg("gnuplot said:\n%s", log);
    free(log);
    globfree(&g);
}

/* `memprobe report --study` writes what the committed docs/study.md holds
 * (tests/test_study.c compares the library's output in detail). Runs with
 * results/h200 and results/h200x2 reached through links, then removes
 * them. */
static void test_cli_study(void **state)
{
    (void)state;
    assert_int_equal(mkdir("results", 0777), 0);
    assert_int_equal(symlink(cli_in_repo("results/h200"), "results/h200"), 0);
    /* The study's peer-access section reads the two-GPU machine's CSVs. */
    assert_int_equal(symlink(cli_in_repo("results/h200x2"),
                             "results/h200x2"), 0);
    cli_result r;
    const char *args[] = {"report", "--study", "study.md", "--plot-data",
                          "sp", NULL};
    cli_run(args, &r);
    unlink("results/h200");
    unlink("results/h200x2");
    rmdir("results");
    cli_expect_status(&r, 0);
    cli_must_contain("stdout", r.out, "wrote study.md");
    cli_must_contain("stdout", r.out, "wrote the plot data to sp");
    cli_result_free(&r);
    size_t n1, n2;
    char *mine = cli_read_file("study.md", &n1);
    char *committed = cli_read_file(cli_in_repo("docs/study.md"), &n2);
    assert_non_null(mine);
    assert_non_null(committed);
    assert_int_equal(n1, n2);
    assert_memory_equal(mine, committed, n1);
    free(mine);
    free(committed);
    assert_true(cli_path_exists("sp/bank-heatmap.dat"));
}

/* mp_rep_fmt: decimals without trailing zeros. */
static void test_fmt(void **state)
{
    (void)state;
    char b[32];
    mp_rep_fmt(b, sizeof b, 1.0, 4);
    assert_string_equal(b, "1");
    mp_rep_fmt(b, sizeof b, 4.39687, 4);
    assert_string_equal(b, "4.3969");
    mp_rep_fmt(b, sizeof b, 2.5, 2);
    assert_string_equal(b, "2.5");
    mp_rep_fmt(b, sizeof b, 32, 0);
    assert_string_equal(b, "32");
    mp_rep_fmt(b, sizeof b, -0.00001, 2);
    assert_string_equal(b, "0");
    mp_rep_fmt(b, sizeof b, 31.99999, 4);
    assert_string_equal(b, "32");
}

/* ---- the command lines ------------------------------------------------- */

static const cli_ok_case ok_cases[] = {
    {{"report", "--help"}, {"usage: memprobe report", "--format",
                            "--plot-data", "--study"}},
    {{"report", "-h"}, {"usage: memprobe report"}},
};

static const cli_bad_case bad_cases[] = {
    {{"report"}, "no CSV file given"},
    {{"report", "x.csv", "--format", "xml"}, "--format"},
    {{"report", "x.csv", "--format"}, "--format"},
    {{"report", "x.csv", "--format", "md", "--format", "csv"}, "--format"},
    {{"report", "x.csv", "--table", "nosuch"}, "--table"},
    {{"report", "x.csv", "--table="}, "--table"},
    {{"report", "x.csv", "--bogus"}, "--bogus"},
    {{"report", "x.csv", "--results", "d"}, "--results"},
    {{"report", "--study", "s.md", "x.csv"}, "--study"},
    {{"report", "--study", "s.md", "--format", "md"}, "--study"},
    {{"report", "--study", "s.md", "--results", "no-such-dir"},
     "no-such-dir"},
    {{"report", "x.csv", "--plot-data", "p", "--table", "bank"},
     "--plot-data"},
    {{"report", "no-such-file.csv"}, "no-such-file.csv: cannot open"},
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt),
        cmocka_unit_test(test_bank_cells),
        cmocka_unit_test(test_two_devices),
        cmocka_unit_test(test_repeats_and_padding),
        cmocka_unit_test(test_empty_tables),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_nothing_to_report),
        cmocka_unit_test(test_report_kind),
        cmocka_unit_test(test_ncu_check_compares_something),
        cmocka_unit_test(test_ncu_file_skipped),
        cmocka_unit_test(test_cli_report),
        cmocka_unit_test(test_h200_known_numbers),
        cmocka_unit_test(test_keep_drops_empty_groups),
        cmocka_unit_test(test_h200_cli),
        cmocka_unit_test(test_plot_data),
        cmocka_unit_test(test_gnuplot_scripts),
        cmocka_unit_test(test_cli_study),
    };
    return CLI_RUN_ALL("report", ok_cases, bad_cases, tests);
}
