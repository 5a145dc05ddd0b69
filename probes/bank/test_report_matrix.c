/*
 * test_report_matrix.c - CPU tests of the report's ldmatrix/stmatrix and
 * bitmap pieces: the tables "matrix" and "matrix-free"
 * (probes/bank/matrix_tables.c), their one-table-per-combination printing
 * (report/tables.c), "bitmap" (probes/bitmap/bitmap_tables.c), the plot data
 * matrix-swizzle.dat (probes/bank/matrix_plotdata.c) and its gnuplot script,
 * and the study section (probes/bank/matrix_study.c) with matrix.csv, with
 * only ldsm.csv and with neither.
 *
 * tests/data/matrix-sample.csv is a hand-made sweep: ldsm .x4 at pitches
 * 32 and 128 (some swizzles left out, one measured 4.0001 against a model
 * of 4), .trans rows (one measured 16 against 32), an stsm .x2 with MMA
 * rows measured 3 against 2, a row whose output was wrong, a row
 * measured with --offsets (no pitch: in no matrix table) and a plain
 * bank row (only in the bank table).
 *
 * The group runs in a fresh temporary directory (tests/cli_util.c); the
 * repository's files are reached through its absolute path, taken before.
 */
#include "cli_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "matrix_plotdata.h"
#include "subprocess.h"

#define SAMPLE "tests/data/matrix-sample.csv"

static void load_paths(mp_rep_data *d, const char *const *paths, int n)
{
    char err[512] = "";
    if (mp_rep_load(d, n, paths, NULL, NULL, err, sizeof err))
        fail_msg("load: %s", err);
}

static void load_sample(mp_rep_data *d)
{
    const char *paths[] = {cli_in_repo(SAMPLE)};
    load_paths(d, paths, 1);
}

static const mp_rep_cell *cell(const mp_rep_table *t, const char *const *k,
                               const char *group, const char *sub)
{
    const mp_rep_cell *c = mp_rep_table_cell(t, k, 0, group, sub);
    if (!c)
        fail_msg("no cell %s %s %s / %s %s", k[0], k[1], k[2], group, sub);
    return c;
}

static double number(const char *s)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end)
        fail_msg("'%s' is not a number", s);
    return x;
}

/* ---- matrix: the cells ------------------------------------------------- */

static void test_matrix_cells(void **state)
{
    (void)state;
    mp_rep_data d;
    load_sample(&d);
    mp_rep_table *t = mp_rep_table_build(&d, "matrix");
    assert_non_null(t);
    assert_int_equal(t->split, 4);
    /* ldsm x1 p16, ldsm x4 t0 p32/p128, x4 t1 p32/p128, stsm x2 p64; the
     * --offsets row and the ld row are not in it. */
    assert_int_equal(t->nrows, 6);
    assert_int_equal(t->ngroups, 4);
    assert_string_equal(t->groups[0], "none");
    assert_string_equal(t->groups[3], "128B");

    const char *k32[] = {"ldsm", "4", "0", "plain", "32"};
    const mp_rep_cell *c = cell(t, k32, "none", "measured");
    assert_true(number(c->text) == 8);
    assert_int_equal(c->mark, 0);
    c = cell(t, k32, "128B", "measured");
    assert_true(fabs(number(c->text) - 4.0001) < 1e-9);
    assert_int_equal(c->mark, 1);
    c = cell(t, k32, "128B", "model");
    assert_true(number(c->text) == 4);
    assert_int_equal(c->mark, 0);
    const char *k128[] = {"ldsm", "4", "0", "plain", "128"};
    assert_string_equal(cell(t, k128, "32B", "measured")->text, "");
    const char *kt[] = {"ldsm", "4", "1", "plain", "128"};
    c = cell(t, kt, "none", "measured");
    assert_true(number(c->text) == 16);
    assert_true(number(cell(t, kt, "none", "model")->text) == 32);
    assert_int_equal(c->mark, 1);
    const char *ks[] = {"stsm", "2", "0", "mma", "64"};
    c = cell(t, ks, "64B", "measured");
    assert_true(number(c->text) == 3);
    assert_int_equal(c->mark, 1);
    const char *kw[] = {"ldsm", "1", "0", "plain", "16"};
    c = cell(t, kw, "none", "measured");
    assert_string_equal(c->text, "wrong");
    assert_int_equal(c->mark, 0);

    /* Every measured cell is marked exactly when its number differs from
     * its model's at the 4 decimals shown. */
    int marked = 0;
    for (int i = 0; i < t->nrows; i++)
        for (int g = 0; g < t->ngroups; g++) {
            const mp_rep_cell *m = &t->rows[i].cells[g * 2];
            const mp_rep_cell *p = &t->rows[i].cells[g * 2 + 1];
            if (!m->text[0] || !strcmp(m->text, "wrong"))
                continue;
            int differ = fabs(number(m->text) - number(p->text)) >= 0.5e-4;
            assert_int_equal(m->mark, differ);
            assert_int_equal(p->mark, 0);
            marked += differ;
        }
    assert_int_equal(marked, 3);
    assert_int_equal(t->marks, 3);
    mp_rep_table_free(t);

    /* The bank table keeps its ld row and none of the matrix rows. */
    t = mp_rep_table_build(&d, "bank");
    assert_int_equal(t->nrows, 1);
    assert_string_equal(t->rows[0].keys[0], "ld");
    mp_rep_table_free(t);
    mp_rep_free(&d);
}

