/*
 * profile_csv.c - the CSVs of `memprobe profile` (profile_csv.h): their
 * schema, writing them and reading them back; the merge of the raw files
 * into them is profile_merge.c's, the per-source-line sums
 * profile_lines.c's.
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
    return m >= 0 && m < MP_PM_N ? mp_prof_metrics[m].raw : NULL;
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
int mp_prof_parse_u64(const char *s, mp_u64 *out)
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
int mp_prof_parse_offset(const char *s, mp_u64 *out)
{
    if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
        char *end;
        errno = 0;
        *out = strtoull(s + 2, &end, 16);
        return errno || end == s + 2 || *end ? -1 : 0;
    }
    return mp_prof_parse_u64(s, out);
}

int mp_prof_parse_long(const char *s, long *out)
{
    mp_u64 v;
    if (mp_prof_parse_u64(s, &v) || v > LONG_MAX)
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

void mp_prof_free_launch(mp_prof_launch *l)
{
    free(l->kernel), free(l->mangled), free(l->grid), free(l->block);
    free(l->dyn_shared), free(l->stream), free(l->nvtx), free(l->graph);
    free(l->line_counts), free(l->why);
    for (int k = 0; k < MP_PR_N; k++)
        free(l->range[k]);
    free(l->range_src), free(l->range_why), free(l->origin);
    free(l->seen), free(l->profiled);
}

void mp_prof_free_line(mp_prof_line *i)
{
    free(i->kernel), free(i->mangled), free(i->file), free(i->opcode);
    free(i->cubin), free(i->origin);
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
                    mp_csv_table *t, int *idx, char *err, size_t errlen)
{
    if (mp_csv_table_read(path, t, err, errlen))
        return -1;
    for (int k = 0; k < n; k++)
        if ((idx[k] = mp_prof_need_col(t, path, cols[k].name, err, errlen)) < 0) {
            mp_csv_free(t);
            return -1;
        }
    return 0;
}

/* A data row r of path with a count that did not parse: frees t, says
 * so and returns -1. */
static int bad_count(mp_csv_table *t, const char *path, int r, char *err,
                     size_t errlen)
{
    mp_reason(err, errlen, "%s: data row %d: a count that is not a whole "
              "number", path, r + 1);
    mp_csv_free(t);
    return -1;
}

static int load_launches(const char *path, mp_prof_data *d, char *err,
                         size_t errlen)
{
    mp_csv_table t;
    int idx[L_N];
    if (open_csv(path, launch_cols, L_N_OLD, &t, idx, err, errlen))
        return -1;
    for (int k = L_N_OLD; k < L_N; k++)   /* -1: an older file */
        idx[k] = mp_csv_column(&t, launch_cols[k].name);
    d->l = mp_xcalloc((size_t)t.nrows + 1, sizeof *d->l);
    for (int r = 0; r < t.nrows; r++) {
        mp_prof_launch *l = &d->l[d->nl++];
        char **c = t.cells[r];
        int bad = mp_prof_parse_long(c[idx[L_PID]], &l->pid)
                  || mp_prof_parse_long(c[idx[L_LAUNCH]], &l->launch)
                  || mp_prof_parse_long(c[idx[L_LAUNCHES]], &l->launches);
        static const int mcol[MP_PM_N] = {L_INST, L_SH, L_SH_IDEAL, L_GL,
                                          L_GL_IDEAL, L_LD};
        for (int m = 0; m < MP_PM_N; m++)
            bad |= mp_prof_parse_u64(c[idx[mcol[m]]], &l->m[m]);
        l->has_split = c[idx[L_SPLIT_SH]][0] != '\0';
        for (int s = 0; s < 4; s++)
            bad |= mp_prof_parse_u64(c[idx[L_SPLIT_SH + s]], &l->split[s])
                   | mp_prof_parse_u64(c[idx[L_SPLIT_GL + s]], &l->split[4 + s]);
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
    mp_csv_free(&t);
    return 0;
}

static int load_lines(const char *path, mp_prof_data *d, char *err,
                      size_t errlen)
{
    mp_csv_table t;
    int idx[I_N];
    if (open_csv(path, line_cols, I_N_OLD, &t, idx, err, errlen))
        return -1;
    for (int k = I_N_OLD; k < I_N; k++)   /* -1: an older file */
        idx[k] = mp_csv_column(&t, line_cols[k].name);
    d->i = mp_xcalloc((size_t)t.nrows + 1, sizeof *d->i);
    for (int r = 0; r < t.nrows; r++) {
        mp_prof_line *i = &d->i[d->ni++];
        char **c = t.cells[r];
        int bad = mp_prof_parse_long(c[idx[I_PID]], &i->pid)
                  || mp_prof_parse_long(c[idx[I_LINE]], &i->line)
                  || mp_prof_parse_offset(c[idx[I_OFFSET]], &i->offset)
                  || mp_prof_parse_u64(c[idx[I_LAUNCHES]], &i->launches);
        for (int m = 0; m < MP_PM_N; m++)
            bad |= mp_prof_parse_u64(c[idx[I_METRICS + m]], &i->m[m]);
        i->kernel = mp_xstrdup(c[idx[I_KERNEL]]);
        i->mangled = mp_xstrdup(c[idx[I_MANGLED]]);
        i->file = mp_xstrdup(c[idx[I_FILE]]);
        i->opcode = mp_xstrdup(c[idx[I_OPCODE]]);
        i->origin = mp_xstrdup(idx[I_ORIGIN] >= 0 ? c[idx[I_ORIGIN]] : "");
        i->library = idx[I_LIBRARY] >= 0 && !strcmp(c[idx[I_LIBRARY]], "1");
        if (bad)
            return bad_count(&t, path, r, err, errlen);
    }
    mp_csv_free(&t);
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

