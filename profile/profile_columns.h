/*
 * profile_columns.h - the columns of `memprobe profile`'s two CSVs
 * (profile.csv, one row per launch, mp_prof_launch; profile-lines.csv,
 * one row per SASS instruction, mp_prof_line), one descriptor each: its
 * name, its meaning (what `memprobe columns --profile` prints), where its
 * value lies in the row and how a cell is written from it and read into
 * it, and the version of the file that added it. profile_csv.c writes and
 * reads both files by these tables, one loop each; a new column is one
 * entry (profile_columns.c). Inside profile/ only.
 */
#ifndef MP_PROFILE_COLUMNS_H
#define MP_PROFILE_COLUMNS_H

#include <stddef.h>

#include "profile_csv.h"

/* What a column's value is, and so how its cell is written and read. */
enum {
    MP_COL_STR,     /* char *: written as it is (NULL: empty), read as a
                     * copy (mp_xstrdup, freed by mp_prof_free) */
    MP_COL_LONG,    /* long: a whole number (written as unsigned) */
    MP_COL_U64,     /* mp_u64: a whole number, empty read as 0 */
    MP_COL_HEX,     /* mp_u64: written 0x and hex, read hex or decimal */
    MP_COL_BOOL,    /* int: written 1 or 0; read 1 from "1" only */
    MP_COL_METRIC,  /* mp_u64 m[k]: a U64 named by profile_metrics.h's
                     * table (mp_prof_metrics[k].raw) */
    MP_COL_RANGE,   /* char *range[k]: a STR named by inject/raw.h's
                     * range value k (mp_prof_range_name) */
    MP_COL_CUSTOM,  /* written and read by the entry's fmt and parse */
};

typedef struct {
    const char *name;   /* NULL: the metric's or range value's (kind) */
    const char *desc;   /* its meaning */
    int kind;           /* MP_COL_* */
    size_t off;         /* where its value lies in the row (offsetof; of
                         * m[k], range[k] for those; CUSTOM: unused) */
    int k;              /* METRIC, RANGE, CUSTOM: which value of its array */
    int since;          /* the version of the file that added it (0: the
                         * first); a file from before lacks it, and it is
                         * read as an empty cell: "", 0 */
    /* CUSTOM: the cell of value k of row (buf, len: room for one made;
     * NULL: empty) */
    const char *(*fmt)(const void *row, int k, char *buf, size_t len);
    /* CUSTOM: cell into value k of row: 0, or -1 when it is not a whole
     * number; NULL: not read (a value the writer derives from others) */
    int (*parse)(void *row, int k, const char *cell);
} mp_prof_col;

/* One CSV: its columns in the file's order. A new column goes at the end,
 * its `since` the last one's or one above it (a new version): a file of
 * an older version has the columns before the first of a later `since`
 * (mp_prof_schema_ncols); the newest is the last column's. */
typedef struct {
    const mp_prof_col *cols;
    int n;
} mp_prof_schema;

/* The most columns a CSV has (the length of a row's array of cells). */
#define MP_PROF_MAXCOLS 64

extern const mp_prof_schema mp_prof_launch_schema;   /* profile.csv */
extern const mp_prof_schema mp_prof_line_schema;     /* profile-lines.csv */

/* Column c's name in the header. */
const char *mp_prof_col_name(const mp_prof_col *c);

/* The newest version of s (its last column's `since`). */
int mp_prof_schema_version(const mp_prof_schema *s);

/* The columns of s that a file of version v has: the first n. */
int mp_prof_schema_ncols(const mp_prof_schema *s, int v);

/* The cell of column c of row (the row's struct): the value's text, made
 * in buf (len) when it has to be; NULL: an empty cell. */
const char *mp_prof_col_format(const mp_prof_col *c, const void *row,
                               char *buf, size_t len);

/* Reads cell (of column c; "" for a column the file lacks) into row: 0,
 * or -1 when a number is not a whole number. */
int mp_prof_col_parse(const mp_prof_col *c, void *row, const char *cell);

/* Frees the text of row's string columns (STR, RANGE) of s: what
 * mp_prof_col_parse copied, as the merge's rows hold theirs. */
void mp_prof_free_cells(const mp_prof_schema *s, void *row);

#endif
