/*
 * cost.h - where a measuring run's wall time goes: an opt-in breakdown of
 * every phase (probe host work, timed launches, the profiled launch with
 * its replay passes, the collector's begin/end steps) per configuration,
 * per counter batch and in total, timed with CLOCK_MONOTONIC.
 *
 * Enabled by the environment: MEMPROBE_PROFILE_COST=FILE (or "-" for
 * stderr). The runner and the collector call mp_cost_add() around each
 * phase; with the variable unset every call returns at once. At the end
 * of the run mp_cost_finish() writes a CSV:
 *
 *   scope,name,<phase columns in ms...>
 *   config,bank/ld/w4/...,0.021,...      one row per configuration
 *   batch,1 (64 configurations),...      the collector's per-batch steps
 *   run,collector,...                    open/close of sessions
 *   total,120 configurations,...         sum of all rows
 *   per_config,mean,...                  total / configurations
 */
#ifndef MP_COST_H
#define MP_COST_H

#include <stdio.h>

#define MP_COST_ENV "MEMPROBE_PROFILE_COST"

typedef enum {
    /* Per configuration: the timing pass. */
    MP_COST_SETUP,          /* probe setup (allocation, inputs) */
    MP_COST_VERIFY,         /* first launch + verification, re-verification */
    MP_COST_TIMED,          /* warm-up and timed launches (CUDA events) */
    MP_COST_RELEASE,        /* after_timing, clock64 read, release */
    /* Per configuration: the profiled launch. */
    MP_COST_PROF_LAUNCH,    /* the launch: every replay pass, save/restore */
    MP_COST_PROF_VERIFY,    /* verification after the profiled launch */
    MP_COST_ROW,            /* derive, CSV row, table line, teardown */
    /* Per batch: the collector. */
    MP_COST_BEGIN_CONFIG,   /* counter image initialise + SetConfig */
    MP_COST_BEGIN_START,    /* synchronize + cuptiRangeProfilerStart */
    MP_COST_END_SYNC,       /* synchronize before stop */
    MP_COST_END_STOP,       /* cuptiRangeProfilerStop */
    MP_COST_END_DECODE,     /* DecodeData + GetCounterDataInfo */
    MP_COST_END_EVALUATE,   /* EvaluateToGpuValues for every range */
    /* Per run. */
    MP_COST_OPEN,           /* collector open (host init, config image) */
    MP_COST_CLOSE,          /* collector close */
    MP_COST_PHASES
} mp_cost_phase;

/* The column name of a phase ("setup", "prof_launch", ...). */
const char *mp_cost_phase_name(mp_cost_phase ph);

/* Reads MP_COST_ENV; returns 1 if the breakdown is on. Call once per run
 * (mp_cost_finish() turns it off again). */
int mp_cost_start(void);

/* 1 while a breakdown is being recorded. */
int mp_cost_enabled(void);

/* Seconds on CLOCK_MONOTONIC (for t0 of mp_cost_add). */
double mp_cost_now(void);

/* Records a configuration: its index in the run and its name. Later
 * per-configuration phases of that index go to its row. */
void mp_cost_config(int index, const char *name);

/* Starts a new batch row of `configs` configurations. */
void mp_cost_batch(int configs);

/* Adds now - t0 to phase ph of configuration `index` (per-configuration
 * phases), of the current batch (collector begin/end phases) or of the run
 * row (open/close); index is ignored for the latter two. */
void mp_cost_add(mp_cost_phase ph, int index, double t0);

/* Adds a known duration (seconds) instead of one measured from t0. */
void mp_cost_add_seconds(mp_cost_phase ph, int index, double seconds);

/* Records the kernel's own median time (ns) of a configuration: written
 * as the kernel_ms column, not counted in the wall-time columns. */
void mp_cost_kernel(int index, double median_ns);

/* Writes the breakdown (format above) to f. Returns 0, or -1 on a write
 * error. Does not free anything. */
int mp_cost_write(FILE *f);

/* Writes the breakdown where MP_COST_ENV says, prints a one-line summary
 * (total and per configuration of the collector's share) on stderr, frees
 * everything and turns recording off. Safe when off. */
void mp_cost_finish(void);

/* Frees the records without writing (tests). */
void mp_cost_reset(void);

#endif
