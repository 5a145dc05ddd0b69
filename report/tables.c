/*
 * tables.c - the report's tables (see report.h): building a table from its
 * spec, and the three ways to print a table (aligned text, Markdown, CSV);
 * the families register their tables through report/part.c. Which rows
 * each table takes, its row keys, column groups and values are its spec,
 * in one file per family (probes/NAME/NAME_tables.c, for example
 * probes/bank/bank_tables.c and probes/reduce/reduce_tables.c;
 * report/table_spec.h).
 *
 * Every table is built the same way from a `spec`: a row of the data goes
 * into the table row named by its keys (say op and stride), into the column
 * group named by one parameter (say the access width), and into the block
 * of that group that belongs to its device. So CSVs of several devices
 * come out side by side, one block of groups per device.
 */
#include "report.h"
#include "check.h"
#include "part.h"
#include "csv_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXKEYS 6
#define MAXSUB 6

void mp_rep_fmt(char *buf, size_t len, double v, int decimals)
{
    snprintf(buf, len, "%.*f", decimals, v);
    if (decimals > 0 && strchr(buf, '.')) {
        char *e = buf + strlen(buf) - 1;
        while (*e == '0')
            *e-- = '\0';
        if (*e == '.')
            *e = '\0';
    }
    if (!strcmp(buf, "-0"))
        strcpy(buf, "0");
}

static const char *const legend_text =
    "the measured value differs from the model (the row's model_match is no)";


/* ------------------------------------------------------------------ */
/* Sorting                                                            */

/* Words that sort in a meaningful order rather than alphabetically. */
static const char *const ranked[] = {
    "default", "cg", "ld", "st", "read", "write", "copy", "pattern", "soa",
    "aos12", "aos16", "aos12-staged", "constant", "global", "ldg", "tex1d",
    "tex2d", "stencil", "column", "row", "host-partials", "thread0-serial",
    "tree-interleaved", "tree-strided", "tree-sequential", "warp-shuffle",
    "atomic", "plain", "mma", "seed", "yx", "pad", NULL,
};

static double word_rank(const char *s)
{
    for (int i = 0; ranked[i]; i++)
        if (!strcmp(ranked[i], s))
            return i;
    return NAN;
}

/* Number a key sorts by: its value, the rank of a known word, or NAN
 * (then by text). */
static double sort_value(const char *s)
{
    double v;
    if (mp_csv_parse_number(s, &v) == 0)
        return v;
    return word_rank(s);
}

