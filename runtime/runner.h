/*
 * runner.h - measures lists of configurations (one probe each; a sweep
 * file's sections are several lists): verification, timing, hardware
 * counters, one CSV row each.
 */
#ifndef MP_RUNNER_H
#define MP_RUNNER_H

#include "configs.h"

/* Where measuring commands write when no -o is given. */
#define MP_DEFAULT_OUTPUT "results/latest.csv"

/* The options every measuring command takes (memprobe PROBE, memprobe
 * sweep, and warmup/runs in sweep files), parsed like probe parameters:
 * one table, so names, ranges and defaults agree everywhere. */
enum { MP_OPT_WARMUP, MP_OPT_RUNS, MP_OPT_COUNTERS, MP_OPT_DEVICE,
       MP_OPT_LAUNCHES, MP_OPT_SAMPLE_US, MP_OPT_BATCH, MP_OPT_COUNT };
extern const mp_param_def mp_run_option_defs[MP_OPT_COUNT];

typedef enum { MP_COUNTERS_MODE_AUTO, MP_COUNTERS_MODE_ON,
               MP_COUNTERS_MODE_OFF } mp_counters_mode;

typedef struct {
    int warmup;              /* untimed launches before timing */
    int runs;                /* timed samples; 0 = verify only */
    int launches;            /* launches per timed sample; 0 = auto */
    int sample_us;           /* auto: the least sample length, us */
    const char *output;      /* CSV file, "-" for stdout */
    mp_counters_mode counters;
    int device;
    int check_model;         /* exit 1 if measured counters != model */
    int batch;               /* configurations per batch: rows, groups */
    /* Optional (NULL: none): told how the run moves on, for a progress
     * line. done of total configurations have their row written; label is
     * the configuration being measured now, or NULL when the caller must
     * clear its line because the runner is about to print. */
    void (*progress)(void *ctx, int done, int total, const char *label);
    void *progress_ctx;
    /* The probe's own subcommand: which parameters the user gave (NULL
     * otherwise). Once a GPU is open, the probe's cli_defaults (probe.h)
     * adjusts the others (no GPU: the predictions show the plain
     * defaults). */
    const int *given;
} mp_run_options;

/* The run options a command line gives: warmup, runs, counters, device,
 * launches, sample_us and batch from opt (its values of
 * mp_run_option_defs, opt[MP_OPT_*]) and check_model; the rest zero (the
 * caller sets output, progress and given). */
mp_run_options mp_run_options_from(const long long *opt, int check_model);

/* One part of a run: a probe's configurations and the launches that time
 * each of them (the options' warmup and runs are not used for parts). */
typedef struct {
    const mp_config_list *configs;
    int warmup, runs;
} mp_run_part;

/* Runs every configuration. Returns the exit status (check.h): 0, 1 when a
 * verification or model check failed, 3 with no GPU (after printing the
 * model's prediction), 4 when --counters on cannot be honoured. */
int mp_run(const mp_config_list *configs, const mp_run_options *o);

/* The same for several parts, in order, as one run: one device, one CSV
 * file, one progress count, every configuration of every part checked
 * before anything is measured. Consecutive parts whose probes share a
 * metric set share one collector session; where the set changes the
 * session is closed and one for the new set opened (CUPTI needs that). */
int mp_run_parts(const mp_run_part *parts, int nparts,
                 const mp_run_options *o);

/* Prints the model's prediction for every configuration as a table
 * (csv = 0) or CSV with a header (csv = 1). No GPU is touched. */
void mp_print_predictions(const mp_config_list *configs, int csv, FILE *out);

#endif
