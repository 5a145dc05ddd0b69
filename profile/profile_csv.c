/*
 * profile_csv.c - the CSVs of `memprobe profile` (profile_csv.h): their
 * schema, the merge of the raw files that the injection library wrote for
 * each process (docs/profile-design.md, "Raw files") into profile.csv and
 * profile-lines.csv, the opcodes from cuobjdump, reading both CSVs back,
 * the per-source-line sums that --check, --baseline and the report
 * judge, and the names they print kernels by.
 */
#include "profile_csv.h"

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
#include "ncu_csv.h"
#include "profile_origin.h"
#include "raw.h"
#include "report.h"
#include "stats.h"
#include "subprocess.h"

#define METRIC_NAME(id, name) name,
static const char *const metric_names[MP_PM_N] = {
    MP_RAW_METRICS(METRIC_NAME)};
#undef METRIC_NAME

const char *const mp_prof_class_name[MP_NCLASS] = {"shared", "global"};
const char *const mp_prof_class_unit[MP_NCLASS] = {"wavefronts", "sectors"};
const char *const mp_prof_dir_name[MP_NDIR] = {"load", "store"};

#define RANGE_NAME(id, name) name,
static const char *const range_names[MP_PR_N] = {MP_RAW_RANGES(RANGE_NAME)};
#undef RANGE_NAME

const char *mp_prof_range_name(int k)
{
    return k >= 0 && k < MP_PR_N ? range_names[k] : NULL;
}

const char *mp_prof_metric_name(int m)
{
    return m >= 0 && m < MP_PM_N ? metric_names[m] : NULL;
}

/* ---- schema ---------------------------------------------------------- */

typedef struct {
    const char *name, *desc;
} column;

enum { L_PID, L_LAUNCH, L_LAUNCHES, L_KERNEL, L_MANGLED, L_GRID, L_BLOCK, L_DYN,
       L_STREAM, L_NVTX, L_GRAPH, L_LINE_COUNTS, L_WHY, L_INST, L_SH,
       L_SH_IDEAL, L_SPLIT_SH, L_GL = L_SPLIT_SH + 4, L_GL_IDEAL,
       L_SPLIT_GL, L_LD = L_SPLIT_GL + 4, L_RANGE,
       L_RANGE_SRC = L_RANGE + MP_RAW_NRANGE_COLS, L_RANGE_WHY, L_RANGE_L2,
       L_SEEN = L_RANGE_L2 + MP_PR_N - MP_RAW_NRANGE_COLS, L_PROFILED,
       L_ORIGIN, L_LIBRARY, L_N };
/* profile.csv before the range columns, before the L2 counts and before
 * the per-kernel counts and origins: still read */
#define L_N_OLD L_RANGE
#define L_N_NO_L2 L_RANGE_L2
#define L_N_NO_ORIGIN L_SEEN

/* the column of range value k (the L2 counts come after range_why) */
static int range_col(int k)
{
    return k < MP_RAW_NRANGE_COLS ? L_RANGE + k
                                  : L_RANGE_L2 + k - MP_RAW_NRANGE_COLS;
}

#define ORIGIN_DESC                                                     \
    "where the kernel's module came from: the path of the executable or "  \
    "shared object that held or loaded it, " MP_ORIGIN_RUNTIME " for "     \
    "code compiled while the program ran (NVRTC, Triton, XLA, CuPy), "     \
    MP_ORIGIN_UNKNOWN " when the injection library could not place it"
#define LIBRARY_DESC                                                    \
    "1: a vendor library's kernel (origin a shared object whose file "     \
    "name starts with a prefix of docs/profile.md's list: libcublas, "     \
    "libcudnn, libtorch, ...): counted, judged by --check and --baseline " \
    "only with --check-libraries; 0: the program's own"