/* qsort_r comparison of table rows; ctx points to the number of keys. */
static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
    const mp_rep_trow *a = pa, *b = pb;
    int nkeys = *(const int *)ctx;
    for (int k = 0; k < nkeys; k++) {
        double x = a->sort[k], y = b->sort[k];
        int c;
        if (!isnan(x) && !isnan(y))
            c = (x > y) - (x < y);
        else if (isnan(x) != isnan(y))
            c = isnan(x) ? 1 : -1;
        else
            c = strcmp(a->keys[k], b->keys[k]);
        if (c)
            return c;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Building                                                           */

static int find_group(const mp_rep_table *t, const char *label)
{
    for (int g = 0; g < t->ngroups; g++)
        if (!strcmp(t->groups[g], label))
            return g;
    return -1;
}

static void add_file(mp_rep_table *t, const char *base)
{
    for (int i = 0; i < t->nfiles; i++)
        if (!strcmp(t->files[i], base))
            return;
    t->files = mp_xrealloc(t->files, (size_t)(t->nfiles + 1) * sizeof *t->files);
    t->files[t->nfiles++] = mp_xstrdup(base);
}

/* The table row with these keys, appended if new. */
static mp_rep_trow *row_for(mp_rep_table *t, char k[][KEYLEN])
{
    for (int i = 0; i < t->nrows; i++) {
        int same = 1;
        for (int j = 0; j < t->nkeys && same; j++)
            same = !strcmp(t->rows[i].keys[j], k[j]);
        if (same)
            return &t->rows[i];
    }
    if (t->nrows == t->caprows) {
        int cap = t->caprows ? 2 * t->caprows : 32;
        t->rows = mp_xrealloc(t->rows, (size_t)cap * sizeof *t->rows);
        t->caprows = cap;
    }
    mp_rep_trow *r = &t->rows[t->nrows++];
    r->keys = mp_xcalloc((size_t)t->nkeys, sizeof *r->keys);
    r->sort = mp_xcalloc((size_t)t->nkeys, sizeof *r->sort);
    for (int j = 0; j < t->nkeys; j++) {
        r->keys[j] = mp_xstrdup(k[j]);
        r->sort[j] = sort_value(k[j]);
    }
    size_t ncells = (size_t)t->ndev * t->ngroups * t->nsub;
    r->cells = mp_xcalloc(ncells, sizeof *r->cells);
    for (size_t c = 0; c < ncells; c++)
        r->cells[c].text = mp_xstrdup("");
    return r;
}

static int cmp_group(const void *a, const void *b, void *t_)
{
    const mp_rep_table *t = t_;
    int x = *(const int *)a, y = *(const int *)b;
    double u = t->group_sort[x], v = t->group_sort[y];
    if (u != v && !isnan(u) && !isnan(v))
        return (u > v) - (u < v);
    return strcmp(t->groups[x], t->groups[y]);
}

/* Orders the groups by their sort numbers (before any row exists). */
static void sort_groups(mp_rep_table *t)
{
    if (t->ngroups == 0)
        return;   /* no rows: no groups, and NULL arrays */
    int *order = mp_xcalloc((size_t)t->ngroups, sizeof *order);
    char **g = mp_xcalloc((size_t)t->ngroups, sizeof *g);
    double *s = mp_xcalloc((size_t)t->ngroups, sizeof *s);
    for (int i = 0; i < t->ngroups; i++)
        order[i] = i;
    qsort_r(order, (size_t)t->ngroups, sizeof *order, cmp_group, t);
    for (int i = 0; i < t->ngroups; i++) {
        g[i] = t->groups[order[i]];
        s[i] = t->group_sort[order[i]];
    }
    memcpy(t->groups, g, (size_t)t->ngroups * sizeof *g);
    memcpy(t->group_sort, s, (size_t)t->ngroups * sizeof *s);
    free(order);
    free(g);
    free(s);
}

/* Frees what row r of t holds (its keys, sort values and cells). */
static void free_row(const mp_rep_table *t, mp_rep_trow *r)
{
    size_t ncells = (size_t)t->ndev * t->ngroups * t->nsub;
    for (int j = 0; j < t->nkeys; j++)
        free(r->keys[j]);
    for (size_t c = 0; c < ncells; c++)
        free(r->cells[c].text);
    free(r->keys);
    free(r->sort);
    free(r->cells);
}

/* The padding table keeps only the rows measured with some padding. */
static void drop_unpadded(mp_rep_table *t)
{
    int out = 0;
    for (int i = 0; i < t->nrows; i++) {
        mp_rep_trow *r = &t->rows[i];
        int padded = 0;
        for (int dev = 0; dev < t->ndev && !padded; dev++)
            for (int g = 0; g < t->ngroups && !padded; g++) {
                if (t->group_sort[g] == 0)
                    continue;
                mp_rep_cell *c = &r->cells[((size_t)dev * t->ngroups + g)
                                           * t->nsub];
                for (int s = 0; s < t->nsub && !padded; s++)
                    padded = c[s].text[0] != '\0';
            }
        if (padded)
            t->rows[out++] = *r;
        else
            free_row(t, r);
    }
    t->nrows = out;
}

static void count_marks(mp_rep_table *t)
{
    size_t ncells = (size_t)t->ndev * t->ngroups * t->nsub;
    t->marks = 0;
    for (int i = 0; i < t->nrows; i++)
        for (size_t c = 0; c < ncells; c++)
            t->marks += t->rows[i].cells[c].mark != 0;
}

mp_rep_table *mp_rep_table_build(const mp_rep_data *d, const char *name)
{
    const mp_rep_table_def *x = mp_rep_table_def_find(name);
    if (!x)
        return NULL;
    const mp_rep_spec *sp = x->spec;

    mp_rep_table *t = mp_xcalloc(1, sizeof *t);
    t->name = sp->name;
    t->title = sp->title;
    t->nkeys = sp->nkeys;
    t->key_headers = sp->key_headers;
    t->nsub = sp->nsub;
    t->sub_headers = sp->sub_headers;
    t->empty = sp->empty ? sp->empty : "no rows";
    t->legend = x->legend ? x->legend : legend_text;
    t->split = x->split;
    t->ndev = d->ndev;
    t->devices = mp_xcalloc(d->ndev ? (size_t)d->ndev : 1, sizeof *t->devices);
    for (int i = 0; i < d->ndev; i++)
        t->devices[i] = mp_xstrdup(d->devices[i]);

    /* Pass 1: the column groups. */
    char label[KEYLEN];
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        if (!sp->want(d, r))
            continue;
        double s = sp->group(d, r, label);
        if (find_group(t, label) >= 0)
            continue;
        t->groups = mp_xrealloc(t->groups, (size_t)(t->ngroups + 1)
                             * sizeof *t->groups);
        t->group_sort = mp_xrealloc(t->group_sort, (size_t)(t->ngroups + 1)
                                 * sizeof *t->group_sort);
        t->groups[t->ngroups] = mp_xstrdup(label);
        t->group_sort[t->ngroups++] = s;
    }
    sort_groups(t);

    /* Pass 2: the cells. A second row for the same cell (two
     * configurations that the table does not tell apart) keeps the first. */
    char keys[MAXKEYS][KEYLEN];
    char vals[MAXSUB][KEYLEN];
    int marks[MAXSUB];
    for (int i = 0; i < d->nrows; i++) {
        const mp_rep_row *r = &d->rows[i];
        if (!sp->want(d, r))
            continue;
        sp->keys(d, r, keys);
        sp->group(d, r, label);
        int g = find_group(t, label);
        mp_rep_trow *row = row_for(t, keys);
        mp_rep_cell *c = &row->cells[((size_t)r->device * t->ngroups + g)
                                     * t->nsub];
        int filled = 0;
        for (int s = 0; s < t->nsub; s++)
            filled |= c[s].text[0] != '\0';
        if (filled)
            continue;
        memset(marks, 0, sizeof marks);
        for (int s = 0; s < t->nsub; s++)
            vals[s][0] = '\0';
        sp->values(d, r, vals, marks);
        for (int s = 0; s < t->nsub; s++) {
            free(c[s].text);
            c[s].text = mp_xstrdup(vals[s]);
            c[s].mark = marks[s];
        }
        add_file(t, d->files[r->file].base);
    }
    if (!strcmp(sp->name, "padding"))
        drop_unpadded(t);
    if (t->nrows > 1)
        qsort_r(t->rows, (size_t)t->nrows, sizeof *t->rows, cmp_rows,
                &t->nkeys);
    count_marks(t);
    return t;
}

