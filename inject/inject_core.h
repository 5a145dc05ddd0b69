/*
 * inject_core.h - the part of the injection library that needs no CUDA
 * (inject/inject_core.c; the writers inject/inject_core_write.c), tested
 * on the CPU by tests/test_inject_core.c:
 *
 *   ic_lines    the per-instruction table: key (cubin crc, function index,
 *               pc offset), values file, line, launches and the
 *               metric sums (MP_RAW_METRIC_NAMES order)
 *   ic_launches the launch rows not yet written
 *   ic_filter   --kernel (POSIX ERE on the mangled name), --nvtx-include
 *               (on an NVTX range stack), then launch skip / count
 *   ic_kernels  per kernel, grid and block: launches seen and profiled,
 *               and the --per-kernel decision
 *   ic_status   the status lines: events as they happen, then the counts
 *   ic_modules  where each kept module came from (modules.PID.csv), and
 *               which frames of a call stack belong to the CUDA stack
 *   ic_nvtx     the strings the program registered with NVTX, by handle
 *   writers     launches.PID.csv appended, lines.PID.csv rewritten through
 *               a .tmp and rename, status.PID rewritten the same way
 *
 * The writers use only open/write/rename and no allocation, so that the
 * library's signal handlers may call them. None of this is thread-safe:
 * the library holds one lock around it (inject_state.h).
 */
#ifndef MP_INJECT_CORE_H
#define MP_INJECT_CORE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "raw.h"

#define IC_COST_ID(id, name) IC_COST_##id,

/* ---- per-instruction aggregation ------------------------------------ */

typedef struct {
    uint32_t crc, function_index, pc_offset;
    char *mangled, *file; /* owned */
    uint32_t line;
    uint64_t launches;
    uint64_t sum[MP_RAW_NMETRICS];
    uint64_t last_launch; /* launch number + 1 that last counted here */
} ic_line;

typedef struct {
    ic_line *v;
    size_t n, cap;
    size_t *slot; /* open addressing: index + 1, 0 = empty */
    size_t nslot; /* a power of two, > 2 n */
} ic_lines;

void ic_lines_init(ic_lines *t);
void ic_lines_free(ic_lines *t);
/* The line of (crc, function, pc), or NULL when there is none yet. */
ic_line *ic_lines_get(ic_lines *t, uint32_t crc, uint32_t function_index,
                      uint32_t pc_offset);
/* Adds a new line (strings copied; file may be NULL for none). NULL when
 * out of memory. The key must not be there yet (ic_lines_get first). */
ic_line *ic_lines_put(ic_lines *t, uint32_t crc, uint32_t function_index,
                      uint32_t pc_offset, const char *mangled,
                      const char *file, uint32_t line);
/* Adds value to metric m of line l for launch number `launch`; the line's
 * launch count grows once per launch number. */
void ic_line_count(ic_line *l, uint64_t launch, int m, uint64_t value);
/* The same for a run of n launches (numbers launch .. launch + n - 1)
 * counted at once: the line's launch count grows by n. */
void ic_line_count_n(ic_line *l, uint64_t launch, uint64_t n, int m,
                     uint64_t value);
/* Metric index of a metric name (MP_RAW_METRIC_NAMES), or -1. */
int ic_metric_index(const char *name);

/* ---- launch rows ---------------------------------------------------- */

/* One memory instruction of one launch (a shared or global count not 0):
 * launch_ops.PID.csv, so that memprobe splits each launch's sums into
 * loads and stores from that launch's own counts. */
typedef struct {
    uint32_t crc, function_index, pc_offset;
    uint64_t v[MP_RAW_NMETRICS];
} ic_op;

