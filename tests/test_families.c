/*
 * test_families.c - the family registry (probes/registry.c) describes a
 * house where a family is one folder: every family has its folder
 * probes/NAME/ with its NAME_family.c, its docs page and sweep file exist,
 * its probe carries its name, and what it registers reaches the engine
 * (the probe table) and the report (its tables, by name, in order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "family.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_family_is_a_folder),
        cmocka_unit_test(test_engine_gets_the_probes),
        cmocka_unit_test(test_report_gets_the_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