/* ---- matrix: one table per combination --------------------------------- */

/* The text from `heading` to the next blank line. */
static char *block(const char *text, const char *heading)
{
    const char *s = strstr(text, heading);
    if (!s)
        fail_msg("no '%s' in:\n%s", heading, text);
    const char *e = strstr(s, "\n\n");
    size_t n = e ? (size_t)(e - s) : strlen(s);
    char *b = malloc(n + 1);
    memcpy(b, s, n);
    b[n] = '\0';
    return b;
}

static void test_matrix_print(void **state)
{
    (void)state;
    mp_rep_data d;
    load_sample(&d);
    mp_rep_table *t = mp_rep_table_build(&d, "matrix");
    char *txt = cli_table_text(t, MP_REP_TXT);
    /* Four tables, each under its line. */
    int n = 0;
    for (const char *s = txt; (s = strstr(s, "\nop ")); s++)
        n++;
    assert_int_equal(n, 4);
    char *b = block(txt, "op ldsm, matrices 4, trans 1, rows plain:");
    /* Only the modes measured with .trans: none and 32B. */
    cli_must_contain("trans table", b, "none");
    cli_must_contain("trans table", b, "32B");
    assert_null(strstr(b, "64B"));
    cli_must_contain("trans table", b, "pitch  measured   model");
    cli_must_contain("trans table", b, "\n  128        16*     32");
    free(b);
    b = block(txt, "op ldsm, matrices 4, trans 0, rows plain:");
    cli_must_contain("x4 table", b, "4.0001*");
    cli_must_contain("x4 table", b, "128B");
    free(b);
    /* The legend once, at the end. */
    const char *leg = "* the measured value differs from the model at the "
                      "precision shown\n";
    char *l = strstr(txt, leg);
    assert_non_null(l);
    assert_null(strstr(l + 1, leg));
    assert_int_equal(strlen(l), strlen(leg));
    free(txt);

    char *md = cli_table_text(t, MP_REP_MD);
    cli_must_contain("md", md, "\n*op stsm, matrices 2, trans 0, rows mma*"
                     "\n\n| pitch | none measured | none model | 64B "
                     "measured | 64B model |\n| ---: | ---: | ---: | ---: | "
                     "---: |\n| 64 | 8 | 8 | 3* | 2 |\n");
    cli_must_contain("md", md, "| 16 | wrong | 1 |");
    free(md);

    /* CSV: one table, every key a column. */
    char *csv = cli_table_text(t, MP_REP_CSV);
    cli_must_contain("csv", csv, "table,op,matrices,trans,rows,pitch,none "
                     "measured,none model,32B measured,32B model,64B "
                     "measured,64B model,128B measured,128B model\r\n");
    cli_must_contain("csv", csv, "matrix,ldsm,4,0,plain,32,8,8,4,4,4,4,"
                     "4.0001*,4\r\n");
    assert_int_equal(cli_count_char(csv, '\n'), 1 + 6);
    free(csv);
    mp_rep_table_free(t);
    mp_rep_free(&d);

    /* The command line: both tables, the count of marked cells. */
    const char *args[] = {"report", cli_in_repo(SAMPLE), NULL};
    cli_run_expect(args, -1,
                   "Matrix instructions",
                   "Which swizzle is conflict-free",
                   "14 configurations from 1 file; 5 "
                   "cells differ from the model.",
                   NULL);
}

