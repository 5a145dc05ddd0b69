/*
 * inject_state.h - what the injection library's files share: its one
 * state (g: the settings, the tables, the devices, contexts, cubins and
 * graph kernels it keeps), the lock that guards it, and a launch's
 * description and run key. Defined in inject_state.c.
 */
#ifndef MP_INJECT_STATE_H
#define MP_INJECT_STATE_H

#include <cuda.h>
#include <cupti_callbacks.h>
#include <pthread.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "inject_core.h"
#include "inject_range.h"
#include "raw.h"

/* what a failed call costs (inject_range.h) */
enum { QUIET = INJ_QUIET, WARN = INJ_WARN, FATAL = INJ_FATAL };
enum { MAX_DEVICES = 64, MAX_CONTEXTS = 256, NVTX_DEPTH = 32,
       NVTX_NAME = IC_NVTX_NAME };

typedef struct {
    int tried, ok;
    uint64_t ids[MP_RAW_NMETRICS];
} device_info;

typedef struct {
    CUcontext ctx;
    int dev, enabled, failed;
    int paused; /* SASS metrics off by --per-kernel: on again when needed */
} context_info;

typedef struct {
    uint64_t crc;
    char *data;
    size_t size;
    int saved;
} cubin_info;

typedef struct {
    char *name;
    unsigned grid[3], block[3], shared;
} graph_kernel;

/* The library's state, under g_lock. */
typedef struct {
    int on, debug, enable_at_launch, lazy, stopped, write_failed;
    int profiler_initialized;
    int ordinal;
    int has_no_sass;      /* MEMPROBE_INJECT_NO_SASS, the test hook */
    regex_t no_sass;
    char dir[4096];
    long pid;
    uint32_t cupti_version;
    CUpti_SubscriberHandle sub;
    ic_filter filter;
    ic_lines lines;
    ic_launches rows;
    ic_status status;
    ic_kernels kernels;   /* per kernel, grid and block (--per-kernel) */
    uint64_t pk_streak;   /* launches in a row not profiled since one was */
    ic_fnlines fnlines;   /* functions without line information */
    uint64_t flush_launches, since_write;
    int batch_runs;       /* ENV_BATCH_RUNS */
    int granularity;      /* ENV_GRANULARITY: a CUpti_SassMetrics_... */
    double flush_seconds, last_write, t_start;
    device_info devs[MAX_DEVICES];
    context_info ctxs[MAX_CONTEXTS];
    int nctx;
    cubin_info *cubins;
    size_t ncubins;
    ic_modules modules;   /* where each kept cubin came from */
    char exe[4096];       /* the executable's path (/proc/self/exe) */
    graph_kernel *gk;
    size_t ngk;
} inject_state;
extern inject_state g;

/* The one lock around all of it (recursive: CUPTI may call back inside
 * the library's own calls), and whether this thread holds it. */
extern pthread_mutex_t g_lock;
extern _Thread_local int tl_locked;
void lock(void);
void unlock(void);

/* A launch's shape and stream from its parameters. */
typedef struct {
    const char *name;
    unsigned grid[3], block[3], shared;
    CUstream stream;
    CUgraphExec exec;
    int graph, ptsz;
} launch_desc;

/* A run: launches one after another of the same kernel, shape, stream,
 * NVTX stack and filter decision; a row counts its launches. */
typedef struct {
    char name[512];
    unsigned grid[3], block[3], shared;
    unsigned long long sid;
    char nvtx[NVTX_DEPTH * NVTX_NAME];
    int profile;
} launch_key;

#endif