static const column launch_cols[L_N] = {
    {"pid", "process id of the program (or of a process it forked)"},
    {"launch", "the process's launch number from 0, filtered ones counted "
               "(of a run of identical launches, the first)"},
    {"launches", "launches the row counts: 1, or a run of identical "
                 "launches one after another (same kernel, shape, stream "
                 "and NVTX stack), flushed together"},
    {"kernel", "demangled kernel name"},
    {"mangled", "kernel name as the cubin has it"},
    {"grid", "grid size x,y,z"},
    {"block", "block size x,y,z"},
    {"dyn_shared_bytes", "dynamic shared memory per block"},
    {"stream", "the stream it was launched on"},
    {"nvtx", "the NVTX range stack, outermost first, joined by '/'"},
    {"graph", "1: run by cuGraphLaunch"},
    {"line_counts", "exact, or unavailable (why says why)"},
    {"why", "why line counts are unavailable"},
    {"smsp__sass_inst_executed", "warp-level instructions executed"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
     "shared-memory wavefronts"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
     "their ideal (no bank conflicts)"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_ld",
     "shared wavefronts of loads (empty: the launch's instructions do not "
     "add up to its sums)"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_st",
     "shared wavefronts of stores and atomics"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal_op_ld",
     "ideal shared wavefronts of loads"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal_op_st",
     "ideal shared wavefronts of stores and atomics"},
    {"smsp__sass_sectors_mem_global", "global-memory 32-byte sectors"},
    {"smsp__sass_sectors_mem_global_ideal", "their ideal (fully coalesced)"},
    {"smsp__sass_sectors_mem_global_op_ld", "global sectors of loads"},
    {"smsp__sass_sectors_mem_global_op_st",
     "global sectors of stores and atomics"},
    {"smsp__sass_sectors_mem_global_ideal_op_ld", "ideal sectors of loads"},
    {"smsp__sass_sectors_mem_global_ideal_op_st",
     "ideal sectors of stores and atomics"},
    {"smsp__sass_inst_executed_op_ld",
     "warp-level load instructions executed (LDG, LD, LDS, LDL, LDSM)"},
    {"l1tex__t_sector_hit_rate.pct", "--level kernel+: L1 sector hit rate "
     "of the launch, percent (range profiler, second run; of a run of "
     "launches, their mean weighted by each launch's global sectors)"},
    {"lts__t_sector_hit_rate.pct", "--level kernel+: L2 sector hit rate, "
     "percent, as Nsight Compute defines it: lts__t_sectors_lookup_hit.sum "
     "/ lts__t_sectors.sum (two range runs, each from an L2 flushed before "
     "the launch; of a run of launches, the ratio of their sums)"},
    {"dram__bytes_read.sum", "--level kernel+: bytes read from DRAM, the "
     "L2 flushed before the launch"},
    {"dram__bytes_write.sum", "--level kernel+: bytes written to DRAM"},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
     "shared wavefronts of loads from the hardware counter (range profiler; "
     "filled for launches without line counts with --fallback rerun or at "
     "--level kernel+)"},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
     "shared wavefronts of stores, hardware counter"},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
     "global sectors of loads, hardware counter"},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
     "global sectors of stores, hardware counter"},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
     "global load requests, hardware counter"},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
     "global store requests, hardware counter"},
    {"range_counters", "where the range columns come from: range_profiler "
     "(the second run's range profiler), unavailable (wanted, not got: "
     "range_why says why), empty (not wanted)"},
    {"range_why", "why the range columns are empty though wanted (the "
     "program ran once: --fallback off; a launch the second run did not "
     "repeat, a graph launch, ...)"},
    {"lts__t_sectors_lookup_hit.sum", "--level kernel+: L2 sectors that "
     "hit, the L2 flushed before the launch"},
    {"lts__t_sectors.sum", "--level kernel+: L2 sectors accessed (a "
     "second range run, flushed likewise)"},
    {"kernel_launches_seen", "launches of this kernel, grid and block the "
     "process made, profiled or not (empty: a graph's kernel)"},
    {"kernel_launches_profiled", "of them, the launches profiled (the "
     "filters, --per-kernel): the profile's rows of this kernel, grid and "
     "block count these; nothing is scaled to the others"},
    {"origin", ORIGIN_DESC},
    {"library", LIBRARY_DESC},
};

enum { I_PID, I_KERNEL, I_MANGLED, I_FILE, I_LINE, I_OFFSET, I_OPCODE,
       I_LAUNCHES, I_METRICS, I_RATIO = I_METRICS + MP_PM_N, I_ORIGIN,
       I_LIBRARY, I_N };
/* profile-lines.csv before the origins: still read */
#define I_N_OLD I_ORIGIN

static const column line_cols[I_N] = {
    {"pid", "process id"},
    {"kernel", "demangled kernel name"},
    {"mangled", "kernel name as the cubin has it"},
    {"file", "source file of the instruction (empty without -lineinfo)"},
    {"line", "source line (0 without -lineinfo)"},
    {"function_offset", "pc offset of the SASS instruction in its function"},
    {"opcode", "SASS opcode (cuobjdump -sass, with --opcodes or without "
               "line info; else empty)"},
    {"launches", "profiled launches summed in this row"},
    {"smsp__sass_inst_executed", "warp-level instructions executed"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
     "shared-memory wavefronts"},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
     "their ideal"},
    {"smsp__sass_sectors_mem_global", "global-memory 32-byte sectors"},
    {"smsp__sass_sectors_mem_global_ideal", "their ideal"},
    {"smsp__sass_inst_executed_op_ld",
     "warp-level load instructions executed (not 0: a load)"},
    {"ratio", "measured / ideal of its shared (else global) count; empty "
              "when the ideal is 0"},
    {"origin", ORIGIN_DESC},
    {"library", LIBRARY_DESC},
};

int mp_prof_launch_ncols(void) { return L_N; }
const char *mp_prof_launch_col(int i) { return launch_cols[i].name; }
const char *mp_prof_launch_desc(int i) { return launch_cols[i].desc; }
int mp_prof_line_ncols(void) { return I_N; }
const char *mp_prof_line_col(int i) { return line_cols[i].name; }
const char *mp_prof_line_desc(int i) { return line_cols[i].desc; }

void mp_prof_lines_path(const char *csv, char *out, size_t len)
{
    size_t n = strlen(csv);
    if (n > 4 && !strcmp(csv + n - 4, ".csv"))
        snprintf(out, len, "%.*s-lines.csv", (int)(n - 4), csv);
    else
        snprintf(out, len, "%s-lines.csv", csv);
}

static void header_of(const column *cols, int n, const char **names)
{
    for (int i = 0; i < n; i++)
        names[i] = cols[i].name;
}

/* 1 when the file's first line is exactly the header of cols (n). */
static int has_header(const char *path, const column *cols, int n)
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
                     i ? "," : "", cols[i].name);
        is = !strcmp(line, want);
    }
    fclose(f);
    return is;
}

