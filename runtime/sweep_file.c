/*
 * sweep_file.c - reads sweep files and filters them against a result CSV
 * (see sweep_file.h and docs/sweep-files.md).
 *
 * inih (Debian's libinih) splits lines into sections, keys, values and
 * comments. It reads through our line reader, which numbers the lines
 * (inih's handler gets no line number), stops at the first error, and
 * notes where each [section] starts: inih reports only keys, so it cannot
 * tell an empty section or a repeated [bank] from a continuation of the
 * previous one. The reader also drops each line's leading blanks, so an
 * indented line is an ordinary line and never inih's multi-line
 * continuation of a value.
 */
#include "sweep_file.h"

#include <ini.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "csv_table.h"
#include "row.h"

/* The run options a section may set: warmup and runs, checked by the same
 * definitions as the command line's (runner.h). */
enum { RUN_WARMUP, RUN_RUNS, RUN_COUNT };
static const mp_param_def *const run_defs[RUN_COUNT] = {
    [RUN_WARMUP] = &mp_run_option_defs[MP_OPT_WARMUP],
    [RUN_RUNS] = &mp_run_option_defs[MP_OPT_RUNS],
};

/* The CSV columns that identify a configuration besides `config`: the
 * parameter columns a probe's describe() may fill. */
#define KEY_FIRST MP_COL_PROBE
#define KEY_LAST MP_COL_SHARED_BYTES

/* ---- errors ------------------------------------------------------------ */

typedef struct {
    mp_sweep *s;
    FILE *f;
    int line;                 /* the line the reader returned last */
    int err_line;             /* line of our first error; 0 = none */
    int failed;               /* an error (with or without a line) */
    char *err;
    size_t errlen;
    mp_sweep_section *cur;    /* where keys go; NULL before any section */
} parse_state;

/* Records the first error: "PATH:LINE: text" (line 0: "PATH: text"). */
static void fail_at(parse_state *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_at(parse_state *ps, int line, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    ps->err_line = line;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (line > 0)
        mp_reason(ps->err, ps->errlen, "%s:%d: %s", ps->s->path, line, text);
    else
        mp_reason(ps->err, ps->errlen, "%s: %s", ps->s->path, text);
}

/* ---- sections ---------------------------------------------------------- */

/* "bank, coalesce, ..." for error messages. */
static void probe_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; mp_probe_at(i) && used < len; i++)
        used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                         mp_probe_at(i)->name);
}

static int is_tag_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* A [header] line (leading blanks gone): starts a new section. */
static void start_section(parse_state *ps, char *text)
{
    char *end = strchr(text, ']');
    if (!end) {
        fail_at(ps, ps->line, "section header without ']'");
        return;
    }
    /* Only a comment may follow the header. */
    const char *rest = end + 1;
    rest += strspn(rest, " \t\r\n");
    if (*rest && *rest != ';' && *rest != '#') {
        int n = (int)strcspn(rest, "\r\n");
        fail_at(ps, ps->line, "unexpected text after the section header: "
                "'%.*s'", n < 40 ? n : 40, rest);
        return;
    }
    *end = '\0';
    const char *name = text + 1;
    char probe[64];
    size_t plen = strcspn(name, ".");
    if (strlen(name) >= sizeof probe || plen == 0) {
        fail_at(ps, ps->line, "section [%.60s]: expected [PROBE] or "
                "[PROBE.TAG]", name);
        return;
    }
    memcpy(probe, name, plen);
    probe[plen] = '\0';
    const mp_probe *p = mp_probe_find(probe);
    if (!p) {
        char names[256];
        probe_names(names, sizeof names);
        fail_at(ps, ps->line, "section [%s]: unknown probe '%s' (probes: "
                "%s)", name, probe, names);
        return;
    }
    if (name[plen] == '.') {
        const char *tag = name + plen + 1;
        int ok = *tag != '\0';
        for (const char *c = tag; *c; c++)
            ok &= is_tag_char(*c);
        if (!ok) {
            fail_at(ps, ps->line, "section [%s]: the tag after '%s.' must "
                    "be letters, digits, '_' or '-'", name, probe);
            return;
        }
    }
    mp_sweep *s = ps->s;
    mp_sweep_section *grown =
        realloc(s->sections, (size_t)(s->nsections + 1) * sizeof *grown);
    if (!grown) {
        fail_at(ps, ps->line, "out of memory");
        return;
    }
    s->sections = grown;
    mp_sweep_section *sec = &s->sections[s->nsections++];
    memset(sec, 0, sizeof *sec);
    snprintf(sec->name, sizeof sec->name, "%s", name);
    sec->line = ps->line;
    sec->probe = p;
    sec->warmup = MP_SWEEP_DEFAULT_WARMUP;
    sec->runs = MP_SWEEP_DEFAULT_RUNS;
    ps->cur = sec;
    *end = ']';   /* inih parses the line after us */
}

