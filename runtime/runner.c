/*
 * runner.c - the measurement loop shared by every probe.
 *
 * Configurations are taken in batches. For each configuration of a batch:
 * set up, launch once and verify against the CPU reference, warm up, then
 * time `runs` launches with CUDA events and verify again. Then, if
 * counters are on, the configuration's state stays live and is profiled
 * later with others of its batch in one collector group (see "profiling
 * groups" below: under user replay each kernel is relaunched once per
 * replay pass, nothing saved or restored), its output verified once more,
 * so that profiling never disturbs timing and a wrong profiled launch is
 * never reported. Every counter in a row is what the profiled launch of
 * that very configuration produced: nothing is scaled from another launch.
 * Then the device memory is released; rows are written and flushed per
 * batch.
 * Every timed and profiled launch sits in an NVTX range named after its
 * configuration.
 *
 * A run may have several parts (a sweep file's sections): each part is one
 * probe's configurations with its own warm-up and timed launch counts, run
 * in order with one device, one CSV writer and one progress count. The
 * collector session stays open across consecutive parts of one metric set
 * and is reopened where the set changes.
 */
#include "runner.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "clock_watch.h"
#include "collector.h"
#include "console.h"
#include "cost.h"
#include "csv_writer.h"
#include "nvtx.h"
#include "version.h"

static const char *const counter_modes[] = {"auto", "on", "off", NULL};
const mp_param_def mp_run_option_defs[MP_OPT_COUNT] = {
    [MP_OPT_WARMUP] = MP_INT_PARAM("warmup", 3, 0, 1000,
        "untimed launches before timing"),
    [MP_OPT_RUNS] = MP_INT_PARAM("runs", 20, 0, 10000,
        "timed launches (median and CoV); 0 = verify only"),
    [MP_OPT_COUNTERS] = MP_CHOICE_PARAM("counters", 0, counter_modes,
        "hardware counters: auto (if possible), on (or exit 4), off"),
    [MP_OPT_DEVICE] = MP_INT_PARAM("device", 0, 0, 63, "CUDA device ordinal"),
    [MP_OPT_LAUNCHES] = MP_INT_PARAM("launches", 0, 0, 10000,
        "launches per timed sample; 0 = auto (a sample >= --sample-us)"),
    [MP_OPT_SAMPLE_US] = MP_INT_PARAM("sample-us", 1000, 10, 100000,
        "with --launches 0: the least length of a timed sample, in us"),
    [MP_OPT_BATCH] = MP_INT_PARAM("batch", 64, 1, 4096,
        "configurations profiled per counter batch"),
};

typedef struct {
    void *state;
    int verified;
    int pending;                  /* live, waiting for its profiled group */
    int range;                    /* its first range in that group */
    char lost[256];               /* why its counters failed, or "" */
    int clock_before, clock_after;  /* SM MHz around timing, or -1 */
    int warm;                /* launches before the timed samples */
    int per_sample;          /* launches per timed sample */
    int outliers;            /* samples far from the median (stats.h) */
    char why[256];
    mp_measurement m;
    double *counters;        /* this configuration's values, or NULL */
} slot;

/* Parameters shown in a prediction: the launch shape does not change it. */
static int is_shape_param(const char *name)
{
    return !strcmp(name, "threads") || !strcmp(name, "blocks")
           || !strcmp(name, "iterations");
}

void mp_print_predictions(const mp_config_list *cl, int csv, FILE *out)
{
    const mp_probe *p = cl->probe;
    char text[512];   /* a TEXT parameter: 32 offsets */
    for (int c = 0; c < cl->n; c++) {
        mp_prediction pr;
        memset(&pr, 0, sizeof pr);
        p->predict(cl->v[c], &pr);
        if (c == 0) {   /* header */
            fprintf(out, csv ? "probe" : "%-6s", "probe");
            for (int i = 0; i < p->nparams; i++)
                if (!is_shape_param(p->params[i].name))
                    fprintf(out, csv ? ",%s" : " %7s", p->params[i].name);
            for (int k = 0; k < pr.n; k++)
                fprintf(out, csv ? ",%s" : " %s", pr.name[k]);
            fputs(csv ? "\r\n" : "\n", out);
        }
        fprintf(out, csv ? "%s" : "%-6s", p->name);
        for (int i = 0; i < p->nparams; i++) {
            if (is_shape_param(p->params[i].name))
                continue;
            mp_param_format(&p->params[i], cl->v[c][i], text, sizeof text);
            fprintf(out, csv ? ",%s" : " %7s", text);
        }
        for (int k = 0; k < pr.n; k++) {
            if (pr.text[k] && csv)
                fprintf(out, ",%s", pr.text[k]);
            else if (pr.text[k])
                fprintf(out, " %*s", (int)strlen(pr.name[k]), pr.text[k]);
            else if (csv)
                fprintf(out, ",%.10g", pr.value[k]);
            else
                fprintf(out, " %*.4g", (int)strlen(pr.name[k]), pr.value[k]);
        }
        fputs(csv ? "\r\n" : "\n", out);
    }
}