/* Removes the column groups in which no row has a value (after rows were
 * dropped, a group may be left empty). */
static void drop_empty_groups(mp_rep_table *t)
{
    int *keep = mp_xcalloc((size_t)t->ngroups + 1, sizeof *keep);
    int ng = 0;
    for (int g = 0; g < t->ngroups; g++) {
        for (int i = 0; i < t->nrows && !keep[g]; i++)
            for (int dev = 0; dev < t->ndev && !keep[g]; dev++)
                for (int s = 0; s < t->nsub && !keep[g]; s++)
                    keep[g] = t->rows[i].cells[((size_t)dev * t->ngroups + g)
                                               * t->nsub + s].text[0] != '\0';
        ng += keep[g];
    }
    if (ng == t->ngroups) {
        free(keep);
        return;
    }
    for (int i = 0; i < t->nrows; i++) {
        mp_rep_cell *old = t->rows[i].cells;
        mp_rep_cell *cells = mp_xcalloc((size_t)t->ndev * (ng ? ng : 1)
                                        * t->nsub, sizeof *cells);
        size_t n = 0;
        for (int dev = 0; dev < t->ndev; dev++)
            for (int g = 0; g < t->ngroups; g++)
                for (int s = 0; s < t->nsub; s++) {
                    mp_rep_cell *c = &old[((size_t)dev * t->ngroups + g)
                                          * t->nsub + s];
                    if (keep[g])
                        cells[n++] = *c;
                    else
                        free(c->text);
                }
        free(old);
        t->rows[i].cells = cells;
    }
    int out = 0;
    for (int g = 0; g < t->ngroups; g++) {
        if (keep[g]) {
            t->groups[out] = t->groups[g];
            t->group_sort[out++] = t->group_sort[g];
        } else {
            free(t->groups[g]);
        }
    }
    t->ngroups = ng;
    free(keep);
}

