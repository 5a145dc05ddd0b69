/*
 * csv_table.c - reads a CSV file, memprobe's own or Nsight Compute's
 * `--csv --page raw` output, into a table of raw cells, and converts
 * number text, ncu's included (see csv_table.h).
 *
 * CSV syntax is left to libcsv in strict mode. What this file adds is the
 * line layer around it: the input is fed to libcsv one physical line at a
 * time so that ncu's "==PROF==" lines (which are not CSV) can be dropped
 * before libcsv sees them, and so that errors can name a line. A line can
 * only be such a message when it starts a record, i.e. when the text fed so
 * far has no quote left open; in strict mode libcsv accepts a quote only
 * where it opens or closes a quoted cell (or doubled inside one), so the
 * parity of the quotes fed so far tells exactly whether we are inside one.
 */
#include "csv_table.h"
#include "check.h"
#include "row.h"

#include <csv.h>   /* libcsv (memprobe's own writer is csv_writer.h) */

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* Caps that keep a hostile file from overflowing an int. */
#define MAX_COLS (1 << 20)
#define MAX_ROWS INT_MAX
/* Longest number text accepted (ncu's are under 30 characters). */
#define MAX_NUMBER 256
/* How much of an ncu "==ERROR==" line is quoted in a "no header" error. */
#define MAX_MSG 160



/* ------------------------------------------------------------------ */
/* Table storage                                                      */

