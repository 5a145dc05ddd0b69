/*
 * profile_csv.h - the two CSVs of `memprobe profile` (docs/profile.md):
 * their schema, the merge of the injection library's raw files (every
 * process's) into them, reading them back, and the per-source-line view
 * that --check, --baseline and the report share.
 */
#ifndef MP_PROFILE_CSV_H
#define MP_PROFILE_CSV_H

#include <stddef.h>

#include "profile_metrics.h"
#include "profile_names.h"
#include "raw.h"

typedef unsigned long long mp_u64;

/* The per-instruction metrics: profile_metrics.h's table. */
const char *mp_prof_metric_name(int m);

/* The per-launch range-profiler metrics of the range pass, MP_PR_<id>
 * for each of inject/raw.h's MP_RAW_RANGES, in its order: kernel+'s L1
 * and L2 sector hit rates in percent and DRAM bytes read and written, the
 * fallback's hardware counts (shared wavefronts, global sectors and
 * requests, of loads and stores), then kernel+'s two L2 counts whose
 * ratio is the L2 hit rate (lookup hits, sectors: the last columns of
 * profile.csv). mp_prof_range_name(k): its name. */
#define MP_PR_ID(id, name) MP_PR_##id,
enum { MP_RAW_RANGES(MP_PR_ID) MP_PR_N };
#undef MP_PR_ID
const char *mp_prof_range_name(int k);
/* range_counters values: filled by the range pass / wanted but not */
#define MP_PROF_RANGE_FILLED "range_profiler"
#define MP_PROF_RANGE_UNAVAILABLE "unavailable"

/* The launch sums split by opcode class (loads, stores). */
enum { MP_PS_SH_LD, MP_PS_SH_ST, MP_PS_SH_IDEAL_LD, MP_PS_SH_IDEAL_ST,
       MP_PS_GL_LD, MP_PS_GL_ST, MP_PS_GL_IDEAL_LD, MP_PS_GL_IDEAL_ST,
       MP_PS_N };

/* The memory classes a source line is judged in (profile_metrics.h). */
extern const char *const mp_prof_class_name[MP_NCLASS];  /* shared, global */
extern const char *const mp_prof_class_unit[MP_NCLASS];  /* wavefronts, sectors */
/* An instruction's direction: load, or store (atomics and reductions too). */
enum { MP_DIR_LOAD, MP_DIR_STORE, MP_NDIR };
extern const char *const mp_prof_dir_name[MP_NDIR];  /* load, store */

/* ---- schema ---------------------------------------------------------- */

/* Columns of profile.csv (one row per profiled launch) and of
 * profile-lines.csv (one row per SASS instruction), with their meaning:
 * profile_columns.c's tables. */
int mp_prof_launch_ncols(void);
const char *mp_prof_launch_col(int i);
const char *mp_prof_launch_desc(int i);
int mp_prof_line_ncols(void);
const char *mp_prof_line_col(int i);
const char *mp_prof_line_desc(int i);

/* X.csv -> X-lines.csv; any other name gets "-lines.csv" appended. */
void mp_prof_lines_path(const char *csv, char *out, size_t len);

/* 1 when the file's first line is profile.csv's header. */
int mp_prof_is_profile_csv(const char *path);
/* 1 when it is profile-lines.csv's header. */
int mp_prof_is_lines_csv(const char *path);

/* ---- data ------------------------------------------------------------ */

typedef struct {
    long pid, launch, launches;   /* launches: the row's run (1 or more) */
    char *kernel, *mangled, *grid, *block, *dyn_shared, *stream, *nvtx,
        *graph, *line_counts, *why;
    mp_u64 m[MP_PM_N];
    mp_u64 split[MP_PS_N];
    int has_split;           /* opcodes known for all its counted lines */
    char *range[MP_PR_N];    /* range-pass values as text; "" = none */
    char *range_src;         /* "", MP_PROF_RANGE_FILLED or _UNAVAILABLE */
    char *range_why;         /* why unavailable */
    char *seen, *profiled;   /* its kernel's launches seen and profiled,
                              * as text; "" = not known */
    char *origin;            /* where its kernel's module came from
                              * (modules.PID.csv); "" = not recorded */
    int library;             /* 1: a vendor library's kernel
                              * (mp_prof_origin_library) */
    const char *name;        /* its kernel's name as printed (below) */
} mp_prof_launch;

typedef struct {
    long pid, line;
    char *kernel, *mangled, *file, *opcode, *cubin;   /* cubin: raw only */
    long fidx;                                        /* raw only */
    mp_u64 offset, launches, m[MP_PM_N];
    char *origin;            /* its module's origin, as the launch's */
    int library;
    const char *name;        /* its kernel's name as printed (below) */
} mp_prof_line;

/* A profile: its launch rows in profile.csv's order (process, launch),
 * its instruction rows. Each kernel (mangled name) has the name that
 * messages and the report print it by: its short name
 * (mp_prof_short_name), and when kernels of different mangled names share
 * one, the template arguments (or parameters) that tell them apart
 * (mp_prof_tell_apart, in the order of their first row, launches before
 * instruction rows): "scale<float>", "scale<double>". Set by mp_prof_merge
 * and mp_prof_load; the rows' `name` point into `names`. */
typedef struct {
    mp_prof_launch *l;
    int nl;
    mp_prof_line *i;
    int ni;
    char **names;
    int nnames;
} mp_prof_data;

void mp_prof_free(mp_prof_data *d);

