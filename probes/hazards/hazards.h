/*
 * hazards.h - the hazard catalogue (`memprobe hazards`): the seeds' block
 * reduction for a dot product, written correctly and with each of its
 * synchronisation bugs, and the C side that runs every kernel under
 * compute-sanitizer's tools and reads what they report.
 *
 * Two halves:
 *  - the kernels' extern "C" launchers (probes/hazards/hazards.cu);
 *  - the catalogue, the options, the compute-sanitizer output parser and
 *    the table runner (probes/hazards/hazards.c, plain C, no CUDA), declared here
 *    so that the CPU tests can call them without a GPU.
 * docs/hazards.md describes the catalogue, the table and its CSV.
 */
#ifndef MP_PROBES_HAZARDS_H
#define MP_PROBES_HAZARDS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the kernels (probes/hazards/hazards.cu) ----------------------------------- */

/* One kernel per entry; the order is the table's. */
typedef enum {
    MP_HZ_CORRECT,              /* the seeds' reduction, written correctly */
    MP_HZ_SYNC_IN_DIVERGENT_IF, /* __syncthreads() inside if (cacheIndex < i) */
    MP_HZ_HALVING_SHIFT_2,      /* i = i >> 2: every other level skipped */
    MP_HZ_RESULT_BY_THREAD_2,   /* if (cacheIdx == 2) writes the block result */
    MP_HZ_MISSING_BARRIER,      /* no __syncthreads() after cache[] = temp */
    MP_HZ_COUNT
} mp_hazard_kernel;

/* The workload, as in seed 004: a dot product of 33 * 1024 floats over 64
 * blocks (a grid-stride loop), block partials summed afterwards. */
#define MP_HZ_ELEMENTS (33 * 1024)
#define MP_HZ_BLOCKS 64
/* The shared cache[] holds one float per thread: blocks of 1 to 256
 * threads, a power of two (the halving loop needs one). */
#define MP_HZ_MAX_THREADS 256
/* Cap on the halving loop's steps (log2 of 256 is 8): no kernel loops
 * forever, whatever its halving does. */
#define MP_HZ_MAX_STEPS 16

/* The two input vectors: small integers, so that every partial sum is an
 * exact integer in float and the result can be compared exactly. */
static inline float mp_hazard_a(int i) { return (float)(i % 5 + 1); }
static inline float mp_hazard_b(int i) { return (float)(i % 3 + 1); }

/* Launches kernel `kernel` (mp_hazard_kernel) once: a dot product of a and
 * b (n floats, device) with `threads` x `blocks`, one partial per block
 * into partials[blocks] (device). cudaError_t. */
int mp_hazard_launch(int kernel, const float *a, const float *b, int n,
                     int threads, int blocks, float *partials);
/* Sums partials[0..blocks) on the GPU (one thread, in double) into *total
 * (device), so that a partial no thread wrote is read by device code, where
 * initcheck sees it. cudaError_t. */
int mp_hazard_finalize(const float *partials, int blocks, double *total);

/* ---- the catalogue (probes/hazards/hazards.c) ---------------------------------- */

typedef struct {
    const char *name;   /* "sync-in-divergent-if": --run, --hazards, CSV */
    const char *seed;   /* where the bug comes from */
    const char *what;   /* one line: the bug */
} mp_hazard_def;

extern const mp_hazard_def mp_hazard_defs[MP_HZ_COUNT];

/* The table's rows: a kernel and the block size it runs with. */
typedef struct {
    int kernel;
    int threads;
} mp_hazard_row;

extern const mp_hazard_row mp_hazard_rows[];
extern const int mp_hazard_nrows;

/* Index of the kernel called `name`, or -1. */
int mp_hazard_find(const char *name);

/* The tools: MP_TOOL_NONE is the plain run whose result is checked. */
enum {
    MP_TOOL_NONE,
    MP_TOOL_MEMCHECK,
    MP_TOOL_RACECHECK,
    MP_TOOL_SYNCCHECK,
    MP_TOOL_INITCHECK,
    MP_TOOL_COUNT
};
extern const char *const mp_hazard_tool_names[MP_TOOL_COUNT];
/* Index of tool `name` ("none" included), or -1. */
int mp_hazard_tool_find(const char *name);

/* compute-sanitizer's exit status when a tool reports an error
 * (--error-exitcode). */
#define MP_HZ_ERROR_EXITCODE 9

/* ---- options ----------------------------------------------------------- */

#define MP_HZ_DEFAULT_TIMEOUT 20.0
#define MP_HZ_MAX_TIMEOUT 3600.0
#define MP_HZ_DEFAULT_OUTPUT "results/hazards.csv"
#define MP_HZ_DEFAULT_LOG_DIR "results/hazards-logs"