typedef struct {
    uint64_t launch;   /* its number; of a run of launches, the first */
    uint64_t launches; /* how many launches the row counts (1, or a run) */
    char *mangled; /* owned */
    unsigned grid[3], block[3], dyn_shared;
    uint64_t stream;
    char *nvtx; /* owned; "" when none */
    int graph;
    int exact;
    char *why; /* owned; "" when exact */
    uint64_t sum[MP_RAW_NMETRICS];
    ic_op *ops; /* owned: its memory instructions */
    size_t nops, capops;
} ic_launch;

typedef struct {
    ic_launch *v;
    size_t n, cap;
} ic_launches;

void ic_launches_init(ic_launches *b);
void ic_launches_free(ic_launches *b);
/* A new row (strings copied; NULL taken as ""), zero sums, exact. NULL
 * when out of memory. */
ic_launch *ic_launches_add(ic_launches *b, uint64_t launch,
                           const char *mangled, const char *nvtx);
/* Adds an instruction's values v (MP_RAW_METRIC_NAMES order) to row r's
 * memory instructions when a shared, global or load-instruction value is
 * not 0; the same (crc, function, pc) again adds to its entry. 0, or -1
 * out of memory. */
int ic_launch_op(ic_launch *r, uint32_t crc, uint32_t function_index,
                 uint32_t pc_offset, const uint64_t *v);
/* Marks a row unavailable, saying why. */
void ic_launch_unavailable(ic_launch *r, const char *why);
/* Drops the rows (after they were written). */
void ic_launches_clear(ic_launches *b);

/* ---- filters -------------------------------------------------------- */

typedef struct {
    int has_regex;
    regex_t regex;
    char nvtx[256]; /* "" = no NVTX filter */
    uint64_t skip, count; /* count UINT64_MAX = no limit */
    uint64_t matched;     /* launches that passed kernel and NVTX */
} ic_filter;

/* From the environment's strings (NULL or "" = not given). 0, or -1 with
 * a one-line reason naming the variable in err. */
int ic_filter_init(ic_filter *f, const char *kernel, const char *nvtx,
                   const char *skip, const char *count, char *err,
                   size_t errlen);
void ic_filter_free(ic_filter *f);
/* Does `include` select a launch under this NVTX stack (outermost
 * first)? Yes when include equals one of the names, or, written A/B/...,
 * names consecutive ranges of the stack. */
int ic_nvtx_match(const char *include, const char *const *stack,
                  size_t depth);
/* Does the kernel regex pass this mangled name (NULL = not known: passes)? */
int ic_kernel_match(const ic_filter *f, const char *mangled);
/* The decision for one launch: 1 profile it, 0 not. Launches that pass the
 * kernel and NVTX filters are numbered; the first `skip` and those after
 * `skip + count` are not profiled. */
int ic_filter_decide(ic_filter *f, const char *mangled,
                     const char *const *stack, size_t depth);
/* 1 when no later launch can be profiled any more (count reached). */
int ic_filter_done(const ic_filter *f);

/* Parses a non-negative decimal number; 0 on success, -1 otherwise. */
int ic_parse_u64(const char *s, uint64_t *out);

/* ---- batches of runs ------------------------------------------------ *
 * SASS records name their function, not their launch: a batch of runs
 * flushed together holds each kernel name in one run only. 1 when a new
 * run of kernel `name` may join a batch of n runs named names[0..n-1]
 * (max_runs at most); 0: the batch ends first. A launch that extends the
 * batch's last run never asks. */
int ic_batch_admits(const char *const *names, int n, int max_runs,
                    const char *name);

/* ---- functions without line information ---------------------------- */

/* Per (cubin crc, function index): whether source-line lookups found a
 * line. A function is taken to have none after IC_NOLINE_AFTER lookups
 * in a row found none and none ever did: its further instructions are
 * not looked up (each lookup reads the cubin; a library's kernels have
 * thousands of instructions and no line information). */
#define IC_NOLINE_AFTER 32
typedef struct {
    uint64_t *key;
    int32_t *misses; /* -1: a line was found */
    unsigned char *used;
    size_t n, nslot;
} ic_fnlines;