/* profile.csv's header, or an older one (still read) */
static int is_old_profile_csv(const char *path)
{
    return has_header(path, launch_cols, L_N_NO_ORIGIN)
           || has_header(path, launch_cols, L_N_NO_L2)
           || has_header(path, launch_cols, L_N_OLD);
}

int mp_prof_is_profile_csv(const char *path)
{
    return has_header(path, launch_cols, L_N) || is_old_profile_csv(path);
}

int mp_prof_is_lines_csv(const char *path)
{
    return has_header(path, line_cols, I_N)
           || has_header(path, line_cols, I_N_OLD);
}

/* ---- small helpers --------------------------------------------------- */

/* A count: digits only (empty = 0). 0, or -1. */
static int parse_u64(const char *s, mp_u64 *out)
{
    if (!s[0]) {
        *out = 0;
        return 0;
    }
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    *out = strtoull(s, NULL, 10);
    return errno ? -1 : 0;
}

/* A pc offset: decimal or 0x hex. */
static int parse_offset(const char *s, mp_u64 *out)
{
    if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
        char *end;
        errno = 0;
        *out = strtoull(s + 2, &end, 16);
        return errno || end == s + 2 || *end ? -1 : 0;
    }
    return parse_u64(s, out);
}

static int parse_long(const char *s, long *out)
{
    mp_u64 v;
    if (parse_u64(s, &v) || v > LONG_MAX)
        return -1;
    *out = (long)v;
    return 0;
}

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

static void free_launch(mp_prof_launch *l)
{
    free(l->kernel), free(l->mangled), free(l->grid), free(l->block);
    free(l->dyn_shared), free(l->stream), free(l->nvtx), free(l->graph);
    free(l->line_counts), free(l->why);
    for (int k = 0; k < MP_PR_N; k++)
        free(l->range[k]);
    free(l->range_src), free(l->range_why), free(l->origin);
    free(l->seen), free(l->profiled);
}

static void free_line(mp_prof_line *i)
{
    free(i->kernel), free(i->mangled), free(i->file), free(i->opcode);
    free(i->cubin), free(i->origin);
}

void mp_prof_free(mp_prof_data *d)
{
    for (int k = 0; k < d->nl; k++)
        free_launch(&d->l[k]);
    for (int k = 0; k < d->ni; k++)
        free_line(&d->i[k]);
    for (int k = 0; k < d->nnames; k++)
        free(d->names[k]);
    free(d->l);
    free(d->i);
    free(d->names);
    memset(d, 0, sizeof *d);
}

/* ---- reading CSV tables ---------------------------------------------- */

/* Column `name` of t, or -1 with a reason. */
static int need_col(const mp_ncu_table *t, const char *path,
                    const char *name, char *err, size_t errlen)
{
    int c = mp_ncu_column(t, name);
    if (c < 0)
        mp_reason(err, errlen, "%s: no column '%s'", path, name);
    return c;
}

/* A raw file of a process that may have died while writing: what follows
 * the last newline is dropped (the file is the raw directory's, memprobe's
 * own). An empty file has no rows: 1; read: 0; error: -1. */
