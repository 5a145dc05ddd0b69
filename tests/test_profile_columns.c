/*
 * test_profile_columns.c - the column tables of `memprobe profile`'s two
 * CSVs (profile/profile_columns.c), by which both files are written and
 * read: every column named and described once; the versions growing one
 * step at a time, each older version the header older files have (27,
 * 39 and 41 columns of profile.csv, 15 of profile-lines.csv); every
 * metric of profile_metrics.h's table and every range value of
 * inject/raw.h a column, named from them; and a row written to cells and
 * read back whole (the split counts empty without the split, the ratio
 * derived, not read). Pure functions, no file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile_columns.h"
#include "profile_csv_int.h"

static const mp_prof_schema *const schemas[2] = {&mp_prof_launch_schema,
                                                 &mp_prof_line_schema};

static void names_once(void **state)
{
    (void)state;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < schemas[s]->n; i++) {
            const char *name = mp_prof_col_name(&schemas[s]->cols[i]);
            assert_non_null(name);
            assert_true(name[0] != '\0');
            assert_true(schemas[s]->cols[i].desc[0] != '\0');
            for (int j = 0; j < i; j++)
                if (!strcmp(name, mp_prof_col_name(&schemas[s]->cols[j])))
                    fail_msg("column %s twice", name);
        }
    assert_int_equal(mp_prof_launch_ncols(), mp_prof_launch_schema.n);
    assert_int_equal(mp_prof_line_ncols(), mp_prof_line_schema.n);
    assert_string_equal(mp_prof_launch_col(0), "pid");
    assert_string_equal(mp_prof_line_col(5), "function_offset");
}

/* A version's columns are a prefix: `since` never falls, and grows by
 * one at most; the older versions are the files still read. */
static void versions(void **state)
{
    (void)state;
    for (int s = 0; s < 2; s++) {
        const mp_prof_schema *t = schemas[s];
        assert_int_equal(t->cols[0].since, 0);
        for (int i = 1; i < t->n; i++) {
            int step = t->cols[i].since - t->cols[i - 1].since;
            assert_true(step == 0 || step == 1);
        }
        assert_int_equal(mp_prof_schema_ncols(t, mp_prof_schema_version(t)),
                         t->n);
    }
    const mp_prof_schema *l = &mp_prof_launch_schema;
    assert_int_equal(mp_prof_schema_version(l), 3);
    assert_int_equal(mp_prof_schema_ncols(l, 0), 27);
    assert_int_equal(mp_prof_schema_ncols(l, 1), 39);
    assert_int_equal(mp_prof_schema_ncols(l, 2), 41);
    assert_string_equal(mp_prof_col_name(&l->cols[26]),
                        "smsp__sass_inst_executed_op_ld");
    assert_string_equal(mp_prof_col_name(&l->cols[38]), "range_why");
    assert_int_equal(mp_prof_schema_version(&mp_prof_line_schema), 1);
    assert_int_equal(mp_prof_schema_ncols(&mp_prof_line_schema, 0), 15);
}

/* The index of the column of kind and k in t, once; -1 when none. */
static int column_of(const mp_prof_schema *t, int kind, int k)
{
    int at = -1;
    for (int i = 0; i < t->n; i++)
        if (t->cols[i].kind == kind && t->cols[i].k == k) {
            assert_int_equal(at, -1);
            at = i;
        }
    return at;
}

static void metrics_and_ranges(void **state)
{
    (void)state;
    for (int m = 0; m < MP_PM_N; m++)
        for (int s = 0; s < 2; s++) {
            int i = column_of(schemas[s], MP_COL_METRIC, m);
            assert_true(i >= 0);
            assert_string_equal(mp_prof_col_name(&schemas[s]->cols[i]),
                                mp_prof_metrics[m].raw);
        }
    for (int k = 0; k < MP_PR_N; k++) {
        int i = column_of(&mp_prof_launch_schema, MP_COL_RANGE, k);
        assert_true(i >= 0);
        assert_string_equal(mp_prof_col_name(&mp_prof_launch_schema.cols[i]),
                            mp_prof_range_name(k));
    }
}

/* Each column of t written from row, read into back: 0 when every cell
 * parsed. cells: the cells written. */
static int round_trip(const mp_prof_schema *t, const void *row, void *back,
                      char cells[][64])
{
    int bad = 0;
    for (int i = 0; i < t->n; i++) {
        const char *c = mp_prof_col_format(&t->cols[i], row, cells[i], 64);
        if (c != cells[i])
            snprintf(cells[i], 64, "%s", c ? c : "");
        bad |= mp_prof_col_parse(&t->cols[i], back, cells[i]);
    }
    return bad;
}

