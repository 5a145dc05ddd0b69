/*
 * profile_check.h - `memprobe profile --check SPEC` and `--baseline
 * OLD.csv`: judging a profile's source lines (and kernels) by their
 * measured / ideal ratio of shared wavefronts and global sectors, never by
 * a bank-conflict counter.
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

/* Judges every source line of d with at least min_count instructions
 * executed, its loads and its stores of each class apart against the
 * class's limit: one line to out per offender ("app.cu:19 transpose_naive
 * shared load (LDS): 32.0x ideal (16777216 wavefronts, ideal 524288)";
 * without line info "scale#2+0x90 global store (STG.E): ..."), the
 * kernel by its printed name (mp_prof_data), each prefixed by `prefix`.
 * Returns the number of offenders; *judged the lines judged. */
int mp_prof_check(const mp_prof_data *d, const mp_prof_check_spec *s,
                  mp_u64 min_count, const char *prefix, FILE *out,
                  int *judged);

/* Compares d with the baseline old: one line per kernel (per class) or
 * source line (per class and direction)
 * (min_count as above) whose measured / ideal grew by more than
 * tolerance (relative: new > old x (1 + tolerance)). Returns the number of
 * offenders; *compared what was compared. */
int mp_prof_baseline(const mp_prof_data *d, const mp_prof_data *old,
                     double tolerance, mp_u64 min_count, const char *prefix,
                     FILE *out, int *compared);

#endif
