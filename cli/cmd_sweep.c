/*
 * cmd_sweep.c - `memprobe sweep FILE`: runs every configuration of a sweep
 * file (runtime/sweep_file.h, docs/sweep-files.md) as one run: one device,
 * one CSV file, a collector session per metric set, and a progress line on
 * stderr when it is a terminal. --resume skips what the CSV already holds;
 * --list and --predict need no GPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "device.h"
#include "options.h"
#include "runner.h"
#include "stats.h"
#include "sweep_devices.h"
#include "sweep_file.h"

#define DEFAULT_OUTPUT MP_DEFAULT_OUTPUT

/* The command-line options: the run options of runner.h that apply to a
 * whole sweep (warmup and runs come from the sweep file), under short
 * local names; the values are kept by their runner.h index. */
enum { O_COUNTERS = MP_OPT_COUNTERS, O_DEVICE = MP_OPT_DEVICE,
       O_LAUNCHES = MP_OPT_LAUNCHES, O_SAMPLE_US = MP_OPT_SAMPLE_US,
       O_BATCH = MP_OPT_BATCH };
static const int options[] = {O_COUNTERS, O_DEVICE, O_LAUNCHES,
                              O_SAMPLE_US, O_BATCH};
enum { O_COUNT = sizeof options / sizeof options[0] };

static void usage(FILE *out)
{
    fprintf(out,
        "usage: memprobe sweep FILE [-o OUT.csv] [--resume] [options]\n"
        "       memprobe sweep FILE --list | --predict [-o OUT.csv "
        "--resume]\n\n"
        "Runs every configuration of the sweep file FILE (an INI file: a "
        "[PROBE] or\n[PROBE.TAG] section per cross product, keys = the "
        "probe's parameters and\nwarmup, runs; see docs/sweep-files.md) and "
        "appends one CSV row each.\n\n"
        "Options:\n"
        "  -o, --output OUT.csv       append rows to OUT.csv (default %s)\n"
        "  --resume                   skip configurations OUT.csv already "
        "holds (verified\n"
        "                             rows of the same parameters, warmup "
        "and runs)\n"
        "  --list                     print the configurations and their "
        "count; no GPU\n"
        "  --predict                  print the model's predictions; no "
        "GPU\n"
        "  --check-model              exit 1 if a measured counter differs "
        "from the model\n"
        "  --devices all|0,1,..       every GPU of the node: one worker "
        "process per GPU,\n"
        "                             the configurations dealt round robin, "
        "one CSV\n"
        "  --shard K/N                only shard K of N (K from 0): "
        "configurations whose\n"
        "                             index modulo N is K; default from "
        "Slurm's\n"
        "                             SLURM_ARRAY_TASK_ID/_COUNT/_MIN when "
        "set\n"
        "  --resume-from CSV          also skip what CSV holds (the workers "
        "of --devices)\n", DEFAULT_OUTPUT);
    for (int k = 0; k < O_COUNT; k++)
        mp_cli_param_help(&mp_run_option_defs[options[k]], out);
}

/* ---- the progress line ------------------------------------------------ */

typedef struct {
    struct timespec start;
    int shown;   /* a line is on the terminal */
} progress_line;

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec)
           + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

