/*
 * cmd_probe.c - the commands of the probes: `memprobe PROBE [--PARAM
 * VALUE]...` (measure) and `memprobe predict PROBE ...`. Every bad input
 * ends here or in runtime/params.c with one line naming the parameter,
 * and exit status 2, before any GPU work starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "configs.h"
#include "family.h"
#include "options.h"
#include "probe.h"
#include "runner.h"

#define DEFAULT_OUTPUT MP_DEFAULT_OUTPUT

/* The run options (runner.h) under short local names. */
enum { O_WARMUP = MP_OPT_WARMUP, O_RUNS = MP_OPT_RUNS,
       O_COUNTERS = MP_OPT_COUNTERS, O_DEVICE = MP_OPT_DEVICE,
       O_LAUNCHES = MP_OPT_LAUNCHES, O_SAMPLE_US = MP_OPT_SAMPLE_US,
       O_BATCH = MP_OPT_BATCH,
       O_COUNT = MP_OPT_COUNT };
#define run_options mp_run_option_defs

static const char *const formats[] = {"txt", "csv", NULL};
static const mp_param_def format_option = {
    "format", MP_PARAM_CHOICE, 0, 0, 0, NULL, 0, formats,
    "txt for people, csv for programs", NULL, NULL, NULL};

static void probe_help(const mp_probe *p, int predict, FILE *out)
{
    fprintf(out, "usage: memprobe %s%s [--PARAM VALUE]...%s\n\n",
            predict ? "predict " : "", p->name,
            predict ? " [--format txt|csv]" : " [-o FILE] [options]");
    mp_cli_wrap(out, 0, 0, mp_family_find(p->name)->summary);
    fputc('\n', out);
    if (p->cc)
        fprintf(out, "Needs compute capability %d.%d or newer.\n\n",
                p->cc / 10, p->cc % 10);
    fprintf(out, "Parameters (a value, a list 1,2,4 or a range 0..64[:step]; "
            "lists make a sweep):\n");
    for (int i = 0; i < p->nparams; i++)
        mp_cli_param_help(&p->params[i], out);
    if (predict) {
        mp_cli_param_help(&format_option, out);
        return;
    }
    fprintf(out, "\nOptions:\n");
    for (int i = 0; i < O_COUNT; i++)
        mp_cli_param_help(&run_options[i], out);
    fprintf(out, "  -o, --output FILE          append CSV rows to FILE "
            "(default %s; - = stdout)\n", DEFAULT_OUTPUT);
    fprintf(out, "  --check-model              exit 1 if a measured counter "
            "differs from the model\n");
}

typedef struct {
    mp_value_list *lists[MP_MAX_PARAMS];
    long long opt[O_COUNT];
    long long format;
    const char *output;
    int check_model;
} parsed_args;

typedef struct {
    const mp_probe *p;
    int predict;
} help_of;

static void usage_fn(FILE *out, const void *ctx)
{
    const help_of *h = ctx;
    probe_help(h->p, h->predict, out);
}

/* Parses probe parameters and (unless predict) run options. Exits 2 on
 * any bad input; exits 0 after --help. */
