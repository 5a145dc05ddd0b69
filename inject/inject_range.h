/*
 * inject_range.h - the range pass of `memprobe profile` inside the
 * injection library (inject/inject_range.c): with MEMPROBE_PASS=range the
 * library enables no SASS metrics and instead measures each profiled
 * launch with CUPTI's range profiler (auto range, kernel replay, one
 * session per context, decoded in batches), writing range.PID.csv
 * (inject/raw.h, MP_RAW_RANGES). memprobe joins those rows onto the first
 * pass's launch rows (profile/profile_range.c). docs/profile-design.md,
 * "The range pass", says how and why.
 *
 * In the first pass (MEMPROBE_PASS unset or "sass") ir_on() is 0 and
 * the library makes no other ir_ call: no range-profiler call at all.
 * All of it runs under the library's lock (inject_state.h).
 */
#ifndef MP_INJECT_RANGE_H
#define MP_INJECT_RANGE_H

#include <cuda.h>
#include <cupti_result.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "inject_core.h"

/* ---- the library's helpers (inject_say.c), handed over by ir_init ---
 * (function pointers, from inject_start.c: the library's other objects
 * call this one, never the other way, as tests/test_layering.c wants) */

/* what a failed call costs: debug line only, a `warning`, an `error` */
enum { INJ_QUIET, INJ_WARN, INJ_FATAL };
typedef struct {
    /* 1 when r is CUPTI_SUCCESS; else the failure noted as sev says (the
     * library's one CUPTI return helper) */
    int (*cupti_ok)(CUptiResult r, const char *what, int sev);
    /* the same for a CUDA driver call (the library's one CUDA helper) */
    int (*cu_ok)(CUresult r, const char *what, int sev);
    /* a status line "key value", written at once (said once) */
    void (*vsay)(const char *key, const char *fmt, va_list ap);
    /* a MEMPROBE_DEBUG line on stderr (nothing without it) */
    void (*vdbg)(const char *fmt, va_list ap);
    double (*now)(void); /* seconds, monotonic */
    const char *dir;     /* the raw folder */
    long pid;
} ir_glue;

/* Ranges per batch: the counter-data image holds this many launches; a
 * full batch is decoded before the next launch. */
#define IR_BATCH 256

/* MEMPROBE_PASS's value (NULL or "" = sass), MEMPROBE_RANGE_KERNEL (NULL
 * or "" = every profiled launch), MEMPROBE_RANGE_GROUP (NULL or "" =
 * counts) and the library's helpers: 0, or -1 with a
 * reason naming the variable in err. */
int ir_init(const char *pass, const char *kernel_re, const char *group,
            const ir_glue *glue, char *err, size_t errlen);
/* 1 in the range pass. */
int ir_on(void);
/* 1 while this thread is inside the range pass's own CUDA calls (the L2
 * flush): their callbacks are not the program's. */
int ir_own_call(void);
/* Does the range pass measure launches of this kernel (MEMPROBE_RANGE_
 * KERNEL)? */
int ir_wants(const char *mangled);

/* The launch being made (inject_launch.c's description of it). */
typedef struct {
    const char *mangled;
    unsigned grid[3], block[3];
} ir_launch;

/* At a launch call's entry: a graph launch or a full batch ends the
 * context's batch; a launch to measure starts the session (the first
 * time: sets the context up). dev is the context's device. */
void ir_before_launch(CUcontext ctx, int dev, int measure, int graph);
/* At its exit (it succeeded, not a graph, not in a capture): the launch
 * took the session's next range when the session runs; a launch to
 * measure that got none is written at once with the reason. */
void ir_after_launch(CUcontext ctx, uint64_t launch, int measure,
                     const ir_launch *l);
/* Stop, decode, evaluate the batch of ctx (NULL: every context) and
 * write its rows; `at` names the point for the debug line. */
void ir_end_batch(CUcontext ctx, const char *at);
/* The context goes: its batch ends, its profiler is disabled. */
void ir_context_gone(CUcontext ctx);
/* At exit, no CUDA call: the launches of batches not decoded are
 * written with empty values and the reason. */
void ir_abandon(void);

/* The driver calls that begin a stream capture (their API entry ends the
 * batch; nothing is profiled or decoded in a capture). */
extern const uint32_t ir_capture_cbids[];
extern const size_t ir_ncapture_cbids;

#endif