void ic_fnlines_free(ic_fnlines *t);
/* 1 when the function is taken to have no line information. */
int ic_fnlines_none(const ic_fnlines *t, uint32_t crc, uint32_t fn);
/* Says what one lookup found (found: a file and line). 0, or -1 out of
 * memory (then nothing is remembered: lookups go on). */
int ic_fnlines_note(ic_fnlines *t, uint32_t crc, uint32_t fn, int found);

/* ---- per kernel (--per-kernel) ------------------------------------- */

typedef struct {
    char *mangled; /* owned */
    unsigned grid[3], block[3];
    uint64_t seen, profiled;
    uint64_t pending; /* decided "profile" at a launch's entry, not back */
    int wanted;       /* counted in ic_kernels.incomplete */
} ic_kernel;

typedef struct {
    ic_kernel *v;
    size_t n, cap;
    size_t *slot, nslot; /* open addressing: index + 1, 0 = empty */
    uint64_t per_kernel; /* N; 0: every launch */
    size_t incomplete;   /* kernels wanted with fewer than N profiled */
} ic_kernels;

void ic_kernels_init(ic_kernels *t, uint64_t per_kernel);
void ic_kernels_free(ic_kernels *t);
/* The entry of (mangled, grid, block), made when missing; NULL when out
 * of memory. */
ic_kernel *ic_kernels_get(ic_kernels *t, const char *mangled,
                          const unsigned grid[3], const unsigned block[3]);
/* At a launch's entry, for a launch the filters passed: 1 profile it
 * (fewer than N of its kernel profiled or on their way; it is then
 * pending), 0 not. */
int ic_kernel_wants(ic_kernels *t, ic_kernel *k);
/* At the launch's exit: `decided` as ic_kernel_wants said; made 0 when
 * the launch call failed (not counted). */
void ic_kernel_done(ic_kernels *t, ic_kernel *k, int decided, int made);

/* ---- status --------------------------------------------------------- */

enum { MP_RAW_COST_FIELDS(IC_COST_ID) IC_COST_N };

typedef struct {
    char text[16384]; /* the event lines, "key value\n" each */
    size_t len;
    uint64_t seen, profiled;
    uint64_t cost_n[IC_COST_N]; /* MP_RAW_KEY_COST: counts, seconds */
    double cost_s[IC_COST_N];
    uint64_t records;
} ic_status;

/* Appends "key value" (value's newlines become blanks; a full buffer
 * drops the line). Returns 1 when added, 0 when the same line was there
 * already (warnings are said once), -1 when full. */
int ic_status_event(ic_status *s, const char *key, const char *value);

/* ---- module origins ------------------------------------------------- */

/* One module (cubin) kept: where it came from (raw.h, modules.PID.csv). */
typedef struct {
    uint32_t crc;
    char *origin;    /* owned */
    char found[12];  /* MP_FOUND_* */
} ic_module;

typedef struct {
    ic_module *v;
    size_t n, cap;
} ic_modules;

void ic_modules_init(ic_modules *m);
void ic_modules_free(ic_modules *m);
/* Records crc's origin (copied) and how it was found, unless crc has one
 * already (the first load of a cubin names it). 1 added, 0 there
 * already, -1 out of memory. */
int ic_modules_add(ic_modules *m, uint32_t crc, const char *origin,
                   const char *found);

/* 1 when the loaded object at path (its file name decides) is part of
 * the stack between a program's code and the callback that sees a module
 * load: the CUDA driver and runtime (libcuda, libcudart, libnvidia-*),
 * CUPTI and its perf libraries, memprobe's own libraries, and the C and
 * C++ runtimes (libc, libpthread, libdl, ld-linux, libgcc_s,
 * libstdc++). The runtime counts as CUDA's also where it is linked
 * statically: then its frames lie in the object that linked it, which
 * is that object's code (libcublas, libtorch_cuda, the executable). */