static void parse_args(const mp_probe *p, int predict, int argc, char **argv,
                       parsed_args *a)
{
    mp_opt opts[MP_MAX_PARAMS + O_COUNT + 2];
    int n = 0;
    memset(a, 0, sizeof *a);
    memset(opts, 0, sizeof opts);
    for (int i = 0; i < O_COUNT; i++)
        a->opt[i] = run_options[i].def;
    for (int k = 0; k < p->nparams; k++)
        opts[n++] = (mp_opt){.name = p->params[k].name, .kind = MP_OPT_LIST,
                             .dest = &a->lists[k], .once = 1,
                             .def = &p->params[k]};
    if (predict) {
        opts[n++] = (mp_opt){.name = "format", .kind = MP_OPT_VALUE,
                             .dest = &a->format, .once = 1,
                             .def = &format_option};
    } else {
        for (int k = 0; k < O_COUNT; k++)
            opts[n++] = (mp_opt){.name = run_options[k].name,
                                 .kind = MP_OPT_VALUE, .dest = &a->opt[k],
                                 .once = 1, .def = &run_options[k]};
        opts[n++] = (mp_opt){.name = "output", .alias = "-o",
                             .kind = MP_OPT_TEXT, .dest = &a->output,
                             .once = 1, .empty = "empty file name"};
        opts[n++] = (mp_opt){.name = "check-model", .kind = MP_OPT_FLAG,
                             .dest = &a->check_model};
    }
    char see[256];
    snprintf(see, sizeof see, " (see memprobe %s%s --help)",
             predict ? "predict " : "", p->name);
    const help_of help = {p, predict};
    const mp_opts_spec spec = {
        .cmd = p->name, .opts = opts, .nopts = n,
        .dashes = MP_OPTS_DASH_TWO, .option_too = "-o",
        .unknown_tail = see, .unexpected_tail = see,
        .usage_fn = usage_fn, .usage_ctx = &help};
    mp_opts_parse(&spec, argc, argv, NULL);
}

static void free_args(parsed_args *a)
{
    for (int i = 0; i < MP_MAX_PARAMS; i++)
        free(a->lists[i]);
}

/* Expands and checks every configuration without a GPU (sm_90 limits). */
static void expand_and_check(const mp_probe *p, parsed_args *a,
                             mp_config_list *cl)
{
    char err[512];
    if (mp_configs_expand(p, a->lists, cl, err, sizeof err))
        mp_usage_error("%s", err);
    for (int c = 0; c < cl->n; c++)
        if (p->check(cl->v[c], MP_SM90_SMEM_OPTIN, err, sizeof err))
            mp_usage_error("%s", err);
}

void mp_cli_check_params(const mp_probe *p, int argc, char **argv)
{
    parsed_args a;
    mp_config_list cl;
    parse_args(p, 1, argc, argv, &a);
    expand_and_check(p, &a, &cl);
    mp_configs_free(&cl);
    free_args(&a);
}

int mp_cmd_measure(const mp_probe *p, int argc, char **argv)
{
    parsed_args a;
    mp_config_list cl;
    parse_args(p, 0, argc, argv, &a);
    expand_and_check(p, &a, &cl);
    int given[MP_MAX_PARAMS];   /* for the probe's cli_defaults */
    for (int i = 0; i < p->nparams; i++)
        given[i] = a.lists[i] != NULL;
    mp_run_options o = mp_run_options_from(a.opt, a.check_model);
    o.output = a.output ? a.output : DEFAULT_OUTPUT;
    o.given = given;
    int rc = mp_run(&cl, &o);
    mp_configs_free(&cl);
    free_args(&a);
    return rc;
}

int mp_cmd_predict(int argc, char **argv)
{
    const char *name = NULL;
    int nnames = 0;
    const mp_opts_spec spec = {
        .cmd = "predict", .dashes = MP_OPTS_NONE, .rest = &name,
        .nrest = &nnames, .max_rest = 1, .stop_when_full = 1,
        .usage = "usage: memprobe predict PROBE [--PARAM VALUE]... "
                 "[--format txt|csv]\n\nPrints the model's prediction; needs "
                 "no GPU. See memprobe list.\n"};
    mp_opts_parse(&spec, argc, argv, NULL);
    if (!name)
        mp_usage_error("predict: no probe given (usage: memprobe predict "
                       "PROBE [--PARAM VALUE]...; see memprobe list)");
    const mp_probe *p = mp_probe_find(name);
    if (!p)
        mp_usage_error("predict: unknown probe '%s' (see memprobe list)",
                       name);
    parsed_args a;
    mp_config_list cl;
    parse_args(p, 1, argc - 1, argv + 1, &a);
    expand_and_check(p, &a, &cl);
    mp_print_predictions(&cl, a.format == 1, stdout);
    mp_configs_free(&cl);
    free_args(&a);
    return MP_EXIT_OK;
}
