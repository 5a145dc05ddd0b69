/*
 * probe.h - what every probe family provides, and the table of probes.
 *
 * A probe is a row in the registry (probes/registry.c): a name, a parameter table, a
 * metric set, and functions that the generic runner (runtime/runner.c) calls
 * in this order for each configuration:
 *
 *   check      combinations and footprint; no GPU (also used by predict)
 *   predict    the model's columns; no GPU
 *   setup      allocate and describe the launch; must not launch kernels
 *              (a profiled batch counts every kernel as one range)
 *   before_launch  optional: untimed preparation before every launch
 *              (managed memory moved back to the host)
 *   launch_traits  optional: whether this configuration's launches need
 *              before_launch (then one launch per timed sample) and
 *              whether they wait for the GPU (then samples not held)
 *   launch     one launch on the default stream
 *   verify     the output of the last launch against the CPU reference
 *   after_timing  optional: reference measurements beside the probe
 *              (cudaMemcpy bandwidth), outside any profiled batch
 *   release    free the device memory (the state still describes the
 *              configuration for derive)
 *   derive     derived columns from timing and counters
 *   teardown   free what setup took: mp_probe_teardown, for every probe
 *              the same (release, free_host, the state)
 *
 * A configuration is the array of parameter values, v[i] for params[i].
 */
#ifndef MP_PROBE_H
#define MP_PROBE_H

#include <stddef.h>

#include "device.h"
#include "metrics.h"
#include "params.h"
#include "row.h"
#include "stats.h"

#define MP_MAX_PREDICTIONS 8

/* Model output as name/value pairs, for `memprobe predict`. A value that
 * is a name (the latency probe's level) is given as text[k], which is
 * printed instead of value[k]. A probe's predict() starts with
 * mp_prediction_clear() and adds each pair with mp_prediction_put(). */
typedef struct {
    int n;
    const char *name[MP_MAX_PREDICTIONS];
    double value[MP_MAX_PREDICTIONS];
    const char *text[MP_MAX_PREDICTIONS];
} mp_prediction;

static inline void mp_prediction_clear(mp_prediction *p)
{
    p->n = 0;
}

/* Appends name = value (text NULL); beyond MP_MAX_PREDICTIONS pairs it
 * keeps the first ones (tests/test_probes.c checks every probe fits). */
static inline void mp_prediction_put(mp_prediction *p, const char *name,
                                     double value)
{
    if (p->n >= MP_MAX_PREDICTIONS)
        return;
    p->name[p->n] = name;
    p->value[p->n] = value;
    p->text[p->n] = NULL;
    p->n++;
}

/* One column of a probe's console table, the line `memprobe PROBE`
 * prints per configuration (runtime/console.h): its heading, the row's
 * column it shows (MP_COL_...) as the CSV has it, and its least width. */
typedef struct {
    const char *heading;
    int col;
    int width;
} mp_console_col;

/* What timing and counters measured for one configuration. */
typedef struct {
    mp_stats time_ns;             /* CUDA-event launch times */
    long long clock64_span;       /* latest end - earliest start, or -1 */
    double clock64_block_median;  /* median of end - start per block */
    const double *counters;       /* metric values in set order, or NULL */
} mp_measurement;

