/*
 * profile_columns.c - the columns of profile.csv and profile-lines.csv
 * (profile_columns.h): one table entry per column, with its name, its
 * meaning, its value in the row and the version that added it; a cell
 * written from and read into a row by its kind; the names of the metric
 * and range columns (profile_metrics.h's table, inject/raw.h's list) and
 * the parsing of a count, which the merge shares (profile_csv_int.h).
 */
#include "profile_columns.h"
#include "profile_csv_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "profile_origin.h"
#include "report.h"

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

/* ---- a cell ---------------------------------------------------------- */

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

static const char *number(char *buf, size_t len, mp_u64 v)
{
    snprintf(buf, len, "%llu", v);
    return buf;
}

const char *mp_prof_col_format(const mp_prof_col *c, const void *row,
                               char *buf, size_t len)
{
    const void *p = (const char *)row + c->off;
    switch (c->kind) {
    case MP_COL_STR:
    case MP_COL_RANGE:
        return *(char *const *)p;
    case MP_COL_LONG:
        return number(buf, len, (mp_u64)*(const long *)p);
    case MP_COL_U64:
    case MP_COL_METRIC:
        return number(buf, len, *(const mp_u64 *)p);
    case MP_COL_HEX:
        snprintf(buf, len, "0x%llx", *(const mp_u64 *)p);
        return buf;
    case MP_COL_BOOL:
        return *(const int *)p ? "1" : "0";
    default:
        return c->fmt(row, c->k, buf, len);
    }
}

int mp_prof_col_parse(const mp_prof_col *c, void *row, const char *cell)
{
    void *p = (char *)row + c->off;
    switch (c->kind) {
    case MP_COL_STR:
    case MP_COL_RANGE:
        *(char **)p = mp_xstrdup(cell);
        return 0;
    case MP_COL_LONG:
        return mp_prof_parse_long(cell, p);
    case MP_COL_U64:
    case MP_COL_METRIC:
        return mp_prof_parse_u64(cell, p);
    case MP_COL_HEX:
        return mp_prof_parse_offset(cell, p);
    case MP_COL_BOOL:
        *(int *)p = !strcmp(cell, "1");
        return 0;
    default:
        return c->parse ? c->parse(row, c->k, cell) : 0;
    }
}

void mp_prof_free_cells(const mp_prof_schema *s, void *row)
{
    for (int k = 0; k < s->n; k++)
        if (s->cols[k].kind == MP_COL_STR || s->cols[k].kind == MP_COL_RANGE)
            free(*(char **)(void *)((char *)row + s->cols[k].off));
}

/* ---- the columns a kind cannot say ------------------------------------ */

/* A launch's count split by opcode class k (MP_PS_*): empty unless its
 * lines' opcodes are all known. */
static const char *split_fmt(const void *row, int k, char *buf, size_t len)
{
    const mp_prof_launch *l = row;
    return l->has_split ? number(buf, len, l->split[k]) : NULL;
}

/* The first split column says whether the launch has the split. */
static int split_parse(void *row, int k, const char *cell)
{
    mp_prof_launch *l = row;
    if (k == 0)
        l->has_split = cell[0] != '\0';
    return mp_prof_parse_u64(cell, &l->split[k]);
}

/* A line's ratio: shared when it has a shared ideal, else global; empty
 * without an ideal. Derived from its counts: not read back. */
static const char *ratio_fmt(const void *row, int k, char *buf, size_t len)
{
    const mp_prof_line *i = row;
    (void)k;
    buf[0] = '\0';
    int m = i->m[MP_PM_SH_IDEAL] ? MP_PM_SH
            : i->m[MP_PM_GL_IDEAL] ? MP_PM_GL : -1;
    if (m >= 0)
        mp_rep_fmt(buf, len, (double)i->m[m] / (double)i->m[m + 1], 4);
    return buf;
}

/* ---- the tables ------------------------------------------------------ */

/* profile.csv's versions: the first; the range columns (range_counters,
 * range_why and the first MP_RAW_NRANGE_COLS values); the L2 counts; the
 * per-kernel counts and the origins. */