/* ---- matrix-free ------------------------------------------------------- */

static const char *const sw_names[] = {"none", "32", "64", "128"};
static const char *const sw_labels[] = {"none", "32B", "64B", "128B"};

/* The summary cell lists exactly the modes whose measured cell in the
 * matrix table equals the ideal (matrices). */
static void check_listed(const mp_rep_table *m, const mp_rep_table *f,
                         const char *op, const char *rows, const char *pitch,
                         const char *matrices, const char *trans)
{
    const char *fk[] = {op, rows, pitch};
    char group[32];
    snprintf(group, sizeof group, "x%s%s", matrices,
             strcmp(trans, "1") ? "" : " .trans");
    const char *listed = cell(f, fk, group, "conflict-free")->text;
    const char *mk[] = {op, matrices, trans, rows, pitch};
    int measured = 0, free_ = 0;
    for (int s = 0; s < 4; s++) {
        const mp_rep_cell *c = mp_rep_table_cell(m, mk, 0, sw_labels[s],
                                                 "measured");
        if (!c || !c->text[0])
            continue;
        measured++;
        int ideal = number(c->text) == number(matrices);
        free_ += ideal;
        /* Is sw_names[s] an item of the comma-separated list? */
        char list[64];
        snprintf(list, sizeof list, ",%s,", listed);
        char item[16];
        snprintf(item, sizeof item, ",%s,", sw_names[s]);
        if ((strstr(list, item) != NULL) != ideal)
            fail_msg("%s %s %s %s: '%s' and %s measured %s", op, rows, pitch,
                     group, listed, sw_labels[s], c->text);
    }
    assert_true(measured > 0);
    if (!free_)
        assert_string_equal(listed, "no");
}