static void free_strings(char **v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void mp_csv_free(mp_csv_table *t)
{
    if (!t)
        return;
    for (int r = 0; r < t->nrows; r++)
        free_strings(t->cells[r], t->ncols);
    free(t->cells);
    free_strings(t->header, t->ncols);
    free_strings(t->units, t->ncols);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ */
/* libcsv callbacks: collect the cells of one record, then file it     */

enum expect { EXPECT_HEADER, EXPECT_UNITS, EXPECT_DATA };

typedef struct {
    mp_csv_table *t;
    const char *name;    /* file name for messages */
    char **rec;          /* cells of the record being read */
    int nrec, caprec;
    int rowcap;          /* allocated length of t->cells */
    long line;           /* physical line being fed to libcsv */
    long rec_line;       /* line where the current record began */
    enum expect expect;
    int plain;           /* plain CSV: first line is the header, no units */
    int failed;          /* set once; later callbacks do nothing */
    char *err;
    size_t errlen;
} builder;

static void fail(builder *b, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records the first error as "<name>:<line>: <text>" (no line if 0). */
static void fail(builder *b, long line, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    if (b->failed)
        return;
    b->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        mp_reason(b->err, b->errlen, "%s:%ld: %s", b->name, line, msg);
    else
        mp_reason(b->err, b->errlen, "%s: %s", b->name, msg);
}

static void drop_record(builder *b)
{
    for (int i = 0; i < b->nrec; i++)
        free(b->rec[i]);
    b->nrec = 0;
}

/* Hands the current record's cells over as a malloc'd array (exactly
 * nrec long) and starts an empty record. NULL on out of memory. */
static char **take_record(builder *b)
{
    char **v = malloc((size_t)b->nrec * sizeof *v);
    if (!v)
        return NULL;
    memcpy(v, b->rec, (size_t)b->nrec * sizeof *v);
    b->nrec = 0;
    return v;
}

/* cb1: one cell of len bytes ended (s may be NULL when len is 0). */
static void on_cell(void *s, size_t len, void *data)
{
    builder *b = data;
    if (b->failed)
        return;
    if (b->nrec == b->caprec) {
        if (b->caprec >= MAX_COLS) {
            fail(b, b->rec_line, "row has more than %d cells", MAX_COLS);
            return;
        }
        int cap = b->caprec ? b->caprec * 2 : 64;
        char **v = realloc(b->rec, (size_t)cap * sizeof *v);
        if (!v) {
            fail(b, b->rec_line, "out of memory");
            return;
        }
        b->rec = v;
        b->caprec = cap;
    }
    char *cell = malloc(len + 1);
    if (!cell) {
        fail(b, b->rec_line, "out of memory");
        return;
    }
    if (len)
        memcpy(cell, s, len);
    cell[len] = '\0';
    b->rec[b->nrec++] = cell;
}

static int same_as_header(const builder *b)
{
    if (b->nrec != b->t->ncols)
        return 0;
    for (int i = 0; i < b->nrec; i++)
        if (strcmp(b->rec[i], b->t->header[i]) != 0)
            return 0;
    return 1;
}

static void add_data_row(builder *b)
{
    mp_csv_table *t = b->t;
    if (t->nrows == b->rowcap) {
        if (b->rowcap > MAX_ROWS / 2) {
            fail(b, b->rec_line, "too many rows");
            return;
        }
        int cap = b->rowcap ? b->rowcap * 2 : 16;
        char ***v = realloc(t->cells, (size_t)cap * sizeof *v);
        if (!v) {
            fail(b, b->rec_line, "out of memory");
            return;
        }
        t->cells = v;
        b->rowcap = cap;
    }
    char **row = take_record(b);
    if (!row) {
        fail(b, b->rec_line, "out of memory");
        return;
    }
    t->cells[t->nrows++] = row;
}

/* cb2: the record ended (c is its terminator, or -1 at end of input). */
static void on_record(int c, void *data)
{
    builder *b = data;
    mp_csv_table *t = b->t;
    (void)c;
    if (b->failed || b->nrec == 0)
        goto done;

    if (b->expect == EXPECT_HEADER) {
        /* The line layer starts feeding at a line beginning "ID", but
         * libcsv has the last word on what the first cell is. */
        if (!b->plain && strcmp(b->rec[0], "ID") != 0) {
            fail(b, b->rec_line, "header's first cell is \"%.40s\", not \"ID\"",
                 b->rec[0]);
            goto done;
        }
        t->ncols = b->nrec;
        t->header = take_record(b);
        if (!t->header) {
            t->ncols = 0;
            fail(b, b->rec_line, "out of memory");
        }
        b->expect = b->plain ? EXPECT_DATA : EXPECT_UNITS;
        goto done;
    }
    if (b->nrec != t->ncols) {
        fail(b, b->rec_line, "row has %d cells, header has %d", b->nrec,
             t->ncols);
        goto done;
    }
    if (b->expect == EXPECT_UNITS && b->rec[0][0] == '\0') {
        /* Units row: data rows always have an ID. Keep the first block's. */
        if (!t->units) {
            t->units = take_record(b);
            if (!t->units)
                fail(b, b->rec_line, "out of memory");
        }
        b->expect = EXPECT_DATA;
        goto done;
    }
    if (!b->plain && strcmp(b->rec[0], "ID") == 0) {
        /* Another header block (ncu prints one per profiled process). */
        if (!same_as_header(b))
            fail(b, b->rec_line,
                 "second header block differs from the first one");
        b->expect = EXPECT_UNITS;
        goto done;
    }
    b->expect = EXPECT_DATA;
    add_data_row(b);
done:
    drop_record(b);
}

/* ------------------------------------------------------------------ */
/* Line layer                                                         */

static int starts_with(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

/* Is this physical line (n bytes, possibly ending in "\r\n" or "\n") the
 * start of ncu's header: first cell ID, quoted or not? */
static int is_header_line(const char *s, size_t n)
{
    size_t k;
    if (starts_with(s, n, "\"ID\""))
        k = 4;
    else if (starts_with(s, n, "ID"))
        k = 2;
    else
        return 0;
    return k == n || s[k] == ',' || s[k] == '\r' || s[k] == '\n';
}

/* An ncu message line ("==..."): the first ==ERROR== line, else the first
 * ==WARNING==, is kept in msg (rank 2 or 1 in *msg_rank) to explain a
 * missing header. */
static void keep_message(const char *s, size_t n, char *msg, int *msg_rank)
{
    int rank = starts_with(s, n, "==ERROR==")     ? 2
               : starts_with(s, n, "==WARNING==") ? 1
                                                  : 0;
    if (rank > *msg_rank) {
        size_t k = 0;
        while (k < n && k < MAX_MSG && s[k] != '\r' && s[k] != '\n')
            k++;
        memcpy(msg, s, k);
        msg[k] = '\0';
        *msg_rank = rank;
    }
}

/* The end of the input: a quote left open, libcsv's last record, or no
 * header at all (with ncu's message, if one was kept) fail the table. */
static void finish_parse(builder *b, struct csv_parser *p, int in_quotes,
                         long quote_line, const char *msg)
{
    if (in_quotes)
        fail(b, quote_line, "quoted cell opened here is not closed at "
             "end of file");
    else if (csv_fini(p, on_cell, on_record, b) != 0)
        fail(b, b->line, "malformed CSV at end of file (%s)",
             csv_strerror(csv_error(p)));
    else if (!b->t->header) {
        if (b->plain)
            fail(b, 0, "no header line");
        else if (msg[0])
            fail(b, 0, "no ncu header (a line starting with \"ID\"); "
                 "ncu said: %s", msg);
        else
            fail(b, 0, "no ncu header (a line starting with \"ID\"); "
                 "not ncu --csv output?");
    }
}

/* The parse proper; on error returns -1 with the table partly built. */
static int parse(const char *buf, size_t len, builder *b)
{
    struct csv_parser p;
    int have_header = 0;   /* has the header line been fed? */
    int in_quotes = 0;     /* parity of the quotes fed so far */
    long quote_line = 0;   /* line of the quote left open, if any */
    char msg[MAX_MSG + 1] = "";  /* ncu's message for a "no header" error */
    int msg_rank = 0;      /* 2: msg is an ==ERROR== line, 1: ==WARNING== */
    size_t pos = 0;

    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        fail(b, 0, "out of memory");
        return -1;
    }
    /* A UTF-8 byte order mark is no part of the first line. */
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        pos = 3;

    while (pos < len && !b->failed) {
        const char *s = buf + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) + 1 : len - pos;
        pos += n;
        b->line++;

        if (memchr(s, '\0', n)) {
            fail(b, b->line, "NUL byte: not a text file");
            break;
        }
        if (!in_quotes) {
            /* At a record boundary: is this line ncu's message, or
             * (before the header) the application's output? */
            if (!b->plain && starts_with(s, n, "==")) {
                keep_message(s, n, msg, &msg_rank);
                continue;
            }
            if (!have_header) {
                int blank = n == 1 || (n == 2 && s[0] == '\r');
                if (b->plain ? blank : !is_header_line(s, n))
                    continue;
                have_header = 1;
            }
            b->rec_line = b->line;
        }
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '"') {
                in_quotes = !in_quotes;
                if (in_quotes)
                    quote_line = b->line;
            }
        }
        if (csv_parse(&p, s, n, on_cell, on_record, b) != n) {
            fail(b, b->line, "malformed CSV (%s)",
                 csv_strerror(csv_error(&p)));
            break;
        }
    }

    if (!b->failed)
        finish_parse(b, &p, in_quotes, quote_line, msg);
    csv_free(&p);
    return b->failed ? -1 : 0;
}

