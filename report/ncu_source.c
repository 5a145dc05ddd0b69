/*
 * ncu_source.c - reader of Nsight Compute's source page CSV, SASS view
 * (see ncu_source.h). CSV syntax by libcsv; the records are then read as
 * "Kernel Name" lines, headers and instruction rows.
 */
#include "ncu_source.h"
#include "readfile.h"

#include <csv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_table.h"

const char *const mp_ncu_source_columns[MP_SRC_VALUES] = {
    "Instructions Executed", "L1 Wavefronts Shared",
    "L1 Wavefronts Shared Ideal", "L2 Theoretical Sectors Global",
    "L2 Theoretical Sectors Global Ideal",
};

typedef struct {
    /* the record being read */
    char **cells;
    int ncells, cap;
    long rec_line;
    /* the current table */
    int started;            /* a "Kernel Name" line or header seen */
    int have_header;
    int col_addr, col_source, col_kernel, col_value[MP_SRC_VALUES];
    int need;               /* cells a row must have */
    char *kernel;           /* from the last "Kernel Name" line */
    int table;
    char *base_kernel;      /* kernel of the offsets' base */
    long long base;
    /* the result */
    mp_ncu_source *s;
    int rows_cap;
    int failed;
    const char *name;
    char *err;
    size_t errlen;
} reader;

static void fail(reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->err && r->errlen)
        snprintf(r->err, r->errlen, "%s:%ld: %s", r->name, r->rec_line, msg);
}