void mp_rep_table_keep(mp_rep_table *t,
                       int (*keep)(char *const *keys, void *ctx), void *ctx)
{
    int out = 0;
    for (int i = 0; i < t->nrows; i++) {
        mp_rep_trow *r = &t->rows[i];
        if (keep(r->keys, ctx))
            t->rows[out++] = *r;
        else
            free_row(t, r);
    }
    t->nrows = out;
    drop_empty_groups(t);
    count_marks(t);
}

mp_rep_table *mp_rep_table_new(const char *name, int nkeys,
                               const char *const *keys, int nsub,
                               const char *const *subs, int cap)
{
    mp_rep_table *t = mp_xcalloc(1, sizeof *t);
    t->name = name;
    t->title = name;
    t->nkeys = nkeys;
    t->key_headers = keys;
    t->nsub = nsub;
    t->sub_headers = subs;
    t->ngroups = 1;
    t->groups = mp_xcalloc(1, sizeof *t->groups);
    t->groups[0] = mp_xstrdup("");
    t->group_sort = mp_xcalloc(1, sizeof *t->group_sort);
    t->ndev = 1;
    t->devices = mp_xcalloc(1, sizeof *t->devices);
    t->devices[0] = mp_xstrdup("");
    t->caprows = cap > 0 ? cap : 1;
    t->rows = mp_xcalloc((size_t)t->caprows, sizeof *t->rows);
    t->empty = "no rows";
    return t;
}

void mp_rep_table_add(mp_rep_table *t, const char *const *keys,
                      const char *const *vals)
{
    if (t->nrows == t->caprows)
        return;   /* sized by the caller */
    mp_rep_trow *r = &t->rows[t->nrows++];
    r->keys = mp_xcalloc((size_t)t->nkeys + 1, sizeof *r->keys);
    r->sort = mp_xcalloc((size_t)t->nkeys + 1, sizeof *r->sort);
    for (int k = 0; k < t->nkeys; k++)
        r->keys[k] = mp_xstrdup(keys[k]);
    r->cells = mp_xcalloc((size_t)t->nsub + 1, sizeof *r->cells);
    for (int s = 0; s < t->nsub; s++)
        r->cells[s].text = mp_xstrdup(vals[s]);
}

void mp_rep_table_free(mp_rep_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nrows; i++)
        free_row(t, &t->rows[i]);
    free(t->rows);
    for (int g = 0; g < t->ngroups; g++)
        free(t->groups[g]);
    free(t->groups);
    free(t->group_sort);
    for (int i = 0; i < t->ndev; i++)
        free(t->devices[i]);
    free(t->devices);
    for (int i = 0; i < t->nfiles; i++)
        free(t->files[i]);
    free(t->files);
    free(t);
}

const mp_rep_cell *mp_rep_table_cell(const mp_rep_table *t,
                                     const char *const *keys, int dev,
                                     const char *group, const char *sub)
{
    int g = find_group(t, group), s = -1;
    for (int i = 0; i < t->nsub; i++)
        if (!strcmp(t->sub_headers[i], sub))
            s = i;
    if (g < 0 || s < 0 || dev < 0 || dev >= t->ndev)
        return NULL;
    for (int i = 0; i < t->nrows; i++) {
        int same = 1;
        for (int j = 0; j < t->nkeys && same; j++)
            same = !strcmp(t->rows[i].keys[j], keys[j]);
        if (same)
            return &t->rows[i].cells[((size_t)dev * t->ngroups + g) * t->nsub
                                     + s];
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Printing                                                           */

/* Header of value column (dev, group, sub): the non-empty parts. */
static void value_header(const mp_rep_table *t, int dev, int g, int s,
                         char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s", t->ndev > 1 ? t->devices[dev] : "",
             t->ndev > 1 ? " " : "", t->groups[g], t->groups[g][0] ? " " : "",
             t->sub_headers[s]);
}

static const mp_rep_cell *cell_at(const mp_rep_table *t, int row, int dev,
                                  int g, int s)
{
    return &t->rows[row].cells[((size_t)dev * t->ngroups + g) * t->nsub + s];
}

/* Cell text as printed: "-" for no value (text formats), '*' if marked. */
static void cell_text(const mp_rep_cell *c, int dash, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", c->text[0] ? c->text : (dash ? "-" : ""),
             c->mark ? "*" : "");
}