int ic_cuda_stack_object(const char *path);
/* The first of n objects (a call stack's frames, innermost first; NULL
 * for a frame in no object) outside the CUDA stack: its index, or -1. */
int ic_first_own_frame(const char *const *objects, size_t n);

/* ---- writers (no allocation: callable from a signal handler) -------- */

/* RFC 4180: the field, quoted when it holds a comma, quote, CR or LF,
 * with quotes doubled, into out (NUL-terminated, truncated to outlen). */
void ic_csv_field(const char *s, char *out, size_t outlen);

/* Appends b's rows to DIR/launches.PID.csv and their memory instructions
 * to DIR/launch_ops.PID.csv (the header first when a file is new or
 * empty), then clears them. 0 or -1 (rows kept). */
int ic_write_launches(const char *dir, long pid, ic_launches *b);
/* Rewrites DIR/lines.PID.csv whole: DIR/lines.PID.csv.tmp, then rename.
 * 0 or -1. */
int ic_write_lines(const char *dir, long pid, const ic_lines *t);
/* Rewrites DIR/kernels.PID.csv whole (through .tmp). 0 or -1. */
int ic_write_kernels(const char *dir, long pid, const ic_kernels *t);
/* Rewrites DIR/modules.PID.csv whole (MP_RAW_MODULE_COLUMNS) through a
 * .tmp and rename. 0 or -1. */
int ic_write_modules(const char *dir, long pid, const ic_modules *m);
/* Rewrites DIR/status.PID: the events, then launches_seen, launches_
 * profiled, the cost line and "end END" (END: "exit", "flush", "signal
 * N"). 0 or -1. */
int ic_write_status(const char *dir, long pid, const ic_status *s,
                    const char *end);
/* ---- NVTX registered strings --------------------------------------- */

enum { IC_NVTX_NAME = 96, IC_NVTX_STRINGS = 1024 };

/* A range name into out (IC_NVTX_NAME bytes): ascii, else wide with its
 * ASCII kept and the rest as '?' (NULL both: ""), cut to IC_NVTX_NAME - 1
 * bytes. */
void ic_nvtx_name(char *out, const char *ascii, const wchar_t *wide);

/* The first IC_NVTX_STRINGS strings registered (nvtxDomainRegisterString),
 * each by the handle NVTX returned for it. */
typedef struct {
    struct {
        const void *handle;
        char name[IC_NVTX_NAME];
    } v[IC_NVTX_STRINGS];
    int n;
} ic_nvtx;

/* Keeps handle's string (ascii or wide, as ic_nvtx_name); a NULL handle
 * or a full table keeps nothing. A handle registered again names its
 * newest string. */
void ic_nvtx_register(ic_nvtx *t, const void *handle, const char *ascii,
                      const wchar_t *wide);
/* The string of handle, or NULL when it was not registered. */
const char *ic_nvtx_lookup(const ic_nvtx *t, const void *handle);

/* ---- the range pass (range.PID.csv) ---------------------------------- */

/* One launch the range pass profiled: its values as text ("" = not
 * measured) and why they are empty when they are. */
typedef struct {
    uint64_t launch;
    char mangled[512];
    unsigned grid[3], block[3];
    char value[MP_RAW_NRANGE][32];
    char why[160];
} ic_range_row;

/* Appends n rows to DIR/range.PID.csv (the header first when the file is
 * new or empty). 0 or -1. */
int ic_write_range_rows(const char *dir, long pid, const ic_range_row *r,
                        size_t n);

/* The process's ordinal in start order: the first N from 0 for which
 * DIR/ordinal.N could be made (O_EXCL; it gets the pid). N, or -1 when
 * none of the first `max` was free or DIR cannot be written. */
int ic_claim_ordinal(const char *dir, long pid, int max);

/* Writes len bytes to DIR/cubin.CRC unless that file exists. 0 or -1. */
int ic_write_cubin(const char *dir, uint32_t crc, const void *data,
                   size_t len);

#endif