/* ---- inih callbacks ------------------------------------------------------ */

/* fgets for inih: numbers lines, drops leading blanks, sees headers, and
 * ends the input at the first error. */
static char *read_line(char *str, int num, void *stream)
{
    parse_state *ps = stream;
    if (ps->failed)
        return NULL;
    errno = 0;
    if (!fgets(str, num, ps->f)) {
        if (ferror(ps->f))
            fail_at(ps, 0, "cannot read: %s",
                    strerror(errno ? errno : EIO));
        return NULL;
    }
    ps->line++;
    size_t len = strlen(str);
    if (len + 1 == (size_t)num && str[len - 1] != '\n') {
        /* The buffer is full: the line goes on unless it ends here. */
        int c = getc(ps->f);
        if (c != EOF && c != '\n') {
            fail_at(ps, ps->line, "line longer than %d characters", num - 1);
            return NULL;
        }
    }
    /* Drop a UTF-8 byte-order mark and the leading blanks. */
    size_t skip = 0;
    if (ps->line == 1 && len >= 3 && (unsigned char)str[0] == 0xEF
        && (unsigned char)str[1] == 0xBB && (unsigned char)str[2] == 0xBF)
        skip = 3;
    skip += strspn(str + skip, " \t");
    if (skip)
        memmove(str, str + skip, len - skip + 1);
    if (str[0] == '[')
        start_section(ps, str);
    return ps->failed ? NULL : str;
}

/* Copies value without blanks ("4, 8, 16" -> "4,8,16") and without a
 * trailing '#' comment (inih ends values only at " ;"). */
static void strip_blanks(const char *value, char *out, size_t len)
{
    size_t n = 0;
    for (const char *c = value; *c && *c != '#' && n + 1 < len; c++)
        if (*c != ' ' && *c != '\t')
            out[n++] = *c;
    out[n] = '\0';
}

static void unknown_key(parse_state *ps, const char *name)
{
    const mp_sweep_section *sec = ps->cur;
    char known[512];
    size_t used = 0;
    known[0] = '\0';
    for (int i = 0; i < sec->probe->nparams && used < sizeof known; i++)
        used += snprintf(known + used, sizeof known - used, "%s%s",
                         i ? ", " : "", sec->probe->params[i].name);
    fail_at(ps, ps->line, "[%s]: unknown key '%s' (%s parameters: %s; run "
            "options: warmup, runs)", sec->name, name, sec->probe->name,
            known);
}