static void test_free_summary(void **state)
{
    (void)state;
    mp_rep_data d;
    load_sample(&d);
    mp_rep_table *m = mp_rep_table_build(&d, "matrix");
    mp_rep_table *f = mp_rep_table_build(&d, "matrix-free");
    assert_int_equal(f->ngroups, 4);
    assert_string_equal(f->groups[0], "x1");
    assert_string_equal(f->groups[1], "x2");
    assert_string_equal(f->groups[2], "x4");
    assert_string_equal(f->groups[3], "x4 .trans");
    assert_int_equal(f->nrows, 4);
    const char *k32[] = {"ldsm", "plain", "32"};
    const mp_rep_cell *c = cell(f, k32, "x4", "conflict-free");
    /* 4.0001 is not the ideal 4; the model says 128 is: marked. */
    assert_string_equal(c->text, "32,64");
    assert_int_equal(c->mark, 1);
    c = cell(f, k32, "x4 .trans", "conflict-free");
    assert_string_equal(c->text, "32");
    assert_int_equal(c->mark, 0);
    const char *k128[] = {"ldsm", "plain", "128"};
    assert_string_equal(cell(f, k128, "x4", "conflict-free")->text, "128");
    c = cell(f, k128, "x4 .trans", "conflict-free");
    assert_string_equal(c->text, "no");
    assert_int_equal(c->mark, 0);   /* the model's none is 32: not free */
    const char *ks[] = {"stsm", "mma", "64"};
    c = cell(f, ks, "x2", "conflict-free");
    assert_string_equal(c->text, "no");
    assert_int_equal(c->mark, 1);   /* the model makes 64 free */
    const char *kw[] = {"ldsm", "plain", "16"};
    assert_string_equal(cell(f, kw, "x1", "conflict-free")->text, "wrong");
    assert_int_equal(f->marks, 2);

    check_listed(m, f, "ldsm", "plain", "32", "4", "0");
    check_listed(m, f, "ldsm", "plain", "128", "4", "0");
    check_listed(m, f, "ldsm", "plain", "32", "4", "1");
    check_listed(m, f, "ldsm", "plain", "128", "4", "1");
    check_listed(m, f, "stsm", "mma", "64", "2", "0");
    mp_rep_table_free(m);
    mp_rep_table_free(f);
    mp_rep_free(&d);

    /* On the committed H200 sweeps (matrix.csv only once it is there):
     * the summary agrees with every measured cell, nothing is marked, and
     * .x4 plain rows of pitch 128 need the 128-byte swizzle. */
    static const char *const sweeps[] = {"results/h200/bank/ldsm.csv",
                                         "results/h200/bank/matrix.csv"};
    for (int w = 0; w < 2; w++) {
        const char *paths[] = {cli_in_repo(sweeps[w])};
        if (!cli_path_exists(paths[0])) {
            print_message("# %s not committed yet: not checked\n",
                          sweeps[w]);
            continue;
        }
        load_paths(&d, paths, 1);
        m = mp_rep_table_build(&d, "matrix");
        f = mp_rep_table_build(&d, "matrix-free");
        assert_int_equal(f->marks, 0);
        assert_int_equal(m->marks, 0);
        int checked = 0;
        for (int i = 0; i < f->nrows; i++) {
            char *const *k = f->rows[i].keys;
            static const char *const mats[] = {"1", "2", "4"};
            static const char *const trans[] = {"0", "1"};
            for (int j = 0; j < 3; j++)
                for (int t = 0; t < 2; t++) {
                    const char *mk[] = {k[0], mats[j], trans[t], k[1], k[2]};
                    const mp_rep_cell *c = mp_rep_table_cell(m, mk, 0, "none",
                                                             "measured");
                    if (!c || !c->text[0])
                        continue;
                    check_listed(m, f, k[0], k[1], k[2], mats[j], trans[t]);
                    checked++;
                }
        }
        assert_true(checked >= 66);   /* ldsm.csv: 2 x 11 x 3 */
        assert_string_equal(cell(f, (const char *[]){"ldsm", "plain", "128"},
                                 "x4", "conflict-free")->text, "128");
        mp_rep_table_free(m);
        mp_rep_table_free(f);
        mp_rep_free(&d);
    }
}

/* ---- bitmap ------------------------------------------------------------ */

static void test_bitmap_table(void **state)
{
    (void)state;
    mp_rep_data d;
    const char *paths[] = {cli_in_repo("results/h200/bitmap/bitmap.csv")};
    load_paths(&d, paths, 1);
    mp_rep_table *t = mp_rep_table_build(&d, "bitmap");
    assert_int_equal(t->nrows, 3);
    assert_string_equal(t->rows[0].keys[0], "seed");   /* as written first */
    assert_string_equal(t->rows[1].keys[0], "yx");
    assert_string_equal(t->rows[2].keys[0], "pad");
    assert_string_equal(t->groups[0], "write (st)");
    assert_string_equal(t->groups[1], "read (ld)");
    /* Every cell is its CSV row's number. */
    static const char *const lay[] = {"seed", "yx", "pad"};
    static const char *const op[] = {"st", "ld"};
    static const char *const grp[] = {"write (st)", "read (ld)"};
    for (int i = 0; i < 3; i++)
        for (int o = 0; o < 2; o++) {
            char cfg[64];
            snprintf(cfg, sizeof cfg, "bitmap/%s/%s/d1024", lay[i], op[o]);
            const mp_rep_row *r = mp_rep_find(&d, NULL, cfg, 0);
            assert_non_null(r);
            double wf, model;
            assert_int_equal(mp_rep_num(&d, r, MP_F_WF, &wf), 0);
            assert_int_equal(mp_rep_num(&d, r, MP_F_MODEL_WF, &model), 0);
            const char *k[] = {lay[i], "1024"};
            assert_true(fabs(number(cell(t, k, grp[o], "wavefronts")->text)
                             - wf) < 1e-9);
            assert_true(number(cell(t, k, grp[o], "model")->text) == model);
        }
    mp_rep_table_free(t);
    mp_rep_free(&d);

    /* A row the CSV says differs from the model is marked. */
    FILE *f = fopen("bm.csv", "w");
    assert_non_null(f);
    fputs("device_name,probe,config,op,layout,array_bytes,verified,"
          "model_wavefronts_per_request,wavefronts_per_request,model_match,"
          "time_ns_median\n"
          "GPU B,bitmap,bitmap/seed/st/d64,st,seed,4096,yes,8,8.0000,yes,"
          "890\n"
          "GPU B,bitmap,bitmap/seed/ld/d64,ld,seed,4096,yes,8,9.5000,no,"
          "900\n", f);
    assert_int_equal(fclose(f), 0);
    const char *bm[] = {"bm.csv"};
    load_paths(&d, bm, 1);
    t = mp_rep_table_build(&d, "bitmap");
    const char *k[] = {"seed", "64"};
    assert_int_equal(cell(t, k, "read (ld)", "wavefronts")->mark, 1);
    assert_int_equal(cell(t, k, "write (st)", "wavefronts")->mark, 0);
    assert_string_equal(cell(t, k, "write (st)", "kernel ns")->text, "890");
    mp_rep_table_free(t);
    mp_rep_free(&d);
}