/* Whether a configuration launches kernels the counters can profile. */
static int can_profile(const mp_probe *p, const long long *v)
{
    return !p->unprofiled || !p->unprofiled(v);
}

static void fill_common(mp_row *r, const mp_device *dev, const char *stamp)
{
    mp_row_set(r, MP_COL_DEVICE_ID, "%d", dev->ordinal);
    mp_row_set(r, MP_COL_TOOL_VERSION, "%s", MP_VERSION);
    mp_row_set(r, MP_COL_TIMESTAMP, "%s", stamp);
    mp_row_set(r, MP_COL_DEVICE_NAME, "%s", dev->name);
    mp_row_set(r, MP_COL_CC, "%d.%d", dev->cc_major, dev->cc_minor);
    mp_row_set(r, MP_COL_SM_COUNT, "%d", dev->sm_count);
    mp_row_set(r, MP_COL_SM_CLOCK_MHZ, "%d", dev->sm_clock_khz / 1000);
}

static void utc_stamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Launch timing. A sample is k back-to-back launches between two CUDA
 * events (mp_time_samples), k chosen so that a sample lasts at least
 * --sample-us (--launches 0) or as given: an event pair resolves about
 * 0.5 us, so a 5-us kernel timed alone repeats within 5-10%, not 1%. The
 * kernel is launched as written, only more often. A configuration whose
 * launches need the probe's before_launch (MP_LAUNCH_PREPARED) keeps one
 * launch per sample (the hook is outside the timed span). After the
 * fixed warm-up, a run of SETTLE_MIN_RUNS or more timed samples (the
 * default 20; fewer asks for a quick look, as the GPU tests do) first
 * runs windows of SETTLE_N samples until two consecutive
 * medians agree within SETTLE_REL (clocks and caches have settled), at
 * most SETTLE_WINDOWS windows or SETTLE_S seconds; all of it counts as
 * warm-up in the row. */
#define SAMPLE_CAP 1000
#define SETTLE_N 5
#define SETTLE_REL 0.005
#define SETTLE_WINDOWS 6
#define SETTLE_MIN_RUNS 10
#define SETTLE_S 0.5

static void time_launches(const mp_probe *p, void *state, const char *label,
                          const mp_run_options *o, slot *s)
{
    mp_stats *st = &s->m.time_ns;
    const unsigned traits = mp_launch_traits(p, state);
    void (*before)(void *) =
        traits & MP_LAUNCH_PREPARED ? p->before_launch : NULL;
    mp_nvtx_push(label);
    mp_launch_untimed(before, p->launch, state, o->warmup);
    if (o->runs <= 0) {   /* verify only: the warm-up launches, no timing */
        mp_nvtx_pop();
        memset(st, 0, sizeof *st);
        return;
    }
    double *ns = mp_xcalloc((size_t)o->runs, sizeof *ns);
    int k = before ? 1 : o->launches, warm = o->warmup;
    int held = !(traits & MP_LAUNCH_WAITS);
    if (k == 0) {
        double one = 0;
        mp_time_samples(before, p->launch, state, 1, 1, held, &one);
        k = mp_launches_per_sample(one, 1e3 * o->sample_us, SAMPLE_CAP);
        warm++;
    }
    double win[2][SETTLE_N], t0 = mp_cost_now();
    for (int w = 0; o->runs >= SETTLE_MIN_RUNS && w < SETTLE_WINDOWS; w++) {
        mp_time_samples(before, p->launch, state, k, SETTLE_N,
                        held, win[w % 2]);
        warm += k * SETTLE_N;
        if ((w > 0 && mp_timing_settled(win[(w + 1) % 2], win[w % 2],
                                        SETTLE_N, SETTLE_REL))
            || mp_cost_now() - t0 > SETTLE_S)
            break;
    }
    mp_time_samples(before, p->launch, state, k, o->runs, held, ns);
    mp_nvtx_pop();
    mp_stats_compute(ns, (size_t)o->runs, st);
    s->warm = warm;
    s->per_sample = k;
    s->outliers = mp_count_outliers(ns, (size_t)o->runs, st->median);
    free(ns);
}

/* ---- profiling groups ----------------------------------------------------

   Each replay pass has a fixed cost (cuptiRangeProfilerStop ~9 ms on the
   H200, whatever the kernels): the runner profiles many configurations in
   one group. A configuration stays live after its timed launches (not yet
   released) until its group is profiled: when the live states hold more
   device memory than a budget, at the end of the batch, or at once for a
   probe that asks for it (profile_alone). In every pass
   each state's kernel is launched once, after an L2 flush, as Nsight
   Compute flushes caches before each replay pass by default; then every
   output is verified and the states released. The flush READS a device
   buffer the size of the L2 into pinned host memory (a copy, not a
   kernel: no range), which evicts what earlier launches left in the L2,
   dirty lines written back, and leaves clean lines: a memset there instead
   left 60 MB of dirty lines that doubled a 23-us reduction's duration on
   the H200 and changed constant-cache miss counts. Metric sets whose
   counters do not depend on the caches (the shared-memory sets:
   mp_metric_set_cache_independent) are profiled without it. MEMPROBE_PROFILE_FLUSH=0 leaves the flush out. */

