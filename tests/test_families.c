/*
 * test_families.c - the family registry (probes/registry.c) describes a
 * house where a family is one folder: every family has its folder
 * probes/NAME/ with its NAME_family.c, its docs page and sweep file exist,
 * its probe carries its name, what it registers reaches the engine (the
 * probe table) and the report (its tables, by name, in order), and the
 * CSV columns it declares are the ones its sources write, every column
 * being the engine's or some family's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli_util.h"
#include "family.h"
#include "row.h"
#include "report.h"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_each_family_is_a_folder(void **state)
{
    (void)state;
    int n = 0;
    for (int i = 0; mp_families[i]; i++, n++) {
        const mp_family *f = mp_families[i];
        char path[256];
        snprintf(path, sizeof path, "probes/%s/%s_family.c", f->name,
                 f->name);
        if (!exists(path))
            fail_msg("family %s: no %s", f->name, path);
        if (!f->doc || !exists(f->doc))
            fail_msg("family %s: docs page %s missing", f->name,
                     f->doc ? f->doc : "(none)");
        if (f->sweep && !exists(f->sweep))
            fail_msg("family %s: sweep file %s missing", f->name, f->sweep);
        if (f->probe) {
            assert_string_equal(f->probe->name, f->name);
            assert_non_null(f->sweep);   /* a probe has a sweep file */
            /* and a one-line summary for list and help */
            if (!f->summary || !f->summary[0] || strchr(f->summary, '\n'))
                fail_msg("family %s: no one-line summary", f->name);
            /* and a standard set for ncu-check and the determinism test */
            if (!f->ncu_check_args || !f->ncu_check_args[0])
                fail_msg("family %s: no ncu-check standard set", f->name);
        }
        assert_ptr_equal(mp_family_find(f->name), f);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(mp_families[j]->name, f->name);
    }
    assert_int_equal(n, 12);   /* 11 probes and the hazard catalogue */
    assert_null(mp_family_find("nope"));
}

/* The engine's table is the families' probes in registry order. */
static void test_engine_gets_the_probes(void **state)
{
    (void)state;
    int k = 0;
    for (int i = 0; mp_families[i]; i++)
        if (mp_families[i]->probe)
            assert_ptr_equal(mp_probe_at(k++), mp_families[i]->probe);
    assert_int_equal(k, 11);
    assert_null(mp_probe_at(k));
    assert_ptr_equal(mp_probe_find("cluster"), mp_family_find("cluster")->probe);
}

/* The report's tables are the families' tables in registry order. */
static void test_report_gets_the_tables(void **state)
{
    (void)state;
    int k = 0;
    for (int i = 0; mp_families[i]; i++)
        for (int t = 0; t < mp_families[i]->report.ntables; t++)
            assert_string_equal(mp_rep_table_name(k++),
                                mp_families[i]->report.tables[t].spec->name);
    assert_int_equal(k, 15);
    assert_null(mp_rep_table_name(k));
    assert_null(mp_rep_table_name(-1));
    assert_int_equal(mp_report_nparts(), 12);
}

static int declared(const mp_family *f, int col)
{
    for (int i = 0; i < f->ncolumns; i++)
        if (f->columns[i] == col)
            return 1;
    return 0;
}

/* Every column of the CSV is filled by the engine or declared by a family:
 * the header (today's order, runtime/row.h) is the union of theirs. */
static void test_every_column_is_someones(void **state)
{
    (void)state;
    for (int c = 0; c < MP_COL_FIXED_COUNT; c++) {
        int owned = 0;
        for (int k = 0; k < mp_engine_ncolumns; k++)
            owned |= mp_engine_columns[k] == c;
        for (int i = 0; mp_families[i]; i++)
            owned |= declared(mp_families[i], c);
        if (!owned)
            fail_msg("column %s is filled by no family and not by the "
                     "engine", mp_schema_name(c));
    }
}

/* The columns a family declares are the ones its sources write: every
 * MP_COL_X in probes/NAME/ (not its tests, tables or descriptor), and
 * those of the row helpers it calls (runtime/probe.h, probes/metric_sets.h;
 * test_helpers_write_their_columns holds this table to their sources). */