enum { LV_FIRST, LV_RANGE, LV_L2, LV_ORIGIN };
/* profile-lines.csv's: the first; the origins. */
enum { IV_FIRST, IV_ORIGIN };

/* An entry's value in mp_prof_launch: a field of kind MP_COL_<kind>, the
 * metric m[k], the range value range[k], the split count split[k]. */
#define L_FIELD(kind_, field, v)                                        \
    .kind = MP_COL_##kind_, .off = offsetof(mp_prof_launch, field), .since = v
#define L_METRIC(k_, v)                                                 \
    .kind = MP_COL_METRIC, .off = offsetof(mp_prof_launch, m[k_]),      \
    .k = k_, .since = v
#define L_RANGE(k_, v)                                                  \
    .kind = MP_COL_RANGE, .off = offsetof(mp_prof_launch, range[k_]),   \
    .k = k_, .since = v
#define L_SPLIT(k_, v)                                                  \
    .kind = MP_COL_CUSTOM, .k = k_, .fmt = split_fmt,                   \
    .parse = split_parse, .since = v
/* ... in mp_prof_line */
#define I_FIELD(kind_, field, v)                                        \
    .kind = MP_COL_##kind_, .off = offsetof(mp_prof_line, field), .since = v
#define I_METRIC(k_, v)                                                 \
    .kind = MP_COL_METRIC, .off = offsetof(mp_prof_line, m[k_]),        \
    .k = k_, .since = v

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