/* ---- plot data and its script ------------------------------------------ */

static void test_plot_data(void **state)
{
    (void)state;
    mp_rep_data d;
    load_sample(&d);
    char err[256] = "";
    if (mp_rep_plot_data(&d, "pd", err, sizeof err))
        fail_msg("%s", err);
    mp_rep_free(&d);
    size_t len;
    char *s = cli_read_file("pd/matrix-swizzle.dat", &len);
    assert_non_null(s);
    /* ldsm .x4 trans 0 only, by layout and pitch: measured, model for
     * none, 32, 64, 128; "-" for the modes not measured. */
    cli_must_contain("dat", s, "\n0 32 8 8 4 4 4 4 4.0001 4\n"
                     "0 128 32 32 - - - - 4 4\n");
    int data_lines = 0;
    for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1
                                                         : NULL)
        data_lines += *p >= '0' && *p <= '9';
    assert_int_equal(data_lines, 2);
    free(s);
    /* The matrix rows stay out of the bank heatmap: its one ld row. */
    s = cli_read_file("pd/bank-heatmap.dat", &len);
    assert_non_null(s);
    assert_int_equal(cli_count_char(s, '\n'), 2 + 1);
    cli_must_contain("heatmap", s, "\n0 2 2 2.0000 2 2.0500\n");
    free(s);
}

/* matrix-swizzle.gp draws the plain panel and the empty MMA one from the
 * sample's plot data. */
static void test_plot_script(void **state)
{
    (void)state;
    if (!cli_have_gnuplot())
        MP_SKIP("gnuplot not installed (apt-get install gnuplot-nox)");
    mp_rep_data d;
    load_sample(&d);
    char err[256] = "";
    if (mp_rep_plot_data(&d, "gp", err, sizeof err))
        fail_msg("%s", err);
    mp_rep_free(&d);
    char *const argv[] = {"gnuplot", "-e", "datadir='gp'; outdir='gp'",
                          (char *)cli_in_repo("probes/bank/matrix-swizzle.gp"),
                          NULL};
    assert_int_equal(mp_spawn_wait(argv, "gp/log"), 0);
    struct stat st;
    assert_int_equal(stat("gp/matrix-swizzle.svg", &st), 0);
    assert_true(st.st_size > 2000);
    assert_int_equal(stat("gp/matrix-swizzle.png", &st), 0);
    size_t len;
    char *log = cli_read_file("gp/log", &len);
    if (log && strstr(log, ".gp\" line"))
        fail_msg("gnuplot said:\n%s", log);
    free(log);
}

/* ---- the study section ------------------------------------------------- */