static void print_files(const mp_rep_table *t, FILE *out, int md)
{
    fprintf(out, "From ");
    for (int i = 0; i < t->nfiles; i++)
        fprintf(out, md ? "%s`%s`" : "%s%s", i ? ", " : "", t->files[i]);
    if (t->ndev == 1)
        fprintf(out, "; device %s", t->devices[0]);
    fprintf(out, ".\n");
}

static int is_numeric_text(const char *s)
{
    double v;
    return mp_csv_parse_number(s, &v) == 0;
}

/* The column layout of aligned text: per column its text width, whether
 * it keeps room for a mark ('*'), and whether it is right-aligned. */
typedef struct {
    int ncol, keyspan;
    int *w, *mk, *right;
} txt_layout;

/* Widths of the key columns (right-aligned when all numeric) and of the
 * value columns. */
static void measure_columns(const mp_rep_table *t, txt_layout *l)
{
    for (int k = 0; k < t->nkeys; k++) {
        l->w[k] = (int)strlen(t->key_headers[k]);
        l->right[k] = 1;
        for (int i = 0; i < t->nrows; i++) {
            int n = (int)strlen(t->rows[i].keys[k]);
            if (n > l->w[k])
                l->w[k] = n;
            if (!is_numeric_text(t->rows[i].keys[k]))
                l->right[k] = 0;
        }
    }
    for (int dev = 0, c = t->nkeys; dev < t->ndev; dev++)
        for (int g = 0; g < t->ngroups; g++)
            for (int s = 0; s < t->nsub; s++, c++) {
                l->w[c] = (int)strlen(t->sub_headers[s]);
                l->right[c] = 1;
                for (int i = 0; i < t->nrows; i++) {
                    const mp_rep_cell *e = cell_at(t, i, dev, g, s);
                    int n = e->text[0] ? (int)strlen(e->text) : 1;
                    if (n > l->w[c])
                        l->w[c] = n;
                    l->mk[c] |= e->mark != 0;
                }
            }
}

/* Text width of the n columns from `first`, with sep blanks after each
 * but the last (sep_last 0) or after each (sep_last 1). */
static int span_of(const txt_layout *l, int first, int n, int sep_last)
{
    int span = 2 * (n - 1 + sep_last);
    for (int s = 0; s < n; s++)
        span += l->w[first + s] + l->mk[first + s];
    return span;
}

/* A group (or device) label wider than its columns widens the last. */
static void widen_for_labels(const mp_rep_table *t, txt_layout *l)
{
    for (int dev = 0; dev < t->ndev; dev++) {
        for (int g = 0; g < t->ngroups; g++) {
            int first = t->nkeys + (dev * t->ngroups + g) * t->nsub;
            int span = span_of(l, first, t->nsub, 0);
            int need = (int)strlen(t->groups[g]);
            if (need > span)
                l->w[first + t->nsub - 1] += need - span;
        }
        if (t->ndev > 1) {
            int first = t->nkeys + dev * t->ngroups * t->nsub;
            int n = t->ngroups * t->nsub, span = span_of(l, first, n, 0);
            int need = (int)strlen(t->devices[dev]);
            if (need > span)
                l->w[first + n - 1] += need - span;
        }
    }
    l->keyspan = 0;
    for (int k = 0; k < t->nkeys; k++)
        l->keyspan += l->w[k] + 2;
}

/* The device line and the group line, each only when it says something. */
static void print_label_lines(const mp_rep_table *t, const txt_layout *l,
                              FILE *out)
{
    if (t->ndev > 1) {
        fprintf(out, "%*s", l->keyspan, "");
        for (int dev = 0; dev < t->ndev; dev++) {
            int first = t->nkeys + dev * t->ngroups * t->nsub;
            int span = span_of(l, first, t->ngroups * t->nsub, 1);
            if (dev + 1 < t->ndev)
                fprintf(out, "%-*s", span, t->devices[dev]);
            else
                fprintf(out, "%s", t->devices[dev]);
        }
        fprintf(out, "\n");
    }
    int grouped = 0;
    for (int g = 0; g < t->ngroups; g++)
        grouped |= t->groups[g][0] != '\0';
    if (!grouped)
        return;
    fprintf(out, "%*s", l->keyspan, "");
    for (int dev = 0; dev < t->ndev; dev++)
        for (int g = 0; g < t->ngroups; g++) {
            int first = t->nkeys + (dev * t->ngroups + g) * t->nsub;
            int span = span_of(l, first, t->nsub, 1);
            if (dev + 1 < t->ndev || g + 1 < t->ngroups)
                fprintf(out, "%-*s", span, t->groups[g]);
            else
                fprintf(out, "%s", t->groups[g]);
        }
    fprintf(out, "\n");
}

