/*
 * profile_csv.c - the CSVs of `memprobe profile` (profile_csv.h): telling
 * their headers (and older versions') apart, writing them and reading them
 * back, one loop each for both files, by their columns (profile_columns.c's
 * tables); the merge of the raw files into them is profile_merge.c's, the
 * per-source-line sums profile_lines.c's.
 */
#include "profile_csv.h"
#include "profile_columns.h"
#include "profile_csv_int.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "csv_writer.h"
#include "csv_table.h"
#include "raw.h"
#include "stats.h"
#include "subprocess.h"


const char *const mp_prof_class_name[MP_NCLASS] = {"shared", "global"};
const char *const mp_prof_class_unit[MP_NCLASS] = {"wavefronts", "sectors"};
const char *const mp_prof_dir_name[MP_NDIR] = {"load", "store"};

void mp_prof_lines_path(const char *csv, char *out, size_t len)
{
    size_t n = strlen(csv);
    if (n > 4 && !strcmp(csv + n - 4, ".csv"))
        snprintf(out, len, "%.*s-lines.csv", (int)(n - 4), csv);
    else
        snprintf(out, len, "%s-lines.csv", csv);
}

/* The names of s's columns, into names. */
static void header_of(const mp_prof_schema *s, const char **names)
{
    for (int i = 0; i < s->n; i++)
        names[i] = mp_prof_col_name(&s->cols[i]);
}

/* 1 when the file's first line is exactly the header of the first n
 * columns of s. */
static int has_header(const char *path, const mp_prof_schema *s, int n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    int is = 0;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char want[4096] = "";
        for (int i = 0; i < n; i++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s",
                     i ? "," : "", mp_prof_col_name(&s->cols[i]));
        is = !strcmp(line, want);
    }
    fclose(f);
    return is;
}

/* 1 when the file's first line is the header of an older version of s
 * (still read). */
static int has_old_header(const char *path, const mp_prof_schema *s)
{
    for (int v = 0; v < mp_prof_schema_version(s); v++)
        if (has_header(path, s, mp_prof_schema_ncols(s, v)))
            return 1;
    return 0;
}

int mp_prof_is_profile_csv(const char *path)
{
    const mp_prof_schema *s = &mp_prof_launch_schema;
    return has_header(path, s, s->n) || has_old_header(path, s);
}

int mp_prof_is_lines_csv(const char *path)
{
    const mp_prof_schema *s = &mp_prof_line_schema;
    return has_header(path, s, s->n) || has_old_header(path, s);
}

/* ---- small helpers --------------------------------------------------- */

void mp_prof_fmt_ratio_from(double r, double from, char *buf, size_t len)
{
    int d = 2;
    snprintf(buf, len, "%.*f", d, r);
    /* more digits while the printed ratio hides which side of from r
     * lies on: 1.0001 is not "1.0" */
    double p = strtod(buf, NULL);
    while (d < 12 && (p > from) - (p < from) != (r > from) - (r < from)) {
        snprintf(buf, len, "%.*f", ++d, r);
        p = strtod(buf, NULL);
    }
    size_t n = strlen(buf);
    if (d == 2 && n > 3 && buf[n - 1] == '0' && buf[n - 3] == '.')
        buf[n - 1] = '\0';
}

void mp_prof_fmt_ratio(double r, char *buf, size_t len)
{
    mp_prof_fmt_ratio_from(r, 1.0, buf, len);
}

int mp_prof_find_program(const char *name, const char *dir, char *out,
                         size_t len)
{
    struct stat st;
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return stat(out, &st) == 0 && S_ISREG(st.st_mode)
               && access(out, X_OK) == 0 ? 0 : -1;
    }
    const char *path = dir ? dir : getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    for (const char *p = path; ; ) {
        size_t n = strcspn(p, ":");
        snprintf(out, len, "%.*s%s%s", (int)n, p, n ? "/" : "", name);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode)
            && access(out, X_OK) == 0)
            return 0;
        if (!p[n])
            break;
        p += n + 1;
    }
    return -1;
}