static int parse_table(const char *buf, size_t len, const char *name,
                       int plain, mp_csv_table *t, char *err, size_t errlen)
{
    builder b;
    if (!name)
        name = "(ncu csv)";
    if (!t || (!buf && len)) {
        mp_reason(err, errlen, "%s: no table or buffer given", name);
        return -1;
    }
    memset(t, 0, sizeof *t);
    memset(&b, 0, sizeof b);
    b.t = t;
    b.name = name;
    b.err = err;
    b.errlen = errlen;
    b.expect = EXPECT_HEADER;
    b.plain = plain;

    if (len == 0) {
        fail(&b, 0, "empty file");
    } else {
        parse(buf, len, &b);
    }
    drop_record(&b);
    free(b.rec);
    if (b.failed) {
        mp_csv_free(t);
        return -1;
    }
    /* No units row printed: give every column an empty unit. */
    if (!t->units) {
        t->units = calloc((size_t)t->ncols, sizeof *t->units);
        for (int i = 0; t->units && i < t->ncols; i++) {
            t->units[i] = calloc(1, 1);
            if (!t->units[i]) {
                mp_reason(err, errlen, "%s: out of memory", name);
                mp_csv_free(t);  /* frees the unit strings made so far */
                return -1;
            }
        }
        if (!t->units) {
            mp_reason(err, errlen, "%s: out of memory", name);
            mp_csv_free(t);
            return -1;
        }
    }
    return 0;
}

int mp_ncu_parse(const char *buf, size_t len, const char *name,
                 mp_csv_table *t, char *err, size_t errlen)
{
    return parse_table(buf, len, name ? name : "(ncu csv)", 0, t, err,
                       errlen);
}