typedef struct mp_probe {
    const char *name;
    const mp_param_def *params;
    int nparams;
    mp_metric_set metrics;
    /* Compute capability times ten that every configuration needs (a
     * probe built on an instruction older GPUs lack; probes/arch.h), 0 for
     * any GPU. Per-value needs go in the parameter's choice_cc. */
    int cc;
    /* 1: the runner profiles each configuration alone, right after its
     * timed launches, instead of in a group with the others of its batch:
     * when its kernel reads device-global symbols that setup() fills
     * (__constant__ arrays), so that its state is only valid until the
     * next configuration's setup; or when its kernels measured differently
     * in a group (the reductions: see probes/reduce/reduce.c). */
    int profile_alone;
    /* 1: the probe's own launches set the cache state its counters
     * describe (a pointer chase walks its chain before it times, and each
     * launch continues it): the runner profiles it without the L2 flush,
     * so that the profiled launch is one of the same steady state as the
     * timed ones. */
    int keeps_cache_state;

    /* The console table's columns, shown between a configuration's label
     * and its verified `ok` column: what the family measures beside its
     * model's prediction (MP_PROBE_BASE takes the family file's `console`
     * array). */
    const mp_console_col *console;
    int nconsole;

    /* Shared bytes a block may use: the device's opt-in limit when a GPU is
     * open, else the sm_90 value. */
    int (*check)(const long long *v, size_t smem_limit, char *err,
                 size_t errlen);
    /* "bank/ld/w8/s4/b0/g1/p32": NVTX range and progress name. */
    void (*label)(const long long *v, char *buf, size_t len);
    void (*predict)(const long long *v, mp_prediction *p);
    /* Writes parameter and model columns of a result row. */
    void (*describe)(const long long *v, mp_row *row);

    /* Optional (NULL: every configuration launches one kernel per launch):
     * the reason a configuration cannot be profiled (it launches no kernel,
     * only DMA copies; or several kernels per launch, which the collector
     * cannot tell apart), or NULL when it can. Such a configuration is left
     * out of counter batches and its row's counters_status says why. */
    const char *(*unprofiled)(const long long *v);

    /* Optional (NULL): adjusts a configuration of the probe's own
     * subcommand (`memprobe NAME`, not sweeps or predict) for the
     * parameters the user did not give (given[i] == 0): e.g. a launch
     * shape chosen at run time, or an array size from the device's
     * memory (dev: the opened device, perhaps the fake one). */
    void (*cli_defaults)(long long *v, const int *given,
                         const mp_device *dev);

    int (*setup)(const long long *v, const mp_device *dev, void **state);
    /* Optional (NULL): called before every launch that needs it (see
     * launch_traits), outside timing. */
    void (*before_launch)(void *state);
    /* Optional: MP_LAUNCH_* flags of the configuration in `state`; NULL
     * means MP_LAUNCH_PREPARED when before_launch is set, else 0. Read
     * through mp_launch_traits. */
    unsigned (*launch_traits)(const void *state);
    void (*launch)(void *state);
    /* 0 when the output is right; else -1 and a one-line reason. */
    int (*verify)(void *state, char *err, size_t errlen);
    /* Optional (NULL): measurements the probe makes itself right after its
     * timed launches and before release, never inside a profiled batch;
     * kept in the state for derive. */
    void (*after_timing)(void *state);
    /* In-kernel clock64 stamps of the last launch: the seeds' span
     * (earliest start to latest end over all blocks) and the median of
     * each block's own end - start. NULL if the probe keeps none. */
    void (*clock64)(void *state, long long *span, double *block_median);
    /* Frees the device memory setup took; the rest of the state stays.
     * Kernel replay saves and restores all allocated device memory, so the
     * runner keeps only the profiled configuration's allocated. */
    void (*release)(void *state);
    /* Launch-shape, timing-derived and counter-derived columns. */
    void (*derive)(void *state, const mp_device *dev,
                   const mp_measurement *m, mp_row *row);
    /* Optional (NULL: none): frees the host memory setup took besides the
     * state itself (mp_probe_teardown calls it after release). */
    void (*free_host)(void *state);
} mp_probe;

/* Frees all that p's setup took for one configuration: p->release (which
 * is safe to call twice), p->free_host, then the state (allocated by
 * setup with malloc or calloc). NULL state: nothing. */
void mp_probe_teardown(const mp_probe *p, void *state);

/* The hooks every family has, named P_check, P_label, P_predict,
 * P_describe, P_setup, P_launch, P_verify, P_release and P_derive
 * (MP_PROBE_BASE below puts them in a family's mp_probe; the
 * optional hooks are set by name, the rest NULL). */