/* The column headers, then the rows. */
static void print_body(const mp_rep_table *t, const txt_layout *l,
                       FILE *out)
{
    for (int c = 0; c < l->ncol; c++) {
        const char *h = c < t->nkeys
                            ? t->key_headers[c]
                            : t->sub_headers[(c - t->nkeys) % t->nsub];
        const char *sep = c ? "  " : "";
        if (l->right[c])
            fprintf(out, "%s%*s%*s", sep, l->w[c], h, l->mk[c], "");
        else
            fprintf(out, "%s%-*s", sep, l->w[c], h);
    }
    fprintf(out, "\n");
    for (int i = 0; i < t->nrows; i++) {
        for (int k = 0; k < t->nkeys; k++)
            fprintf(out, "%s%*s", k ? "  " : "",
                    l->right[k] ? l->w[k] : -l->w[k], t->rows[i].keys[k]);
        for (int dev = 0, c = t->nkeys; dev < t->ndev; dev++)
            for (int g = 0; g < t->ngroups; g++)
                for (int s = 0; s < t->nsub; s++, c++) {
                    const mp_rep_cell *e = cell_at(t, i, dev, g, s);
                    fprintf(out, "  %*s%s", l->w[c],
                            e->text[0] ? e->text : "-",
                            e->mark ? "*" : l->mk[c] ? " " : "");
                }
        fprintf(out, "\n");
    }
}

/* Aligned text. Numbers are right-aligned; a mark hangs to the right of
 * its number, so marked and unmarked values line up. */
static void print_txt_lines(const mp_rep_table *t, int flags, FILE *out)
{
    txt_layout l;
    l.ncol = t->nkeys + t->ndev * t->ngroups * t->nsub;
    l.w = mp_xcalloc((size_t)l.ncol, sizeof *l.w);
    l.mk = mp_xcalloc((size_t)l.ncol, sizeof *l.mk);
    l.right = mp_xcalloc((size_t)l.ncol, sizeof *l.right);
    if (!(flags & MP_REP_NO_TITLE)) {
        fprintf(out, "%s\n", t->title);
        if (t->nrows)
            print_files(t, out, 0);
    }
    if (t->nrows == 0) {
        fprintf(out, "%s\n", t->empty);
    } else {
        measure_columns(t, &l);
        widen_for_labels(t, &l);
        print_label_lines(t, &l, out);
        print_body(t, &l, out);
        if (t->marks)
            fprintf(out, "* %s\n", t->legend);
    }
    free(l.w);
    free(l.mk);
    free(l.right);
}

/* print_txt_lines without the blanks that padding leaves at line ends. */
static void print_txt(const mp_rep_table *t, int flags, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) {
        print_txt_lines(t, flags, out);
        return;
    }
    print_txt_lines(t, flags, mem);
    fclose(mem);
    for (char *line = buf; *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        size_t k = n;
        while (k > 0 && line[k - 1] == ' ')
            k--;
        fwrite(line, 1, k, out);
        if (nl)
            fputc('\n', out);
        line += n + (nl != NULL);
    }
    free(buf);
}

/* Markdown cell text: '|' escaped. */
static void md_cell(FILE *out, const char *s)
{
    fputs("| ", out);
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc(' ', out);
}