/* "12:05" or "1:02:03". */
static void format_duration(double seconds, char *buf, size_t len)
{
    long s = (long)(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

/* mp_run_options.progress: "[done/total] elapsed, ~left  label", rewritten
 * in place with \r; cleared (label NULL) before the runner prints. */
static void show_progress(void *ctx, int done, int total, const char *label)
{
    progress_line *pl = ctx;
    if (!label) {
        if (pl->shown)
            fputs("\r\033[K", stderr);
        pl->shown = 0;
        return;
    }
    double elapsed = seconds_since(&pl->start);
    char spent[32], left[32] = "?";
    format_duration(elapsed, spent, sizeof spent);
    double eta = mp_eta_seconds(elapsed, done, total);
    if (eta >= 0)
        format_duration(eta, left, sizeof left);
    char head[128];
    int n = snprintf(head, sizeof head, "[%d/%d] %s elapsed, ~%s left  ",
                     done, total, spent, left);
    /* Keep the line within the terminal, or \r cannot rewrite it. */
    struct winsize ws;
    int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0
                    ? ws.ws_col : 80;
    int room = width - 1 - n;
    int len = (int)strlen(label);
    if (room < 4)
        fprintf(stderr, "\r%.*s\033[K", width - 1, head);
    else if (len <= room)
        fprintf(stderr, "\r%s%s\033[K", head, label);
    else   /* the end of the name is the part that changes */
        fprintf(stderr, "\r%s...%s\033[K", head, label + len - (room - 3));
    pl->shown = 1;
}

/* ---- the command -------------------------------------------------------- */

typedef struct {
    const char *file, *output;
    const char *devices, *shard, *resume_from;
    int resume, list, predict, check_model;
    long long opt[MP_OPT_COUNT];   /* by runner.h index (MP_OPT_*) */
    int given[MP_OPT_COUNT];
} sweep_args;

static void sweep_usage(FILE *out, const void *ctx)
{
    (void)ctx;
    usage(out);
}

static void parse_args(int argc, char **argv, sweep_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < MP_OPT_COUNT; i++)
        a->opt[i] = mp_run_option_defs[i].def;
#define FLAG(n, d) {.name = n, .kind = MP_OPT_FLAG, .dest = d, .once = 1}
#define TEXT(n, d, e) {.name = n, .alias = NULL, .kind = MP_OPT_TEXT, \
                       .dest = d, .once = 1, .empty = e}
#define VALUE(k) {.name = mp_run_option_defs[k].name, \
                  .kind = MP_OPT_VALUE, .dest = &a->opt[k], .once = 1, \
                  .def = &mp_run_option_defs[k]}
    const mp_opt opts[] = {
        FLAG("resume", &a->resume),
        FLAG("list", &a->list),
        FLAG("predict", &a->predict),
        FLAG("check-model", &a->check_model),
        {.name = "output", .alias = "-o", .kind = MP_OPT_TEXT,
         .dest = &a->output, .once = 1, .empty = "empty file name"},
        TEXT("devices", &a->devices, "empty value"),
        TEXT("shard", &a->shard, "empty value"),
        TEXT("resume-from", &a->resume_from, "empty value"),
        VALUE(O_COUNTERS), VALUE(O_DEVICE), VALUE(O_LAUNCHES),
        VALUE(O_SAMPLE_US), VALUE(O_BATCH),
    };
#undef FLAG
#undef TEXT
#undef VALUE
    enum { NOPTS = sizeof opts / sizeof opts[0] };
    int given[NOPTS], nfiles = 0;
    const mp_opts_spec spec = {
        .cmd = "sweep", .opts = opts, .nopts = NOPTS,
        .dashes = MP_OPTS_DASH_ONE,
        .unknown_tail = " (see memprobe sweep --help)",
        .unexpected_tail = ": one sweep file at a time",
        .rest = &a->file, .nrest = &nfiles, .max_rest = 1,
        .usage_fn = sweep_usage};
    mp_opts_parse(&spec, argc, argv, given);
    for (int k = 0; k < O_COUNT; k++)
        a->given[options[k]] = given[NOPTS - O_COUNT + k];
    if (!a->file)
        mp_usage_error("sweep: no sweep file given (usage: memprobe sweep "
                       "FILE [-o OUT.csv] [--resume])");
    if (a->list && a->predict)
        mp_usage_error("sweep: --list and --predict: one at a time");
    if (a->resume && a->output && !strcmp(a->output, "-"))
        mp_usage_error("--resume: needs an output file, not stdout (-o -)");
    if (a->devices && a->output && !strcmp(a->output, "-"))
        mp_usage_error("--devices: needs an output file, not stdout (-o -)");
    if (a->devices && a->given[O_DEVICE])
        mp_usage_error("--devices: --device names one GPU, --devices several:"
                       " one of them");
}

/* The shard to run: --shard, else Slurm's array variables, else 0/1. */
static void shard_of(const sweep_args *a, int *k, int *n)
{
    char err[256];
    *k = 0;
    *n = 1;
    if (a->shard) {
        if (mp_shard_parse(a->shard, "--shard", k, n, err, sizeof err))
            mp_usage_error("%s", err);
        return;
    }
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    const char *count = getenv("SLURM_ARRAY_TASK_COUNT");
    if (!id || !count || !*id || !*count)
        return;
    const char *min = getenv("SLURM_ARRAY_TASK_MIN");
    char text[64];
    snprintf(text, sizeof text, "%ld/%s",
             atol(id) - (min && *min ? atol(min) : 0), count);
    if (mp_shard_parse(text, "SLURM_ARRAY_TASK_ID/COUNT", k, n, err,
                       sizeof err))
        mp_usage_error("%s (an array of --array=MIN-MAX without a step)",
                       err);
    fprintf(stderr, "memprobe: shard %d/%d from Slurm's array variables\n",
            *k, *n);
}

/* --list: one configuration name per line, then the count. */
static void list_configs(const mp_sweep *s, const sweep_args *a)
{
    char label[128];
    for (int i = 0; i < s->nsections; i++) {
        const mp_sweep_section *sec = &s->sections[i];
        for (int c = 0; c < sec->configs.n; c++) {
            sec->probe->label(sec->configs.v[c], label, sizeof label);
            printf("%s\n", label);
        }
    }
    printf("%d configuration%s in %d section%s", s->total,
           s->total == 1 ? "" : "s", s->nsections,
           s->nsections == 1 ? "" : "s");
    if (s->duplicates)
        printf(", %d repeats dropped", s->duplicates);
    if (a->resume)
        printf(", %d already in %s", s->resumed,
               a->output ? a->output : DEFAULT_OUTPUT);
    printf("\n");
}

