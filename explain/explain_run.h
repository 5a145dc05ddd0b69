/*
 * explain_run.h - `memprobe explain` (docs/explain.md): which source
 * lines offend (--check on a profile: one made by running the program
 * under the profile engine with --per-kernel 1, or --from), the lane
 * addresses of their instructions (a capture: the program run again with
 * the capture library preloaded, or --capture), and for each instruction
 * the model's count beside the measured one, the pattern, the probe
 * command and the ranked fixes, as a table, Markdown or CSV.
 * cli/cmd_explain.c reads argv into mp_xp_opts.
 *
 * explain_run.c dispatches, explain_program.c runs the program twice,
 * explain_verdict.c judges, explains, prints and decides the exit status.
 */
#ifndef MP_EXPLAIN_RUN_H
#define MP_EXPLAIN_RUN_H

#include "explain_capture.h"
#include "profile_check.h"
#include "report.h"

/* The capture library and the environment it reads (its contract). */
#define MP_XP_CAPTURE_LIB "libmemprobe_capture.so"
#define MP_XP_ENV_LIB "MEMPROBE_CAPTURE_LIB"     /* overrides the lookup */
#define MP_XP_ENV_FILE "MEMPROBE_CAPTURE_FILE"   /* the capture CSV */
#define MP_XP_ENV_WANT "MEMPROBE_CAPTURE_WANT"   /* MANGLED,0xOFF lines */
#define MP_XP_ENV_MAX "MEMPROBE_CAPTURE_MAX_WARPS"
#define MP_XP_DEFAULT_MAX_WARPS "65536"
#define MP_XP_MAX_WARPS_LIMIT 16777216ULL        /* the library's limit */

typedef struct {
    const char *from;            /* --from PROFILE.csv, or NULL */
    const char *capture;         /* --capture CAPTURE.csv, or NULL */
    const char *output;          /* -o explain.csv, or NULL */
    mp_prof_check_spec check;    /* --check, parsed */
    const char *check_text;
    int check_libraries;         /* --check-libraries */
    mp_rep_format format;        /* --format table|md|csv */
    const char *max_warps;       /* --max-warps N, checked text */
    char **argv;                 /* PROGRAM ARGS... (NULL-terminated), or
                                  * NULL with --capture */
} mp_xp_opts;

/* Runs it all; returns the exit status: 0 explained, 2 bad input (one
 * line, exit here), 3 no capture library or no GPU for a program, 4
 * nothing to explain or nothing captured, 1 the output could not be
 * written. */
int mp_xp_run(const mp_xp_opts *o);

/* The `-- PROGRAM` flow (explain_program.c); d_from: --from's profile,
 * or NULL to make one by running the program. */
int mp_xp_run_program(const mp_xp_opts *o, const mp_prof_data *d_from);

/* The offenders of d by o's --check (free() them): their number in *n,
 * what was judged in *j. */
mp_prof_offender *mp_xp_offenders(const mp_xp_opts *o,
                                  const mp_prof_data *d, int *n,
                                  mp_prof_judged *j);

/* mp_xp_explain on offenders already judged (mp_xp_offenders). */
int mp_xp_explain_offenders(const mp_xp_opts *o, const mp_prof_data *d,
                            int measured, const mp_prof_offender *off, int n,
                            const mp_prof_judged *j, const mp_capture *c,
                            const mp_capture_status *st);

/* Judges d's offenders with o's --check, explains them from capture c
 * (st: its status, may be NULL), prints and writes what o asks;
 * measured: d is a profile (else the capture's own counts). The exit
 * status (explain_verdict.c). */
int mp_xp_explain(const mp_xp_opts *o, const mp_prof_data *d, int measured,
                  const mp_capture *c, const mp_capture_status *st);

/* One line per error line of the capture library's status. */
void mp_xp_say_status_errors(const mp_capture_status *st);

#endif