static void print_md(const mp_rep_table *t, int flags, FILE *out)
{
    char buf[256];
    if (!(flags & MP_REP_NO_TITLE)) {
        fprintf(out, "**%s**\n\n", t->title);
        if (t->nrows) {
            print_files(t, out, 1);
            fprintf(out, "\n");
        }
    }
    if (t->nrows == 0) {
        fprintf(out, "%s\n", t->empty);
        return;
    }
    for (int k = 0; k < t->nkeys; k++)
        md_cell(out, t->key_headers[k]);
    for (int dev = 0; dev < t->ndev; dev++)
        for (int g = 0; g < t->ngroups; g++)
            for (int s = 0; s < t->nsub; s++) {
                value_header(t, dev, g, s, buf, sizeof buf);
                md_cell(out, buf);
            }
    fprintf(out, "|\n");
    for (int k = 0; k < t->nkeys; k++) {
        int numeric = 1;
        for (int i = 0; i < t->nrows; i++)
            numeric &= is_numeric_text(t->rows[i].keys[k]);
        fprintf(out, "| %s ", numeric ? "---:" : "---");
    }
    for (int c = 0; c < t->ndev * t->ngroups * t->nsub; c++)
        fprintf(out, "| ---: ");
    fprintf(out, "|\n");
    for (int i = 0; i < t->nrows; i++) {
        for (int k = 0; k < t->nkeys; k++)
            md_cell(out, t->rows[i].keys[k]);
        for (int dev = 0; dev < t->ndev; dev++)
            for (int g = 0; g < t->ngroups; g++)
                for (int s = 0; s < t->nsub; s++) {
                    cell_text(cell_at(t, i, dev, g, s), 1, buf, sizeof buf);
                    md_cell(out, buf);
                }
        fprintf(out, "|\n");
    }
    if (t->marks)
        fprintf(out, "\n`*` %s.\n", t->legend);
}

static void csv_field(FILE *out, const char *s, int first)
{
    char buf[512];
    mp_csv_escape(s, buf, sizeof buf);
    fprintf(out, "%s%s", first ? "" : ",", buf);
}

static void print_csv(const mp_rep_table *t, FILE *out)
{
    char buf[256];
    csv_field(out, "table", 1);
    for (int k = 0; k < t->nkeys; k++)
        csv_field(out, t->key_headers[k], 0);
    for (int dev = 0; dev < t->ndev; dev++)
        for (int g = 0; g < t->ngroups; g++)
            for (int s = 0; s < t->nsub; s++) {
                value_header(t, dev, g, s, buf, sizeof buf);
                csv_field(out, buf, 0);
            }
    fprintf(out, "\r\n");
    for (int i = 0; i < t->nrows; i++) {
        csv_field(out, t->name, 1);
        for (int k = 0; k < t->nkeys; k++)
            csv_field(out, t->rows[i].keys[k], 0);
        for (int dev = 0; dev < t->ndev; dev++)
            for (int g = 0; g < t->ngroups; g++)
                for (int s = 0; s < t->nsub; s++) {
                    cell_text(cell_at(t, i, dev, g, s), 0, buf, sizeof buf);
                    csv_field(out, buf, 0);
                }
        fprintf(out, "\r\n");
    }
}

/* Rows i and j have the same first k keys. */
static int same_prefix(const mp_rep_table *t, int i, int j, int k)
{
    for (int c = 0; c < k; c++)
        if (strcmp(t->rows[i].keys[c], t->rows[j].keys[c]))
            return 0;
    return 1;
}

/* A split table (t->split > 0) in text or Markdown: one table per
 * combination of the first `split` keys, which the rows' order keeps
 * together, named in a line above it ("op ldsm, matrices 4, ...") and
 * showing only the column groups it has a value in. Each is printed
 * through a view that shares the table's texts; the legend comes once, at
 * the end. */
