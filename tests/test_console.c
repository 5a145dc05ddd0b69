/*
 * test_console.c - each family's console table (mp_probe.console, drawn
 * by runtime/console.c) shows what that family measured: its committed
 * H200 rows (the CSVs its study reads, results/h200/), rendered by
 * mp_console_line as a run prints them, leave no console column empty
 * ('-') in every row, and every cell is the CSV's own text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "console.h"
#include "family.h"
#include "csv_table.h"
#include "row.h"

#define MAX_TOKENS 32

/* Splits a console line in place at runs of spaces; returns the count. */
static int tokens(char *line, char **tok)
{
    int n = 0;
    for (char *t = strtok(line, " "); t; t = strtok(NULL, " "))
        if (n < MAX_TOKENS)
            tok[n++] = t;
    return n;
}

/* The schema column of each of t's columns (-1: not memprobe's). */
static int *schema_of(const mp_csv_table *t)
{
    int *col = malloc((size_t)t->ncols * sizeof *col);
    assert_non_null(col);
    for (int j = 0; j < t->ncols; j++) {
        col[j] = -1;
        for (int c = 0; c < mp_schema_columns(); c++)
            if (!strcmp(t->header[j], mp_schema_name(c)))
                col[j] = c;
    }
    return col;
}

/* Row i of t into row, by column name. */
static void load_row(const mp_csv_table *t, const int *col, int i,
                     mp_row *row)
{
    mp_row_clear(row);
    for (int j = 0; j < t->ncols; j++)
        if (col[j] >= 0 && t->cells[i][j][0])
            mp_row_set(row, col[j], "%s", t->cells[i][j]);
}

/* Renders row with p's table and checks its line: the label, each console
 * cell as the CSV has it ("-" where empty), the verified cell and the
 * mismatch marker. Sets shown[k] where console column k is not '-'. */
static void check_line(const mp_probe *p, const mp_row *row, int *shown)
{
    char line[1024], *tok[MAX_TOKENS];
    mp_console_line(p, row, 0, line, sizeof line);
    int mismatch = !strcmp(mp_row_get(row, MP_COL_MODEL_MATCH), "no");
    int n = tokens(line, tok);
    if (n != p->nconsole + 2 + 2 * mismatch)
        fail_msg("%s: %s: %d cells on its console line, want %d", p->name,
                 mp_row_get(row, MP_COL_CONFIG), n,
                 p->nconsole + 2 + 2 * mismatch);
    assert_string_equal(tok[0], mp_row_get(row, MP_COL_CONFIG));
    for (int k = 0; k < p->nconsole; k++) {
        const char *want = mp_row_get(row, p->console[k].col);
        assert_string_equal(tok[1 + k], want[0] ? want : "-");
        if (strcmp(tok[1 + k], "-"))
            shown[k] = 1;
    }
    assert_string_equal(tok[1 + p->nconsole],
                        mp_row_get(row, MP_COL_VERIFIED));
    if (mismatch)
        assert_string_equal(tok[2 + p->nconsole], "MODEL");
}

/* Renders every row of probe f's study files; returns how many, and in
 * shown[k] whether console column k showed a value in any. */
static int render_family(const mp_family *f, mp_row *row, int *shown)
{
    int rows = 0;
    for (const char *const *s = f->report.study_files; s && *s; s++) {
        char path[256], err[512];
        snprintf(path, sizeof path, "results/h200/%s", *s);
        mp_csv_table t;
        if (mp_csv_table_read(path, &t, err, sizeof err))
            fail_msg("%s", err);
        int *col = schema_of(&t);
        int probe = mp_csv_column(&t, "probe");
        assert_true(probe >= 0);
        for (int i = 0; i < t.nrows; i++) {
            if (strcmp(t.cells[i][probe], f->name))
                continue;
            load_row(&t, col, i, row);
            check_line(f->probe, row, shown);
            rows++;
        }
        free(col);
        mp_csv_free(&t);
    }
    return rows;
}

/* Every family's console table shows something in its committed rows:
 * no column of it is '-' in every row. The empty ones are named by
 * family and heading. */
static void test_no_console_column_always_empty(void **state)
{
    (void)state;
    mp_row row;
    assert_int_equal(mp_row_init(&row), 0);
    char empty[4096] = "";
    int families = 0;
    for (int i = 0; mp_families[i]; i++) {
        const mp_family *f = mp_families[i];
        if (!f->probe)
            continue;
        families++;
        const mp_probe *p = f->probe;
        assert_true(p->nconsole >= 2 && p->nconsole <= MAX_TOKENS - 4);
        int shown[MAX_TOKENS] = {0};
        int rows = render_family(f, &row, shown);
        if (rows == 0)
            fail_msg("family %s: no committed rows of it in its study "
                     "files", f->name);
        int named = 0;
        for (int k = 0; k < p->nconsole; k++) {
            if (shown[k])
                continue;
            if (!named++)
                snprintf(empty + strlen(empty), sizeof empty - strlen(empty),
                         "\n  family %s (%d rows):", f->name, rows);
            snprintf(empty + strlen(empty), sizeof empty - strlen(empty),
                     " '%s'", p->console[k].heading);
        }
    }
    mp_row_free(&row);
    assert_int_equal(families, 11);
    if (empty[0])
        fail_msg("console columns empty in every committed row:%s", empty);
}

/* A console table shows the family's own quantities: every column is one
 * its rows fill (its descriptor's `columns`), and the headings differ. */