/* --list --devices: which device measures what (round robin). */
static void list_on_devices(const mp_sweep *s, const int *devs, int n)
{
    char label[128];
    int g = 0;
    for (int i = 0; i < s->nsections; i++) {
        const mp_sweep_section *sec = &s->sections[i];
        for (int c = 0; c < sec->configs.n; c++, g++) {
            sec->probe->label(sec->configs.v[c], label, sizeof label);
            printf("device %d: %s\n", devs[g % n], label);
        }
    }
    printf("%d configurations over %d device%s\n", s->total, n,
           n == 1 ? "" : "s");
}

int mp_cmd_sweep(int argc, char **argv)
{
    sweep_args a;
    parse_args(argc, argv, &a);
    const char *output = a.output ? a.output : DEFAULT_OUTPUT;

    char err[1024];
    mp_sweep s;
    if (mp_sweep_read(a.file, &s, err, sizeof err))
        mp_usage_error("%s", err);
    int shard_k, shard_n;
    shard_of(&a, &shard_k, &shard_n);
    int devs[64], ndevs = 0;
    if (a.devices) {
        ndevs = mp_devices_parse(a.devices, devs, 64, err, sizeof err);
        if (ndevs < 0)
            mp_usage_error("%s", err);
    }
    if (ndevs > 0 && !a.list && !a.predict) {
        /* The workers read the file, shard and resume themselves. */
        mp_sweep_free(&s);
        mp_sweep_devices_args da = {
            .file = a.file, .output = output, .devices = devs,
            .ndevices = ndevs, .shard_k = shard_k, .shard_n = shard_n,
            .resume = a.resume, .check_model = a.check_model,
            .batch = (int)a.opt[O_BATCH],
            .launches = (int)a.opt[O_LAUNCHES],
            .sample_us = (int)a.opt[O_SAMPLE_US],
            .counters =
                mp_run_option_defs[O_COUNTERS].choices[a.opt[O_COUNTERS]],
        };
        return mp_sweep_on_devices(&da);
    }
    if (shard_n > 1)
        mp_sweep_shard(&s, shard_k, shard_n);
    if (a.resume_from && mp_sweep_resume(&s, a.resume_from, err, sizeof err))
        mp_usage_error("--resume-from: %s", err);
    if (a.resume && mp_sweep_resume(&s, output, err, sizeof err))
        mp_usage_error("--resume: %s", err);

    if (a.list || a.predict) {
        if (a.list && ndevs > 0)
            list_on_devices(&s, devs, ndevs);
        else if (a.list)
            list_configs(&s, &a);
        for (int i = 0; a.predict && i < s.nsections; i++)
            if (s.sections[i].configs.n > 0)
                mp_print_predictions(&s.sections[i].configs, 0, stdout);
        mp_sweep_free(&s);
        return MP_EXIT_OK;
    }
    if (s.total == 0) {
        fprintf(stderr, "memprobe: sweep %s: nothing left to run (%d "
                "configurations already in %s)\n", a.file, s.resumed, output);
        mp_sweep_free(&s);
        return MP_EXIT_OK;
    }

    mp_run_part *parts = mp_xcalloc((size_t)s.nsections, sizeof *parts);
    int nparts = 0;
    for (int i = 0; i < s.nsections; i++)
        if (s.sections[i].configs.n > 0)
            parts[nparts++] = (mp_run_part){&s.sections[i].configs,
                                            s.sections[i].warmup,
                                            s.sections[i].runs};
    progress_line pl = {.shown = 0};
    clock_gettime(CLOCK_MONOTONIC, &pl.start);
    /* The parts bring their own warmup and runs. */
    mp_run_options o = mp_run_options_from(a.opt, a.check_model);
    o.output = output;
    o.progress = isatty(STDERR_FILENO) ? show_progress : NULL;
    o.progress_ctx = &pl;
    int rc = mp_run_parts(parts, nparts, &o);
    if (rc == MP_EXIT_OK || rc == MP_EXIT_FAIL) {
        char spent[32];
        format_duration(seconds_since(&pl.start), spent, sizeof spent);
        fprintf(stderr, "memprobe: sweep %s: %d configurations in %s "
                "(%.1f s)", a.file, s.total, spent,
                seconds_since(&pl.start));
        if (a.resume)
            fprintf(stderr, ", %d already in %s skipped", s.resumed, output);
        fprintf(stderr, "\n");
    }
    free(parts);
    mp_sweep_free(&s);
    return rc;
}
