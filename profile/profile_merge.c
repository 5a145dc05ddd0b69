/*
 * profile_merge.c - the merge of the raw files that the injection library
 * wrote for each process (docs/profile-design.md, "Raw files") into the
 * launches and instruction lines of profile.csv and profile-lines.csv
 * (profile_csv.h): status, launches, lines, kernels, modules and their
 * origins, each launch's split into loads and stores; which cubins'
 * opcodes to read (profile_opcodes.c reads them).
 */
#include "profile_csv.h"
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
#include "profile_origin.h"
#include "raw.h"
#include "report.h"
#include "stats.h"
#include "subprocess.h"

/* ---- reading CSV tables ---------------------------------------------- */

/* Column `name` of t, or -1 with a reason. */

/* A raw file of a process that may have died while writing: what follows
 * the last newline is dropped (the file is the raw directory's, memprobe's
 * own). An empty file has no rows: 1; read: 0; error: -1. */
static int read_raw(const char *path, mp_csv_table *t, char *err,
                    size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f) {
        mp_reason(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    long last_nl = -1, pos = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (c == '\n')
            last_nl = pos;
        pos++;
    }
    fclose(f);
    if (last_nl < 0)
        return 1;   /* not even a whole header */
    if (last_nl + 1 < pos && truncate(path, last_nl + 1)) {
        mp_reason(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return mp_csv_table_read(path, t, err, errlen) ? -1 : 0;
}

/* ---- raw files: status ----------------------------------------------- */

/* "cost NAME COUNT SECONDS ... records R" (MP_RAW_KEY_COST) added to st;
 * a malformed line is ignored. */
static void read_cost(char *val, mp_prof_status *st)
{
#define PC_NAME(id, name) name,
    static const char *const names[MP_PC_N] = {MP_RAW_COST_FIELDS(PC_NAME)};
#undef PC_NAME
    mp_u64 n[MP_PC_N], records;
    double sec[MP_PC_N];
    char *save = NULL;
    for (int k = 0; k < MP_PC_N; k++) {
        char *name = strtok_r(k ? NULL : val, " ", &save);
        char *cnt = strtok_r(NULL, " ", &save);
        char *secs = strtok_r(NULL, " ", &save), *end;
        if (!name || !cnt || !secs || strcmp(name, names[k])
            || mp_prof_parse_u64(cnt, &n[k]))
            return;
        sec[k] = strtod(secs, &end);
        if (*end)
            return;
    }
    char *name = strtok_r(NULL, " ", &save);
    char *cnt = strtok_r(NULL, " ", &save);
    if (!name || !cnt || strcmp(name, "records") || mp_prof_parse_u64(cnt, &records))
        return;
    st->has_cost = 1;
    st->records += records;
    for (int k = 0; k < MP_PC_N; k++) {
        st->cost_n[k] += n[k];
        st->cost_s[k] += sec[k];
    }
}

static void read_status(const char *path, const char *pid,
                        mp_prof_status *st)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    st->nstatus++;
    mp_u64 seen = 0, profiled = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *val = strchr(line, ' ');
        if (val)
            *val++ = '\0';
        else
            val = line + strlen(line);
        mp_u64 v;
        if (!strcmp(line, "error")) {
            if (!st->nerrors++)
                snprintf(st->error, sizeof st->error, "%s (pid %s)", val,
                         pid);
        } else if (!strcmp(line, MP_RAW_KEY_COST)) {
            read_cost(val, st);
        } else if (!strcmp(line, "launches_seen") && !mp_prof_parse_u64(val, &v)) {
            seen = v;   /* the last one counts */
        } else if (!strcmp(line, "launches_profiled")
                   && !mp_prof_parse_u64(val, &v)) {
            profiled = v;
        }
    }
    fclose(f);
    st->seen += seen;
    st->profiled += profiled;
}

/* ---- raw files: launches and lines ----------------------------------- */

#define RAW_ID(id, name) RL_##id,
enum { MP_RAW_LAUNCH_COLS(RAW_ID) RL_N };
#undef RAW_ID
#define RAW_ID(id, name) RI_##id,
enum { MP_RAW_LINE_COLS(RAW_ID) RI_N };
#undef RAW_ID
#define RAW_NAME(id, name) name,
static const char *const raw_launch_names[RL_N] = {
    MP_RAW_LAUNCH_COLS(RAW_NAME)};