static void test_console_columns_are_the_familys(void **state)
{
    (void)state;
    for (int i = 0; mp_families[i]; i++) {
        const mp_family *f = mp_families[i];
        if (!f->probe)
            continue;
        const mp_probe *p = f->probe;
        for (int k = 0; k < p->nconsole; k++) {
            int own = 0;
            for (int c = 0; c < f->ncolumns; c++)
                own |= f->columns[c] == p->console[k].col;
            if (!own)
                fail_msg("family %s: console column '%s' shows %s, which "
                         "its rows do not fill", f->name,
                         p->console[k].heading,
                         mp_schema_name(p->console[k].col));
            for (int j = 0; j < k; j++)
                assert_string_not_equal(p->console[j].heading,
                                        p->console[k].heading);
        }
    }
}

/* The line of `config` in one committed CSV, rendered, as tokens. */
static int committed_line(const char *path, const char *probe,
                          const char *config, char *line, size_t len,
                          char **tok)
{
    char err[512];
    mp_csv_table t;
    if (mp_csv_table_read(path, &t, err, sizeof err))
        fail_msg("%s", err);
    int *col = schema_of(&t);
    int c = mp_csv_column(&t, "config"), found = 0;
    mp_row row;
    assert_int_equal(mp_row_init(&row), 0);
    for (int i = 0; i < t.nrows && !found; i++)
        if (!strcmp(t.cells[i][c], config)) {
            load_row(&t, col, i, &row);
            mp_console_line(mp_probe_find(probe), &row, 0, line, len);
            found = 1;
        }
    mp_row_free(&row);
    free(col);
    mp_csv_free(&t);
    if (!found)
        fail_msg("%s: no row %s", path, config);
    return tokens(line, tok);
}

/* Index of the console column headed `heading` in p's table. */
static int console_index(const mp_probe *p, const char *heading)
{
    for (int k = 0; k < p->nconsole; k++)
        if (!strcmp(p->console[k].heading, heading))
            return k;
    fail_msg("%s: no console column '%s'", p->name, heading);
    return -1;
}

/* Known rows, known numbers: the L2 chase of 8 KiB through cg loads took
 * 278.54 cycles per load (latency.csv), the model and the counters both
 * said L2; bank stride 2 at 4 bytes is 2 wavefronts, 2-way. */
static void test_known_rows(void **state)
{
    (void)state;
    char line[1024], *tok[MAX_TOKENS];
    const mp_probe *lat = mp_probe_find("latency");
    int n = committed_line("results/h200/latency/latency.csv", "latency",
                           "latency/global/cg/seq/f8192/s128", line,
                           sizeof line, tok);
    assert_int_equal(n, lat->nconsole + 2);
    assert_string_equal(tok[1 + console_index(lat, "cyc/load")], "278.54");
    assert_true(atof(tok[1 + console_index(lat, "cyc/load")]) == 278.54);
    assert_string_equal(tok[1 + console_index(lat, "model")], "L2");
    assert_string_equal(tok[1 + console_index(lat, "counters")], "L2");
    assert_string_equal(tok[n - 1], "yes");

    const mp_probe *bank = mp_probe_find("bank");
    n = committed_line("results/h200/bank/bank-sweep.csv", "bank",
                       "bank/ld/w4/s2/b0/g1/p32", line, sizeof line, tok);
    assert_int_equal(n, bank->nconsole + 2);
    assert_true(atof(tok[1 + console_index(bank, "model wf")]) == 2);
    assert_true(atof(tok[1 + console_index(bank, "wf/req")]) == 2);
    assert_true(atof(tok[1 + console_index(bank, "ways")]) == 2);
}

/* The header names each column where its cells end (right-aligned), the
 * label column is as wide as asked, and a row the counters contradict
 * ends in the marker. */
static void test_header_and_marker(void **state)
{
    (void)state;
    const mp_probe *p = mp_probe_find("latency");
    char head[1024], line[1024];
    mp_console_line(p, NULL, 50, head, sizeof head);
    assert_int_equal(strncmp(head, "configuration ", 14), 0);
    assert_int_equal(head[49], ' ');
    mp_row row;
    assert_int_equal(mp_row_init(&row), 0);
    mp_row_set(&row, MP_COL_CONFIG, "latency/x");
    mp_row_set(&row, MP_COL_CYCLES_PER_LOAD, "31.25");
    mp_row_set(&row, MP_COL_MODEL_LEVEL, "L1");
    mp_row_set(&row, MP_COL_COUNTER_LEVEL, "L2");
    mp_row_set(&row, MP_COL_MODEL_MATCH, "no");
    mp_row_set(&row, MP_COL_VERIFIED, "yes");
    mp_console_line(p, &row, 50, line, sizeof line);
    const char *end = strstr(line, "  MODEL MISMATCH");
    assert_non_null(end);
    assert_int_equal(end[16], 0);
    /* Each heading ends where its column's cells end. */
    size_t at = 50;
    for (int k = 0; k < p->nconsole; k++) {
        const char *h = strstr(head + at, p->console[k].heading);
        assert_non_null(h);
        at = (size_t)(h - head) + strlen(p->console[k].heading);
        assert_true(line[at - 1] != ' ');
        assert_true(line[at] == ' ');
    }
    assert_int_equal((int)(strstr(head, " ok") - head + 3),
                     (int)(strstr(line, "yes") - line + 3));
    /* A buffer too short is cut, never overrun. */
    char small[20];
    memset(small, 'x', sizeof small);
    mp_console_line(p, &row, 50, small, 12);
    assert_int_equal(strlen(small), 11);
    assert_int_equal(small[12], 'x');
    mp_row_free(&row);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_console_column_always_empty),
        cmocka_unit_test(test_console_columns_are_the_familys),
        cmocka_unit_test(test_known_rows),
        cmocka_unit_test(test_header_and_marker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
