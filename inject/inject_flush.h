/*
 * inject_flush.h - runs and batches (inject_flush.c): launches queued at
 * their exit, a batch ended by one synchronisation and flush, its
 * records shared out to its runs' rows; a graph launch flushed at once.
 */
#ifndef MP_INJECT_FLUSH_H
#define MP_INJECT_FLUSH_H

#include <cuda.h>
#include <cupti_callbacks.h>
#include <stdint.h>

#include "inject_state.h"

/* A batch: the runs launched on one context since the last flush, not
 * synchronised or flushed yet; per-launch flushes cost 30-45 us each on
 * the H200. By default a batch is up to 32 runs (ENV_BATCH_RUNS): 39 us
 * added to a short launch against 55 with a flush per run, and a
 * training loop's rows no further from a flush per run's than two runs
 * of a flush per run are from each other
 * (results/h200/profile/cost/batches/). SASS records name their
 * function, not their launch, so a batch holds each kernel name in one
 * run only: a launch whose name has another run in the batch ends it
 * first (one synchronisation, one flush, the records shared out to the
 * runs by name). So do a graph launch, a synchronising call of the
 * program, a launch on another context, the context's end, exit,
 * g.batch_runs runs and g.flush_launches launches. */
enum { BATCH_MAX = 64, BATCH_RUNS_DEFAULT = 32 };

/* 1 when a launch of k must end the batch before it is queued. */
int batch_ends_before(const launch_key *k, CUcontext ctx, int graph);
/* Queues launch number `launch` of k on ctx: the batch's last run when k
 * extends it, else a new run (the batch ended first when it must). */
void batch_add(const launch_key *k, CUcontext ctx, uint64_t launch);
/* Ends the batch: one synchronisation and flush, a row per profiled run.
 * can_call 0: no CUDA call, the rows say lost_why. */
void end_run(int can_call, const char *lost_why);
/* At exit: the batch flushed while its context lives, else said lost. */
void end_run_at_exit(void);
/* A graph launch: synchronised and flushed at once. */
void graph_launch(const CUpti_CallbackData *cb, uint64_t launch,
                  const launch_key *k);

#endif