static const char *const raw_line_names[RI_N] = {MP_RAW_LINE_COLS(RAW_NAME)};
#undef RAW_NAME

/* The columns `names` (n) and the five metrics of t into idx. */
static int map_cols(const mp_csv_table *t, const char *path,
                    const char *const *names, int n, int metrics, int *idx,
                    char *err, size_t errlen)
{
    for (int k = 0; k < n + (metrics ? MP_PM_N : 0); k++) {
        const char *name = k < n ? names[k] : mp_prof_metric_name(k - n);
        idx[k] = mp_prof_need_col(t, path, name, err, errlen);
        if (idx[k] < 0)
            return -1;
    }
    return 0;
}

/* A raw file read and its columns (names, n, then the metrics when
 * `metrics`) found: 0 (free t), 1 nothing in it yet, -1 with err. */
static int open_raw(const char *path, const char *const *names, int n,
                    int metrics, mp_csv_table *t, int *idx, char *err,
                    size_t errlen)
{
    int rc = read_raw(path, t, err, errlen);
    if (rc)
        return rc;
    if (map_cols(t, path, names, n, metrics, idx, err, errlen)) {
        mp_csv_free(t);
        return -1;
    }
    return 0;
}

static int bad_cell(const char *path, int row, const char *col,
                    const char *cell, char *err, size_t errlen)
{
    mp_reason(err, errlen, "%s: data row %d, column %s: '%.40s' is not a "
              "count", path, row + 1, col, cell);
    return -1;
}

/* The metrics of row r into m. */
static int read_metrics(const mp_csv_table *t, const char *path, int r,
                        const int *idx, mp_u64 *m, char *err, size_t errlen)
{
    for (int k = 0; k < MP_PM_N; k++)
        if (mp_prof_parse_u64(t->cells[r][idx[k]], &m[k]))
            return bad_cell(path, r, mp_prof_metric_name(k), t->cells[r][idx[k]],
                            err, errlen);
    return 0;
}

static char *xyz(const mp_csv_table *t, int r, const int *idx, int first)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s,%s,%s", t->cells[r][idx[first]],
             t->cells[r][idx[first + 1]], t->cells[r][idx[first + 2]]);
    return mp_xstrdup(buf);
}

