/*
 * collector.h - the in-process hardware-counter collector (CUPTI 13 Range
 * Profiler, auto range + user replay, or kernel replay).
 *
 * One collector is one profiler session on the current CUDA context for
 * one metric list: open it once per run (or once per metric set), then
 * profile any number of groups with begin() / (launches, pass())... /
 * end(). Each kernel launched in a pass is one range, i.e. one row of
 * values. See docs/collector.md for call order, costs and pitfalls.
 *
 * Every function returns a status and, when it is not MP_COUNTERS_OK, a
 * one-line reason in `why` (which may be NULL). UNAVAILABLE means "this
 * machine or process cannot read counters" (no driver, no permission,
 * unsupported GPU, another profiler injected): the caller goes on with
 * timing-only rows. ERROR means a measurement went wrong and its values
 * must not be reported.
 */
#ifndef MP_COLLECTOR_H
#define MP_COLLECTOR_H

#include <stddef.h>

typedef struct mp_collector mp_collector;

typedef enum {
    MP_COUNTERS_OK = 0,
    MP_COUNTERS_UNAVAILABLE = 1,
    MP_COUNTERS_ERROR = 2
} mp_counters_status;

/* Opens a session on the CURRENT CUDA context (the caller has done
 * cudaSetDevice + cudaFree(0)) for the n metrics in names, able to hold up
 * to max_ranges kernel launches per group. The names are copied. Names the
 * device's chip lacks are left out (their values NaN, listed by
 * mp_collector_unavailable); only a chip lacking all is UNAVAILABLE.
 * Costs host memory of about 81 KB per range for 17 metrics (less for
 * fewer): see mp_collector_image_bytes(). On success *out is the collector;
 * otherwise *out is NULL. Any CUPTI failure while opening is UNAVAILABLE
 * (with the CUPTI error and, for privileges, what to do); ERROR is kept for
 * caller mistakes (bad arguments, no current context) and out-of-memory.
 * Does not crash without a driver. It exits (via CHECK_CUDA) only if a
 * CUDA runtime call fails after CUPTI found a driver, which the
 * precondition (a current context) rules out. */
mp_counters_status mp_collector_open(mp_collector **out,
                                     const char *const *names, size_t n,
                                     size_t max_ranges,
                                     char *why, size_t whylen);

/* Replay mode: "user" (the default: the caller launches a group once per
 * pass, nothing is saved or restored) or "kernel" (CUPTI replays each
 * kernel inside its launch, saving and restoring device memory). */
#define MP_REPLAY_ENV "MEMPROBE_REPLAY"

/* Starts a group of `launches` kernel launches (1..max_ranges): every
 * kernel launched on the context until mp_collector_pass() says the last
 * pass is done is one range. The first begin() of a session costs
 * ~150-250 ms (cuptiRangeProfilerStart), later ones microseconds. */

/* Test hook, for the GPU test of a sweep whose counters fail midway
 * (scripts/gpu-check.sh, step faults): with this variable set to N, the
 * (N+1)-th and every later begin() fails as a broken collector does, and
 * the runner records the rows from there on as timing-only with the
 * reason. */
#define MP_LOSE_COUNTERS_ENV "MEMPROBE_LOSE_COUNTERS_AFTER"
mp_counters_status mp_collector_begin(mp_collector *c, size_t launches,
                                      char *why, size_t whylen);

/* Ends one pass over the group's launches. *again = 1: CUPTI wants
 * another pass (user replay): launch exactly the same kernels again, in
 * the same order, then call this again. *again = 0: every pass is in;
 * call mp_collector_end(). Kernel replay always gives 0 at once. */
mp_counters_status mp_collector_pass(mp_collector *c, int *again, char *why,
                                     size_t whylen);

/* Decodes the group (stopping it first if mp_collector_pass was not
 * called), checks that exactly `launches` new ranges came back (CUPTI
 * silently drops ranges past max_ranges), and stores values[r*n + m] for
 * range r (launch order) and metric m (order given to open). values must
 * hold launches*n doubles. A metric the chip lacks
 * (mp_collector_unavailable) is NaN in every range; a NaN value of any
 * other metric is an ERROR. */
mp_counters_status mp_collector_end(mp_collector *c, size_t launches,
                                    double *values, char *why, size_t whylen);

/* After an ERROR from end(): 1 (once) if the collector changed how it
 * keeps ranges and the same group may be profiled again; 0 otherwise. */
int mp_collector_retry(mp_collector *c);

/* "user" or "kernel": the replay mode the session uses. */
const char *mp_collector_replay(const mp_collector *c);

/* Stops an open group if any, disables the profiler, frees everything.
 * Safe on NULL and after any error. */
void mp_collector_close(mp_collector *c);

/* Ranges one group can hold (max_ranges given to open). */
size_t mp_collector_max_ranges(const mp_collector *c);

/* Replay passes per kernel for this metric list (1 = no replay). */
size_t mp_collector_passes(const mp_collector *c);

/* Bytes of the counter-data image (host memory held while open). */
size_t mp_collector_image_bytes(const mp_collector *c);

/* CUPTI's chip name for the device, e.g. "GH100". */
const char *mp_collector_chip(const mp_collector *c);

/* The names of the set this chip lacks, which open() dropped instead of
 * failing (mp_metrics_filter): "unavailable on GA100: a, b", or "" when
 * the chip has them all. The runner appends it to counters_status. */
const char *mp_collector_unavailable(const mp_collector *c);

/* Test hook, for the GPU test of a chip lacking names (scripts/gpu-check.sh,
 * step chipfall): the comma-separated names in this variable are treated
 * as if the chip lacked them (dropped, named in the note) on any chip. */
#define MP_DROP_METRICS_ENV "MEMPROBE_DROP_METRICS"

/* How many of the n names are profiled (n minus those the chip lacks). */
size_t mp_collector_kept(const mp_collector *c);

#endif