/* The library's cost fields (inject/raw.h MP_RAW_COST_FIELDS). */
#define MP_PC_ID(id, name) MP_PC_##id,
enum { MP_RAW_COST_FIELDS(MP_PC_ID) MP_PC_N };
#undef MP_PC_ID

/* What the status files said, summed over the processes. */
typedef struct {
    int nstatus;              /* status files found */
    mp_u64 seen, profiled;    /* launches_seen, launches_profiled */
    int has_cost;             /* a cost line was read */
    mp_u64 cost_n[MP_PC_N], records;
    double cost_s[MP_PC_N];   /* seconds in the library's calls */
    int nerrors;
    char error[512];          /* the first error line, with its pid */
    int kept, dropped;        /* launches kept / dropped by the regex */
} mp_prof_status;

/* Reads every process's raw files in raw_dir into d: status, launches,
 * lines (a partly written last line of a crashed process is dropped),
 * the modules' origins (each line gets its module's, a launch its
 * instructions'; MP_ORIGIN_UNKNOWN where none was recorded, and library
 * by mp_prof_origin_library), demangles names, keeps the launches and lines whose mangled or
 * demangled name matches kernel_re (POSIX ERE; NULL: all), looks the
 * opcodes up with cuobjdump when it is found (cubin.CRC files), splits
 * the launch sums by opcode class. 0, or -1 with a reason (a raw file
 * that cannot be read). */
/* --opcodes: disassemble the modules whose lines have no source line
 * (auto), every module (on), none (off). */
enum { MP_PROF_OPCODES_AUTO, MP_PROF_OPCODES_ON, MP_PROF_OPCODES_OFF };

int mp_prof_merge(const char *raw_dir, const char *kernel_re, int opcodes,
                  mp_prof_data *d, mp_prof_status *st, char *err,
                  size_t errlen);

/* Names d's kernels (the rows' `name`, d->names): short names, told
 * apart where kernels of other mangled names share them (profile_names.c).
 * mp_prof_merge and mp_prof_load call it; a profile built otherwise (its
 * rows' strings malloc'd, as mp_prof_free frees them) calls it once. */
void mp_prof_name_kernels(mp_prof_data *d);


/* Writes d's launches to csv and its instructions to lines (the files
 * beside profile.csv and its -lines.csv that replace them, replace.h).
 * 0 or -1. */
int mp_prof_write(const mp_prof_data *d, const char *csv, const char *lines,
                  char *err, size_t errlen);

/* Whether writing csv and its -lines.csv would be refused (a missing
 * folder, a folder, another CSV's header): 0, or -1 with the reason. */
int mp_prof_check_output(const char *csv, char *err, size_t errlen);

/* Reads profile.csv and its -lines.csv back. 0 or -1 with a reason. */
int mp_prof_load(const char *csv, mp_prof_data *d, char *err, size_t errlen);

/* ---- source lines ---------------------------------------------------- */

/* One source line of one kernel, summed over its instructions, launches
 * and processes; without line info, one instruction. */
typedef struct {
    const char *kernel, *mangled, *file;
    const char *name;         /* the kernel's printed name (mp_prof_data) */
    long line;
    mp_u64 offset;            /* the first instruction's pc offset */
    mp_u64 inst;              /* instructions executed on the line */
    mp_u64 cinst[MP_NCLASS];  /* of those, the class's instructions */
    /* measured and ideal counts, [class][MP_DIR_*]: an instruction is a
     * load when it executed load instructions, else a store (or an
     * atomic); a class's sum is mp_prof_src_sum's */
    mp_u64 meas[MP_NCLASS][MP_NDIR], ideal[MP_NCLASS][MP_NDIR];
    int library;              /* 1: every instruction of it is a library
                               * kernel's (own wins: never hidden) */
    char ops[MP_NCLASS][48];  /* the class's opcodes, "LDS/STS" */
    char dops[MP_NCLASS][MP_NDIR][48];   /* the same by direction */
} mp_prof_src;

/* A class's loads and stores together (v: a line's meas or ideal). */
static inline mp_u64 mp_prof_src_sum(const mp_u64 v[MP_NCLASS][MP_NDIR],
                                     int c)
{
    return v[c][MP_DIR_LOAD] + v[c][MP_DIR_STORE];
}

/* 1 when instruction i is on source line s (the same kernel, file and
 * line; without line info the same instruction) and counts in class c
 * with direction dir there (mp_prof_sources' rule). */
int mp_prof_line_counts_in(const mp_prof_line *i, const mp_prof_src *s,
                           int c, int dir);

/* The source lines of d, ordered by kernel, file, line (malloc'd). */
mp_prof_src *mp_prof_sources(const mp_prof_data *d, int *n);

/* Where in its kernel a source line is: "file:line" (the file's base
 * name), or "+0xOFF", the instruction's pc offset, without line info
 * (malloc'd). */
char *mp_prof_src_where(const mp_prof_src *s);


/* A ratio as printed: two decimals, a second zero dropped ("32.0",
 * "1.26", "1.5"); more (up to 12) while those hide that r is above or
 * below `from`: 1.0001 against 1 is "1.0001", not "1.0". */
void mp_prof_fmt_ratio_from(double r, double from, char *buf, size_t len);

/* mp_prof_fmt_ratio_from against 1: a ratio to its ideal. */
void mp_prof_fmt_ratio(double r, char *buf, size_t len);

/* The executable `name` in dir (if dir) or in PATH: 0 and its path, or
 * -1. A name with '/' is taken as it is. */
int mp_prof_find_program(const char *name, const char *dir, char *out,
                         size_t len);

#endif