#define MP_PROFILE_FLUSH_ENV "MEMPROBE_PROFILE_FLUSH"

typedef struct {
    mp_collector *coll;
    const mp_probe *p;
    const mp_device *dev;
    size_t nmetrics;
    double *values;          /* batch ranges of nmetrics */
    int ranges;              /* ranges of this batch stored so far */
    size_t live_bytes;       /* device memory the pending states hold */
    size_t budget;           /* profile when live_bytes exceed this */
    void *flush;             /* the L2 flush buffer (device), or NULL */
    void *flush_host;        /* where the flush copies it (pinned) */
    size_t flush_bytes;
} profiler;

/* One collector group over n states: each pass launches every state's
 * kernel once, in order (the L2 flushed before each), until CUPTI has all
 * passes; values get n rows. */
static mp_counters_status profile_group(profiler *pr, void **states,
                                        const char *const *labels,
                                        const int *index, int n, char *why,
                                        size_t whylen)
{
    const mp_probe *p = pr->p;
    mp_counters_status cs = mp_collector_begin(pr->coll, (size_t)n, why,
                                               whylen);
    int again = 1;
    while (cs == MP_COUNTERS_OK && again) {
        for (int k = 0; k < n; k++) {
            double t0 = mp_cost_now();
            if (pr->flush)
                CHECK_CUDA(cudaMemcpyAsync(pr->flush_host, pr->flush,
                                           pr->flush_bytes,
                                           cudaMemcpyDeviceToHost, 0));
            mp_prepare_launch(p, states[k]);
            mp_nvtx_push(labels[k]);
            p->launch(states[k]);
            mp_nvtx_pop();
            mp_cost_add(MP_COST_PROF_LAUNCH, index[k], t0);
        }
        cs = mp_collector_pass(pr->coll, &again, why, whylen);
    }
    if (cs == MP_COUNTERS_OK)
        cs = mp_collector_end(pr->coll, (size_t)n,
                              pr->values + (size_t)pr->ranges * pr->nmetrics,
                              why, whylen);
    return cs;
}

static void progress(const mp_run_options *o, int done, int total,
                     const char *label);

/* Profiles the pending slots of a batch (configurations cl->v[first + b],
 * run indices base + b) in one group, verifies and releases them. A slot
 * whose counters fail keeps the reason in s->lost. */
