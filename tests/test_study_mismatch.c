/*
 * test_study_mismatch.c - the study's note under a table whose rows differ
 * from the model names the family's own unit (its report part's mismatch
 * fields, report/part.h): wavefronts for bank, replays for const, sectors
 * for a family that names none (texture).
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
#include "part.h"
#include "report.h"

/* Loads `csv`, marks its first verified row of `probe` with a value
 * `field` as differing from the model (model_match no, the measured value
 * with its first digit raised by one), writes the study and returns it. */
static char *study_with_mismatch(const char *csv, const char *probe,
                                 int field)
{
    mp_rep_data d;
    char err[512];
    const char *paths[] = {csv};   /* from the repository root */
    if (mp_rep_load(&d, 1, paths, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
    int done = 0;
    for (int i = 0; i < d.nrows && !done; i++) {
        const mp_rep_row *r = &d.rows[i];
        mp_rep_file *f = &d.files[r->file];
        char *v = f->t.cells[r->row][f->col[field]];
        char *m = f->t.cells[r->row][f->col[MP_F_MATCH]];
        if (strcmp(mp_rep_text(&d, r, MP_F_PROBE), probe) || strcmp(m, "yes")
            || v[0] < '1' || v[0] > '8')
            continue;
        v[0]++;                 /* e.g. 8.0000 -> 9.0000 */
        strcpy(m, "no");
        done = 1;
    }
    assert_true(done);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(mp_study_write(&d, "x", out, err, sizeof err), 0);
    fclose(out);
    mp_rep_free(&d);
    return text;
}

static void test_units(void **state)
{
    (void)state;
    char *s = study_with_mismatch("results/h200/bank/bank-pads.csv", "bank",
                                  MP_F_WF);
    cli_must_contain("bank", s, "The CSVs flag 1 bank row as differing "
                     "from the model; the largest difference is 1 "
                     "wavefronts per request");
    free(s);
    s = study_with_mismatch("results/h200/const/const-sweep.csv", "const",
                            MP_F_REPLAYS);
    cli_must_contain("const", s, "The CSVs flag 1 const row as differing "
                     "from the model; the largest difference is 1 replays "
                     "per request");
    free(s);
    s = study_with_mismatch("results/h200/texture/texture-small.csv",
                            "texture", MP_F_SECTORS);
    cli_must_contain("texture", s, "The CSVs flag 1 texture row as "
                     "differing from the model; the largest difference is 1 "
                     "sectors per request");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