static const mp_prof_col launch_cols[] = {
    {"pid", "process id of the program (or of a process it forked)",
     L_FIELD(LONG, pid, LV_FIRST)},
    {"launch", "the process's launch number from 0, filtered ones counted "
               "(of a run of identical launches, the first)",
     L_FIELD(LONG, launch, LV_FIRST)},
    {"launches", "launches the row counts: 1, or a run of identical "
                 "launches one after another (same kernel, shape, stream "
                 "and NVTX stack), flushed together",
     L_FIELD(LONG, launches, LV_FIRST)},
    {"kernel", "demangled kernel name", L_FIELD(STR, kernel, LV_FIRST)},
    {"mangled", "kernel name as the cubin has it",
     L_FIELD(STR, mangled, LV_FIRST)},
    {"grid", "grid size x,y,z", L_FIELD(STR, grid, LV_FIRST)},
    {"block", "block size x,y,z", L_FIELD(STR, block, LV_FIRST)},
    {"dyn_shared_bytes", "dynamic shared memory per block",
     L_FIELD(STR, dyn_shared, LV_FIRST)},
    {"stream", "the stream it was launched on",
     L_FIELD(STR, stream, LV_FIRST)},
    {"nvtx", "the NVTX range stack, outermost first, joined by '/'",
     L_FIELD(STR, nvtx, LV_FIRST)},
    {"graph", "1: run by cuGraphLaunch", L_FIELD(STR, graph, LV_FIRST)},
    {"line_counts", "exact, or unavailable (why says why)",
     L_FIELD(STR, line_counts, LV_FIRST)},
    {"why", "why line counts are unavailable", L_FIELD(STR, why, LV_FIRST)},
    {NULL, "warp-level instructions executed", L_METRIC(MP_PM_INST, LV_FIRST)},
    {NULL, "shared-memory wavefronts", L_METRIC(MP_PM_SH, LV_FIRST)},
    {NULL, "their ideal (no bank conflicts)",
     L_METRIC(MP_PM_SH_IDEAL, LV_FIRST)},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_ld",
     "shared wavefronts of loads (empty: the launch's instructions do not "
     "add up to its sums)", L_SPLIT(MP_PS_SH_LD, LV_FIRST)},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_op_st",
     "shared wavefronts of stores and atomics",
     L_SPLIT(MP_PS_SH_ST, LV_FIRST)},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal_op_ld",
     "ideal shared wavefronts of loads",
     L_SPLIT(MP_PS_SH_IDEAL_LD, LV_FIRST)},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal_op_st",
     "ideal shared wavefronts of stores and atomics",
     L_SPLIT(MP_PS_SH_IDEAL_ST, LV_FIRST)},
    {NULL, "global-memory 32-byte sectors", L_METRIC(MP_PM_GL, LV_FIRST)},
    {NULL, "their ideal (fully coalesced)",
     L_METRIC(MP_PM_GL_IDEAL, LV_FIRST)},
    {"smsp__sass_sectors_mem_global_op_ld", "global sectors of loads",
     L_SPLIT(MP_PS_GL_LD, LV_FIRST)},
    {"smsp__sass_sectors_mem_global_op_st",
     "global sectors of stores and atomics", L_SPLIT(MP_PS_GL_ST, LV_FIRST)},
    {"smsp__sass_sectors_mem_global_ideal_op_ld", "ideal sectors of loads",
     L_SPLIT(MP_PS_GL_IDEAL_LD, LV_FIRST)},
    {"smsp__sass_sectors_mem_global_ideal_op_st",
     "ideal sectors of stores and atomics",
     L_SPLIT(MP_PS_GL_IDEAL_ST, LV_FIRST)},
    {NULL, "warp-level load instructions executed (LDG, LD, LDS, LDL, LDSM)",
     L_METRIC(MP_PM_LD, LV_FIRST)},
    {NULL, "--level kernel+: L1 sector hit rate "
     "of the launch, percent (range profiler, second run; of a run of "
     "launches, their mean weighted by each launch's global sectors)",
     L_RANGE(MP_PR_L1_HIT, LV_RANGE)},
    {NULL, "--level kernel+: L2 sector hit rate, "
     "percent, as Nsight Compute defines it: lts__t_sectors_lookup_hit.sum "
     "/ lts__t_sectors.sum (two range runs, each from an L2 flushed before "
     "the launch; of a run of launches, the ratio of their sums)",
     L_RANGE(MP_PR_L2_HIT, LV_RANGE)},
    {NULL, "--level kernel+: bytes read from DRAM, the "
     "L2 flushed before the launch", L_RANGE(MP_PR_DRAM_RD, LV_RANGE)},
    {NULL, "--level kernel+: bytes written to DRAM",
     L_RANGE(MP_PR_DRAM_WR, LV_RANGE)},
    {NULL, "shared wavefronts of loads from the hardware counter (range "
     "profiler; filled for launches without line counts with --fallback "
     "rerun or at --level kernel+)", L_RANGE(MP_PR_SH_LD, LV_RANGE)},
    {NULL, "shared wavefronts of stores, hardware counter",
     L_RANGE(MP_PR_SH_ST, LV_RANGE)},
    {NULL, "global sectors of loads, hardware counter",
     L_RANGE(MP_PR_GL_LD, LV_RANGE)},
    {NULL, "global sectors of stores, hardware counter",
     L_RANGE(MP_PR_GL_ST, LV_RANGE)},
    {NULL, "global load requests, hardware counter",
     L_RANGE(MP_PR_RQ_LD, LV_RANGE)},
    {NULL, "global store requests, hardware counter",
     L_RANGE(MP_PR_RQ_ST, LV_RANGE)},
    {"range_counters", "where the range columns come from: range_profiler "
     "(the second run's range profiler), unavailable (wanted, not got: "
     "range_why says why), empty (not wanted)",
     L_FIELD(STR, range_src, LV_RANGE)},
    {"range_why", "why the range columns are empty though wanted (the "
     "program ran once: --fallback off; a launch the second run did not "
     "repeat, a graph launch, ...)", L_FIELD(STR, range_why, LV_RANGE)},
    {NULL, "--level kernel+: L2 sectors that "
     "hit, the L2 flushed before the launch",
     L_RANGE(MP_PR_L2_LOOKUP_HIT, LV_L2)},
    {NULL, "--level kernel+: L2 sectors accessed (a "
     "second range run, flushed likewise)", L_RANGE(MP_PR_L2_SECTORS, LV_L2)},
    {"kernel_launches_seen", "launches of this kernel, grid and block the "
     "process made, profiled or not (empty: a graph's kernel)",
     L_FIELD(STR, seen, LV_ORIGIN)},
    {"kernel_launches_profiled", "of them, the launches profiled (the "
     "filters, --per-kernel): the profile's rows of this kernel, grid and "
     "block count these; nothing is scaled to the others",
     L_FIELD(STR, profiled, LV_ORIGIN)},
    {"origin", ORIGIN_DESC, L_FIELD(STR, origin, LV_ORIGIN)},
    {"library", LIBRARY_DESC, L_FIELD(BOOL, library, LV_ORIGIN)},
};