/* One key = value of the current section. */
static int on_key(void *user, const char *section, const char *name,
                  const char *value)
{
    parse_state *ps = user;
    (void)section;   /* the reader knows the section, repeated ones too */
    if (ps->failed)
        return 0;
    if (!ps->cur) {
        fail_at(ps, ps->line, "key '%s' before the first [PROBE] section",
                name);
        return 0;
    }
    mp_sweep_section *sec = ps->cur;
    char text[512], why[512];
    strip_blanks(value, text, sizeof text);

    int k = mp_param_find(sec->probe->params, sec->probe->nparams, name);
    if (k >= 0) {
        if (sec->key_line[k]) {
            fail_at(ps, ps->line, "[%s]: key '%s' given twice (first on "
                    "line %d)", sec->name, name, sec->key_line[k]);
            return 0;
        }
        sec->lists[k] = malloc(sizeof *sec->lists[k]);
        if (!sec->lists[k]) {
            fail_at(ps, ps->line, "out of memory");
            return 0;
        }
        sec->key_line[k] = ps->line;
        if (mp_param_parse_list(&sec->probe->params[k], text, sec->lists[k],
                                why, sizeof why)) {
            fail_at(ps, ps->line, "%s", why);
            return 0;
        }
        return 1;
    }
    int r = !strcmp(name, "warmup") ? RUN_WARMUP
            : !strcmp(name, "runs") ? RUN_RUNS : -1;
    if (r < 0) {
        unknown_key(ps, name);
        return 0;
    }
    int *line = r == RUN_WARMUP ? &sec->warmup_line : &sec->runs_line;
    if (*line) {
        fail_at(ps, ps->line, "[%s]: key '%s' given twice (first on line "
                "%d)", sec->name, name, *line);
        return 0;
    }
    *line = ps->line;
    long long v;
    if (mp_param_parse_value(run_defs[r], text, &v, why, sizeof why)) {
        fail_at(ps, ps->line, "%s", why);
        return 0;
    }
    if (r == RUN_WARMUP)
        sec->warmup = (int)v;
    else
        sec->runs = (int)v;
    return 1;
}

/* ---- after parsing: expand, check, drop repeats -------------------------- */

/* The line an error of the probe's check belongs to: the key its message
 * names ("--pad: ..."), else the section header. */
static int line_of_message(const mp_sweep_section *sec, const char *msg)
{
    if (strncmp(msg, "--", 2) != 0)
        return sec->line;
    size_t n = strcspn(msg + 2, ": ");
    for (int k = 0; k < sec->probe->nparams; k++)
        if (strlen(sec->probe->params[k].name) == n
            && strncmp(sec->probe->params[k].name, msg + 2, n) == 0
            && sec->key_line[k])
            return sec->key_line[k];
    return sec->line;
}

static int expand_and_check(parse_state *ps)
{
    mp_sweep *s = ps->s;
    long long total = 0;
    char why[512], label[128];
    for (int i = 0; i < s->nsections; i++) {
        mp_sweep_section *sec = &s->sections[i];
        if (mp_configs_expand(sec->probe, sec->lists, &sec->configs, why,
                              sizeof why)) {
            fail_at(ps, sec->line, "[%s]: %s", sec->name, why);
            return -1;
        }
        total += sec->configs.n;
        if (total > MP_MAX_CONFIGS) {
            fail_at(ps, sec->line, "[%s]: more than %d configurations in "
                    "one sweep", sec->name, MP_MAX_CONFIGS);
            return -1;
        }
        for (int c = 0; c < sec->configs.n; c++) {
            const long long *v = sec->configs.v[c];
            if (sec->probe->check(v, MP_SM90_SMEM_OPTIN, why, sizeof why)) {
                sec->probe->label(v, label, sizeof label);
                fail_at(ps, line_of_message(sec, why), "%s (configuration "
                        "%s of [%s])", why, label, sec->name);
                return -1;
            }
        }
    }
    s->total = (int)total;
    return 0;
}

/* Writes the cells describe() fills in the key columns into row. */
static void describe_key(const mp_probe *p, const long long *v, mp_row *row)
{
    mp_row_clear(row);
    p->describe(v, row);
}

/* "label|cell|cell|...|warmup|runs": configurations with equal keys are
 * written as rows --resume cannot tell apart. */
