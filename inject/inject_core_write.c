/*
 * inject_core_write.c - the writers of the raw files (inject_core.h,
 * "writers"; the files and columns are inject/raw.h's): the launch rows
 * and their memory instructions appended, the lines, kernels, modules and
 * status files rewritten through a .tmp and rename, the range rows, the
 * cubins and the process's ordinal. Only open/write/rename and no
 * allocation, so that the library's signal handlers may call them; no
 * CUDA. Tested by tests/test_inject_core.c.
 */
#include "inject_core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A buffered writer on a file descriptor, or (mem != NULL) into memory,
 * truncating. No allocation. */
typedef struct {
    int fd, err;
    char *mem;
    size_t memcap, n;
    char buf[8192];
} ic_out;

static void out_flush(ic_out *o)
{
    if (o->mem)
        return;
    size_t off = 0;
    while (off < o->n && !o->err) {
        ssize_t w = write(o->fd, o->buf + off, o->n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            o->err = 1;
        else
            off += (size_t)w;
    }
    o->n = 0;
}

static void out_char(ic_out *o, char c)
{
    if (o->mem) {
        if (o->n + 1 < o->memcap)
            o->mem[o->n++] = c;
        return;
    }
    if (o->n == sizeof o->buf)
        out_flush(o);
    o->buf[o->n++] = c;
}

static void out_str(ic_out *o, const char *s)
{
    for (; *s; s++)
        out_char(o, *s);
}

static void out_u64(ic_out *o, uint64_t v)
{
    char d[24];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        out_char(o, d[--n]);
}

/* ",VALUE" as a number */
static void out_num(ic_out *o, uint64_t v)
{
    out_char(o, ',');
    out_u64(o, v);
}

/* One CSV field, RFC 4180 quoted when needed. */
static void out_csv(ic_out *o, const char *s)
{
    if (!s)
        s = "";
    if (!s[strcspn(s, ",\"\r\n")]) {
        out_str(o, s);
        return;
    }
    out_char(o, '"');
    for (; *s; s++) {
        if (*s == '"')
            out_char(o, '"');
        out_char(o, *s);
    }
    out_char(o, '"');
}

void ic_csv_field(const char *s, char *out, size_t outlen)
{
    if (!outlen)
        return;
    ic_out o = {.fd = -1, .mem = out, .memcap = outlen};
    out_csv(&o, s);
    out[o.n] = '\0';
}

/* DIR/NAME where NAME is fmt with one long, e.g. MP_RAW_LINES_FMT. */
static int raw_path(char *path, size_t len, const char *dir,
                    const char *fmt, long pid, const char *suffix)
{
    char name[128];
    int n = snprintf(name, sizeof name, fmt, pid);
    if (n < 0 || (size_t)n >= sizeof name)
        return -1;
    n = snprintf(path, len, "%s/%s%s", dir, name, suffix);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int out_close(ic_out *o)
{
    out_flush(o);
    if (close(o->fd) && !o->err)
        o->err = 1;
    return o->err ? -1 : 0;
}

/* Opens DIR/<fmt with pid> for appending into *o, writing header first
 * when the file is new or empty. 0, or -1. */
static int open_append(const char *dir, const char *fmt, long pid,
                       const char *header, ic_out *o)
{
    char path[4096];
    if (raw_path(path, sizeof path, dir, fmt, pid, ""))
        return -1;
    memset(o, 0, sizeof *o);
    o->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (o->fd < 0)
        return -1;
    struct stat st;
    if (fstat(o->fd, &st) == 0 && st.st_size == 0)
        out_str(o, header);
    return 0;
}

/* Appends the memory instructions of b's rows to DIR/launch_ops.PID.csv. */
static int write_launch_ops(const char *dir, long pid, const ic_launches *b)
{
    ic_out o;
    if (open_append(dir, MP_RAW_LAUNCH_OPS_FMT, pid,
                    MP_RAW_LAUNCH_OP_COLUMNS "\n", &o))
        return -1;
    for (size_t i = 0; i < b->n; i++) {
        const ic_launch *r = &b->v[i];
        for (size_t k = 0; k < r->nops; k++) {
            const ic_op *op = &r->ops[k];
            out_u64(&o, (uint64_t)pid);
            out_num(&o, r->launch);
            out_num(&o, op->crc);
            out_num(&o, op->function_index);
            out_num(&o, op->pc_offset);
            for (int m = 0; m < MP_RAW_NMETRICS; m++)
                out_num(&o, op->v[m]);
            out_char(&o, '\n');
        }
    }
    return out_close(&o);
}

int ic_write_launches(const char *dir, long pid, ic_launches *b)
{
    ic_out o;
    if (open_append(dir, MP_RAW_LAUNCHES_FMT, pid, MP_RAW_LAUNCH_COLUMNS "\n",
                    &o))
        return -1;
    for (size_t i = 0; i < b->n; i++) {
        const ic_launch *r = &b->v[i];
        out_u64(&o, (uint64_t)pid);
        out_num(&o, r->launch);
        out_num(&o, r->launches);
        out_char(&o, ',');
        out_csv(&o, r->mangled);
        for (int k = 0; k < 3; k++)
            out_num(&o, r->grid[k]);
        for (int k = 0; k < 3; k++)
            out_num(&o, r->block[k]);
        out_num(&o, r->dyn_shared);
        out_num(&o, r->stream);
        out_char(&o, ',');
        out_csv(&o, r->nvtx);
        out_num(&o, (uint64_t)(r->graph != 0));
        out_char(&o, ',');
        out_str(&o, r->exact ? MP_RAW_EXACT : MP_RAW_UNAVAILABLE);
        out_char(&o, ',');
        out_csv(&o, r->why);
        for (int m = 0; m < MP_RAW_NMETRICS; m++)
            out_num(&o, r->sum[m]);
        out_char(&o, '\n');
    }
    if (out_close(&o) || write_launch_ops(dir, pid, b))
        return -1;
    ic_launches_clear(b);
    return 0;
}

int ic_write_range_rows(const char *dir, long pid, const ic_range_row *r,
                        size_t n)
{
    ic_out o;
    if (open_append(dir, MP_RAW_RANGE_FMT, pid,
                    MP_RAW_RANGE_ROW_COLUMNS "\n", &o))
        return -1;
    for (size_t i = 0; i < n; i++) {
        out_u64(&o, (uint64_t)pid);
        out_num(&o, r[i].launch);
        out_char(&o, ',');
        out_csv(&o, r[i].mangled);
        for (int k = 0; k < 3; k++)
            out_num(&o, r[i].grid[k]);
        for (int k = 0; k < 3; k++)
            out_num(&o, r[i].block[k]);
        out_char(&o, ',');
        out_csv(&o, r[i].why);
        for (int m = 0; m < MP_RAW_NRANGE; m++) {
            out_char(&o, ',');
            out_csv(&o, r[i].value[m]);
        }
        out_char(&o, '\n');
    }
    return out_close(&o);
}

int ic_claim_ordinal(const char *dir, long pid, int max)
{
    for (int k = 0; k < max; k++) {
        char path[4200];
        int w = snprintf(path, sizeof path, "%s/" MP_RAW_ORDINAL_FMT, dir, k);
        if (w < 0 || (size_t)w >= sizeof path)
            return -1;
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            return -1;
        }
        ic_out o = {.fd = fd};
        out_u64(&o, (uint64_t)pid);
        out_char(&o, '\n');
        out_close(&o);
        return k;
    }
    return -1;
}

/* Writes through PATH.tmp and renames it over PATH. */
static int open_tmp(char *tmp, size_t len, const char *dir, const char *fmt,
                    long pid, ic_out *o)
{
    if (raw_path(tmp, len, dir, fmt, pid, MP_RAW_TMP_SUFFIX))
        return -1;
    o->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return o->fd < 0 ? -1 : 0;
}

static int close_rename(ic_out *o, const char *tmp, const char *dir,
                        const char *fmt, long pid)
{
    char path[4096];
    if (out_close(o) ||
        raw_path(path, sizeof path, dir, fmt, pid, "") ||
        rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int ic_write_lines(const char *dir, long pid, const ic_lines *t)
{
    char tmp[4096];
    ic_out o = {.fd = -1};
    if (open_tmp(tmp, sizeof tmp, dir, MP_RAW_LINES_FMT, pid, &o))
        return -1;
    out_str(&o, MP_RAW_LINE_COLUMNS "\n");
    for (size_t i = 0; i < t->n; i++) {
        const ic_line *l = &t->v[i];
        out_u64(&o, (uint64_t)pid);
        out_num(&o, l->crc);
        out_char(&o, ',');
        out_csv(&o, l->mangled);
        out_num(&o, l->function_index);
        out_num(&o, l->pc_offset);
        out_char(&o, ',');
        out_csv(&o, l->file);
        out_num(&o, l->line);
        out_num(&o, l->launches);
        for (int m = 0; m < MP_RAW_NMETRICS; m++)
            out_num(&o, l->sum[m]);
        out_char(&o, '\n');
    }
    return close_rename(&o, tmp, dir, MP_RAW_LINES_FMT, pid);
}

int ic_write_kernels(const char *dir, long pid, const ic_kernels *t)
{
    char tmp[4096];
    ic_out o = {.fd = -1};
    if (open_tmp(tmp, sizeof tmp, dir, MP_RAW_KERNELS_FMT, pid, &o))
        return -1;
    out_str(&o, MP_RAW_KERNEL_COLUMNS "\n");
    for (size_t i = 0; i < t->n; i++) {
        const ic_kernel *k = &t->v[i];
        out_u64(&o, (uint64_t)pid);
        out_char(&o, ',');
        out_csv(&o, k->mangled);
        for (int d = 0; d < 3; d++)
            out_num(&o, k->grid[d]);
        for (int d = 0; d < 3; d++)
            out_num(&o, k->block[d]);
        out_num(&o, k->seen);
        out_num(&o, k->profiled);
        out_char(&o, '\n');
    }
    return close_rename(&o, tmp, dir, MP_RAW_KERNELS_FMT, pid);
}

/* " S" seconds with 6 decimals, without printf (signal handlers). */
static void out_seconds(ic_out *o, double s)
{
    uint64_t us = s > 0 ? (uint64_t)(s * 1e6 + 0.5) : 0;
    char frac[7];
    out_char(o, ' ');
    out_u64(o, us / 1000000);
    out_char(o, '.');
    for (int i = 5; i >= 0; i--, us /= 10)
        frac[i] = (char)('0' + us % 10);
    frac[6] = '\0';
    out_str(o, frac);
}

static void out_cost(ic_out *o, const ic_status *s)
{
    static const char *const names[IC_COST_N] = {
#define IC_COST_NAME(id, name) name,
        MP_RAW_COST_FIELDS(IC_COST_NAME)
#undef IC_COST_NAME
    };
    out_str(o, MP_RAW_KEY_COST);
    for (int i = 0; i < IC_COST_N; i++) {
        out_char(o, ' ');
        out_str(o, names[i]);
        out_char(o, ' ');
        out_u64(o, s->cost_n[i]);
        out_seconds(o, s->cost_s[i]);
    }
    out_str(o, " records ");
    out_u64(o, s->records);
    out_char(o, '\n');
}

int ic_write_modules(const char *dir, long pid, const ic_modules *m)
{
    char tmp[4096];
    ic_out o = {.fd = -1};
    if (open_tmp(tmp, sizeof tmp, dir, MP_RAW_MODULES_FMT, pid, &o))
        return -1;
    out_str(&o, MP_RAW_MODULE_COLUMNS "\n");
    for (size_t i = 0; i < m->n; i++) {
        out_u64(&o, (uint64_t)pid);
        out_num(&o, m->v[i].crc);
        out_char(&o, ',');
        out_csv(&o, m->v[i].origin);
        out_char(&o, ',');
        out_csv(&o, m->v[i].found);
        out_char(&o, '\n');
    }
    return close_rename(&o, tmp, dir, MP_RAW_MODULES_FMT, pid);
}

int ic_write_status(const char *dir, long pid, const ic_status *s,
                    const char *end)
{
    char tmp[4096];
    ic_out o = {.fd = -1};
    if (open_tmp(tmp, sizeof tmp, dir, MP_RAW_STATUS_FMT, pid, &o))
        return -1;
    for (size_t i = 0; i < s->len; i++)
        out_char(&o, s->text[i]);
    out_str(&o, MP_RAW_KEY_LAUNCHES_SEEN " ");
    out_u64(&o, s->seen);
    out_str(&o, "\n" MP_RAW_KEY_LAUNCHES_PROFILED " ");
    out_u64(&o, s->profiled);
    out_char(&o, '\n');
    out_cost(&o, s);
    out_str(&o, MP_RAW_KEY_END " ");
    out_str(&o, end);
    out_char(&o, '\n');
    return close_rename(&o, tmp, dir, MP_RAW_STATUS_FMT, pid);
}

int ic_write_cubin(const char *dir, uint32_t crc, const void *data,
                   size_t len)
{
    char name[64], path[4096];
    snprintf(name, sizeof name, MP_RAW_CUBIN_FMT, crc);
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno == EEXIST ? 0 : -1;
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return close(fd) ? -1 : 0;
}
