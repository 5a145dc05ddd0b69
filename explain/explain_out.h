/*
 * explain_out.h - what `memprobe explain` prints and writes: per offending
 * line, each instruction (opcode, space, width, the pattern in the
 * probes' words, n-way conflict or sectors per request, model against
 * measurement, the probe command) and its fixes ranked by predicted
 * count, as an aligned text table or Markdown; and explain.csv, one row
 * per instruction and fix.
 */
#ifndef MP_EXPLAIN_OUT_H
#define MP_EXPLAIN_OUT_H

#include <stdio.h>

#include "explain_analyse.h"
#include "report.h"

/* Prints r as text (MP_REP_TXT) or Markdown (MP_REP_MD) to out, with a
 * summary line at the end. */
void mp_xp_print(const mp_xp_result *r, mp_rep_format f, FILE *out);

/* explain.csv's columns. */
int mp_xp_csv_ncols(void);
const char *mp_xp_csv_col(int i);

/* Whether -o path could be written (mp_csv_check_output: an existing
 * file must be an explain CSV): 0, or -1 with the reason in err. */
int mp_xp_csv_check(const char *path, char *err, size_t errlen);

/* Writes r as explain.csv to path ("-": stdout), replacing a file. 0, or
 * -1 with the reason in err. */
int mp_xp_csv_write(const mp_xp_result *r, const char *path, char *err,
                    size_t errlen);

#endif