static int read_raw(const char *path, mp_ncu_table *t, char *err,
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
            || parse_u64(cnt, &n[k]))
            return;
        sec[k] = strtod(secs, &end);
        if (*end)
            return;
    }
    char *name = strtok_r(NULL, " ", &save);
    char *cnt = strtok_r(NULL, " ", &save);
    if (!name || !cnt || strcmp(name, "records") || parse_u64(cnt, &records))
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
        } else if (!strcmp(line, "launches_seen") && !parse_u64(val, &v)) {
            seen = v;   /* the last one counts */
        } else if (!strcmp(line, "launches_profiled")
                   && !parse_u64(val, &v)) {
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
static int map_cols(const mp_ncu_table *t, const char *path,
                    const char *const *names, int n, int metrics, int *idx,
                    char *err, size_t errlen)
{
    for (int k = 0; k < n + (metrics ? MP_PM_N : 0); k++) {
        idx[k] = need_col(t, path, k < n ? names[k] : metric_names[k - n],
                          err, errlen);
        if (idx[k] < 0)
            return -1;
    }
    return 0;
}

/* A raw file read and its columns (names, n, then the metrics when
 * `metrics`) found: 0 (free t), 1 nothing in it yet, -1 with err. */
static int open_raw(const char *path, const char *const *names, int n,
                    int metrics, mp_ncu_table *t, int *idx, char *err,
                    size_t errlen)
{
    int rc = read_raw(path, t, err, errlen);
    if (rc)
        return rc;
    if (map_cols(t, path, names, n, metrics, idx, err, errlen)) {
        mp_ncu_free(t);
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
static int read_metrics(const mp_ncu_table *t, const char *path, int r,
                        const int *idx, mp_u64 *m, char *err, size_t errlen)
{
    for (int k = 0; k < MP_PM_N; k++)
        if (parse_u64(t->cells[r][idx[k]], &m[k]))
            return bad_cell(path, r, metric_names[k], t->cells[r][idx[k]],
                            err, errlen);
    return 0;
}

static char *xyz(const mp_ncu_table *t, int r, const int *idx, int first)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s,%s,%s", t->cells[r][idx[first]],
             t->cells[r][idx[first + 1]], t->cells[r][idx[first + 2]]);
    return mp_xstrdup(buf);
}

static int add_raw_launches(mp_prof_data *d, const char *path, char *err,
                            size_t errlen)
{
    mp_ncu_table t;
    int idx[RL_N + MP_PM_N];
    int rc = open_raw(path, raw_launch_names, RL_N, 1, &t, idx, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    d->l = mp_xrealloc(d->l, (size_t)(d->nl + t.nrows) * sizeof *d->l);
    for (int r = 0; r < t.nrows; r++) {
        mp_prof_launch *l = &d->l[d->nl];
        memset(l, 0, sizeof *l);
        char **c = t.cells[r];
        if (parse_long(c[idx[RL_PID]], &l->pid)
            || parse_long(c[idx[RL_LAUNCH]], &l->launch)
            || parse_long(c[idx[RL_LAUNCHES]], &l->launches)) {
            mp_ncu_free(&t);
            return bad_cell(path, r, "pid or launch", c[idx[RL_PID]], err,
                            errlen);
        }
        if (read_metrics(&t, path, r, idx + RL_N, l->m, err, errlen)) {
            mp_ncu_free(&t);
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
    mp_ncu_free(&t);
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
    mp_ncu_table t;
    int idx[RK_N];
    int rc = open_raw(path, names, RK_N, 0, &t, idx, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    k->v = mp_xrealloc(k->v, (size_t)(k->n + t.nrows) * sizeof *k->v);
    for (int r = 0; r < t.nrows; r++) {
        raw_kernel *x = &k->v[k->n];
        char **c = t.cells[r];
        mp_u64 v;
        if (parse_long(c[idx[RK_PID]], &x->pid)
            || parse_u64(c[idx[RK_SEEN]], &v)
            || parse_u64(c[idx[RK_PROFILED]], &v)) {
            mp_ncu_free(&t);
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
    mp_ncu_free(&t);
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
    mp_ncu_table t;
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
        if (parse_long(c[idx[RI_PID]], &i->pid))
            bad = "pid";
        else if (parse_long(c[idx[RI_LINE]], &i->line))
            bad = "line";
        else if (parse_offset(c[idx[RI_PC_OFFSET]], &i->offset))
            bad = "pc_offset";
        else if (parse_long(c[idx[RI_FUNCTION_INDEX]], &i->fidx))
            bad = "function_index";
        else if (parse_u64(c[idx[RI_LAUNCHES]], &i->launches))
            bad = "launches";
        if (bad || read_metrics(&t, path, r, idx + RI_N, i->m, err, errlen)) {
            int k = !bad ? 0 : !strcmp(bad, "pid") ? RI_PID
                    : !strcmp(bad, "line") ? RI_LINE
                    : !strcmp(bad, "pc_offset") ? RI_PC_OFFSET
                    : !strcmp(bad, "function_index") ? RI_FUNCTION_INDEX
                    : RI_LAUNCHES;
            if (bad)
                bad_cell(path, r, bad, c[idx[k]], err, errlen);
            mp_ncu_free(&t);
            return -1;
        }
        i->mangled = mp_xstrdup(c[idx[RI_MANGLED]]);
        i->kernel = mp_prof_demangle(i->mangled);
        i->file = mp_xstrdup(c[idx[RI_FILE]]);
        i->cubin = mp_xstrdup(c[idx[RI_CUBIN_CRC]]);
        i->opcode = mp_xstrdup("");
        d->ni++;
    }
    mp_ncu_free(&t);
    return 0;
}

/* ---- opcodes: cuobjdump -sass of the saved cubins -------------------- */

typedef struct {
    char *cubin, *function, *opcode;
    mp_u64 offset;
} sass_op;

typedef struct {
    sass_op *v;
    int n;
} sass_ops;

/* cuobjdump: $CUDA_HOME/bin, else PATH. */
static int find_cuobjdump(char *out, size_t len)
{
    const char *home = getenv("CUDA_HOME");
    if (home && home[0]) {
        char bin[PATH_MAX];
        snprintf(bin, sizeof bin, "%s/bin", home);
        if (!mp_prof_find_program("cuobjdump", bin, out, len))
            return 0;
    }
    return mp_prof_find_program("cuobjdump", NULL, out, len);
}

/* One line of `cuobjdump -sass`: "Function : NAME" sets the function;
 * "/ *0010* /  [{] [@P0] OPCODE ..." is an instruction. */
static void sass_line(char *line, const char *crc, char *function,
                      size_t flen, sass_ops *ops)
{
    char *s = line + strspn(line, " \t");
    if (!strncmp(s, "Function : ", 11)) {
        snprintf(function, flen, "%s", s + 11);
        function[strcspn(function, " \t\r\n")] = '\0';
        return;
    }
    if (strncmp(s, "/*", 2) || !function[0])
        return;
    char *end;
    mp_u64 off = strtoull(s + 2, &end, 16);
    if (end == s + 2 || strncmp(end, "*/", 2))
        return;
    s = end + 2;
    s += strspn(s, " \t{");
    if (*s == '@') {
        s += strcspn(s, " \t");
        s += strspn(s, " \t");
    }
    size_t n = strcspn(s, " \t;");
    if (!n)
        return;
    ops->v = mp_xrealloc(ops->v, (size_t)(ops->n + 1) * sizeof *ops->v);
    sass_op *o = &ops->v[ops->n++];
    o->cubin = mp_xstrdup(crc);
    o->function = mp_xstrdup(function);
    o->offset = off;
    o->opcode = mp_xmalloc(n + 1);
    memcpy(o->opcode, s, n);
    o->opcode[n] = '\0';
}

/* The instructions of every cubin.CRC of dir; nothing when cuobjdump is
 * not found. */
static void read_opcodes(const char *dir, char **names, int nnames,
                         sass_ops *ops)
{
    char tool[PATH_MAX];
    if (find_cuobjdump(tool, sizeof tool))
        return;
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/sass.txt", dir);
    for (int k = 0; k < nnames; k++) {
        const char *crc = names[k] + strlen(MP_RAW_CUBIN);
        char cubin[PATH_MAX];
        snprintf(cubin, sizeof cubin, "%s/%s", dir, names[k]);
        unlink(out);
        char *argv[] = {tool, "-sass", cubin, NULL};
        int rc = mp_spawn_wait(argv, out);
        FILE *f = fopen(out, "r");
        if (rc == 0 && f) {
            char line[1024], function[512] = "";
            while (fgets(line, sizeof line, f))
                sass_line(line, crc, function, sizeof function, ops);
        } else {
            fprintf(stderr, "memprobe: cuobjdump -sass %s failed (status "
                    "%d): no opcodes for that module\n", names[k], rc);
        }
        if (f)
            fclose(f);
        unlink(out);
    }
}

/* Order of the instructions: cubin, function, offset. */
static int cmp_op_key(const char *cubin, const char *function, mp_u64 off,
                      const sass_op *o)
{
    int c;
    if ((c = strcmp(cubin, o->cubin)) || (c = strcmp(function, o->function)))
        return c;
    return (off > o->offset) - (off < o->offset);
}

static int cmp_op(const void *a, const void *b)
{
    const sass_op *x = a;
    return cmp_op_key(x->cubin, x->function, x->offset, b);
}

/* The opcode of (cubin, function, offset) in ops sorted by cmp_op. */
static const char *find_opcode(const sass_ops *ops, const mp_prof_line *i)
{
    int lo = 0, hi = ops->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = cmp_op_key(i->cubin, i->mangled, i->offset, &ops->v[mid]);
        if (!c)
            return ops->v[mid].opcode;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static void free_opcodes(sass_ops *ops)
{
    for (int k = 0; k < ops->n; k++) {
        free(ops->v[k].cubin);
        free(ops->v[k].function);
        free(ops->v[k].opcode);
    }
    free(ops->v);
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
        free_launch(l);
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
        free_line(i);
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
    mp_ncu_table t;
    int idx[RO_N + MP_PM_N];
    int rc = open_raw(path, raw_op_names, RO_N, 1, &t, idx, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    o->v = mp_xrealloc(o->v, (size_t)(o->n + t.nrows) * sizeof *o->v);
    for (int r = 0; r < t.nrows; r++) {
        raw_op *x = &o->v[o->n];
        char **c = t.cells[r];
        if (parse_long(c[idx[RO_PID]], &x->pid)
            || parse_long(c[idx[RO_LAUNCH]], &x->launch)
            || parse_long(c[idx[RO_FUNCTION_INDEX]], &x->fidx)
            || parse_offset(c[idx[RO_PC_OFFSET]], &x->offset)) {
            mp_ncu_free(&t);
            return bad_cell(path, r, "pid, launch, function_index or "
                            "pc_offset", c[idx[RO_PID]], err, errlen);
        }
        if (read_metrics(&t, path, r, idx + RO_N, x->m, err, errlen)) {
            mp_ncu_free(&t);
            return -1;
        }
        x->cubin = mp_xstrdup(c[idx[RO_CUBIN_CRC]]);
        o->n++;
    }
    mp_ncu_free(&t);
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
    mp_ncu_table t;
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
        if (parse_long(c[idx[RM_PID]], &x->pid)) {
            mp_ncu_free(&t);
            return bad_cell(path, r, "pid", c[idx[RM_PID]], err, errlen);
        }
        x->crc = mp_xstrdup(c[idx[RM_CUBIN_CRC]]);
        x->origin = mp_xstrdup(c[idx[RM_ORIGIN]]);
        m->n++;
    }
    mp_ncu_free(&t);
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
    sass_ops ops = {0};
    read_opcodes(raw_dir, x->cubins, x->ncubins, &ops);
    mp_sort(ops.v, (size_t)ops.n, sizeof *ops.v, cmp_op);
    for (int j = 0; j < d->ni; j++) {
        const char *op = find_opcode(&ops, &d->i[j]);
        if (op) {
            free(d->i[j].opcode);
            d->i[j].opcode = mp_xstrdup(op);
        }
    }
    free_opcodes(&ops);
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

/* ---- writing --------------------------------------------------------- */

static char *num(char *buf, size_t len, mp_u64 v)
{
    snprintf(buf, len, "%llu", v);
    return buf;
}

static int open_out(mp_csv_writer *w, const char *path, const column *cols,
                    int n, char *err, size_t errlen)
{
    const char *names[64];
    header_of(cols, n, names);
    FILE *f = fopen(path, "w");   /* a new file beside the last profile */
    if (!f) {
        mp_reason(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fclose(f);
    return mp_csv_open(w, path, names, n, err, errlen);
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

static int write_launches(const mp_prof_data *d, const char *path,
                          char *err, size_t errlen)
{
    mp_csv_writer w;
    if (open_out(&w, path, launch_cols, L_N, err, errlen))
        return -1;
    char nb[L_N][32];
    for (int k = 0; k < d->nl; k++) {
        const mp_prof_launch *l = &d->l[k];
        const char *c[L_N] = {0};
        c[L_PID] = num(nb[L_PID], 32, (mp_u64)l->pid);
        c[L_LAUNCH] = num(nb[L_LAUNCH], 32, (mp_u64)l->launch);
        c[L_LAUNCHES] = num(nb[L_LAUNCHES], 32, (mp_u64)l->launches);
        c[L_KERNEL] = l->kernel, c[L_MANGLED] = l->mangled;
        c[L_GRID] = l->grid, c[L_BLOCK] = l->block;
        c[L_DYN] = l->dyn_shared, c[L_STREAM] = l->stream;
        c[L_NVTX] = l->nvtx, c[L_GRAPH] = l->graph;
        c[L_LINE_COUNTS] = l->line_counts, c[L_WHY] = l->why;
        c[L_INST] = num(nb[L_INST], 32, l->m[MP_PM_INST]);
        c[L_SH] = num(nb[L_SH], 32, l->m[MP_PM_SH]);
        c[L_SH_IDEAL] = num(nb[L_SH_IDEAL], 32, l->m[MP_PM_SH_IDEAL]);
        c[L_GL] = num(nb[L_GL], 32, l->m[MP_PM_GL]);
        c[L_GL_IDEAL] = num(nb[L_GL_IDEAL], 32, l->m[MP_PM_GL_IDEAL]);
        c[L_LD] = num(nb[L_LD], 32, l->m[MP_PM_LD]);
        for (int s = 0; s < 4 && l->has_split; s++) {
            c[L_SPLIT_SH + s] = num(nb[L_SPLIT_SH + s], 32, l->split[s]);
            c[L_SPLIT_GL + s] = num(nb[L_SPLIT_GL + s], 32, l->split[4 + s]);
        }
        for (int k = 0; k < MP_PR_N; k++)
            c[range_col(k)] = l->range[k];
        c[L_RANGE_SRC] = l->range_src, c[L_RANGE_WHY] = l->range_why;
        c[L_SEEN] = l->seen, c[L_PROFILED] = l->profiled;
        c[L_ORIGIN] = l->origin, c[L_LIBRARY] = l->library ? "1" : "0";
        if (put_row(&w, c, err, errlen))
            return -1;
    }
    return close_out(&w, path, err, errlen);
}

/* The line's ratio: shared when it has a shared ideal, else global. */
static void line_ratio(const mp_prof_line *i, char *buf, size_t len)
{
    buf[0] = '\0';
    int m = i->m[MP_PM_SH_IDEAL] ? MP_PM_SH
            : i->m[MP_PM_GL_IDEAL] ? MP_PM_GL : -1;
    if (m >= 0)
        mp_rep_fmt(buf, len, (double)i->m[m] / (double)i->m[m + 1], 4);
}

static int write_lines(const mp_prof_data *d, const char *path, char *err,
                       size_t errlen)
{
    mp_csv_writer w;
    if (open_out(&w, path, line_cols, I_N, err, errlen))
        return -1;
    char nb[I_N][32];
    for (int k = 0; k < d->ni; k++) {
        const mp_prof_line *i = &d->i[k];
        const char *c[I_N] = {0};
        c[I_PID] = num(nb[I_PID], 32, (mp_u64)i->pid);
        c[I_KERNEL] = i->kernel, c[I_MANGLED] = i->mangled;
        c[I_FILE] = i->file;
        c[I_LINE] = num(nb[I_LINE], 32, (mp_u64)i->line);
        snprintf(nb[I_OFFSET], 32, "0x%llx", i->offset);
        c[I_OFFSET] = nb[I_OFFSET];
        c[I_OPCODE] = i->opcode;
        c[I_LAUNCHES] = num(nb[I_LAUNCHES], 32, i->launches);
        for (int m = 0; m < MP_PM_N; m++)
            c[I_METRICS + m] = num(nb[I_METRICS + m], 32, i->m[m]);
        line_ratio(i, nb[I_RATIO], 32);
        c[I_RATIO] = nb[I_RATIO];
        c[I_ORIGIN] = i->origin, c[I_LIBRARY] = i->library ? "1" : "0";
        if (put_row(&w, c, err, errlen))
            return -1;
    }
    return close_out(&w, path, err, errlen);
}

int mp_prof_write(const mp_prof_data *d, const char *csv, const char *lines,
                  char *err, size_t errlen)
{
    if (write_launches(d, csv, err, errlen)
        || write_lines(d, lines, err, errlen))
        return -1;
    return 0;
}

int mp_prof_check_output(const char *csv, char *err, size_t errlen)
{
    const char *names[64];
    char lines[PATH_MAX];
    mp_prof_lines_path(csv, lines, sizeof lines);
    header_of(launch_cols, L_N, names);
    /* a profile.csv from before the range columns or the origins is ours
     * to replace */
    if (!is_old_profile_csv(csv)
        && mp_csv_check_output(csv, names, L_N, err, errlen))
        return -1;
    header_of(line_cols, I_N, names);
    return has_header(lines, line_cols, I_N_OLD) ? 0
           : mp_csv_check_output(lines, names, I_N, err, errlen);
}

/* ---- reading the CSVs back ------------------------------------------- */

/* A profile CSV read and the columns of cols (n) found, into idx: 0
 * (free t), or -1 with err. */
static int open_csv(const char *path, const column *cols, int n,
                    mp_ncu_table *t, int *idx, char *err, size_t errlen)
{
    if (mp_csv_table_read(path, t, err, errlen))
        return -1;
    for (int k = 0; k < n; k++)
        if ((idx[k] = need_col(t, path, cols[k].name, err, errlen)) < 0) {
            mp_ncu_free(t);
            return -1;
        }
    return 0;
}

/* A data row r of path with a count that did not parse: frees t, says
 * so and returns -1. */
static int bad_count(mp_ncu_table *t, const char *path, int r, char *err,
                     size_t errlen)
{
    mp_reason(err, errlen, "%s: data row %d: a count that is not a whole "
              "number", path, r + 1);
    mp_ncu_free(t);
    return -1;
}

static int load_launches(const char *path, mp_prof_data *d, char *err,
                         size_t errlen)
{
    mp_ncu_table t;
    int idx[L_N];
    if (open_csv(path, launch_cols, L_N_OLD, &t, idx, err, errlen))
        return -1;
    for (int k = L_N_OLD; k < L_N; k++)   /* -1: an older file */
        idx[k] = mp_ncu_column(&t, launch_cols[k].name);
    d->l = mp_xcalloc((size_t)t.nrows + 1, sizeof *d->l);
    for (int r = 0; r < t.nrows; r++) {
        mp_prof_launch *l = &d->l[d->nl++];
        char **c = t.cells[r];
        int bad = parse_long(c[idx[L_PID]], &l->pid)
                  || parse_long(c[idx[L_LAUNCH]], &l->launch)
                  || parse_long(c[idx[L_LAUNCHES]], &l->launches);
        static const int mcol[MP_PM_N] = {L_INST, L_SH, L_SH_IDEAL, L_GL,
                                          L_GL_IDEAL, L_LD};
        for (int m = 0; m < MP_PM_N; m++)
            bad |= parse_u64(c[idx[mcol[m]]], &l->m[m]);
        l->has_split = c[idx[L_SPLIT_SH]][0] != '\0';
        for (int s = 0; s < 4; s++)
            bad |= parse_u64(c[idx[L_SPLIT_SH + s]], &l->split[s])
                   | parse_u64(c[idx[L_SPLIT_GL + s]], &l->split[4 + s]);
        l->kernel = mp_xstrdup(c[idx[L_KERNEL]]);
        l->mangled = mp_xstrdup(c[idx[L_MANGLED]]);
        l->grid = mp_xstrdup(c[idx[L_GRID]]);
        l->block = mp_xstrdup(c[idx[L_BLOCK]]);
        l->dyn_shared = mp_xstrdup(c[idx[L_DYN]]);
        l->stream = mp_xstrdup(c[idx[L_STREAM]]);
        l->nvtx = mp_xstrdup(c[idx[L_NVTX]]);
        l->graph = mp_xstrdup(c[idx[L_GRAPH]]);
        l->line_counts = mp_xstrdup(c[idx[L_LINE_COUNTS]]);
        l->why = mp_xstrdup(c[idx[L_WHY]]);
        for (int k = 0; k < MP_PR_N; k++)
            l->range[k] = mp_xstrdup(idx[range_col(k)] >= 0
                                  ? c[idx[range_col(k)]] : "");
        l->range_src = mp_xstrdup(idx[L_RANGE_SRC] >= 0 ? c[idx[L_RANGE_SRC]]
                               : "");
        l->range_why = mp_xstrdup(idx[L_RANGE_WHY] >= 0 ? c[idx[L_RANGE_WHY]]
                               : "");
        l->seen = mp_xstrdup(idx[L_SEEN] >= 0 ? c[idx[L_SEEN]] : "");
        l->profiled = mp_xstrdup(idx[L_PROFILED] >= 0 ? c[idx[L_PROFILED]]
                              : "");
        l->origin = mp_xstrdup(idx[L_ORIGIN] >= 0 ? c[idx[L_ORIGIN]] : "");
        l->library = idx[L_LIBRARY] >= 0 && !strcmp(c[idx[L_LIBRARY]], "1");
        if (bad)
            return bad_count(&t, path, r, err, errlen);
    }
    mp_ncu_free(&t);
    return 0;
}

static int load_lines(const char *path, mp_prof_data *d, char *err,
                      size_t errlen)
{
    mp_ncu_table t;
    int idx[I_N];
    if (open_csv(path, line_cols, I_N_OLD, &t, idx, err, errlen))
        return -1;
    for (int k = I_N_OLD; k < I_N; k++)   /* -1: an older file */
        idx[k] = mp_ncu_column(&t, line_cols[k].name);
    d->i = mp_xcalloc((size_t)t.nrows + 1, sizeof *d->i);
    for (int r = 0; r < t.nrows; r++) {
        mp_prof_line *i = &d->i[d->ni++];
        char **c = t.cells[r];
        int bad = parse_long(c[idx[I_PID]], &i->pid)
                  || parse_long(c[idx[I_LINE]], &i->line)
                  || parse_offset(c[idx[I_OFFSET]], &i->offset)
                  || parse_u64(c[idx[I_LAUNCHES]], &i->launches);
        for (int m = 0; m < MP_PM_N; m++)
            bad |= parse_u64(c[idx[I_METRICS + m]], &i->m[m]);
        i->kernel = mp_xstrdup(c[idx[I_KERNEL]]);
        i->mangled = mp_xstrdup(c[idx[I_MANGLED]]);
        i->file = mp_xstrdup(c[idx[I_FILE]]);
        i->opcode = mp_xstrdup(c[idx[I_OPCODE]]);
        i->origin = mp_xstrdup(idx[I_ORIGIN] >= 0 ? c[idx[I_ORIGIN]] : "");
        i->library = idx[I_LIBRARY] >= 0 && !strcmp(c[idx[I_LIBRARY]], "1");
        if (bad)
            return bad_count(&t, path, r, err, errlen);
    }
    mp_ncu_free(&t);
    return 0;
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

/* ---- source lines ---------------------------------------------------- */

static int cmp_src_line(const void *a, const void *b)
{
    const mp_prof_line *x = *(const mp_prof_line *const *)a;
    const mp_prof_line *y = *(const mp_prof_line *const *)b;
    int c;
    if ((c = strcmp(x->kernel, y->kernel)) || (c = strcmp(x->mangled,
                                                          y->mangled)))
        return c;
    if ((c = strcmp(x->file, y->file)))
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Same source line (without line info: same instruction). */
static int same_src(const mp_prof_line *x, const mp_prof_line *y)
{
    return !strcmp(x->mangled, y->mangled) && !strcmp(x->file, y->file)
           && x->line == y->line && (x->file[0] || x->offset == y->offset);
}

static void add_op(char *ops, size_t len, const char *op)
{
    if (!op[0])
        return;
    for (const char *p = ops; *p;) {
        size_t n = strcspn(p, "/");
        if (n == strlen(op) && !strncmp(p, op, n))
            return;
        p += n + (p[n] == '/');
    }
    size_t used = strlen(ops);
    snprintf(ops + used, len - used, "%s%s", used ? "/" : "", op);
}

/* The direction in which instruction i counts in class c (a load when
 * it executed load instructions, else a store), or -1 when it has no
 * count of the class. */
static int class_dir(const mp_prof_line *i, int c)
{
    if (!i->m[MP_PM_SH + 2 * c] && !i->m[MP_PM_SH_IDEAL + 2 * c])
        return -1;
    return i->m[MP_PM_LD] ? MP_DIR_LOAD : MP_DIR_STORE;
}

int mp_prof_line_counts_in(const mp_prof_line *i, const mp_prof_src *s,
                           int c, int dir)
{
    if (strcmp(i->mangled, s->mangled) || strcmp(i->file, s->file)
        || i->line != s->line || (!s->file[0] && i->offset != s->offset))
        return 0;
    return class_dir(i, c) == dir;
}

mp_prof_src *mp_prof_sources(const mp_prof_data *d, int *n)
{
    const mp_prof_line **order = mp_xcalloc((size_t)d->ni + 1,
                                            sizeof *order);
    for (int k = 0; k < d->ni; k++)
        order[k] = &d->i[k];
    mp_sort(order, (size_t)d->ni, sizeof *order, cmp_src_line);
    mp_prof_src *s = mp_xcalloc((size_t)d->ni + 1, sizeof *s);
    *n = 0;
    for (int k = 0; k < d->ni; k++) {
        const mp_prof_line *i = order[k];
        if (!k || !same_src(order[k - 1], i)) {
            mp_prof_src *t = &s[(*n)++];
            t->kernel = i->kernel;
            t->mangled = i->mangled;
            t->name = i->name;
            t->file = i->file;
            t->line = i->line;
            t->offset = i->offset;
            t->library = 1;
        }
        mp_prof_src *t = &s[*n - 1];
        t->library &= i->library;
        t->inst += i->m[MP_PM_INST];
        for (int c = 0; c < MP_NCLASS; c++) {
            int dir = class_dir(i, c);
            if (dir < 0)
                continue;
            t->meas[c][dir] += i->m[MP_PM_SH + 2 * c];
            t->ideal[c][dir] += i->m[MP_PM_SH_IDEAL + 2 * c];
            t->cinst[c] += i->m[MP_PM_INST];
            /* no opcode: the class and load or store, from the metrics */
            char what[32];
            snprintf(what, sizeof what, "%s %s", mp_prof_class_name[c],
                     mp_prof_dir_name[dir]);
            add_op(t->ops[c], sizeof t->ops[c],
                   i->opcode[0] ? i->opcode : what);
            add_op(t->dops[c][dir], sizeof t->dops[c][dir], i->opcode);
        }
    }
    free(order);
    return s;
}

char *mp_prof_src_where(const mp_prof_src *s)
{
    const char *base = strrchr(s->file, '/');
    base = base ? base + 1 : s->file;
    char *w = mp_xmalloc(strlen(base) + 32);
    if (s->file[0])
        sprintf(w, "%s:%ld", base, s->line);
    else
        sprintf(w, "+0x%llx", s->offset);
    return w;
}