static char *key_string(const mp_probe *p, const long long *v, int warmup,
                        int runs, mp_row *row)
{
    char label[128];
    p->label(v, label, sizeof label);
    describe_key(p, v, row);
    size_t len = strlen(label) + 64;
    for (int c = KEY_FIRST; c <= KEY_LAST; c++)
        len += strlen(mp_row_get(row, c)) + 1;
    char *key = mp_xmalloc(len);
    size_t used = (size_t)snprintf(key, len, "%s", label);
    for (int c = KEY_FIRST; c <= KEY_LAST; c++)
        used += (size_t)snprintf(key + used, len - used, "\x1f%s",
                                 mp_row_get(row, c));
    snprintf(key + used, len - used, "\x1f%d\x1f%d", warmup, runs);
    return key;
}

typedef struct {
    char *key;
    int section, index;   /* where the configuration is */
    long long order;      /* position in the file */
} keyed;

static int by_key_then_order(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return (x->order > y->order) - (x->order < y->order);
}

/* Removes the configurations whose drop[] is set, keeping the order. */
static void compact(mp_config_list *cl, const unsigned char *drop)
{
    int n = 0;
    for (int c = 0; c < cl->n; c++)
        if (!drop[c]) {
            if (n != c)
                memcpy(cl->v[n], cl->v[c], sizeof cl->v[c]);
            n++;
        }
    cl->n = n;
}

/* Drops exact repeats of an earlier configuration, and notes in
 * s->ambiguous the first two different configurations that share a key. */
