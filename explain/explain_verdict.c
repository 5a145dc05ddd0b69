/*
 * explain_verdict.c - the common end of `memprobe explain`'s flows
 * (explain_run.h): the offenders of --check, their analysis, the output
 * and explain.csv, and the exit status: 4 when there is nothing to
 * explain or nothing captured (reporting nothing is never a pass).
 */
#include "explain_run.h"

#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "explain_analyse.h"
#include "explain_out.h"

void mp_xp_say_status_errors(const mp_capture_status *st)
{
    for (int k = 0; st && k < st->nerrors; k++)
        fprintf(stderr, "memprobe: capture library: error %s\n",
                st->error[k]);
}

/* No offender: why, in one line. */
static void say_no_offender(const mp_xp_opts *o, const mp_prof_judged *j,
                            int measured)
{
    const char *what = measured ? "source line" : "captured instruction";
    if (!j->judged && j->library_left)
        fprintf(stderr, "memprobe: nothing to explain: --check '%s' judged "
                "no %s of the program's own kernels; %d of library kernels "
                "not judged (--check-libraries judges them)\n",
                o->check_text, what, j->library_left);
    else if (!j->judged)
        fprintf(stderr, "memprobe: nothing to explain: --check '%s' judged "
                "no %s (none has an ideal count in a class it names)\n",
                o->check_text, what);
    else
        fprintf(stderr, "memprobe: nothing to explain: --check '%s' found "
                "no offender among %d %s%s judged\n", o->check_text,
                j->judged, what, j->judged == 1 ? "" : "s");
}

/* Nothing of the offenders captured: one line naming the first. */
static void say_none_captured(const mp_xp_result *r)
{
    const mp_xp_inst *x = r->ninst ? &r->inst[0] : NULL;
    fprintf(stderr, "memprobe: nothing captured: the capture holds no row "
            "of the %d instruction%s of the %d offending line%s",
            r->ninst, r->ninst == 1 ? "" : "s", r->nlines,
            r->nlines == 1 ? "" : "s");
    if (x)
        fprintf(stderr, " (the first: %s+0x%llx)", x->mangled, x->offset);
    fputc('\n', stderr);
}

/* The output on stdout and -o's file: 0, or MP_EXIT_FAIL. */
static int output(const mp_xp_opts *o, const mp_xp_result *r)
{
    char err[1024];
    if (o->format == MP_REP_CSV) {
        if (mp_xp_csv_write(r, "-", err, sizeof err)) {
            fprintf(stderr, "memprobe: %s\n", err);
            return MP_EXIT_FAIL;
        }
    } else {
        mp_xp_print(r, o->format, stdout);
    }
    fflush(stdout);
    if (!o->output)
        return 0;
    if (mp_xp_csv_write(r, o->output, err, sizeof err)) {
        fprintf(stderr, "memprobe: -o: %s\n", err);
        return MP_EXIT_FAIL;
    }
    fprintf(stderr, "memprobe: wrote %s (%d instruction%s of %d offending "
            "line%s)\n", o->output, r->ninst, r->ninst == 1 ? "" : "s",
            r->nlines, r->nlines == 1 ? "" : "s");
    return 0;
}

mp_prof_offender *mp_xp_offenders(const mp_xp_opts *o,
                                  const mp_prof_data *d, int *n,
                                  mp_prof_judged *j)
{
    return mp_prof_offenders(d, &o->check, 1, o->check_libraries, n, j);
}

int mp_xp_explain_offenders(const mp_xp_opts *o, const mp_prof_data *d,
                            int measured, const mp_prof_offender *off, int n,
                            const mp_prof_judged *j, const mp_capture *c,
                            const mp_capture_status *st)
{
    if (!n) {
        say_no_offender(o, j, measured);
        return MP_EXIT_COUNTERS;
    }
    mp_xp_result r;
    mp_xp_analyse(d, measured, off, n, c, st, &r);
    int rc = MP_EXIT_OK;
    if (!r.captured) {
        say_none_captured(&r);
        rc = MP_EXIT_COUNTERS;
    } else {
        rc = output(o, &r);
        if (!rc && !r.explained) {
            fprintf(stderr, "memprobe: nothing explained: the offenders' "
                    "captured instructions are all of opcodes the model "
                    "does not explain\n");
            rc = MP_EXIT_COUNTERS;
        }
    }
    mp_xp_result_free(&r);
    return rc;
}

int mp_xp_explain(const mp_xp_opts *o, const mp_prof_data *d, int measured,
                  const mp_capture *c, const mp_capture_status *st)
{
    int n;
    mp_prof_judged j;
    mp_prof_offender *off = mp_xp_offenders(o, d, &n, &j);
    int rc = mp_xp_explain_offenders(o, d, measured, off, n, &j, c, st);
    free(off);
    return rc;
}
