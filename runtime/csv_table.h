/*
 * csv_table.h - the tree's CSV reader: a file into a table of raw cells
 * (mp_csv_table), its columns looked up by name and its numbers read. Two
 * readers fill it: mp_csv_table_read, a plain CSV with its header on the
 * first line (memprobe's own result, profile and capture files), and
 * mp_ncu_read, what `ncu --csv --page raw --metrics ... ./app` prints (to
 * stdout or to --log-file): ncu's own "==PROF=="/"==WARNING=="/"==ERROR=="
 * lines, a header row whose first cell is "ID", a units row, then one row
 * per profiled kernel launch, numbers with thousands separators
 * ("1,980,000"). CSV syntax is parsed by libcsv (link with -lcsv).
 */
#ifndef MP_CSV_TABLE_H
#define MP_CSV_TABLE_H

#include <stddef.h>

typedef struct {
    int nrows;      /* kernel launches (data rows), in file (= launch) order */
    int ncols;      /* columns of the header */
    char **header;  /* header[col]: column names as ncu wrote them */
    char **units;   /* units[col]: the units row ("ns", "byte", ...), ""
                       where ncu left it empty or printed no units row */
    char ***cells;  /* cells[row][col]: raw text, never NULL */
} mp_csv_table;

/*
 * Parses ncu --csv --page raw output from a file.
 *
 * Rules (all lines are numbered from 1 as in the file):
 *  - a line starting with "==" at a record boundary is ncu's own message
 *    and is skipped, before, between or after the data;
 *  - anything before the header (the first line starting with "ID",
 *    quoted or not) is skipped too: that is where ncu's stdout mixes in
 *    the profiled application's own output;
 *  - the row right after a header whose "ID" cell is empty is the units
 *    row; a later header identical to the first (ncu prints one block per
 *    profiled process) is skipped with its units row, its rows appended;
 *  - CRLF and LF line endings both work; blank lines are skipped.
 * Returns 0, or -1 with a one-line reason in err (if non-NULL) naming the
 * file and, where there is one, the line ("x.csv:12: row has 40 cells,
 * header has 41"). Errors: file missing or unreadable, no header, a row
 * whose cell count differs from the header's, a second header that differs
 * from the first, malformed quoting, a quote still open at end of file, a
 * NUL byte. On error *t is left empty (safe to pass to mp_csv_free).
 */
int mp_ncu_read(const char *path, mp_csv_table *t, char *err, size_t errlen);

/* The same on an in-memory buffer of len bytes (need not be NUL-terminated;
 * never read past len). `name` stands for the file in error messages. */
int mp_ncu_parse(const char *buf, size_t len, const char *name,
                 mp_csv_table *t, char *err, size_t errlen);

/* Reads a plain CSV file with its header on the first line (memprobe's own
 * results): the same table, with empty units, the same errors, and one
 * more: a cell of a numeric column of memprobe's schema (row.h,
 * mp_schema_value_rule) that is neither empty nor a finite number, or is
 * negative where the column cannot be ("x.csv: data row 3, column
 * cycles_per_load: '-5' is negative, ..."). */
int mp_csv_table_read(const char *path, mp_csv_table *t, char *err,
                      size_t errlen);

/* A reader of a table file: mp_ncu_read or mp_csv_table_read. */
typedef int (*mp_table_reader)(const char *path, mp_csv_table *t, char *err,
                               size_t errlen);

/* Reads path with `read` for the command `who`; on error prints
 * "memprobe: WHO: <the reader's reason>" on stderr and returns -1 (*t left
 * empty), else 0. */
int mp_table_read_or_say(mp_table_reader read, const char *path,
                         mp_csv_table *t, const char *who);

/* Index of the first column called `name` (exact match), or -1. */
int mp_csv_column(const mp_csv_table *t, const char *name);

/* The same for a column the caller cannot do without: -1 also sets err
 * to "WHO: no column NAME" (who: the file or table, for the message). */
int mp_csv_need_column(const mp_csv_table *t, const char *name,
                       const char *who, char *err, size_t errlen);

/*
 * Numeric value of text as ncu prints it: optional sign, digits with or
 * without thousands separators (the first group 1-3 digits, every later
 * group exactly 3: "8,448", "1,980,000"; "1,98" and "12,3456" are
 * malformed), optional decimals ("87.50", "1,587.77"), optional exponent
 * ("1e3"). No spaces, no "inf"/"nan"/hex. Returns 0 and *out, or -1 (*out
 * untouched) if the text is empty, "n/a", any other non-number, or beyond
 * the range of a double. Independent of the C locale.
 */
int mp_csv_parse_number(const char *text, double *out);

/* mp_csv_parse_number() of cells[row][col]; -1 also when row or col is out
 * of range. */
int mp_csv_number(const mp_csv_table *t, int row, int col, double *out);

/* Frees everything *t holds and leaves it empty; safe on an empty table and
 * when called twice. */
void mp_csv_free(mp_csv_table *t);

#endif