static void launch_round_trip(void **state)
{
    (void)state;
    mp_prof_launch l = {.pid = 4242, .launch = 7, .launches = 3,
                        .has_split = 1, .library = 1};
    char *text[] = {"k(int)", "_Z1ki", "2,1,1", "32,1,1", "0", "0x1", "a/b",
                    "0", "exact", "", "range_profiler", "", "5", "5",
                    "/lib/x.so"};
    char **field[] = {&l.kernel, &l.mangled, &l.grid, &l.block,
                      &l.dyn_shared, &l.stream, &l.nvtx, &l.graph,
                      &l.line_counts, &l.why, &l.range_src, &l.range_why,
                      &l.seen, &l.profiled, &l.origin};
    for (size_t i = 0; i < sizeof field / sizeof *field; i++)
        *field[i] = text[i];
    char range[MP_PR_N][8];
    for (int k = 0; k < MP_PR_N; k++) {
        snprintf(range[k], sizeof range[k], "%d.5", k);
        l.range[k] = range[k];
    }
    for (int m = 0; m < MP_PM_N; m++)
        l.m[m] = 1000 + (mp_u64)m;
    for (int k = 0; k < MP_PS_N; k++)
        l.split[k] = 100 + (mp_u64)k;
    mp_prof_launch back = {0};
    char cells[MP_PROF_MAXCOLS][64];
    assert_int_equal(round_trip(&mp_prof_launch_schema, &l, &back, cells), 0);
    assert_string_equal(cells[0], "4242");
    assert_int_equal(back.pid, 4242);
    assert_int_equal(back.launches, 3);
    for (size_t i = 0; i < sizeof field / sizeof *field; i++) {
        size_t off = (size_t)((char *)field[i] - (char *)&l);
        assert_string_equal(*(char **)(void *)((char *)&back + off), text[i]);
    }
    for (int k = 0; k < MP_PR_N; k++)
        assert_string_equal(back.range[k], range[k]);
    assert_memory_equal(back.m, l.m, sizeof l.m);
    assert_memory_equal(back.split, l.split, sizeof l.split);
    assert_int_equal(back.has_split, 1);
    assert_int_equal(back.library, 1);
    mp_prof_free_launch(&back);

    /* without the split: its cells empty, read back as none */
    l.has_split = 0;
    mp_prof_launch none = {0};
    assert_int_equal(round_trip(&mp_prof_launch_schema, &l, &none, cells), 0);
    assert_string_equal(cells[16], "");
    assert_int_equal(none.has_split, 0);
    mp_prof_free_launch(&none);
}

static void line_round_trip(void **state)
{
    (void)state;
    mp_prof_line i = {.pid = 9, .line = 19, .offset = 0x1a0, .launches = 2,
                      .kernel = "k", .mangled = "_Z1kv", .file = "app.cu",
                      .opcode = "STS", .origin = "/bin/app"};
    mp_u64 m[MP_PM_N] = {64, 96, 32, 0, 0, 0};
    memcpy(i.m, m, sizeof m);
    mp_prof_line back = {0};
    char cells[MP_PROF_MAXCOLS][64];
    assert_int_equal(round_trip(&mp_prof_line_schema, &i, &back, cells), 0);
    assert_string_equal(cells[5], "0x1a0");
    assert_string_equal(cells[14], "3");      /* ratio: 96 / 32 */
    assert_string_equal(cells[16], "0");      /* library */
    assert_int_equal(back.offset, 0x1a0);
    assert_int_equal(back.line, 19);
    assert_memory_equal(back.m, m, sizeof m);
    assert_string_equal(back.origin, "/bin/app");
    assert_string_equal(back.opcode, "STS");
    mp_prof_free_line(&back);

    /* a count that is not a whole number, an offset that is not hex */
    mp_prof_line bad = {0};
    assert_int_equal(mp_prof_col_parse(&mp_prof_line_schema.cols[8], &bad,
                                       "1.5"), -1);
    assert_int_equal(mp_prof_col_parse(&mp_prof_line_schema.cols[5], &bad,
                                       "0xZZ"), -1);
    /* an older file's missing column reads as empty */
    assert_int_equal(mp_prof_col_parse(&mp_prof_line_schema.cols[16], &bad,
                                       ""), 0);
    assert_int_equal(bad.library, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_once),
        cmocka_unit_test(versions),
        cmocka_unit_test(metrics_and_ranges),
        cmocka_unit_test(launch_round_trip),
        cmocka_unit_test(line_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