static char *section(const char *dir)
{
    mp_rep_data d;
    char err[512] = "";
    if (mp_study_load(&d, dir, err, sizeof err))
        fail_msg("%s", err);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    mp_study_matrix(&d, m);
    fclose(m);
    mp_rep_free(&d);
    return buf;
}

static void test_study_sources(void **state)
{
    (void)state;
    /* Only bank/ldsm.csv (the committed H200 one): read from it, no
     * .trans. */
    assert_int_equal(mkdir("only-ldsm", 0777), 0);
    assert_int_equal(mkdir("only-ldsm/bank", 0777), 0);
    assert_int_equal(symlink(cli_in_repo("results/h200/bank/ldsm.csv"),
                             "only-ldsm/bank/ldsm.csv"), 0);
    char *s = section("only-ldsm");
    cli_must_contain("ldsm only", s, "Measured (`ldsm.csv`)");
    cli_must_contain("ldsm only", s, "264 of the 264 ldmatrix/stmatrix "
                     "configurations with a pitch in `ldsm.csv` (0 of them "
                     "`.trans`) equal it.");
    cli_must_contain("ldsm only", s, "| 128 | 32 (32) | 16 (16) | 8 (8) | "
                     "4 (4) | 128 |\n");
    assert_null(strstr(s, "`.trans` |"));
    cli_must_contain("ldsm only", s, "plots/matrix-swizzle.svg");
    free(s);

    /* matrix.csv beside it: preferred; its .trans rows get a column. */
    assert_int_equal(mkdir("both", 0777), 0);
    assert_int_equal(mkdir("both/bank", 0777), 0);
    assert_int_equal(symlink(cli_in_repo("results/h200/bank/ldsm.csv"),
                             "both/bank/ldsm.csv"), 0);
    assert_int_equal(symlink(cli_in_repo(SAMPLE), "both/bank/matrix.csv"), 0);
    s = section("both");
    cli_must_contain("both", s, "Measured (`matrix.csv`)");
    cli_must_contain("both", s, "8 of the 11 ldmatrix/stmatrix "
                     "configurations with a pitch in `matrix.csv` (3 of them "
                     "`.trans`) equal it.");
    cli_must_contain("both", s, "| conflict-free with | `.trans` |\n"
                     "| ---: | ---: | ---: | ---: | ---: | --- | --- |\n");
    /* Pitch 32: .trans measured the same (4.0001 shows as 4 at 3
     * decimals); 128: 16 where plain has 32. */
    cli_must_contain("both", s, "| 32 | 8 (8) | 4 (4) | 4 (4) | 4 (4) "
                     "| 32, 64, 128 | same |\n");
    cli_must_contain("both", s, "| 128 | 32 (32) | - (16) | - (8) | 4 (4) "
                     "| 128 | 16, -, -, - |\n");
    /* A pitch the sample lacks: nothing with .trans. */
    cli_must_contain("both", s, "| 64 | - (16) | - (8) | - (4) | - (4) | - "
                     "| - |\n");
    free(s);

    /* Neither: the model alone, and the note that nothing is measured. */
    assert_int_equal(mkdir("neither", 0777), 0);
    assert_int_equal(mkdir("neither/bitmap", 0777), 0);
    assert_int_equal(symlink(cli_in_repo("results/h200/bitmap/bitmap.csv"),
                             "neither/bitmap/bitmap.csv"), 0);
    s = section("neither");
    cli_must_contain("neither", s, "No H200 measurement is committed yet "
                     "(`matrix.csv` or `ldsm.csv`");
    cli_must_contain("neither", s, "| 128 | 32 | 16 | 8 | 4 | 128 |\n");
    assert_null(strstr(s, "plots/matrix-swizzle.svg"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_cells),
        cmocka_unit_test(test_matrix_print),
        cmocka_unit_test(test_free_summary),
        cmocka_unit_test(test_bitmap_table),
        cmocka_unit_test(test_plot_data),
        cmocka_unit_test(test_plot_script),
        cmocka_unit_test(test_study_sources),
    };
    return CLI_RUN_TESTS("report_matrix", tests);
}