#define MP_PROBE_HOOKS(P)                                                \
    .check = P##_check, .label = P##_label, .predict = P##_predict,     \
    .describe = P##_describe, .setup = P##_setup, .launch = P##_launch, \
    .verify = P##_verify, .release = P##_release, .derive = P##_derive

/* What every family's mp_probe starts with: its name NAME (a bare word,
 * made the string "NAME"), its parameter table P_params of P_COUNT rows,
 * its file's console table `console` (an array of mp_console_col) and
 * its hooks P_check ... P_derive (MP_PROBE_HOOKS), P being the prefix its
 * functions use (bandwidth: bw). The rest of the initialiser is the
 * family's own: `MP_PROBE_BASE(bank, bank), .metrics = ...`. */
#define MP_PROBE_BASE(NAME, P)                                           \
    .name = #NAME, .params = P##_params, .nparams = P_COUNT,             \
    .console = console,                                                  \
    .nconsole = (int)(sizeof console / sizeof *console),                 \
    MP_PROBE_HOOKS(P)

/* Value of metric `name` of `set` in a measurement's counters (which are
 * in the set's order), or -1 if the set has no such metric or the chip
 * lacks it (the collector left it out: NaN there). Derives test < 0
 * before dividing by or comparing a counter. */
double mp_counter(const mp_measurement *m, mp_metric_set set,
                  const char *name);

/* SMs a launch of `blocks` blocks keeps busy: fewer blocks, fewer SMs. */
double mp_active_sms(const mp_device *dev, double blocks);

/* The per-request time columns every probe with a request count fills:
 * requests, ns and cycles one SM spends per request (median launch time x
 * active SMs / requests), and the seeds' clock64 figures per request when
 * the launch recorded them. */
void mp_row_set_per_request(mp_row *row, const mp_device *dev,
                            const mp_measurement *m, double requests,
                            double blocks);

/* A parameter that goes into a result column as it is: its value
 * ("%lld"), or for a choice its name. */
typedef struct {
    int param;      /* index into the probe's parameter table */
    int col;        /* MP_COL_... */
} mp_param_column;

/* Writes each of the n mapped parameters of configuration v into row
 * (describe's plain columns). */
void mp_row_set_params(mp_row *row, const mp_param_def *params,
                       const long long *v, const mp_param_column *cols,
                       int n);

/* The launch-shape columns: threads, blocks, and the shared bytes of a
 * block unless shared_bytes < 0. */
void mp_row_set_launch(mp_row *row, int threads, double blocks,
                       long long shared_bytes);

/* Bandwidth columns: GB/s (bytes per ns), and, unless ceiling_gbs < 0
 * (no ceiling known), the ceiling and the fraction of it. */
void mp_row_set_bandwidth(mp_row *row, double gbs, double ceiling_gbs);

/* The columns of mp_row_set_launch, mp_row_set_per_request and
 * mp_row_set_bandwidth, as a family's column list (probes/family.h)
 * names them when it fills all of them. */
#define MP_COLS_LAUNCH MP_COL_THREADS, MP_COL_BLOCKS, MP_COL_SHARED_BYTES
#define MP_COLS_PER_REQUEST                                              \
    MP_COL_REQUESTS, MP_COL_NS_PER_REQUEST, MP_COL_CYCLES_PER_REQUEST,   \
    MP_COL_CLOCK64_CYCLES_PER_REQUEST,                                   \
    MP_COL_CLOCK64_BLOCK_CYCLES_PER_REQUEST
#define MP_COLS_BANDWIDTH                                                \
    MP_COL_BANDWIDTH_GBS, MP_COL_CEILING_GBS, MP_COL_BANDWIDTH_FRACTION

/* The model_match column: "yes" when the counters agree with the model
 * (match != 0), else "no". A derive that has no verdict (a counter the
 * chip lacks) leaves the column unset instead of calling this. */