static const struct {
    const char *call;
    const char *file;   /* where it is defined */
    int cols[5];
} helpers[] = {
    {"mp_row_set_per_request(", "runtime/probe.c", {MP_COL_REQUESTS,
      MP_COL_NS_PER_REQUEST, MP_COL_CYCLES_PER_REQUEST,
      MP_COL_CLOCK64_CYCLES_PER_REQUEST,
      MP_COL_CLOCK64_BLOCK_CYCLES_PER_REQUEST}},
    {"mp_row_set_launch(", "runtime/probe.c", {MP_COL_THREADS, MP_COL_BLOCKS,
      MP_COL_SHARED_BYTES, -1, -1}},
    {"mp_row_set_bandwidth(", "runtime/probe.c", {MP_COL_BANDWIDTH_GBS,
      MP_COL_CEILING_GBS, MP_COL_BANDWIDTH_FRACTION, -1, -1}},
    {"mp_row_set_match(", "runtime/probe.c", {MP_COL_MODEL_MATCH, -1, -1, -1,
      -1}},
    {"mp_row_set_wavefronts(", "probes/metric_sets.c",
     {MP_COL_WAVEFRONTS_PER_REQUEST, MP_COL_EXCESS_WAVEFRONTS,
      MP_COL_MODEL_MATCH, -1, -1}},
    {"mp_row_set_wavefront_model(", "probes/metric_sets.c",
     {MP_COL_MODEL_WAVEFRONTS, MP_COL_MODEL_IDEAL,
      MP_COL_MODEL_CONFLICT_WAYS, -1, -1}},
};

/* The ids' names (MP_COL_<name>), in enum order. */
#define ID_NAME(id, name, desc) #id,
static const char *const id_names[] = {MP_COLUMNS(ID_NAME)};
#undef ID_NAME

/* Marks in used[] the columns text writes: the MP_COL_X it names and
 * those of the row helpers it calls. */