/* A row's strings are its string columns' (profile_columns.c), and a
 * line's cubin (the merge's only). */
void mp_prof_free_launch(mp_prof_launch *l)
{
    mp_prof_free_cells(&mp_prof_launch_schema, l);
}

void mp_prof_free_line(mp_prof_line *i)
{
    mp_prof_free_cells(&mp_prof_line_schema, i);
    free(i->cubin);
}

void mp_prof_free(mp_prof_data *d)
{
    for (int k = 0; k < d->nl; k++)
        mp_prof_free_launch(&d->l[k]);
    for (int k = 0; k < d->ni; k++)
        mp_prof_free_line(&d->i[k]);
    for (int k = 0; k < d->nnames; k++)
        free(d->names[k]);
    free(d->l);
    free(d->i);
    free(d->names);
    memset(d, 0, sizeof *d);
}

/* The column name of t (its index), or -1 after an error naming path. */
int mp_prof_need_col(const mp_csv_table *t, const char *path,
                    const char *name, char *err, size_t errlen)
{
    int c = mp_csv_column(t, name);
    if (c < 0)
        mp_reason(err, errlen, "%s: no column '%s'", path, name);
    return c;
}

/* ---- writing --------------------------------------------------------- */

static int open_out(mp_csv_writer *w, const char *path,
                    const mp_prof_schema *s, char *err, size_t errlen)
{
    const char *names[MP_PROF_MAXCOLS];
    header_of(s, names);
    FILE *f = fopen(path, "w");   /* a new file beside the last profile */
    if (!f) {
        mp_reason(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fclose(f);
    return mp_csv_open(w, path, names, s->n, err, errlen);
}

/* Writes one row of w; on a failure closes w and returns -1. */
static int put_row(mp_csv_writer *w, const char **c, char *err, size_t errlen)
{
    if (mp_csv_write_row(w, c, err, errlen)) {
        mp_csv_close(w);
        return -1;
    }
    return 0;
}

/* Closes w, the CSV written to path: -1 and why when it did not reach
 * the file. */
static int close_out(mp_csv_writer *w, const char *path, char *err,
                     size_t errlen)
{
    if (mp_csv_close(w)) {
        mp_reason(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Writes the CSV of schema s to path: the header, then each of the n
 * rows (structs of `size` bytes from rows) by its columns. 0 or -1. */
static int write_csv(const mp_prof_schema *s, const void *rows, size_t size,
                     int n, const char *path, char *err, size_t errlen)
{
    mp_csv_writer w;
    if (open_out(&w, path, s, err, errlen))
        return -1;
    char nb[MP_PROF_MAXCOLS][32];
    const char *c[MP_PROF_MAXCOLS];
    for (int r = 0; r < n; r++) {
        const void *row = (const char *)rows + (size_t)r * size;
        for (int k = 0; k < s->n; k++)
            c[k] = mp_prof_col_format(&s->cols[k], row, nb[k], sizeof nb[k]);
        if (put_row(&w, c, err, errlen))
            return -1;
    }
    return close_out(&w, path, err, errlen);
}

int mp_prof_write(const mp_prof_data *d, const char *csv, const char *lines,
                  char *err, size_t errlen)
{
    if (write_csv(&mp_prof_launch_schema, d->l, sizeof *d->l, d->nl, csv,
                  err, errlen)
        || write_csv(&mp_prof_line_schema, d->i, sizeof *d->i, d->ni, lines,
                     err, errlen))
        return -1;
    return 0;
}

int mp_prof_check_output(const char *csv, char *err, size_t errlen)
{
    const char *names[MP_PROF_MAXCOLS];
    char lines[PATH_MAX];
    mp_prof_lines_path(csv, lines, sizeof lines);
    /* a profile CSV of an older version (before the range columns, the
     * origins, ...) is ours to replace */
    const mp_prof_schema *s = &mp_prof_launch_schema;
    header_of(s, names);
    if (!has_old_header(csv, s)
        && mp_csv_check_output(csv, names, s->n, err, errlen))
        return -1;
    s = &mp_prof_line_schema;
    header_of(s, names);
    return has_old_header(lines, s) ? 0
           : mp_csv_check_output(lines, names, s->n, err, errlen);
}

/* ---- reading the CSVs back ------------------------------------------- */

/* A profile CSV read and the columns of s found, into idx: those of the
 * first version are needed, a later one's are -1 when missing (an older
 * file). 0 (free t), or -1 with err. */
static int open_csv(const char *path, const mp_prof_schema *s,
                    mp_csv_table *t, int *idx, char *err, size_t errlen)
{
    if (mp_csv_table_read(path, t, err, errlen))
        return -1;
    for (int k = 0; k < s->n; k++) {
        const char *name = mp_prof_col_name(&s->cols[k]);
        if (s->cols[k].since > 0)
            idx[k] = mp_csv_column(t, name);
        else if ((idx[k] = mp_prof_need_col(t, path, name, err, errlen)) < 0) {
            mp_csv_free(t);
            return -1;
        }
    }
    return 0;
}

/* Reads the rows of t (path's, its columns at idx) into rows (structs of
 * `size` bytes, zeroed, as many as t's rows), counting each in *n as it
 * is begun (mp_prof_free frees what it holds). Frees t. 0, or -1 with
 * "PATH: data row N: ..." when a count is not a whole number. */
static int read_rows(mp_csv_table *t, const char *path,
                     const mp_prof_schema *s, const int *idx, void *rows,
                     size_t size, int *n, char *err, size_t errlen)
{
    for (int r = 0; r < t->nrows; r++) {
        void *row = (char *)rows + (size_t)r * size;
        ++*n;
        int bad = 0;
        for (int k = 0; k < s->n; k++)
            bad |= mp_prof_col_parse(&s->cols[k], row,
                                     idx[k] >= 0 ? t->cells[r][idx[k]] : "");
        if (bad) {
            mp_reason(err, errlen, "%s: data row %d: a count that is not a "
                      "whole number", path, r + 1);
            mp_csv_free(t);
            return -1;
        }
    }
    mp_csv_free(t);
    return 0;
}

static int load_launches(const char *path, mp_prof_data *d, char *err,
                         size_t errlen)
{
    const mp_prof_schema *s = &mp_prof_launch_schema;
    mp_csv_table t;
    int idx[MP_PROF_MAXCOLS];
    if (open_csv(path, s, &t, idx, err, errlen))
        return -1;
    d->l = mp_xcalloc((size_t)t.nrows + 1, sizeof *d->l);
    return read_rows(&t, path, s, idx, d->l, sizeof *d->l, &d->nl, err,
                     errlen);
}

static int load_lines(const char *path, mp_prof_data *d, char *err,
                      size_t errlen)
{
    const mp_prof_schema *s = &mp_prof_line_schema;
    mp_csv_table t;
    int idx[MP_PROF_MAXCOLS];
    if (open_csv(path, s, &t, idx, err, errlen))
        return -1;
    d->i = mp_xcalloc((size_t)t.nrows + 1, sizeof *d->i);
    return read_rows(&t, path, s, idx, d->i, sizeof *d->i, &d->ni, err,
                     errlen);
}

int mp_prof_load(const char *csv, mp_prof_data *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    char lines[PATH_MAX];
    mp_prof_lines_path(csv, lines, sizeof lines);
    if (!mp_prof_is_profile_csv(csv)) {
        FILE *f = fopen(csv, "r");
        if (!f)
            mp_reason(err, errlen, "%s: %s", csv, strerror(errno));
        else
            mp_reason(err, errlen, "%s: not a profile CSV (its header is not "
                      "memprobe columns --profile's)", csv);
        if (f)
            fclose(f);
        return -1;
    }
    if (load_launches(csv, d, err, errlen)
        || load_lines(lines, d, err, errlen)) {
        mp_prof_free(d);
        return -1;
    }
    mp_prof_name_kernels(d);
    return 0;
}