static char *dup_text(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* s without leading and trailing blanks, as a new string. */
static char *dup_trimmed(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    return dup_text(s, n);
}

static void on_cell(void *data, size_t len, void *ctx)
{
    reader *r = ctx;
    if (r->failed)
        return;
    if (r->ncells == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        char **c = realloc(r->cells, (size_t)cap * sizeof *c);
        if (!c) {
            fail(r, "out of memory");
            return;
        }
        r->cells = c;
        r->cap = cap;
    }
    char *cell = dup_text(data ? data : "", data ? len : 0);
    if (!cell) {
        fail(r, "out of memory");
        return;
    }
    r->cells[r->ncells++] = cell;
}

static int find(const reader *r, const char *name)
{
    for (int i = 0; i < r->ncells; i++)
        if (!strcmp(r->cells[i], name))
            return i;
    return -1;
}

static void header(reader *r)
{
    r->started = 1;
    r->have_header = 1;
    r->table++;
    r->col_addr = find(r, "Address");
    r->col_source = find(r, "Source");
    r->col_kernel = find(r, "Kernel Name");
    if (r->col_kernel < 0)
        r->col_kernel = find(r, "Function Name");
    r->need = r->col_addr > r->col_source ? r->col_addr : r->col_source;
    if (r->col_kernel > r->need)
        r->need = r->col_kernel;
    for (int v = 0; v < MP_SRC_VALUES; v++) {
        r->col_value[v] = find(r, mp_ncu_source_columns[v]);
        if (r->col_value[v] >= 0)
            r->s->has[v] = 1;
        if (r->col_value[v] > r->need)
            r->need = r->col_value[v];
    }
    r->need++;
    free(r->base_kernel);
    r->base_kernel = NULL;
}

/* An address: "0x..." hex, or decimal. */
static int parse_address(const char *text, long long *out)
{
    char *end;
    int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (!text[0] || (hex && !text[2]))
        return -1;
    unsigned long long v = strtoull(text, &end, hex ? 16 : 10);
    if (*end)
        return -1;
    *out = (long long)v;
    return 0;
}

static void data_row(reader *r)
{
    if (!r->have_header) {
        fail(r, "an instruction row before any header (\"Address\", "
             "\"Source\", ...)");
        return;
    }
    if (r->ncells < r->need) {
        fail(r, "row has %d cells, its header needs %d", r->ncells, r->need);
        return;
    }
    const char *kernel = r->col_kernel >= 0 ? r->cells[r->col_kernel]
                                            : r->kernel;
    if (!kernel || !kernel[0]) {
        fail(r, "an instruction row without a kernel name (no \"Kernel "
             "Name\" line or column)");
        return;
    }
    long long addr;
    if (parse_address(r->cells[r->col_addr], &addr)) {
        fail(r, "Address '%s' is not a number", r->cells[r->col_addr]);
        return;
    }
    /* The first instruction of a kernel in a table is its offset 0. */
    if (!r->base_kernel || strcmp(r->base_kernel, kernel)) {
        free(r->base_kernel);
        r->base_kernel = strdup(kernel);
        r->base = addr;
        if (!r->base_kernel) {
            fail(r, "out of memory");
            return;
        }
    }
    mp_ncu_source_row row;
    memset(&row, 0, sizeof row);
    row.table = r->table - 1;
    row.offset = addr - r->base;
    for (int v = 0; v < MP_SRC_VALUES; v++) {
        int c = r->col_value[v];
        const char *t = c >= 0 ? r->cells[c] : "";
        if (!t[0] || !strcmp(t, "-"))
            continue;
        if (mp_csv_parse_number(t, &row.value[v])) {
            fail(r, "%s '%s' is not a number", mp_ncu_source_columns[v], t);
            return;
        }
    }
    mp_ncu_source *s = r->s;
    if (s->nrows == r->rows_cap) {
        int cap = r->rows_cap ? 2 * r->rows_cap : 256;
        mp_ncu_source_row *rows = realloc(s->rows, (size_t)cap * sizeof *rows);
        if (!rows) {
            fail(r, "out of memory");
            return;
        }
        s->rows = rows;
        r->rows_cap = cap;
    }
    row.kernel = strdup(kernel);
    row.source = dup_trimmed(r->col_source >= 0 ? r->cells[r->col_source] : "");
    if (!row.kernel || !row.source) {
        free(row.kernel);
        free(row.source);
        fail(r, "out of memory");
        return;
    }
    s->rows[s->nrows++] = row;
}

static void on_record(int c, void *ctx)
{
    (void)c;
    reader *r = ctx;
    if (!r->failed && r->ncells > 0) {
        int blank = r->ncells == 1 && !r->cells[0][0];
        if (blank) {
            /* an empty line */
        } else if (!strcmp(r->cells[0], "Kernel Name") && r->ncells >= 2
                   && find(r, "Address") < 0) {
            free(r->kernel);
            r->kernel = strdup(r->cells[1]);
            r->started = 1;
            r->have_header = 0;   /* a new table follows */
            if (!r->kernel)
                fail(r, "out of memory");
        } else if (find(r, "Address") >= 0 && find(r, "Source") >= 0) {
            header(r);
        } else if (r->started) {
            data_row(r);
        }
        /* else: before the first table (the program's own output) */
    }
    for (int i = 0; i < r->ncells; i++)
        free(r->cells[i]);
    r->ncells = 0;
}

int mp_ncu_source_parse(const char *buf, size_t len, const char *name,
                        mp_ncu_source *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    reader r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.name = name;
    r.err = err;
    r.errlen = errlen;
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_APPEND_NULL) != 0) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    size_t pos = 0;
    long line = 0;
    int in_quotes = 0;
    if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
        pos = 3;
    while (pos < len && !r.failed) {
        const char *l = buf + pos;
        const char *nl = memchr(l, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - l) + 1 : len - pos;
        pos += n;
        line++;
        if (!in_quotes) {
            if (n >= 2 && l[0] == '=' && l[1] == '=')
                continue;   /* ncu's own message */
            r.rec_line = line;
        }
        if (memchr(l, '\0', n)) {
            fail(&r, "NUL byte: not a text file");
            break;
        }
        for (size_t i = 0; i < n; i++)
            if (l[i] == '"')
                in_quotes = !in_quotes;
        if (csv_parse(&p, l, n, on_cell, on_record, &r) != n)
            fail(&r, "malformed CSV (%s)", csv_strerror(csv_error(&p)));
    }
    if (!r.failed && in_quotes)
        fail(&r, "a quote is still open at the end of the file");
    if (!r.failed)
        csv_fini(&p, on_cell, on_record, &r);
    csv_free(&p);
    if (!r.failed && r.table == 0) {
        r.rec_line = line;
        fail(&r, "no source table (a header with \"Address\" and "
             "\"Source\"); not ncu --page source --csv output?");
    }
    for (int i = 0; i < r.ncells; i++)
        free(r.cells[i]);
    free(r.cells);
    free(r.kernel);
    free(r.base_kernel);
    s->ntables = r.table;
    if (r.failed) {
        mp_ncu_source_free(s);
        return -1;
    }
    return 0;
}

int mp_ncu_source_read(const char *path, mp_ncu_source *s, char *err,
                       size_t errlen)
{
    memset(s, 0, sizeof *s);
    size_t len;
    char *buf = mp_read_file(path, &len, err, errlen);
    if (!buf)
        return -1;
    int rc = mp_ncu_source_parse(buf, len, path, s, err, errlen);
    free(buf);
    return rc;
}

void mp_ncu_source_free(mp_ncu_source *s)
{
    for (int i = 0; i < s->nrows; i++) {
        free(s->rows[i].kernel);
        free(s->rows[i].source);
    }
    free(s->rows);
    memset(s, 0, sizeof *s);
}