static void drop_repeats(mp_sweep *s)
{
    if (s->total == 0)
        return;
    mp_row row;
    keyed *all = mp_xcalloc((size_t)s->total, sizeof *all);
    unsigned char **drop = mp_xcalloc((size_t)s->nsections, sizeof *drop);
    if (mp_row_init(&row)) {
        fprintf(stderr, "memprobe: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    int n = 0;
    for (int i = 0; i < s->nsections; i++) {
        mp_sweep_section *sec = &s->sections[i];
        drop[i] = mp_xcalloc((size_t)sec->configs.n + 1, 1);
        for (int c = 0; c < sec->configs.n; c++, n++) {
            all[n].key = key_string(sec->probe, sec->configs.v[c],
                                    sec->warmup, sec->runs, &row);
            all[n].section = i;
            all[n].index = c;
            all[n].order = n;
        }
    }
    qsort(all, (size_t)n, sizeof *all, by_key_then_order);
    for (int a = 0, b; a < n; a = b) {
        const mp_sweep_section *first = &s->sections[all[a].section];
        const long long *v0 = first->configs.v[all[a].index];
        for (b = a + 1; b < n && strcmp(all[a].key, all[b].key) == 0; b++) {
            const mp_sweep_section *sec = &s->sections[all[b].section];
            const long long *v = sec->configs.v[all[b].index];
            if (sec->probe == first->probe && sec->warmup == first->warmup
                && sec->runs == first->runs
                && memcmp(v, v0, sizeof(long long) * (size_t)sec->probe->nparams)
                       == 0) {
                drop[all[b].section][all[b].index] = 1;
                s->duplicates++;
                continue;
            }
            /* Both run; only --resume cannot tell their rows apart. */
            if (!s->ambiguous[0]) {
                char label[128];
                sec->probe->label(v, label, sizeof label);
                snprintf(s->ambiguous, sizeof s->ambiguous, "%s:%d: "
                         "configuration %s of [%s] and one of [%s] (line %d) "
                         "differ only in values its CSV row does not show "
                         "(such as threads or blocks): their rows cannot be "
                         "told apart; put one of them in another sweep file",
                         s->path, sec->line, label, sec->name, first->name,
                         first->line);
            }
        }
    }
    for (int i = 0; i < n; i++)
        free(all[i].key);
    free(all);
    for (int i = 0; i < s->nsections; i++)
        compact(&s->sections[i].configs, drop[i]);
    for (int i = 0; i < s->nsections; i++)
        free(drop[i]);
    free(drop);
    mp_row_free(&row);
    s->total -= s->duplicates;
}

/* ---- reading --------------------------------------------------------- */

void mp_sweep_free(mp_sweep *s)
{
    for (int i = 0; i < s->nsections; i++) {
        mp_sweep_section *sec = &s->sections[i];
        for (int k = 0; k < MP_MAX_PARAMS; k++)
            free(sec->lists[k]);
        mp_configs_free(&sec->configs);
    }
    free(s->sections);
    free(s->path);
    memset(s, 0, sizeof *s);
}

int mp_sweep_read(const char *path, mp_sweep *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->path = strdup(path);
    if (!s->path) {
        mp_reason(err, errlen, "%s: out of memory", path);
        return -1;
    }
    parse_state ps = {.s = s, .err = err, .errlen = errlen};
    ps.f = fopen(path, "r");
    if (!ps.f) {
        fail_at(&ps, 0, "cannot open: %s", strerror(errno));
        mp_sweep_free(s);
        return -1;
    }
    int rc = ini_parse_stream(read_line, &ps, on_key, &ps);
    fclose(ps.f);
    if (rc > 0 && (!ps.failed || (ps.err_line > 0 && rc < ps.err_line))) {
        /* inih's own complaint, on a line before any of ours. */
        ps.failed = 0;
        fail_at(&ps, rc, "expected [PROBE], [PROBE.TAG] or key = value");
    } else if (rc < 0 && !ps.failed) {
        fail_at(&ps, 0, "cannot parse (inih error %d)", rc);
    }
    if (!ps.failed && s->nsections == 0)
        fail_at(&ps, 0, "no [PROBE] section: nothing to run");
    if (!ps.failed)
        expand_and_check(&ps);
    if (!ps.failed)
        drop_repeats(s);
    if (ps.failed) {
        mp_sweep_free(s);
        return -1;
    }
    return 0;
}

/* ---- --resume ------------------------------------------------------------ */

typedef struct {
    const char *config;
    int row;
} done_row;

static int by_config(const void *a, const void *b)
{
    return strcmp(((const done_row *)a)->config,
                  ((const done_row *)b)->config);
}

/* 0 when the file's last byte is a line feed (or it is empty), else -1. */
static int ends_with_newline(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mp_reason(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int ok = fseek(f, -1, SEEK_END) != 0 || fgetc(f) == '\n';
    fclose(f);
    if (!ok)
        mp_reason(err, errlen, "%s: the last line has no line end (an "
                  "interrupted write?); remove or complete it, then resume",
                  path);
    return ok ? 0 : -1;
}

/* Does row r of t record configuration v (key cells in `want`)? */
static int row_matches(const mp_csv_table *t, int r, const mp_row *want,
                       int warmup, int runs)
{
    char text[32];
    snprintf(text, sizeof text, "%d", warmup);
    if (strcmp(t->cells[r][MP_COL_WARMUP], text) != 0)
        return 0;
    snprintf(text, sizeof text, "%d", runs);
    if (strcmp(t->cells[r][MP_COL_RUNS], text) != 0)
        return 0;
    for (int c = KEY_FIRST; c <= KEY_LAST; c++) {
        const char *cell = mp_row_get(want, c);
        if (cell[0] && strcmp(t->cells[r][c], cell) != 0)
            return 0;
    }
    return 1;
}

int mp_sweep_resume(mp_sweep *s, const char *csv_path, char *err,
                    size_t errlen)
{
    if (s->ambiguous[0]) {
        mp_reason(err, errlen, "%s", s->ambiguous);
        return -1;
    }
    struct stat st;
    if (stat(csv_path, &st) != 0) {
        if (errno == ENOENT)
            return 0;   /* nothing measured yet */
        mp_reason(err, errlen, "%s: %s", csv_path, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode) && st.st_size == 0)
        return 0;
    if (ends_with_newline(csv_path, err, errlen))
        return -1;
    mp_csv_table t;
    if (mp_csv_table_read(csv_path, &t, err, errlen))
        return -1;
    int ncols = mp_schema_columns();
    int same = t.ncols == ncols;
    for (int i = 0; same && i < ncols; i++)
        same = strcmp(t.header[i], mp_schema_name(i)) == 0;
    if (!same) {
        mp_reason(err, errlen, "%s: its header is not this memprobe's "
                  "columns (memprobe columns): --resume needs the file this "
                  "sweep writes", csv_path);
        mp_csv_free(&t);
        return -1;
    }

    /* The verified rows, sorted by configuration name. */
    done_row *rows = mp_xcalloc((size_t)t.nrows + 1, sizeof *rows);
    int n = 0;
    for (int r = 0; r < t.nrows; r++)
        if (strcmp(t.cells[r][MP_COL_VERIFIED], "yes") == 0) {
            rows[n].config = t.cells[r][MP_COL_CONFIG];
            rows[n].row = r;
            n++;
        }
    qsort(rows, (size_t)n, sizeof *rows, by_config);

    mp_row want;
    if (mp_row_init(&want)) {
        fprintf(stderr, "memprobe: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    for (int i = 0; i < s->nsections; i++) {
        mp_sweep_section *sec = &s->sections[i];
        unsigned char *drop = mp_xcalloc((size_t)sec->configs.n + 1, 1);
        for (int c = 0; c < sec->configs.n; c++) {
            char label[128];
            sec->probe->label(sec->configs.v[c], label, sizeof label);
            done_row probe_key = {label, 0};
            done_row *hit = bsearch(&probe_key, rows, (size_t)n, sizeof *rows,
                                    by_config);
            if (!hit)
                continue;
            /* bsearch found one of possibly several: go to the first. */
            while (hit > rows && strcmp(hit[-1].config, label) == 0)
                hit--;
            describe_key(sec->probe, sec->configs.v[c], &want);
            for (; hit < rows + n && strcmp(hit->config, label) == 0; hit++)
                if (row_matches(&t, hit->row, &want, sec->warmup,
                                sec->runs)) {
                    drop[c] = 1;
                    s->resumed++;
                    s->total--;
                    break;
                }
        }
        compact(&sec->configs, drop);
        free(drop);
    }
    mp_row_free(&want);
    free(rows);
    mp_csv_free(&t);
    return 0;
}

void mp_sweep_shard(mp_sweep *s, int k, int n)
{
    int g = 0;
    s->total = 0;
    for (int i = 0; i < s->nsections; i++) {
        mp_config_list *cl = &s->sections[i].configs;
        int kept = 0;
        for (int c = 0; c < cl->n; c++, g++)
            if (g % n == k) {
                if (kept != c)
                    memcpy(cl->v[kept], cl->v[c], sizeof cl->v[c]);
                kept++;
            }
        cl->n = kept;
        s->total += kept;
    }
}

int mp_shard_parse(const char *text, const char *what, int *k, int *n,
                   char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long a = strtol(text, &end, 10);
    if (end == text || *end != '/' || errno) {
        snprintf(err, errlen, "%s: '%s' is not K/N (shard K of N, K from 0)",
                 what, text);
        return -1;
    }
    const char *rest = end + 1;
    long b = strtol(rest, &end, 10);
    if (end == rest || *end || errno) {
        snprintf(err, errlen, "%s: '%s' is not K/N (shard K of N, K from 0)",
                 what, text);
        return -1;
    }
    if (b < 1 || b > 4096 || a < 0 || a >= b) {
        snprintf(err, errlen, "%s: shard %ld of %ld: need 0 <= K < N <= 4096",
                 what, a, b);
        return -1;
    }
    *k = (int)a;
    *n = (int)b;
    return 0;
}
