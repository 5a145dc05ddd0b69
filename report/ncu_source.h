/*
 * ncu_source.h - reader of Nsight Compute's source page as CSV, SASS view
 * (`ncu -i REP.ncu-rep --page source --csv --print-source sass`): one row
 * per SASS instruction with its per-instruction counters, for the
 * profile cross-check (`memprobe ncu-check --profile`). Pure parsing.
 *
 * What is known of the layout: per profiled kernel launch a table, each
 * preceded by a line `"Kernel Name","NAME"` (maybe with more cells), then
 * a header holding "Address" and "Source" and the metric columns, then
 * one row per instruction; "Address" is the instruction's address
 * (absolute, "0x7fc48541d900"). Also accepted: a "Kernel Name" (or
 * "Function Name") column in the header instead of the lines. Columns
 * are found by name, in any order; the first of two equal names counts.
 * Numbers may carry thousands separators ("8,448"); "-" or an empty cell
 * is 0. Lines starting with "==" at a record boundary (ncu's messages) and
 * anything before the first "Kernel Name" line or header are skipped.
 */
#ifndef MP_NCU_SOURCE_H
#define MP_NCU_SOURCE_H

#include <stddef.h>

/* The per-instruction values read, in this order. */
enum {
    MP_SRC_INST,          /* "Instructions Executed" */
    MP_SRC_SHARED,        /* "L1 Wavefronts Shared" */
    MP_SRC_SHARED_IDEAL,  /* "L1 Wavefronts Shared Ideal" */
    MP_SRC_GLOBAL,        /* "L2 Theoretical Sectors Global" */
    MP_SRC_GLOBAL_IDEAL,  /* "L2 Theoretical Sectors Global Ideal" */
    MP_SRC_VALUES
};

/* The ncu column name of each value. */
extern const char *const mp_ncu_source_columns[MP_SRC_VALUES];

typedef struct {
    char *kernel;        /* the kernel as ncu names it */
    int table;           /* which table (launch) of the file, from 0 */
    long long offset;    /* address - the address of its table's first
                            instruction of the same kernel */
    char *source;        /* the SASS text, trimmed ("" if no column) */
    double value[MP_SRC_VALUES];
} mp_ncu_source_row;

typedef struct {
    int nrows;
    mp_ncu_source_row *rows;
    int ntables;
    /* 1 where some header had the value's column. */
    int has[MP_SRC_VALUES];
} mp_ncu_source;

/* Parses len bytes of the page (need not be NUL-terminated); name stands
 * for the file in messages. 0, or -1 with one line in err ("x.csv:12:
 * ..."): no table at all, a row before any header, a row without a
 * kernel name, a row with fewer cells than its header needs, an address
 * or a value that is not a number, malformed CSV. On error *s is empty. */
int mp_ncu_source_parse(const char *buf, size_t len, const char *name,
                        mp_ncu_source *s, char *err, size_t errlen);

/* The same from a file. */
int mp_ncu_source_read(const char *path, mp_ncu_source *s, char *err,
                       size_t errlen);

/* Frees *s and leaves it empty; safe twice. */
void mp_ncu_source_free(mp_ncu_source *s);

#endif
