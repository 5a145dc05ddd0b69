/*
 * profile_check.h - `memprobe profile --check SPEC` and `--baseline
 * OLD.csv`: judging a profile's source lines (and kernels) by their
 * measured / ideal ratio of shared wavefronts and global sectors, never by
 * a bank-conflict counter. Library kernels (mp_prof_origin_library) are
 * judged only when asked (--check-libraries), and counted either way.
 */
#ifndef MP_PROFILE_CHECK_H
#define MP_PROFILE_CHECK_H

#include <stdio.h>

#include "profile_csv.h"

/* "shared<=1.0,global<=1.25": a limit per class (has[c] 0: not judged). */
typedef struct {
    int has[MP_NCLASS];
    double limit[MP_NCLASS];
} mp_prof_check_spec;

/* Parses spec text: 0, or -1 with a reason naming --check. */
int mp_prof_check_parse(const char *text, mp_prof_check_spec *s, char *err,
                        size_t errlen);

/* What a judgement covered. A line (or, for --baseline, a kernel's
 * class or a line's class and direction) is one to judge when it has
 * what the judgement needs: at least min_count instructions and an ideal
 * count in a class judged (--baseline: in both profiles). */
typedef struct {
    int judged;        /* judged (--baseline: compared) */
    int library;       /* of those, library kernels' (with libraries) */
    int library_left;  /* library kernels' left unjudged (without) */
} mp_prof_judged;

/* Judges every source line of d with at least min_count instructions
 * executed, its loads and its stores of each class apart against the
 * class's limit: one line to out per offender ("app.cu:19 transpose_naive
 * shared load (LDS): 32.0x ideal (16777216 wavefronts, ideal 524288)";
 * without line info "scale#2+0x90 global store (STG.E): ..."), the
 * kernel by its printed name (mp_prof_data), each prefixed by `prefix`.
 * A line of library kernels only (mp_prof_src.library) is judged when
 * libraries is 1, else counted in j->library_left. Returns the number of
 * offenders; *j what was judged. */
int mp_prof_check(const mp_prof_data *d, const mp_prof_check_spec *s,
                  mp_u64 min_count, int libraries, const char *prefix,
                  FILE *out, mp_prof_judged *j);

/* One offender of --check: a source line's loads (dir MP_DIR_LOAD) or
 * stores of class cls over the limit; src's strings point into the
 * profile judged. */
typedef struct {
    mp_prof_src src;
    int cls, dir;
} mp_prof_offender;

/* mp_prof_check's judgement without printing: its offenders in the order
 * it prints them (malloc'd, NULL when none; *n of them), *j what was
 * judged. */
mp_prof_offender *mp_prof_offenders(const mp_prof_data *d,
                                    const mp_prof_check_spec *s,
                                    mp_u64 min_count, int libraries, int *n,
                                    mp_prof_judged *j);

/* What a line's judgement in class c and direction dir is about, as
 * --check names it: "shared load (LDS)", or "global store" when the
 * opcodes are not known. */
void mp_prof_src_what(const mp_prof_src *l, int c, int dir, char *buf,
                      size_t len);

/* Compares d with the baseline old: one line per kernel (per class) or
 * source line (per class and direction)
 * (min_count as above) whose measured / ideal grew by more than
 * tolerance (relative: new > old x (1 + tolerance)); d's library kernels
 * and lines only when libraries is 1 (as mp_prof_check). Returns the
 * number of offenders; *j what was compared. */
int mp_prof_baseline(const mp_prof_data *d, const mp_prof_data *old,
                     double tolerance, mp_u64 min_count, int libraries,
                     const char *prefix, FILE *out, mp_prof_judged *j);

#endif
