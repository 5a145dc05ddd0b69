/*
 * inject_range.h - `--level kernel+` inside the injection library
 * (inject/inject_range.c): per-launch hardware counters (inject/raw.h's
 * MP_RAW_RANGE_NAMES) through CUPTI's range profiler, auto range and
 * kernel replay, one session per context, decoded in batches; and the few
 * helpers of inject/inject.c it shares (the one CUPTI return helper, the
 * status lines, the debug lines). docs/profile-design.md, "--level
 * kernel+", says how and why.
 *
 * At --level kernel (MEMPROBE_LEVEL unset or "kernel") ir_on() is 0 and
 * inject.c makes no other ir_ call: no range-profiler call at all.
 * All of it runs under inject.c's lock.
 */
#ifndef MP_INJECT_RANGE_H
#define MP_INJECT_RANGE_H

#include <cuda.h>
#include <cupti_result.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "inject_core.h"

/* ---- inject.c's helpers, handed over by ir_init ---------------------
 * (function pointers: inject.o calls this object, never the other way,
 * as tests/test_layering.c wants) */

/* what a failed call costs: debug line only, a `warning`, an `error` */
enum { INJ_QUIET, INJ_WARN, INJ_FATAL };
typedef struct {
    /* 1 when r is CUPTI_SUCCESS; else the failure noted as sev says (the
     * library's one CUPTI return helper) */
    int (*cupti_ok)(CUptiResult r, const char *what, int sev);
    /* a status line "key value", written at once (said once) */
    void (*vsay)(const char *key, const char *fmt, va_list ap);
    /* a MEMPROBE_DEBUG line on stderr (nothing without it) */
    void (*vdbg)(const char *fmt, va_list ap);
    double (*now)(void); /* seconds, monotonic */
} ir_glue;

/* ---- the range profiler ---------------------------------------------- */

/* Ranges per batch: the counter-data image holds this many launches; a
 * full batch is decoded before the next launch. */
#define IR_BATCH 256

/* MEMPROBE_LEVEL's value (NULL or "" = kernel) and inject.c's helpers:
 * 0, or -1 with a reason naming the variable in err. */
int ir_init(const char *level, const ir_glue *glue, char *err,
            size_t errlen);
/* 1 at --level kernel+ (until every context turned it off). */
int ir_on(void);

/* At a launch call's entry, after inject.c ended its run: a graph launch
 * or a full batch ends the context's batch; a profiled kernel launch not
 * in a capture starts the session (the first time: sets the context up).
 * dev is the context's device. */
void ir_before_launch(CUcontext ctx, int dev, int profile, int graph,
                      int capture, ic_launches *rows);
/* At its exit (it succeeded, not a graph, not in a capture): the launch
 * took the session's next range when the session runs. */
void ir_after_launch(CUcontext ctx, uint64_t launch, int profiled);
/* A row was made for launch number r->launch of ctx: held (r->hold) when
 * its range waits for its batch's decode. */
void ir_row_made(CUcontext ctx, ic_launch *r);
/* Stop, decode, evaluate the batch of ctx (NULL: every context) and give
 * the held rows their values; `at` names the point for the debug line. */
void ir_end_batch(CUcontext ctx, ic_launches *rows, const char *at);
/* The context goes: its batch ends, its profiler is disabled. */
void ir_context_gone(CUcontext ctx, ic_launches *rows);
/* At exit, no CUDA call: held rows are released with empty values, and a
 * warning says how many. */
void ir_abandon(ic_launches *rows);

/* The driver calls that begin a stream capture (ir_on only: their API
 * entry ends the batch; nothing is profiled or decoded in a capture). */
extern const uint32_t ir_capture_cbids[];
extern const size_t ir_ncapture_cbids;

#endif