static int add_raw_launches(mp_prof_data *d, const char *path, char *err,
                            size_t errlen)
{
    mp_csv_table t;
    int idx[RL_N + MP_PM_N];
    int rc = open_raw(path, raw_launch_names, RL_N, 1, &t, idx, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    d->l = mp_xrealloc(d->l, (size_t)(d->nl + t.nrows) * sizeof *d->l);
    for (int r = 0; r < t.nrows; r++) {
        mp_prof_launch *l = &d->l[d->nl];
        memset(l, 0, sizeof *l);
        char **c = t.cells[r];
        if (mp_prof_parse_long(c[idx[RL_PID]], &l->pid)
            || mp_prof_parse_long(c[idx[RL_LAUNCH]], &l->launch)
            || mp_prof_parse_long(c[idx[RL_LAUNCHES]], &l->launches)) {
            mp_csv_free(&t);
            return bad_cell(path, r, "pid or launch", c[idx[RL_PID]], err,
                            errlen);
        }
        if (read_metrics(&t, path, r, idx + RL_N, l->m, err, errlen)) {
            mp_csv_free(&t);
            return -1;
        }
        l->mangled = mp_xstrdup(c[idx[RL_MANGLED]]);
        l->kernel = mp_prof_demangle(l->mangled);
        l->grid = xyz(&t, r, idx, RL_GRID_X);
        l->block = xyz(&t, r, idx, RL_BLOCK_X);
        l->dyn_shared = mp_xstrdup(c[idx[RL_DYN_SHARED]]);
        l->stream = mp_xstrdup(c[idx[RL_STREAM]]);
        l->nvtx = mp_xstrdup(c[idx[RL_NVTX]]);
        l->graph = mp_xstrdup(c[idx[RL_GRAPH]]);
        l->line_counts = mp_xstrdup(c[idx[RL_LINE_COUNTS]]);
        l->why = mp_xstrdup(c[idx[RL_WHY]]);
        d->nl++;
    }
    mp_csv_free(&t);
    return 0;
}

/* ---- raw files: kernels (launches seen and profiled) ----------------- */

#define RAW_ID(id, name) RK_##id,
enum { MP_RAW_KERNEL_COLS(RAW_ID) RK_N };
#undef RAW_ID

typedef struct {
    long pid;
    char *mangled, *grid, *block, *seen, *profiled;
} raw_kernel;

typedef struct {
    raw_kernel *v;
    int n;
} raw_kernels;

static int add_raw_kernels(raw_kernels *k, const char *path, char *err,
                           size_t errlen)
{
#define RAW_NAME(id, name) name,
    static const char *const names[RK_N] = {MP_RAW_KERNEL_COLS(RAW_NAME)};
#undef RAW_NAME
    mp_csv_table t;
    int idx[RK_N];
    int rc = open_raw(path, names, RK_N, 0, &t, idx, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    k->v = mp_xrealloc(k->v, (size_t)(k->n + t.nrows) * sizeof *k->v);
    for (int r = 0; r < t.nrows; r++) {
        raw_kernel *x = &k->v[k->n];
        char **c = t.cells[r];
        mp_u64 v;
        if (mp_prof_parse_long(c[idx[RK_PID]], &x->pid)
            || mp_prof_parse_u64(c[idx[RK_SEEN]], &v)
            || mp_prof_parse_u64(c[idx[RK_PROFILED]], &v)) {
            mp_csv_free(&t);
            return bad_cell(path, r, "pid or launches", c[idx[RK_PID]], err,
                            errlen);
        }
        x->mangled = mp_xstrdup(c[idx[RK_MANGLED]]);
        x->grid = xyz(&t, r, idx, RK_GRID_X);
        x->block = xyz(&t, r, idx, RK_BLOCK_X);
        x->seen = mp_xstrdup(c[idx[RK_SEEN]]);
        x->profiled = mp_xstrdup(c[idx[RK_PROFILED]]);
        k->n++;
    }
    mp_csv_free(&t);
    return 0;
}

/* raw kernels by pid, mangled name, grid and block */
static int cmp_raw_kernel(const void *a, const void *b)
{
    const raw_kernel *x = a, *y = b;
    int c;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if ((c = strcmp(x->mangled, y->mangled)) || (c = strcmp(x->grid, y->grid)))
        return c;
    return strcmp(x->block, y->block);
}

/* Each launch row gets its kernel's launches seen and profiled (a graph's
 * kernels none: the library counts the graph). Frees k. */
static void join_kernels(mp_prof_data *d, raw_kernels *k)
{
    mp_sort(k->v, (size_t)k->n, sizeof *k->v, cmp_raw_kernel);
    for (int r = 0; r < d->nl; r++) {
        mp_prof_launch *l = &d->l[r];
        const raw_kernel key = {.pid = l->pid, .mangled = l->mangled,
                                .grid = l->grid, .block = l->block};
        const raw_kernel *hit = k->n && strcmp(l->graph, "1")
            ? bsearch(&key, k->v, (size_t)k->n, sizeof *k->v, cmp_raw_kernel)
            : NULL;
        l->seen = mp_xstrdup(hit ? hit->seen : "");
        l->profiled = mp_xstrdup(hit ? hit->profiled : "");
    }
    for (int j = 0; j < k->n; j++) {
        raw_kernel *x = &k->v[j];
        free(x->mangled), free(x->grid), free(x->block);
        free(x->seen), free(x->profiled);
    }
    free(k->v);
    memset(k, 0, sizeof *k);
}

static int add_raw_lines(mp_prof_data *d, const char *path, char *err,
                         size_t errlen)
{
    mp_csv_table t;
    int idx[RI_N + MP_PM_N];
    int rc = open_raw(path, raw_line_names, RI_N, 1, &t, idx, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    d->i = mp_xrealloc(d->i, (size_t)(d->ni + t.nrows) * sizeof *d->i);
    for (int r = 0; r < t.nrows; r++) {
        mp_prof_line *i = &d->i[d->ni];
        memset(i, 0, sizeof *i);
        char **c = t.cells[r];
        const char *bad = NULL;
        if (mp_prof_parse_long(c[idx[RI_PID]], &i->pid))
            bad = "pid";
        else if (mp_prof_parse_long(c[idx[RI_LINE]], &i->line))
            bad = "line";
        else if (mp_prof_parse_offset(c[idx[RI_PC_OFFSET]], &i->offset))
            bad = "pc_offset";
        else if (mp_prof_parse_long(c[idx[RI_FUNCTION_INDEX]], &i->fidx))
            bad = "function_index";
        else if (mp_prof_parse_u64(c[idx[RI_LAUNCHES]], &i->launches))
            bad = "launches";
        if (bad || read_metrics(&t, path, r, idx + RI_N, i->m, err, errlen)) {
            int k = !bad ? 0 : !strcmp(bad, "pid") ? RI_PID
                    : !strcmp(bad, "line") ? RI_LINE
                    : !strcmp(bad, "pc_offset") ? RI_PC_OFFSET
                    : !strcmp(bad, "function_index") ? RI_FUNCTION_INDEX
                    : RI_LAUNCHES;
            if (bad)
                bad_cell(path, r, bad, c[idx[k]], err, errlen);
            mp_csv_free(&t);
            return -1;
        }
        i->mangled = mp_xstrdup(c[idx[RI_MANGLED]]);
        i->kernel = mp_prof_demangle(i->mangled);
        i->file = mp_xstrdup(c[idx[RI_FILE]]);
        i->cubin = mp_xstrdup(c[idx[RI_CUBIN_CRC]]);
        i->opcode = mp_xstrdup("");
        d->ni++;
    }
    mp_csv_free(&t);
    return 0;
}

/* ---- merge ----------------------------------------------------------- */

/* Launch order: by process, then by launch within it (the launches and
 * the raw ops both sort so). */
static int cmp_pid_launch(long xpid, long xlaunch, long ypid, long ylaunch)
{
    if (xpid != ypid)
        return xpid < ypid ? -1 : 1;
    return (xlaunch > ylaunch) - (xlaunch < ylaunch);
}

static int cmp_launch(const void *a, const void *b)
{
    const mp_prof_launch *x = a, *y = b;
    return cmp_pid_launch(x->pid, x->launch, y->pid, y->launch);
}

/* lines by pid and mangled name (a prefix of their order) */
static int cmp_line_kernel(const void *a, const void *b)
{
    const mp_prof_line *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return strcmp(x->mangled, y->mangled);
}

static int cmp_line(const void *a, const void *b)
{
    const mp_prof_line *x = a, *y = b;
    int c;
    if ((c = cmp_line_kernel(a, b)))
        return c;
    if ((c = strcmp(x->cubin ? x->cubin : "", y->cubin ? y->cubin : "")))
        return c;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The rows of a merged profile in their order, its kernels named. */
static void order_and_name(mp_prof_data *d)
{
    mp_sort(d->l, (size_t)d->nl, sizeof *d->l, cmp_launch);
    mp_sort(d->i, (size_t)d->ni, sizeof *d->i, cmp_line);
    mp_prof_name_kernels(d);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Keeps the launches and lines whose names match re. */
static void keep_matching(mp_prof_data *d, const regex_t *re,
                          mp_prof_status *st)
{
    int out = 0;
    for (int k = 0; k < d->nl; k++) {
        mp_prof_launch *l = &d->l[k];
        if (!regexec(re, l->mangled, 0, NULL, 0)
            || !regexec(re, l->kernel, 0, NULL, 0)) {
            d->l[out++] = *l;
            continue;
        }
        st->dropped++;
        mp_prof_free_launch(l);
    }
    d->nl = out;
    out = 0;
    for (int k = 0; k < d->ni; k++) {
        mp_prof_line *i = &d->i[k];
        if (!regexec(re, i->mangled, 0, NULL, 0)
            || !regexec(re, i->kernel, 0, NULL, 0)) {
            d->i[out++] = *i;
            continue;
        }
        mp_prof_free_line(i);
    }
    d->ni = out;
}

/* The memory instructions of each launch (launch_ops.PID.csv): a launch's
 * own counts, split into loads and stores by each instruction's opcode. */
typedef struct {
    long pid, launch, fidx;
    char *cubin;
    mp_u64 offset, m[MP_PM_N];
} raw_op;

typedef struct {
    raw_op *v;
    int n;
} raw_ops;

#define RAW_ID(id, name) RO_##id,
enum { MP_RAW_LAUNCH_OP_COLS(RAW_ID) RO_N };
#undef RAW_ID
#define RAW_NAME(id, name) name,
static const char *const raw_op_names[RO_N] = {
    MP_RAW_LAUNCH_OP_COLS(RAW_NAME)};
#undef RAW_NAME

static int add_raw_ops(raw_ops *o, const char *path, char *err, size_t errlen)
{
    mp_csv_table t;
    int idx[RO_N + MP_PM_N];
    int rc = open_raw(path, raw_op_names, RO_N, 1, &t, idx, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    o->v = mp_xrealloc(o->v, (size_t)(o->n + t.nrows) * sizeof *o->v);
    for (int r = 0; r < t.nrows; r++) {
        raw_op *x = &o->v[o->n];
        char **c = t.cells[r];
        if (mp_prof_parse_long(c[idx[RO_PID]], &x->pid)
            || mp_prof_parse_long(c[idx[RO_LAUNCH]], &x->launch)
            || mp_prof_parse_long(c[idx[RO_FUNCTION_INDEX]], &x->fidx)
            || mp_prof_parse_offset(c[idx[RO_PC_OFFSET]], &x->offset)) {
            mp_csv_free(&t);
            return bad_cell(path, r, "pid, launch, function_index or "
                            "pc_offset", c[idx[RO_PID]], err, errlen);
        }
        if (read_metrics(&t, path, r, idx + RO_N, x->m, err, errlen)) {
            mp_csv_free(&t);
            return -1;
        }
        x->cubin = mp_xstrdup(c[idx[RO_CUBIN_CRC]]);
        o->n++;
    }
    mp_csv_free(&t);
    return 0;
}

static void free_ops(raw_ops *o)
{
    for (int k = 0; k < o->n; k++)
        free(o->v[k].cubin);
    free(o->v);
}

static int cmp_op_launch(const void *a, const void *b)
{
    const raw_op *x = a, *y = b;
    return cmp_pid_launch(x->pid, x->launch, y->pid, y->launch);
}

/* An instruction's key in the lines: pid, cubin, function index, pc. */
static int cmp_key(long pid, const char *cubin, long fidx, mp_u64 off,
                   const mp_prof_line *i)
{
    int c;
    if (pid != i->pid)
        return pid < i->pid ? -1 : 1;
    if ((c = strcmp(cubin, i->cubin ? i->cubin : "")))
        return c;
    if (fidx != i->fidx)
        return fidx < i->fidx ? -1 : 1;
    return (off > i->offset) - (off < i->offset);
}

static int cmp_line_key(const void *a, const void *b)
{
    const mp_prof_line *x = *(const mp_prof_line *const *)a;
    const mp_prof_line *y = *(const mp_prof_line *const *)b;
    return cmp_key(x->pid, x->cubin ? x->cubin : "", x->fidx, x->offset, y);
}

static const mp_prof_line *find_line(const mp_prof_line *const *by_key,
                                     int n, const raw_op *o)
{
    for (int lo = 0, hi = n; lo < hi;) {
        int mid = lo + (hi - lo) / 2;
        int c = cmp_key(o->pid, o->cubin, o->fidx, o->offset, by_key[mid]);
        if (!c)
            return by_key[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ---- where the kernels came from (modules.PID.csv) ------------------- */

/* One module's origin, as the library recorded it. */
typedef struct {
    long pid;
    char *crc, *origin;
} raw_module;

typedef struct {
    raw_module *v;
    int n;
} raw_modules;

#define RAW_ID(id, name) RM_##id,
enum { MP_RAW_MODULE_COLS(RAW_ID) RM_N };
#undef RAW_ID
#define RAW_NAME(id, name) name,
static const char *const raw_module_names[RM_N] = {
    MP_RAW_MODULE_COLS(RAW_NAME)};
#undef RAW_NAME

static int add_raw_modules(raw_modules *m, const char *path, char *err,
                           size_t errlen)
{
    mp_csv_table t;
    int idx[RM_N];
    /* the columns before `found` (how it was found: for people, not read) */
    int rc = open_raw(path, raw_module_names, RM_FOUND, 0, &t, idx, err,
                      errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    m->v = mp_xrealloc(m->v, (size_t)(m->n + t.nrows) * sizeof *m->v);
    for (int r = 0; r < t.nrows; r++) {
        raw_module *x = &m->v[m->n];
        char **c = t.cells[r];
        if (mp_prof_parse_long(c[idx[RM_PID]], &x->pid)) {
            mp_csv_free(&t);
            return bad_cell(path, r, "pid", c[idx[RM_PID]], err, errlen);
        }
        x->crc = mp_xstrdup(c[idx[RM_CUBIN_CRC]]);
        x->origin = mp_xstrdup(c[idx[RM_ORIGIN]]);
        m->n++;
    }
    mp_csv_free(&t);
    return 0;
}

static void free_modules(raw_modules *m)
{
    for (int k = 0; k < m->n; k++)
        free(m->v[k].crc), free(m->v[k].origin);
    free(m->v);
}


static int cmp_module(const void *a, const void *b)
{
    const raw_module *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return strcmp(x->crc, y->crc);
}

/* Each instruction row gets its module's origin (MP_ORIGIN_UNKNOWN when
 * none was recorded) and with it library or own. */
static void origin_lines(mp_prof_data *d, raw_modules *m)
{
    mp_sort(m->v, (size_t)m->n, sizeof *m->v, cmp_module);
    for (int j = 0; j < d->ni; j++) {
        mp_prof_line *i = &d->i[j];
        const raw_module key = {.pid = i->pid,
                                .crc = i->cubin ? i->cubin : ""};
        const raw_module *hit = m->n ? bsearch(&key, m->v, (size_t)m->n,
                                               sizeof *m->v, cmp_module)
                                     : NULL;
        const char *origin = hit ? hit->origin : MP_ORIGIN_UNKNOWN;
        free(i->origin);
        i->origin = mp_xstrdup(origin);
        i->library = mp_prof_origin_library(origin)
                     || mp_prof_toolkit_file(i->file);
    }
}

/* A launch's origin: its first memory instruction's (first, or NULL);
 * without one, that of its kernel's rows in its process (d's lines are
 * ordered by pid and mangled name: order_and_name); else unknown. A
 * library's launch when that origin is a library's, or when its
 * instructions' lines (all_lib) all lie in the CUDA toolkit's headers
 * (CUB's and Thrust's kernels compiled into the program). */
static void origin_launch(const mp_prof_data *d, mp_prof_launch *l,
                          const mp_prof_line *first, int all_lib)
{
    if (!first && d->ni) {
        const mp_prof_line key = {.pid = l->pid, .mangled = l->mangled};
        first = bsearch(&key, d->i, (size_t)d->ni, sizeof *d->i,
                        cmp_line_kernel);
    }
    const char *origin = first ? first->origin : MP_ORIGIN_UNKNOWN;
    free(l->origin);
    l->origin = mp_xstrdup(origin);
    l->library = mp_prof_origin_library(origin) || (first && all_lib);
}

/* Each launch's sums split into loads and stores from its own memory
 * instructions (ops, sorted by pid and launch; d's launches likewise),
 * each a load when it executed load instructions
 * (smsp__sass_inst_executed_op_ld), and its origin from them. A launch
 * gets no split when its instructions do not add up to its sums. A graph
 * launch's rows share one launch number: each takes its own kernel's
 * instructions. */
static void split_launches(mp_prof_data *d, const raw_ops *ops)
{
    const mp_prof_line **by_key =
        mp_xcalloc((size_t)d->ni + 1, sizeof *by_key);
    for (int j = 0; j < d->ni; j++)
        by_key[j] = &d->i[j];
    mp_sort(by_key, (size_t)d->ni, sizeof *by_key, cmp_line_key);
    int first = 0;
    for (int k = 0; k < d->nl; k++) {
        mp_prof_launch *l = &d->l[k];
        raw_op key = {.pid = l->pid, .launch = l->launch};
        while (first < ops->n && cmp_op_launch(&ops->v[first], &key) < 0)
            first++;
        mp_u64 ls[4][2] = {{0}};
        const mp_prof_line *own = NULL;   /* its first instruction */
        int all_lib = 1, any_line = 0;   /* its lines all a library's or
                                            the toolkit's headers */
        for (int q = first; q < ops->n && !cmp_op_launch(&ops->v[q], &key);
             q++) {
            const raw_op *o = &ops->v[q];
            const mp_prof_line *i = find_line(by_key, d->ni, o);
            if (i && strcmp(i->mangled, l->mangled))
                continue;   /* another kernel of the same graph launch */
            if (i && !own)
                own = i;
            if (i && i->file && i->file[0]) {   /* lines of no file: neither */
                all_lib &= i->library || mp_prof_toolkit_header(i->file);
                any_line = 1;
            }
            /* a load executed op_ld instructions; else a store (or an
             * atomic or reduction): SASS metrics, no disassembler */
            int st = o->m[MP_PM_LD] == 0;
            for (int m = 0; m < 4; m++)
                ls[m][st] += o->m[MP_PM_SH + m];
        }
        origin_launch(d, l, own, all_lib && any_line);
        int known = 1;
        for (int m = 0; m < 4; m++)
            if (ls[m][0] + ls[m][1] != l->m[MP_PM_SH + m])
                known = 0;   /* counts its instructions do not show */
        l->has_split = known;
        memset(l->split, 0, sizeof l->split);
        if (!known)
            continue;
        for (int m = 0; m < 4; m++) {
            /* MP_PS_*: (m / 2) * 4 + (m % 2) * 2 + {0 ld, 1 st} */
            int base = (m / 2) * 4 + (m % 2) * 2;
            l->split[base] = ls[m][0];
            l->split[base + 1] = ls[m][1];
        }
    }
    free(by_key);
}

/* The names in raw_dir (hidden ones left out), sorted; NULL with err
 * when it cannot be read. */
static char **list_raw_dir(const char *raw_dir, int *n, char *err,
                           size_t errlen)
{
    DIR *dir = opendir(raw_dir);
    if (!dir) {
        mp_reason(err, errlen, "%s: %s", raw_dir, strerror(errno));
        return NULL;
    }
    char **names = mp_xcalloc(1, sizeof *names);
    struct dirent *e;
    *n = 0;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        names = mp_xrealloc(names, (size_t)(*n + 2) * sizeof *names);
        names[(*n)++] = mp_xstrdup(e->d_name);
    }
    closedir(dir);
    mp_sort(names, (size_t)*n, sizeof *names, cmp_name);
    return names;
}

/* What the raw files of one run hold, besides d's rows and the status. */
typedef struct {
    raw_ops ops;
    raw_modules modules;
    raw_kernels kernels;
    char **cubins;   /* the cubin.CRC names (into the dir's names) */
    int ncubins;
} raw_extra;

/* Reads each raw file of names (n) in raw_dir into d, st and x. 0, or -1
 * with err. */
static int read_raw_files(const char *raw_dir, char **names, int n,
                          mp_prof_data *d, mp_prof_status *st, raw_extra *x,
                          char *err, size_t errlen)
{
    int rc = 0;
    for (int k = 0; k < n && !rc; k++) {
        const char *f = names[k];
        size_t len = strlen(f);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", raw_dir, f);
        int csv = len > 4 && !strcmp(f + len - 4, ".csv");
#define IS(prefix) (!strncmp(f, prefix, strlen(prefix)))
        if (IS(MP_RAW_STATUS))
            read_status(path, f + strlen(MP_RAW_STATUS), st);
        else if (csv && IS(MP_RAW_LAUNCHES))
            rc = add_raw_launches(d, path, err, errlen);
        else if (csv && IS(MP_RAW_LINES))
            rc = add_raw_lines(d, path, err, errlen);
        else if (csv && IS(MP_RAW_LAUNCH_OPS))
            rc = add_raw_ops(&x->ops, path, err, errlen);
        else if (csv && IS(MP_RAW_MODULES))
            rc = add_raw_modules(&x->modules, path, err, errlen);
        else if (csv && IS(MP_RAW_KERNELS))
            rc = add_raw_kernels(&x->kernels, path, err, errlen);
        else if (IS(MP_RAW_CUBIN))
            x->cubins[x->ncubins++] = names[k];
#undef IS
    }
    return rc;
}

/* 1 when the module of cubin crc came from a vendor library. */
static int library_cubin(const raw_modules *m, const char *crc)
{
    for (int k = 0; k < m->n; k++)
        if (!strcmp(m->v[k].crc, crc) && mp_prof_origin_library(m->v[k].origin))
            return 1;
    return 0;
}

/* The opcodes of d's instructions from the saved cubins (--opcodes; auto:
 * only the program's own modules with an instruction without a source
 * line: a library's cubins are large, PyTorch's 118 MB in 27, and their
 * kernels are not judged unless asked). */
static void add_opcodes(const char *raw_dir, mp_prof_data *d, raw_extra *x,
                        int opcodes)
{
    if (opcodes == MP_PROF_OPCODES_AUTO) {
        int keep = 0;
        for (int k = 0; k < x->ncubins; k++) {
            const char *crc = x->cubins[k] + strlen(MP_RAW_CUBIN);
            int need = 0;
            if (library_cubin(&x->modules, crc))
                continue;
            for (int j = 0; j < d->ni && !need; j++)
                need = !d->i[j].file[0] && d->i[j].cubin
                       && !strcmp(d->i[j].cubin, crc);
            if (need)
                x->cubins[keep++] = x->cubins[k];
        }
        x->ncubins = keep;
    }
    if (!x->ncubins || opcodes == MP_PROF_OPCODES_OFF)
        return;
    mp_prof_set_opcodes(raw_dir, x->cubins, x->ncubins, d);
}

/* Every line of a library's kernel is a library's: CUB's kernels
 * compiled into the program are a library's by their lines in the
 * toolkit's headers (split_launches), and their lines in the intrinsic
 * headers beside them (device_atomic_functions.hpp) go with the kernel,
 * not with the program. d's lines are ordered by pid and mangled name. */
static void library_kernels_lines(mp_prof_data *d)
{
    for (int k = 0; k < d->nl; k++) {
        const mp_prof_launch *l = &d->l[k];
        if (!l->library || !d->ni)
            continue;
        const mp_prof_line key = {.pid = l->pid, .mangled = l->mangled};
        const mp_prof_line *hit = bsearch(&key, d->i, (size_t)d->ni,
                                          sizeof *d->i, cmp_line_kernel);
        if (!hit)
            continue;
        int j = (int)(hit - d->i);
        while (j > 0 && !cmp_line_kernel(&d->i[j - 1], &key))
            j--;
        for (; j < d->ni && !cmp_line_kernel(&d->i[j], &key); j++)
            d->i[j].library = 1;
    }
}

int mp_prof_merge(const char *raw_dir, const char *kernel_re, int opcodes,
                  mp_prof_data *d, mp_prof_status *st, char *err,
                  size_t errlen)
{
    memset(d, 0, sizeof *d);
    memset(st, 0, sizeof *st);
    int nnames;
    char **names = list_raw_dir(raw_dir, &nnames, err, errlen);
    if (!names)
        return -1;
    raw_extra x = {.cubins = mp_xcalloc((size_t)nnames + 1,
                                        sizeof *x.cubins)};
    int rc = read_raw_files(raw_dir, names, nnames, d, st, &x, err, errlen);
    join_kernels(d, &x.kernels);
    if (!rc)
        add_opcodes(raw_dir, d, &x, opcodes);
    free(x.cubins);
    for (int k = 0; k < nnames; k++)
        free(names[k]);
    free(names);
    regex_t re;
    if (!rc && kernel_re && regcomp(&re, kernel_re, REG_EXTENDED | REG_NOSUB)) {
        mp_reason(err, errlen, "--kernel: bad regular expression");
        rc = -1;
    } else if (!rc && kernel_re) {
        keep_matching(d, &re, st);
        regfree(&re);
    }
    if (rc) {
        free_ops(&x.ops);
        free_modules(&x.modules);
        mp_prof_free(d);
        return -1;
    }
    st->kept = d->nl;
    order_and_name(d);
    origin_lines(d, &x.modules);
    mp_sort(x.ops.v, (size_t)x.ops.n, sizeof *x.ops.v, cmp_op_launch);
    split_launches(d, &x.ops);
    library_kernels_lines(d);
    free_ops(&x.ops);
    free_modules(&x.modules);
    return 0;
}