static void profile_pending(profiler *pr, slot *slots, int nb,
                            const mp_config_list *cl, int first, int base,
                            const mp_run_options *o, int done, int total,
                            int *lost)
{
    const mp_probe *p = pr->p;
    int n = 0;
    for (int b = 0; b < nb; b++)
        n += slots[b].pending;
    if (!n)
        return;
    void **states = calloc((size_t)n, sizeof *states);
    char (*labels)[128] = calloc((size_t)n, sizeof *labels);
    const char **names = calloc((size_t)n, sizeof *names);
    int *index = calloc((size_t)n, sizeof *index);
    if (!states || !labels || !names || !index) {
        fprintf(stderr, "memprobe: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    int k = 0;
    for (int b = 0; b < nb; b++) {
        slot *s = &slots[b];
        if (!s->pending)
            continue;
        s->range = k;
        p->label(cl->v[first + b], labels[k], sizeof labels[k]);
        names[k] = labels[k];
        index[k] = base + b;
        states[k++] = s->state;
    }
    progress(o, done, total, labels[0]);
    char why[512] = "";
    mp_counters_status cs = profile_group(pr, states, names, index, n, why,
                                          sizeof why);
    if (cs != MP_COUNTERS_OK && mp_collector_retry(pr->coll))
        cs = profile_group(pr, states, names, index, n, why, sizeof why);
    if (cs != MP_COUNTERS_OK && !*lost) {
        *lost = 1;
        progress(o, done, total, NULL);
        fprintf(stderr, "memprobe: warning: counters lost at %s, measuring "
                "time only where they fail: %s\n", labels[0], why);
    }
    for (int b = 0; b < nb; b++) {
        slot *s = &slots[b];
        if (!s->pending)
            continue;
        double t0 = mp_cost_now();
        if (s->verified && p->verify(s->state, s->why, sizeof s->why))
            s->verified = 0;
        mp_cost_add(MP_COST_PROF_VERIFY, base + b, t0);
        if (cs != MP_COUNTERS_OK)
            snprintf(s->lost, sizeof s->lost, "%s", why);
        else
            s->m.counters = pr->values
                            + (size_t)(pr->ranges + s->range) * pr->nmetrics;
        t0 = mp_cost_now();
        p->release(s->state);
        mp_cost_add(MP_COST_RELEASE, base + b, t0);
        s->pending = 0;
    }
    pr->ranges += n;
    pr->live_bytes = 0;
    free(states);
    free(labels);
    free(names);
    free(index);
}

/* Device memory in use now (total - free). */
static size_t device_used(void)
{
    size_t free_b = 0, total_b = 0;
    CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
    return total_b - free_b;
}

/* Opens the collector for the probe's metric set, or explains why not. */
static mp_collector *open_counters(const mp_probe *p, const mp_run_options *o,
                                   size_t ranges, char *status, size_t len,
                                   int *fatal)
{
    *fatal = 0;
    if (o->counters == MP_COUNTERS_MODE_OFF) {
        snprintf(status, len, "off");
        return NULL;
    }
    const char *names[64];
    size_t n = mp_metric_set_names(p->metrics, names, 64);
    char why[512] = "";
    mp_collector *c = NULL;
    mp_counters_status st =
        mp_collector_open(&c, names, n, ranges, why, sizeof why);
    if (st == MP_COUNTERS_OK) {
        /* "ok", or "ok; unavailable on CHIP: ..." when the chip lacks
         * some names of the set: their cells stay empty. */
        mp_counters_status_text(mp_collector_unavailable(c), status, len);
        fprintf(stderr, "memprobe: counters: %zu metrics, %zu replay pass(es) "
                "per kernel (%s replay) on %s\n", mp_collector_kept(c),
                mp_collector_passes(c), mp_collector_replay(c),
                mp_collector_chip(c));
        if (*mp_collector_unavailable(c))
            fprintf(stderr, "memprobe: counters: %s (their columns stay "
                    "empty)\n", mp_collector_unavailable(c));
        return c;
    }
    if (o->counters == MP_COUNTERS_MODE_ON) {
        fprintf(stderr, "memprobe: --counters on: %s\n", why);
        *fatal = 1;
        return NULL;
    }
    fprintf(stderr, "memprobe: warning: hardware counters unavailable, "
            "measuring time only: %s\n", why);
    snprintf(status, len, "unavailable: %s", why);
    return NULL;
}

/* Progress: where the run is (label) or, with label NULL, clear the
 * caller's progress line before the runner prints. */
static void progress(const mp_run_options *o, int done, int total,
                     const char *label)
{
    if (o->progress)
        o->progress(o->progress_ctx, done, total, label);
}

mp_run_options mp_run_options_from(const long long *opt, int check_model)
{
    return (mp_run_options){
        .warmup = (int)opt[MP_OPT_WARMUP],
        .runs = (int)opt[MP_OPT_RUNS],
        .counters = (mp_counters_mode)opt[MP_OPT_COUNTERS],
        .device = (int)opt[MP_OPT_DEVICE],
        .check_model = check_model,
        .batch = (int)opt[MP_OPT_BATCH],
        .launches = (int)opt[MP_OPT_LAUNCHES],
        .sample_us = (int)opt[MP_OPT_SAMPLE_US],
    };
}

int mp_run(const mp_config_list *cl, const mp_run_options *o)
{
    mp_run_part part = {cl, o->warmup, o->runs};
    return mp_run_parts(&part, 1, o);
}

/* ---- the run, step by step ------------------------------------------------

   mp_run_parts: the header and an early look at -o, the device, every
   configuration checked against it, the output opened, then per part
   (collector session, profiler) and per batch (measure each
   configuration, profile the group, write the rows), then the end. */

/* What a run keeps from one step to the next. */
typedef struct {
    const mp_run_part *parts;
    int nparts;
    const mp_run_options *opts;   /* the caller's */
    mp_device dev;
    int ncols;
    const char **header;          /* the schema's column names */
    const char **cells;           /* one row's cells */
    slot *slots;                  /* the batch's configurations */
    double *values;               /* the batch's counters */
    size_t maxmetrics;            /* the largest metric set of the parts */
    mp_row row;
    mp_csv_writer csv;
    char counters_status[600];
    mp_collector *coll;           /* the session of this metric set, or NULL */
    size_t profile_budget;        /* live state bytes before a group runs */
    void *flush, *flush_host;     /* the L2 flush buffers, or NULL */
    size_t flush_bytes;
    int flush_off;                /* MEMPROBE_PROFILE_FLUSH=0 */
    int label_width;              /* the console table's label column */
    int done, total;              /* rows written, configurations */
    int failed, fatal, lost;      /* exit 1, exit 4, counters lost */
} run_state;

/* One part while its batches run, and the batch in hand. */
typedef struct {
    const mp_config_list *cl;
    const mp_probe *p;
    mp_run_options o;             /* the caller's, with the part's launches */
    const mp_metric *metrics;
    size_t nmetrics;
    profiler pr;
    int first, nb;                /* the batch: cl->v[first .. first + nb) */
    int base;                     /* the run's index of the batch's first */
} part_state;

/* The CSV header: every column name of the schema. */
static void make_header(run_state *r)
{
    r->ncols = mp_schema_columns();
    r->header = malloc((size_t)r->ncols * sizeof *r->header);
    if (!r->header) {
        fprintf(stderr, "memprobe: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    for (int i = 0; i < r->ncols; i++)
        r->header[i] = mp_schema_name(i);
}

/* A bad output is bad input: refused before the GPU is looked for,
 * with nothing created (the default's results/ is made only once a
 * GPU is there, so its absence is no fault). */
static void check_output_early(run_state *r)
{
    char why[512];
    struct stat results_st;
    int default_pending = strcmp(r->opts->output, MP_DEFAULT_OUTPUT) == 0
                          && stat("results", &results_st) != 0;
    if (!default_pending
        && mp_csv_check_output(r->opts->output, r->header, r->ncols, why,
                               sizeof why)) {
        free(r->header);
        mp_usage_error("-o: %s", why);
    }
}

/* Opens the GPU: 0, or nonzero after saying why not and printing the
 * model's predictions instead. */
static int open_device(run_state *r)
{
    char why[512];
    int rc = mp_device_open(r->opts->device, &r->dev, why, sizeof why);
    if (rc) {
        fprintf(stderr, "memprobe: %s; nothing measured. The model "
                "predicts:\n", why);
        for (int i = 0; i < r->nparts; i++)
            mp_print_predictions(r->parts[i].configs, 0, stdout);
        return rc;
    }
    if (!r->dev.fake)
        CHECK_CUDA(cudaFree(0));
    return 0;
}

/* The probe's own defaults for the parameters the user left out
 * (cli_defaults), now that the GPU is known. */
static void apply_cli_defaults(const run_state *r)
{
    for (int i = 0; r->opts->given && i < r->nparts; i++) {
        const mp_config_list *cl = r->parts[i].configs;
        if (cl->probe->cli_defaults)
            for (int c = 0; c < cl->n; c++)
                cl->probe->cli_defaults(cl->v[c], r->opts->given, &r->dev);
    }
}

/* Every configuration of every part checked against this GPU (exit 2 at
 * the first it cannot run); counts them and the largest metric set. */
static void check_parts(run_state *r)
{
    char why[512];
    const mp_device *dev = &r->dev;
    r->total = 0;
    r->maxmetrics = 1;
    for (int i = 0; i < r->nparts; i++) {
        const mp_config_list *cl = r->parts[i].configs;
        const mp_probe *p = cl->probe;
        int gpu_cc = 10 * dev->cc_major + dev->cc_minor;
        if (p->cc > gpu_cc)
            mp_usage_error("%s needs compute capability %d.%d or newer; "
                           "this GPU is %d.%d (%s)", p->name, p->cc / 10,
                           p->cc % 10, gpu_cc / 10, gpu_cc % 10, dev->name);
        for (int c = 0; c < cl->n; c++) {
            if (p->check(cl->v[c], dev->smem_per_block_optin, why,
                         sizeof why))
                mp_usage_error("%s", why);
            /* Options whose instruction this GPU lacks (probes/arch.h):
             * refused, never run with another instruction. */
            if (mp_param_check_cc(p->params, p->nparams, cl->v[c], gpu_cc,
                                  why, sizeof why))
                mp_usage_error("%s (%s)", why, dev->name);
        }
        r->total += cl->n;
        size_t n;
        mp_metric_set_get(cl->probe->metrics, &n);
        if (n > r->maxmetrics)
            r->maxmetrics = n;
    }
}

/* The batch buffers, and the CSV output opened (the default's results/
 * folder made first, now that a GPU is known to be there). */
static void open_output(run_state *r)
{
    char why[512];
    const mp_run_options *opts = r->opts;
    r->cells = malloc((size_t)r->ncols * sizeof *r->cells);
    r->slots = calloc((size_t)opts->batch, sizeof *r->slots);
    r->values = malloc((size_t)opts->batch * r->maxmetrics
                       * sizeof *r->values);
    if (!r->cells || !r->slots || !r->values || mp_row_init(&r->row)) {
        fprintf(stderr, "memprobe: out of memory\n");
        exit(MP_EXIT_FAIL);
    }
    if (strcmp(opts->output, MP_DEFAULT_OUTPUT) == 0
        && mkdir("results", 0777) && errno != EEXIST)
        mp_usage_error("-o: cannot create results/: %s", strerror(errno));
    if (mp_csv_open(&r->csv, opts->output, r->header, r->ncols, why,
                    sizeof why))
        mp_usage_error("-o: %s", why);
}

/* Starts the cost breakdown and sizes the profiling groups
 * (profile_pending): live states up to a third of the device memory free
 * now. The L2 flush buffers, the L2's size, come later (prepare_part),
 * with the first set that needs them. */
static void plan_profiling(run_state *r)
{
    r->coll = NULL;
    mp_cost_start();
    r->profile_budget = 0;
    r->flush_bytes = 0;
    r->flush = r->flush_host = NULL;
    const char *flush_env = getenv(MP_PROFILE_FLUSH_ENV);
    r->flush_off = flush_env && strcmp(flush_env, "0") == 0;
    if (!r->dev.fake && r->opts->counters != MP_COUNTERS_MODE_OFF) {
        size_t free_b = 0, total_b = 0;
        CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
        r->profile_budget = free_b / 3;
    }
}

/* Ranges for the largest batch the session opened at `part` will see: at
 * most --batch configurations, and no more than the parts of this set
 * hold (a small run keeps a small image); one range per configuration. */
static size_t session_ranges(const run_state *r, int part, int batch)
{
    mp_metric_set set = r->parts[part].configs->probe->metrics;
    int most = 0;
    for (int q = part; q < r->nparts
         && r->parts[q].configs->probe->metrics == set; q++)
        most = r->parts[q].configs->n > most ? r->parts[q].configs->n
                                             : most;
    most = most < batch ? most : batch;
    return (size_t)(most > 0 ? most : 1);
}

/* One collector session for consecutive parts of one metric set: closes
 * the last set's, opens this part's (none on the fake device). Sets
 * r->fatal when --counters on cannot be honoured. */
static void switch_collector(run_state *r, int part, const mp_run_options *o)
{
    progress(o, r->done, r->total, NULL);
    double tc = mp_cost_now();
    mp_collector_close(r->coll);
    if (r->coll)
        mp_cost_add(MP_COST_CLOSE, 0, tc);
    r->coll = NULL;
    if (r->dev.fake) {
        snprintf(r->counters_status, sizeof r->counters_status,
                 "fake device: nothing measured");
        return;
    }
    tc = mp_cost_now();
    r->coll = open_counters(r->parts[part].configs->probe, o,
                            session_ranges(r, part, o->batch),
                            r->counters_status, sizeof r->counters_status,
                            &r->fatal);
    mp_cost_add(MP_COST_OPEN, 0, tc);
}

/* This part's probe, launches and profiler: with the L2 flushed before
 * each profiled launch when its counters depend on the caches (the flush
 * buffers allocated the first time). */
static void prepare_part(run_state *r, int part, part_state *ps)
{
    ps->cl = r->parts[part].configs;
    ps->p = ps->cl->probe;
    const mp_probe *p = ps->p;
    ps->metrics = mp_metric_set_get(p->metrics, &ps->nmetrics);
    /* Kernel replay restores memory between passes: no flush. */
    int flushed = r->coll && !r->flush_off && !p->keeps_cache_state
                  && !strcmp(mp_collector_replay(r->coll), "user")
                  && !mp_metric_set_cache_independent(p->metrics);
    if (flushed && !r->flush) {
        r->flush_bytes = r->dev.l2_bytes ? r->dev.l2_bytes : 64u << 20;
        CHECK_CUDA(cudaMalloc(&r->flush, r->flush_bytes));
        CHECK_CUDA(cudaMemset(r->flush, 0, r->flush_bytes));
        CHECK_CUDA(cudaMallocHost(&r->flush_host, r->flush_bytes));
    }
    ps->pr = (profiler){
        .coll = r->coll, .p = p, .dev = &r->dev,
        .nmetrics = ps->nmetrics, .values = r->values,
        .budget = r->profile_budget, .flush_bytes = r->flush_bytes,
        .flush_host = r->flush_host, .flush = flushed ? r->flush : NULL,
    };
}

/* Profiles the batch's pending configurations in one group. */
static void profile_batch(run_state *r, part_state *ps)
{
    profile_pending(&ps->pr, r->slots, ps->nb, ps->cl, ps->first, ps->base,
                    &ps->o, r->done, r->total, &r->lost);
}

/* Sets a configuration up and launches it once against the CPU reference:
 * whether its output was right. */
static int setup_and_verify(const run_state *r, const part_state *ps,
                            slot *s, const long long *v, int index)
{
    const mp_probe *p = ps->p;
    double t0 = mp_cost_now();
    p->setup(v, &r->dev, &s->state);
    mp_prepare_launch(p, s->state);
    mp_cost_add(MP_COST_SETUP, index, t0);
    t0 = mp_cost_now();
    p->launch(s->state);
    s->verified = p->verify(s->state, s->why, sizeof s->why) == 0;
    mp_cost_add(MP_COST_VERIFY, index, t0);
    return s->verified;
}

/* Times a verified configuration (the SM clock read around it), reads its
 * clock64 stamps and verifies its output again. */
static void time_config(const run_state *r, const part_state *ps, slot *s,
                        const char *label, int index)
{
    const mp_probe *p = ps->p;
    const mp_run_options *o = &ps->o;
    double t0 = mp_cost_now();
    s->clock_before = o->runs > 0 ? mp_sm_clock_mhz(r->dev.ordinal) : -1;
    time_launches(p, s->state, label, o, s);
    s->clock_after = o->runs > 0 ? mp_sm_clock_mhz(r->dev.ordinal) : -1;
    mp_cost_add(MP_COST_TIMED, index, t0);
    mp_cost_kernel(index, s->m.time_ns.n ? s->m.time_ns.median : 0);
    t0 = mp_cost_now();
    if (p->after_timing)
        p->after_timing(s->state);
    if (o->runs > 0 && p->clock64)
        p->clock64(s->state, &s->m.clock64_span, &s->m.clock64_block_median);
    mp_cost_add(MP_COST_RELEASE, index, t0);
    t0 = mp_cost_now();
    if (o->warmup + o->runs > 0
        && p->verify(s->state, s->why, sizeof s->why))
        s->verified = 0;
    mp_cost_add(MP_COST_VERIFY, index, t0);
}

/* Counters: the state stays live until its group, which is profiled now
 * when the probe asks to be alone or the live states pass the budget.
 * used0: the device memory in use before its setup. */
static void queue_for_counters(run_state *r, part_state *ps, slot *s,
                               size_t used0)
{
    s->pending = 1;
    size_t used = device_used();
    ps->pr.live_bytes += used > used0 ? used - used0 : 0;
    if (ps->p->profile_alone || ps->pr.live_bytes > ps->pr.budget)
        profile_batch(r, ps);
}

/* Configuration b of the batch: set up, verified, timed, verified again;
 * then queued for its counters or released (on the fake device: nothing
 * runs, it counts as verified). */
static void measure_config(run_state *r, part_state *ps, int b)
{
    const mp_probe *p = ps->p;
    slot *s = &r->slots[b];
    const long long *v = ps->cl->v[ps->first + b];
    int index = ps->base + b;
    char label[128];
    memset(s, 0, sizeof *s);
    s->m.clock64_span = -1;
    s->clock_before = s->clock_after = -1;
    p->label(v, label, sizeof label);
    progress(&ps->o, r->done, r->total, label);
    mp_cost_config(index, label);
    if (r->dev.fake) {   /* the test hook: nothing runs */
        s->verified = 1;
        usleep((useconds_t)r->dev.fake_delay_us);
        return;
    }
    size_t used0 = r->coll ? device_used() : 0;
    if (!setup_and_verify(r, ps, s, v, index))
        return;
    time_config(r, ps, s, label, index);
    if (r->coll && s->verified && can_profile(p, v)) {
        queue_for_counters(r, ps, s, used0);
        return;
    }
    double t0 = mp_cost_now();
    p->release(s->state);
    mp_cost_add(MP_COST_RELEASE, index, t0);
}

/* A verified row's timing cells: median, minimum, CoV and the clock note
 * of the timed launches; the clock64 span. */
static void fill_timing(mp_row *row, const slot *s, const mp_device *dev)
{
    if (s->m.time_ns.n > 0) {
        mp_row_set(row, MP_COL_TIME_NS_MEDIAN, "%.0f", s->m.time_ns.median);
        mp_row_set(row, MP_COL_TIME_NS_MIN, "%.0f", s->m.time_ns.min);
        mp_row_set(row, MP_COL_TIME_NS_COV, "%.4f", s->m.time_ns.cov);
        mp_row_set(row, MP_COL_LAUNCHES_PER_SAMPLE, "%d", s->per_sample);
        mp_row_set(row, MP_COL_TIME_OUTLIERS, "%d", s->outliers);
        if (s->clock_after > 0)
            mp_row_set(row, MP_COL_SM_CLOCK_TIMED, "%d", s->clock_after);
        char note[96];
        mp_clock_note(s->clock_before, s->clock_after,
                      dev->sm_clock_khz / 1000, note, sizeof note);
        if (note[0])
            mp_row_set(row, MP_COL_CLOCK_NOTE, "%s", note);
    }
    if (s->m.clock64_span > 0) {
        mp_row_set(row, MP_COL_CLOCK64_SPAN, "%lld", s->m.clock64_span);
        mp_row_set(row, MP_COL_CLOCK64_BLOCK_MEDIAN, "%.0f",
                   s->m.clock64_block_median);
    }
}

/* A verified row's counter cells: the status, then every value (NaN: a
 * name this chip lacks, left empty). */
static void fill_counters(run_state *r, const part_state *ps, const slot *s,
                          const long long *v)
{
    mp_row_set(&r->row, MP_COL_COUNTERS_STATUS, "%s",
               s->m.counters ? r->counters_status
               : !r->coll ? r->counters_status
               : !can_profile(ps->p, v) ? ps->p->unprofiled(v)
               : s->lost);
    if (s->m.counters)
        for (size_t m = 0; m < ps->nmetrics; m++) {
            double x = s->m.counters[m];
            int col = mp_schema_metric_column(ps->metrics[m].name);
            if (col >= 0 && isfinite(x))
                mp_row_set(&r->row, col, "%.17g", x);
        }
}

/* Configuration b's row: to the CSV and as a table line; a wrong output
 * is said and fails the run. Then the configuration is torn down. */
static void write_row(run_state *r, part_state *ps, int b, const char *stamp)
{
    const mp_probe *p = ps->p;
    slot *s = &r->slots[b];
    const long long *v = ps->cl->v[ps->first + b];
    mp_row *row = &r->row;
    char label[128], why[512];
    double t0 = mp_cost_now();
    mp_row_clear(row);
    fill_common(row, &r->dev, stamp);
    p->describe(v, row);
    p->label(v, label, sizeof label);
    mp_row_set(row, MP_COL_CONFIG, "%s", label);
    mp_row_set(row, MP_COL_WARMUP, "%d",
               s->m.time_ns.n ? s->warm : ps->o.warmup);
    mp_row_set(row, MP_COL_RUNS, "%d", ps->o.runs);
    mp_row_set(row, MP_COL_VERIFIED, "%s", s->verified ? "yes" : "no");
    if (s->verified) {
        fill_timing(row, s, &r->dev);
        fill_counters(r, ps, s, v);
        if (!r->dev.fake)
            p->derive(s->state, &r->dev, &s->m, row);
    } else {
        p->label(v, label, sizeof label);
        fprintf(stderr, "memprobe: %s: output WRONG, not reported: %s\n",
                label, s->why);
        r->failed = 1;
    }
    if (ps->o.check_model
        && strcmp(mp_row_get(row, MP_COL_MODEL_MATCH), "no") == 0)
        r->failed = 1;
    mp_row_cells(row, r->cells);
    if (mp_csv_write_row(&r->csv, r->cells, why, sizeof why)) {
        fprintf(stderr, "memprobe: %s\n", why);
        exit(MP_EXIT_FAIL);
    }
    char line[1024];
    mp_console_line(p, row, r->label_width, line, sizeof line);
    puts(line);
    if (!r->dev.fake)
        mp_probe_teardown(p, s->state);
    mp_cost_add(MP_COST_ROW, ps->base + b, t0);
    r->done++;
}

/* One batch of the part, configurations first .. first + --batch: each
 * measured, the pending profiled in a group, then the rows written. */
static void run_batch(run_state *r, part_state *ps, int first)
{
    const mp_run_options *o = &ps->o;
    ps->first = first;
    ps->nb = ps->cl->n - first < o->batch ? ps->cl->n - first : o->batch;
    ps->base = r->done;
    if (r->coll)
        mp_cost_batch(ps->nb);
    ps->pr.ranges = 0;
    /* Verify, time and profile each configuration. */
    for (int b = 0; b < ps->nb; b++)
        measure_config(r, ps, b);
    if (r->coll)
        profile_batch(r, ps);

    /* Rows (the progress line cleared first). */
    progress(o, r->done, r->total, NULL);
    char stamp[32];
    utc_stamp(stamp, sizeof stamp);
    for (int b = 0; b < ps->nb; b++)
        write_row(r, ps, b, stamp);
    fflush(stdout);
}

/* The console table's header for part `part` and the parts after it of
 * the same probe, its label column as wide as their longest label. */
static void print_console_header(run_state *r, int part)
{
    const mp_probe *p = r->parts[part].configs->probe;
    char label[128], line[1024];
    r->label_width = 0;
    for (int i = part; i < r->nparts && r->parts[i].configs->probe == p; i++)
        for (int c = 0; c < r->parts[i].configs->n; c++) {
            p->label(r->parts[i].configs->v[c], label, sizeof label);
            int n = (int)strlen(label);
            if (n > r->label_width)
                r->label_width = n;
        }
    mp_console_line(p, NULL, r->label_width, line, sizeof line);
    puts(line);
}

/* The end of the run: the collector and the cost breakdown closed, the
 * flush buffers and the output released. Returns the exit status. */
static int finish_run(run_state *r)
{
    const mp_run_options *opts = r->opts;
    progress(opts, r->done, r->total, NULL);
    double tc = mp_cost_now();
    mp_collector_close(r->coll);
    if (r->coll)
        mp_cost_add(MP_COST_CLOSE, 0, tc);
    mp_cost_finish();
    long paced = r->dev.fake ? 0 : mp_time_close();
    if (paced)
        fprintf(stderr, "memprobe: timing: %ld samples were queued at the "
                "host's pace (a launch call waited for the GPU and the "
                "stream hold gave up): their times include the host's "
                "launch calls\n", paced);
    if (r->flush) {
        CHECK_CUDA(cudaFree(r->flush));
        CHECK_CUDA(cudaFreeHost(r->flush_host));
    }
    if (mp_csv_close(&r->csv))
        fprintf(stderr, "memprobe: closing %s failed\n", opts->output),
            r->failed = 1;
    mp_row_free(&r->row);
    free(r->values);
    free(r->slots);
    free(r->cells);
    free(r->header);
    if (r->fatal || (r->lost && opts->counters == MP_COUNTERS_MODE_ON))
        return MP_EXIT_COUNTERS;
    return r->failed ? MP_EXIT_FAIL : MP_EXIT_OK;
}

int mp_run_parts(const mp_run_part *parts, int nparts,
                 const mp_run_options *opts)
{
    run_state r;
    memset(&r, 0, sizeof r);
    r.parts = parts;
    r.nparts = nparts;
    r.opts = opts;
    make_header(&r);
    check_output_early(&r);
    if (open_device(&r)) {
        free(r.header);
        return MP_EXIT_NOGPU;
    }
    apply_cli_defaults(&r);
    check_parts(&r);
    open_output(&r);
    plan_profiling(&r);
    for (int part = 0; part < nparts && !r.fatal; part++) {
        part_state ps;
        memset(&ps, 0, sizeof ps);
        /* This part's launches; everything else as the caller asked. */
        ps.o = *opts;
        ps.o.warmup = parts[part].warmup;
        ps.o.runs = parts[part].runs;
        if (part == 0 || parts[part].configs->probe->metrics
                             != parts[part - 1].configs->probe->metrics) {
            switch_collector(&r, part, &ps.o);
            if (r.fatal)
                break;
        }
        if (part == 0 || parts[part].configs->probe
                             != parts[part - 1].configs->probe)
            print_console_header(&r, part);
        prepare_part(&r, part, &ps);
        for (int first = 0; first < ps.cl->n; first += ps.o.batch)
            run_batch(&r, &ps, first);
    }
    return finish_run(&r);
}