static const mp_prof_col line_cols[] = {
    {"pid", "process id", I_FIELD(LONG, pid, IV_FIRST)},
    {"kernel", "demangled kernel name", I_FIELD(STR, kernel, IV_FIRST)},
    {"mangled", "kernel name as the cubin has it",
     I_FIELD(STR, mangled, IV_FIRST)},
    {"file", "source file of the instruction (empty without -lineinfo)",
     I_FIELD(STR, file, IV_FIRST)},
    {"line", "source line (0 without -lineinfo)",
     I_FIELD(LONG, line, IV_FIRST)},
    {"function_offset", "pc offset of the SASS instruction in its function",
     I_FIELD(HEX, offset, IV_FIRST)},
    {"opcode", "SASS opcode (cuobjdump -sass, with --opcodes or without "
               "line info; else empty)", I_FIELD(STR, opcode, IV_FIRST)},
    {"launches", "profiled launches summed in this row",
     I_FIELD(U64, launches, IV_FIRST)},
    {NULL, "warp-level instructions executed", I_METRIC(MP_PM_INST, IV_FIRST)},
    {NULL, "shared-memory wavefronts", I_METRIC(MP_PM_SH, IV_FIRST)},
    {NULL, "their ideal", I_METRIC(MP_PM_SH_IDEAL, IV_FIRST)},
    {NULL, "global-memory 32-byte sectors", I_METRIC(MP_PM_GL, IV_FIRST)},
    {NULL, "their ideal", I_METRIC(MP_PM_GL_IDEAL, IV_FIRST)},
    {NULL, "warp-level load instructions executed (not 0: a load)",
     I_METRIC(MP_PM_LD, IV_FIRST)},
    {"ratio", "measured / ideal of its shared (else global) count; empty "
              "when the ideal is 0",
     .kind = MP_COL_CUSTOM, .fmt = ratio_fmt, .since = IV_FIRST},
    {"origin", ORIGIN_DESC, I_FIELD(STR, origin, IV_ORIGIN)},
    {"library", LIBRARY_DESC, I_FIELD(BOOL, library, IV_ORIGIN)},
};

#define NCOLS(t) ((int)(sizeof t / sizeof *t))
const mp_prof_schema mp_prof_launch_schema = {launch_cols, NCOLS(launch_cols)};
const mp_prof_schema mp_prof_line_schema = {line_cols, NCOLS(line_cols)};
_Static_assert(NCOLS(launch_cols) <= MP_PROF_MAXCOLS
               && NCOLS(line_cols) <= MP_PROF_MAXCOLS, "MP_PROF_MAXCOLS");

const char *mp_prof_col_name(const mp_prof_col *c)
{
    return c->name ? c->name
           : c->kind == MP_COL_METRIC ? mp_prof_metric_name(c->k)
                                      : mp_prof_range_name(c->k);
}

int mp_prof_schema_version(const mp_prof_schema *s)
{
    return s->cols[s->n - 1].since;
}

int mp_prof_schema_ncols(const mp_prof_schema *s, int v)
{
    int n = 0;
    while (n < s->n && s->cols[n].since <= v)
        n++;
    return n;
}

int mp_prof_launch_ncols(void) { return NCOLS(launch_cols); }
const char *mp_prof_launch_col(int i)
{
    return mp_prof_col_name(&launch_cols[i]);
}
const char *mp_prof_launch_desc(int i) { return launch_cols[i].desc; }
int mp_prof_line_ncols(void) { return NCOLS(line_cols); }
const char *mp_prof_line_col(int i) { return mp_prof_col_name(&line_cols[i]); }
const char *mp_prof_line_desc(int i) { return line_cols[i].desc; }
