/*
 * explain_run.c - `memprobe explain` (explain_run.h): the files given
 * (-o, --from, --capture and its status) read or refused before anything
 * runs, then either the recorded capture explained, or the program run
 * (explain_program.c).
 */
#include "explain_run.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "explain_analyse.h"
#include "explain_out.h"

/* --capture's status file (CAPTURE.status) into st when there is one:
 * 0, or -1 with the reason in err (a malformed one). */
static int read_status(const char *capture, mp_capture_status *st,
                       char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s.status", capture);
    memset(st, 0, sizeof *st);
    if (access(path, F_OK))
        return 0;
    return mp_capture_status_read(path, st, err, errlen);
}

/* --capture [--from]: a recorded capture explained. */
static int from_files(const mp_xp_opts *o, mp_prof_data *d, int measured)
{
    char err[1024];
    mp_capture c;
    mp_capture_status st;
    if (mp_capture_read(o->capture, &c, err, sizeof err)) {
        mp_prof_free(d);
        mp_usage_error("--capture: %s", err);
    }
    if (read_status(o->capture, &st, err, sizeof err)) {
        mp_capture_free(&c);
        mp_prof_free(d);
        mp_usage_error("--capture: %s", err);
    }
    mp_xp_say_status_errors(&st);
    if (!measured)
        mp_xp_capture_profile(&c, d);
    int rc = mp_xp_explain(o, d, measured, &c, &st);
    mp_capture_status_free(&st);
    mp_capture_free(&c);
    return rc;
}

int mp_xp_run(const mp_xp_opts *o)
{
    char err[1024];
    if (o->output && mp_xp_csv_check(o->output, err, sizeof err))
        mp_usage_error("-o: %s", err);
    mp_prof_data d = {0};
    if (o->from && mp_prof_load(o->from, &d, err, sizeof err))
        mp_usage_error("--from: %s", err);
    int rc = o->capture ? from_files(o, &d, o->from != NULL)
                        : mp_xp_run_program(o, o->from ? &d : NULL);
    mp_prof_free(&d);
    return rc;
}