void mp_row_set_match(mp_row *row, int match);

/* Blocks of one full wave: the SMs times the blocks of the kernel that fit
 * on one (per_sm from the occupancy API; at least 1). */
int mp_full_wave(const mp_device *dev, int per_sm);

/* The seeds' clock64 stamps (thread 0 of block b writes its start at [b]
 * and its end at [blocks + b]): allocates the device buffer and its host
 * copy; mp_clock64_read copies them back and summarises them
 * (runtime/stats.c). Free with cudaFree and free. */
void mp_clock64_alloc(int blocks, long long **dev, long long **host);
void mp_clock64_read(const long long *dev, long long *host, int blocks,
                     long long *span, double *block_median);

/* Times launches with CUDA events on the default stream: `warmup`
 * untimed launch(ctx) calls, then `runs` timed ones, ns[i] the i-th in
 * nanoseconds. before(ctx) (NULL: none) runs before every launch,
 * outside the timed span. */
void mp_time_events(void (*before)(void *), void (*launch)(void *),
                    void *ctx, int warmup, int runs, double *ns);

/* n untimed launch(ctx) calls (a warm-up), before(ctx) (NULL: none)
 * ahead of each. */
void mp_launch_untimed(void (*before)(void *), void (*launch)(void *),
                       void *ctx, int n);

/* How a configuration's launches may be timed (mp_probe.launch_traits):
 * PREPARED, before_launch must run before each launch (its work is
 * outside the timed span, so a sample is one launch); WAITS, a launch may
 * wait for the GPU (a copy from pageable or managed memory), so its
 * samples are not held (mp_time_samples). */
#define MP_LAUNCH_PREPARED 1u
#define MP_LAUNCH_WAITS 2u
unsigned mp_launch_traits(const mp_probe *p, const void *state);

/* Runs p's before_launch on state when its launches need it (PREPARED). */
void mp_prepare_launch(const mp_probe *p, void *state);

/* Times n samples of k back-to-back launch(ctx) calls each: one event
 * pair around each sample, ns[i] = the sample's time / k (the time per
 * launch). With `held` the stream is held (runtime/hold.h) while the host
 * queues the sample, so the launches run at the GPU's pace, not the
 * host's; pass 0 when launch(ctx) may wait for the GPU (a copy from
 * pageable memory), which would wait for the hold to give up. before(ctx)
 * (NULL: none) runs before every sample, ahead of the hold and outside
 * the timed span, so it needs k = 1 (a larger k is treated as 1). */
void mp_time_samples(void (*before)(void *), void (*launch)(void *),
                     void *ctx, int k, int n, int held, double *ns);

/* Frees the hold of the timed samples; returns how many samples since the
 * last call were queued at the host's pace (their hold gave up: a launch
 * that synchronizes, or a full launch queue). */
long mp_time_close(void);

/* The probes, registered at start by the layer above (probes/registry.c:
 * mp_families_register) as a NULL-terminated table; the engine never
 * names a family. mp_probe_at(i) is the i-th (NULL past the end or before
 * registration), mp_probe_find the one of that name or NULL. */
void mp_probe_table_set(const mp_probe *const *table);
const mp_probe *mp_probe_at(int i);
const mp_probe *mp_probe_find(const char *name);

/* The metric sets of the registered probes, each once, in registry order
 * (the CSV's counter columns follow it): at most max into out; returns
 * how many. mp_metric_set_from_name looks one up by its name (as
 * mp_metric_set_name spells it): 0 and *out, or -1. runtime/probe_table.c.
 */
#define MP_MAX_METRIC_SETS 16
int mp_metric_sets(mp_metric_set *out, int max);
int mp_metric_set_from_name(const char *name, mp_metric_set *out);

/* Default shared memory a block may use on sm_90 when no GPU is open. */
#define MP_SM90_SMEM_OPTIN 232448

#endif
