/*
 * console.h - the table a measuring run prints on stdout, one line per
 * configuration: its label, the columns its probe's console table names
 * (mp_probe.console), whether its output was verified, and a marker when
 * the counters disagree with the model.
 */
#ifndef MP_CONSOLE_H
#define MP_CONSOLE_H

#include <stddef.h>

#include "probe.h"

/* Fewest characters of the label column ("configuration" and a margin). */
#define MP_CONSOLE_LABEL_WIDTH 34

/*
 * One line of probe p's table, without a newline, into buf (len bytes,
 * cut to fit): the header when row is NULL, else row's line. A line is
 * the label (the config column) padded to label_width (at least
 * MP_CONSOLE_LABEL_WIDTH), each console column's cell as the CSV has it
 * ("-" where empty) right-aligned under its heading, the verified column
 * under "ok", and "  MODEL MISMATCH" when model_match is "no".
 */
void mp_console_line(const mp_probe *p, const mp_row *row, int label_width,
                     char *buf, size_t len);

#endif