static int read_table(const char *path, int plain, mp_csv_table *t,
                      char *err, size_t errlen)
{
    FILE *f;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc;

    if (t)
        memset(t, 0, sizeof *t);
    if (!path || !t) {
        mp_reason(err, errlen, "ncu csv: no path or table given");
        return -1;
    }
    f = fopen(path, "rb");
    if (!f) {
        mp_reason(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    /* Read in chunks: works for pipes and /dev/stdin as well. */
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) {
                mp_reason(err, errlen, "%s: out of memory", path);
                free(buf);
                fclose(f);
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        mp_reason(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    rc = parse_table(buf, len, path, plain, t, err, errlen);
    free(buf);
    return rc;
}

int mp_ncu_read(const char *path, mp_csv_table *t, char *err, size_t errlen)
{
    return read_table(path, 0, t, err, errlen);
}

/* Every cell of a column that holds numbers (row.h's rule for its name)
 * is empty or such a number: -1 with the file, row and column named at
 * the first that is not ("nan", "inf", text, -5 where only >= 0 can be). */
static int check_values(const char *path, const mp_csv_table *t, char *err,
                        size_t errlen)
{
    for (int c = 0; c < t->ncols; c++) {
        mp_value_rule rule = mp_schema_value_rule(t->header[c]);
        if (rule == MP_VALUE_ANY)
            continue;
        for (int r = 0; r < t->nrows; r++) {
            const char *cell = t->cells[r][c];
            double v;
            if (!cell[0])
                continue;   /* not measured */
            int bad = mp_csv_parse_number(cell, &v) != 0;
            if (bad || (rule == MP_VALUE_NONNEG && v < 0)) {
                mp_reason(err, errlen, "%s: data row %d, column %s: '%.40s' "
                          "is %s", path, r + 1, t->header[c], cell,
                          bad ? "not a finite number"
                              : "negative, which this column cannot be");
                return -1;
            }
        }
    }
    return 0;
}

int mp_csv_table_read(const char *path, mp_csv_table *t, char *err,
                      size_t errlen)
{
    if (read_table(path, 1, t, err, errlen))
        return -1;
    if (check_values(path, t, err, errlen)) {
        mp_csv_free(t);
        return -1;
    }
    return 0;
}

int mp_table_read_or_say(mp_table_reader read, const char *path,
                         mp_csv_table *t, const char *who)
{
    char err[1024];
    if (read(path, t, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "memprobe: %s: %s\n", who, err);
    return -1;
}

/* ------------------------------------------------------------------ */
/* Lookups                                                            */

int mp_csv_column(const mp_csv_table *t, const char *name)
{
    if (!t || !name || !t->header)
        return -1;
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->header[i], name) == 0)
            return i;
    return -1;
}

int mp_csv_need_column(const mp_csv_table *t, const char *name,
                       const char *who, char *err, size_t errlen)
{
    int c = mp_csv_column(t, name);
    if (c < 0)
        mp_reason(err, errlen, "%s: no column %s", who, name);
    return c;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int mp_csv_parse_number(const char *text, double *out)
{
    char buf[MAX_NUMBER + 1];  /* text without separators, for strtod */
    size_t n = 0;
    const char *s = text;
    int int_digits = 0, frac_digits = 0;
    int grouped = 0;  /* saw a thousands separator */
    int run = 0;      /* digits since the last separator */
    char point = '.';

#define PUT(c) do { if (n >= MAX_NUMBER) return -1; buf[n++] = (c); } while (0)
    if (!text || !out)
        return -1;
    /* strtod wants the C locale's decimal point; ncu always writes '.'. */
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] && !dp[1])
        point = dp[0];

    if (*s == '+' || *s == '-')
        PUT(*s++);
    /* Integer part: plain digits, or 1-3 digits then groups of ",ddd". */
    for (;; s++) {
        if (is_digit(*s)) {
            PUT(*s);
            run++;
            int_digits++;
        } else if (*s == ',') {
            if (grouped ? run != 3 : (run < 1 || run > 3))
                return -1;
            grouped = 1;
            run = 0;
        } else {
            break;
        }
    }
    if (grouped && run != 3)
        return -1;
    if (*s == '.') {
        s++;
        PUT(point);
        while (is_digit(*s)) {
            PUT(*s++);
            frac_digits++;
        }
    }
    if (int_digits + frac_digits == 0)
        return -1;
    if (*s == 'e' || *s == 'E') {
        int exp_digits = 0;
        PUT(*s++);
        if (*s == '+' || *s == '-')
            PUT(*s++);
        while (is_digit(*s)) {
            PUT(*s++);
            exp_digits++;
        }
        if (exp_digits == 0)
            return -1;
    }
    if (*s != '\0')
        return -1;
#undef PUT
    buf[n] = '\0';

    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + n || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int mp_csv_number(const mp_csv_table *t, int row, int col, double *out)
{
    if (!t || row < 0 || row >= t->nrows || col < 0 || col >= t->ncols)
        return -1;
    return mp_csv_parse_number(t->cells[row][col], out);
}