static void print_split(const mp_rep_table *t, mp_rep_format f, int flags,
                        FILE *out)
{
    int md = f == MP_REP_MD, k = t->split;
    if (!(flags & MP_REP_NO_TITLE)) {
        fprintf(out, md ? "**%s**\n\n" : "%s\n", t->title);
        if (t->nrows)
            print_files(t, out, md);
    }
    if (t->nrows == 0) {
        fprintf(out, "%s\n", t->empty);
        return;
    }
    mp_rep_table v = *t;
    v.nkeys = t->nkeys - k;
    v.key_headers = t->key_headers + k;
    v.marks = 0;
    v.split = 0;
    v.rows = mp_xcalloc((size_t)t->nrows, sizeof *v.rows);
    v.groups = mp_xcalloc((size_t)t->ngroups + 1, sizeof *v.groups);
    v.group_sort = mp_xcalloc((size_t)t->ngroups + 1, sizeof *v.group_sort);
    int *gi = mp_xcalloc((size_t)t->ngroups + 1, sizeof *gi);
    for (int i = 0; i < t->nrows;) {
        int j = i + 1;
        while (j < t->nrows && same_prefix(t, i, j, k))
            j++;
        v.ngroups = 0;
        for (int g = 0; g < t->ngroups; g++) {
            int used = 0;
            for (int r = i; r < j && !used; r++)
                for (int dev = 0; dev < t->ndev && !used; dev++)
                    for (int s = 0; s < t->nsub && !used; s++)
                        used = cell_at(t, r, dev, g, s)->text[0] != '\0';
            if (used) {
                gi[v.ngroups] = g;
                v.groups[v.ngroups] = t->groups[g];
                v.group_sort[v.ngroups++] = t->group_sort[g];
            }
        }
        v.nrows = j - i;
        for (int r = i; r < j; r++) {
            mp_rep_trow *vr = &v.rows[r - i];
            vr->keys = t->rows[r].keys + k;
            vr->sort = t->rows[r].sort + k;
            vr->cells = mp_xcalloc((size_t)t->ndev * (v.ngroups + 1)
                                   * t->nsub, sizeof *vr->cells);
            for (int dev = 0; dev < t->ndev; dev++)
                for (int g = 0; g < v.ngroups; g++)
                    for (int s = 0; s < t->nsub; s++)
                        vr->cells[((size_t)dev * v.ngroups + g) * t->nsub
                                  + s] = *cell_at(t, r, dev, gi[g], s);
        }
        fprintf(out, md ? "\n*" : "\n");
        for (int c = 0; c < k; c++)
            fprintf(out, "%s%s %s", c ? ", " : "", t->key_headers[c],
                    t->rows[i].keys[c]);
        fprintf(out, md ? "*\n\n" : ":\n");
        if (md)
            print_md(&v, MP_REP_NO_TITLE, out);
        else
            print_txt(&v, MP_REP_NO_TITLE, out);
        for (int r = 0; r < v.nrows; r++)
            free(v.rows[r].cells);
        i = j;
    }
    free(v.rows);
    free(v.groups);
    free(v.group_sort);
    free(gi);
    if (t->marks)
        fprintf(out, md ? "\n`*` %s.\n" : "* %s\n", t->legend);
}

void mp_rep_table_print(const mp_rep_table *t, mp_rep_format f, int flags,
                        FILE *out)
{
    if (f == MP_REP_CSV)
        print_csv(t, out);
    else if (t->split > 0 && t->split < t->nkeys)
        print_split(t, f, flags, out);
    else if (f == MP_REP_MD)
        print_md(t, flags, out);
    else
        print_txt(t, flags, out);
}

int mp_rep_print_all(const mp_rep_data *d, const char *only,
                     mp_rep_format f, FILE *out)
{
    int printed = 0, marks = 0, n = 0, rows = 0;
    while (mp_rep_table_name(n))
        n++;
    mp_rep_table **built = mp_xcalloc((size_t)n, sizeof *built);
    for (int i = 0; i < n; i++) {
        if (only && strcmp(only, mp_rep_table_name(i)))
            continue;
        built[i] = mp_rep_table_build(d, mp_rep_table_name(i));
        rows += built[i]->nrows;
        printed++;
    }
    /* Tables that all say "no rows" report nothing: the caller says so. */
    for (int i = 0, first = 1; rows && i < n; i++) {
        if (!built[i])
            continue;
        if (!first)
            fprintf(out, f == MP_REP_CSV ? "\r\n" : "\n");
        first = 0;
        mp_rep_table_print(built[i], f, 0, out);
        marks += built[i]->marks;
    }
    for (int i = 0; i < n; i++)
        mp_rep_table_free(built[i]);
    free(built);
    if (!printed)
        return -1;
    if (!rows)
        return -2;
    if (f != MP_REP_CSV) {
        fprintf(out, "\n%d configuration%s from %d file%s", d->nrows,
                d->nrows == 1 ? "" : "s", d->nfiles, d->nfiles == 1 ? "" : "s");
        if (d->repeats)
            fprintf(out, "; %d repeated measurement%s left out (the first "
                    "with counters is shown)", d->repeats,
                    d->repeats == 1 ? "" : "s");
        fprintf(out, "; %d cell%s differ%s from the model.\n", marks,
                marks == 1 ? "" : "s", marks == 1 ? "s" : "");
    }
    return 0;
}