typedef struct {
    int help;                    /* --help given */
    /* table mode */
    int tools[MP_TOOL_COUNT];    /* sanitizer tools to run, in order */
    int ntools;                  /* 0: --tools none, results only */
    int run_kernel[MP_HZ_COUNT]; /* --hazards: 1 = run this kernel's rows */
    double timeout;              /* seconds per run, > 0 */
    int timeout_given;           /* --timeout given (the child's alarm) */
    const char *sanitizer;       /* --compute-sanitizer PATH, or NULL */
    const char *output;          /* -o FILE (CSV, appended) */
    const char *log_dir;         /* --log-dir DIR */
    /* child mode: --run NAME [--threads T] [--timeout S] [--ignore-result] */
    int run;                     /* kernel index, -1 = table mode */
    int threads;                 /* block size of the child's launch */
    int ignore_result;           /* exit 0 even when the result is wrong */
} mp_hazard_options;

/* Parses the arguments after "hazards". Returns 0, or -1 with a one-line
 * message in err that names the option and what is allowed. Touches no
 * file and no GPU. */
int mp_hazard_parse_options(int argc, char **argv, mp_hazard_options *o,
                            char *err, size_t errlen);

/* Finds compute-sanitizer: `given` (must be an executable file), else
 * compute-sanitizer in PATH, $CUDA_HOME/bin, /usr/local/cuda/bin. Returns
 * 0 with the path, or -1. */
int mp_hazard_find_sanitizer(const char *given, char *path, size_t len);

/* ---- compute-sanitizer's output ---------------------------------------- */

#define MP_HZ_FINDING_LEN 512

/* What one run's log says. */
typedef struct {
    int summary;         /* an "ERROR SUMMARY" or "RACECHECK SUMMARY" seen */
    int errors;          /* errors the summary counts (0 if none seen) */
    int warnings;        /* warnings (racecheck's summary) */
    int findings;        /* finding lines seen (each report's first line) */
    char finding[MP_HZ_FINDING_LEN];  /* the first, as one line: its first
                                         line, then its "at", "and" and "by
                                         thread" lines, joined by "; " */
    char failure[256];   /* the first line saying the run itself failed (a
                            "memprobe: " error, an internal sanitizer
                            error), or "" */
    int result;          /* memprobe's result line: 1 right, 0 wrong, -1
                            none seen */
    double got, want;    /* from the result line */
} mp_sanitizer_report;

/* Reads a run's log: compute-sanitizer's "========= " lines (the tool's
 * findings and summary) and memprobe's own result and error lines. Never
 * reads past len; text need not be NUL-terminated. */
void mp_sanitizer_parse(const char *text, size_t len, mp_sanitizer_report *r);

/* The outcome of one run. */
typedef enum {
    MP_OUT_NOT_CAUGHT,   /* the tool ran to its summary and reported nothing */
    MP_OUT_CAUGHT,       /* the tool reported an error or a warning */
    MP_OUT_RIGHT,        /* plain run: the result matched */
    MP_OUT_WRONG,        /* plain run: the result did not match */
    MP_OUT_TIMEOUT,      /* killed at the time limit */
    MP_OUT_ERROR         /* the run failed otherwise (see why) */
} mp_hazard_outcome;

/* Classifies a run of `tool` that ended with `status` (an exit status, or
 * MP_SPAWN_TIMEOUT) and wrote `r`; a one-line reason for MP_OUT_ERROR goes
 * to why. */
mp_hazard_outcome mp_hazard_classify(int tool, int status,
                                     const mp_sanitizer_report *r, char *why,
                                     size_t whylen);
/* "caught", "not_caught", "right", "wrong", "timeout", "error". */
const char *mp_hazard_outcome_name(mp_hazard_outcome o);

/* ---- the commands ------------------------------------------------------ */

/* Runs the table: every selected row with no tool (the result check) and
 * under each tool, each run a child process `self hazards --run ...`
 * (under `sanitizer --tool X --error-exitcode 9`) limited to o->timeout
 * seconds; prints the table to out, appends the CSV to o->output, writes
 * the logs to o->log_dir. Does not look for a GPU (mp_cmd_hazards does).
 * Returns 0 when every correct row came out right and clean under every
 * tool, 1 otherwise, 2 when the CSV or the log directory cannot be
 * written. */
int mp_hazards_table(const mp_hazard_options *o, const char *self,
                     const char *sanitizer, const char *device_name,
                     FILE *out);


#ifdef __cplusplus
}
#endif

/* With --run: the child that runs one kernel once; its exit status (0
 * result right, 1 wrong, 0 either way with --ignore-result). */
int mp_hazard_run_child(const mp_hazard_options *o);

/* Whether a GPU is visible, without creating a context in this process
 * (the children create theirs): 0 with GPU 0's name, or MP_EXIT_NOGPU
 * with the reason. */
int mp_hazard_gpu_name(char *name, size_t len, char *why, size_t whylen);

#endif