static void scan_text(const char *text, int *used)
{
    for (const char *p = text; (p = strstr(p, "MP_COL_")); p += 7) {
        char name[64];
        size_t n = strspn(p + 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        snprintf(name, sizeof name, "%.*s", (int)n, p + 7);
        for (int c = 0; c < MP_COL_FIXED_COUNT; c++)
            if (!strcmp(name, id_names[c]))
                used[c] = 1;
    }
    for (size_t h = 0; h < sizeof helpers / sizeof *helpers; h++)
        if (strstr(text, helpers[h].call))
            for (int k = 0; k < 5; k++)
                if (helpers[h].cols[k] >= 0)
                    used[helpers[h].cols[k]] = 1;
}

/* A probe's console table (mp_probe.console) names the columns it shows,
 * not ones it writes: scan_file leaves it out. */
#define CONSOLE_TABLE "mp_console_col console[] = {"

static void scan_file(const char *path, int *used)
{
    size_t len;
    char *text = cli_read_file(path, &len);
    char *table = strstr(text, CONSOLE_TABLE), *end;
    if (table && (end = strstr(table, "\n};")))
        memset(table, ' ', (size_t)(end - table));
    scan_text(text, used);
    free(text);
}

/* Each row helper of the table writes exactly the columns the table
 * gives it: its definition (from "void NAME(" at the start of a line to
 * the first "}" that starts one) names those and no other, itself or
 * through the helpers it calls. */
static void test_helpers_write_their_columns(void **state)
{
    (void)state;
    for (size_t h = 0; h < sizeof helpers / sizeof *helpers; h++) {
        size_t len;
        char *text = cli_read_file(helpers[h].file, &len);
        char head[96];
        snprintf(head, sizeof head, "\nvoid %s", helpers[h].call);
        char *def = strstr(text, head);
        if (!def)
            fail_msg("%s: no definition of %s) at the start of a line",
                     helpers[h].file, helpers[h].call);
        char *end = strstr(def, "\n}\n");
        assert_non_null(end);
        *end = 0;
        int used[MP_COL_FIXED_COUNT] = {0}, want[MP_COL_FIXED_COUNT] = {0};
        /* The body only: the definition's own name is no call. */
        scan_text(def + strlen(head), used);
        for (int k = 0; k < 5; k++)
            if (helpers[h].cols[k] >= 0)
                want[helpers[h].cols[k]] = 1;
        for (int c = 0; c < MP_COL_FIXED_COUNT; c++)
            if (used[c] != want[c])
                fail_msg("%s) in %s: column %s is %s", helpers[h].call,
                         helpers[h].file, mp_schema_name(c), used[c]
                             ? "written but not in the test's table"
                             : "in the test's table but never written");
        free(text);
    }
}

static void test_columns_match_the_sources(void **state)
{
    (void)state;
    /* The engine's list is what runtime/runner.c writes: every
     * mp_row_set(ROW, MP_COL_X, ...) there, nothing else. */
    int engine[MP_COL_FIXED_COUNT] = {0};
    size_t len;
    char *text = cli_read_file("runtime/runner.c", &len);
    for (const char *p = text; (p = strstr(p, "mp_row_set(")); p++) {
        const char *a = strchr(p, ',');
        a += strspn(a + 1, " \n") + 1;
        for (int c = 0; c < MP_COL_FIXED_COUNT; c++)
            if (!strncmp(a, "MP_COL_", 7)
                && !strncmp(a + 7, id_names[c], strlen(id_names[c]))
                && !strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
                           a[7 + strlen(id_names[c])]))
                engine[c] = 1;
    }
    free(text);
    for (int c = 0; c < MP_COL_FIXED_COUNT; c++) {
        int listed = 0;
        for (int k = 0; k < mp_engine_ncolumns; k++)
            listed |= mp_engine_columns[k] == c;
        if (engine[c] != listed)
            fail_msg("column %s: %s", mp_schema_name(c), engine[c]
                         ? "runtime/runner.c writes it, mp_engine_columns "
                           "lacks it"
                         : "in mp_engine_columns, never written by "
                           "runtime/runner.c");
    }
    for (int i = 0; mp_families[i]; i++) {
        const mp_family *f = mp_families[i];
        int used[MP_COL_FIXED_COUNT] = {0};
        char pattern[128];
        snprintf(pattern, sizeof pattern, "probes/%s/*.c", f->name);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) == 0) {
            for (size_t k = 0; k < g.gl_pathc; k++) {
                const char *base = strrchr(g.gl_pathv[k], '/') + 1;
                if (!strncmp(base, "test_", 5) || strstr(base, "_family.c")
                    || strstr(base, "_tables.c"))
                    continue;
                scan_file(g.gl_pathv[k], used);
            }
            globfree(&g);
        }
        for (int c = 0; c < MP_COL_FIXED_COUNT; c++)
            if (used[c] != declared(f, c))
                fail_msg("family %s: column %s is %s", f->name,
                         mp_schema_name(c), used[c]
                             ? "written but not declared (its NAME_family.c)"
                             : "declared but never written");
    }
}

/* `memprobe columns --probe NAME`: the engine's, the family's and its
 * metric set's columns, nobody else's; an unknown name is refused. */
static void test_columns_of_a_probe(void **state)
{
    (void)state;
    const char *bin = getenv("MEMPROBE") ? getenv("MEMPROBE") : "./memprobe";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' columns --probe bank", bin);
    int status;
    char *out = cli_sh_out(cmd, &status, NULL);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "tool_version "));
    assert_non_null(strstr(out, "\nstride "));
    assert_non_null(strstr(out, "\nmodel_wavefronts_per_request "));
    assert_non_null(strstr(out, "\nl1tex__data_bank_conflicts_pipe_lsu_mem_"
                                "shared_op_ld.sum "));
    assert_null(strstr(out, "\nfootprint_bytes "));      /* latency's */
    assert_null(strstr(out, "\ndram__bytes_read.sum "));  /* not its set */
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' columns --probe hazards 2>/dev/null",
             bin);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_family_is_a_folder),
        cmocka_unit_test(test_engine_gets_the_probes),
        cmocka_unit_test(test_report_gets_the_tables),
        cmocka_unit_test(test_every_column_is_someones),
        cmocka_unit_test(test_helpers_write_their_columns),
        cmocka_unit_test(test_columns_match_the_sources),
        cmocka_unit_test(test_columns_of_a_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
