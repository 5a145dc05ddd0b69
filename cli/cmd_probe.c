/*
 * cmd_probe.c - the commands of the probes: `memprobe PROBE [--PARAM
 * VALUE]...` (measure), `memprobe predict PROBE ...`, `memprobe list` and
 * `memprobe columns`. Every bad input ends here or in runtime/params.c
 * with one line naming the parameter, and exit status 2, before any GPU
 * work starts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "configs.h"
#include "probe.h"
#include "runner.h"

#define DEFAULT_OUTPUT MP_DEFAULT_OUTPUT

/* The run options (runner.h) under short local names. */
enum { O_WARMUP = MP_OPT_WARMUP, O_RUNS = MP_OPT_RUNS,
       O_COUNTERS = MP_OPT_COUNTERS, O_DEVICE = MP_OPT_DEVICE,
       O_BATCH = MP_OPT_BATCH, O_COUNT = MP_OPT_COUNT };
#define run_options mp_run_option_defs

static const char *const formats[] = {"txt", "csv", NULL};
static const mp_param_def format_option = {
    "format", MP_PARAM_CHOICE, 0, 0, 0, NULL, 0, formats,
    "txt for people, csv for programs", NULL, NULL, NULL};

static void print_param_help(const mp_param_def *d, FILE *out)
{
    char range[128], def[64], cc[256];
    mp_param_describe_range(d, range, sizeof range);
    mp_param_format(d, d->def, def, sizeof def);
    mp_param_describe_cc(d, cc, sizeof cc);
    fprintf(out, "  --%-11s %-14s default %-6s %s%s\n", d->name, range, def,
            d->help, cc);
}

static void probe_help(const mp_probe *p, int predict, FILE *out)
{
    fprintf(out, "usage: memprobe %s%s [--PARAM VALUE]...%s\n\n%s\n\n",
            predict ? "predict " : "", p->name,
            predict ? " [--format txt|csv]" : " [-o FILE] [options]",
            p->summary);
    if (p->cc)
        fprintf(out, "Needs compute capability %d.%d or newer.\n\n",
                p->cc / 10, p->cc % 10);
    fprintf(out, "Parameters (a value, a list 1,2,4 or a range 0..64[:step]; "
            "lists make a sweep):\n");
    for (int i = 0; i < p->nparams; i++)
        print_param_help(&p->params[i], out);
    if (predict) {
        print_param_help(&format_option, out);
        return;
    }
    fprintf(out, "\nOptions:\n");
    for (int i = 0; i < O_COUNT; i++)
        print_param_help(&run_options[i], out);
    fprintf(out, "  -o, --output FILE          append CSV rows to FILE "
            "(default %s; - = stdout)\n", DEFAULT_OUTPUT);
    fprintf(out, "  --check-model              exit 1 if a measured counter "
            "differs from the model\n");
}

typedef struct {
    mp_value_list *lists[MP_MAX_PARAMS];
    long long opt[O_COUNT];
    int opt_given[O_COUNT];
    long long format;
    int format_given;
    const char *output;
    int check_model;
} parsed_args;

/* Parses probe parameters and (unless predict) run options. Exits 2 on
 * any bad input; exits 0 after --help. */
static void parse_args(const mp_probe *p, int predict, int argc, char **argv,
                       parsed_args *a)
{
    char err[512];
    memset(a, 0, sizeof *a);
    for (int i = 0; i < O_COUNT; i++)
        a->opt[i] = run_options[i].def;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            probe_help(p, predict, stdout);
            exit(MP_EXIT_OK);
        }
        if (strncmp(arg, "--", 2) != 0 && strcmp(arg, "-o") != 0)
            mp_usage_error("%s: unexpected argument '%s' (see memprobe %s%s "
                           "--help)", p->name, arg, predict ? "predict " : "",
                           p->name);
        int done = 0;
        for (int k = 0; k < p->nparams && !done; k++) {
            if (!mp_option_is(arg, p->params[k].name))
                continue;
            const char *val =
                mp_option_value(argc, argv, &i, p->params[k].name);
            if (a->lists[k])
                mp_usage_error("--%s: given twice", p->params[k].name);
            a->lists[k] = malloc(sizeof *a->lists[k]);
            if (!a->lists[k])
                mp_usage_error("out of memory");
            if (mp_param_parse_list(&p->params[k], val, a->lists[k], err,
                                    sizeof err))
                mp_usage_error("%s", err);
            done = 1;
        }
        if (!done && predict && mp_option_is(arg, "format")) {
            const char *val = mp_option_value(argc, argv, &i, "format");
            if (a->format_given++)
                mp_usage_error("--format: given twice");
            if (mp_param_parse_value(&format_option, val, &a->format, err,
                                     sizeof err))
                mp_usage_error("%s", err);
            done = 1;
        }
        for (int k = 0; k < O_COUNT && !done && !predict; k++) {
            if (!mp_option_is(arg, run_options[k].name))
                continue;
            const char *val = mp_option_value(argc, argv, &i,
                                           run_options[k].name);
            if (a->opt_given[k]++)
                mp_usage_error("--%s: given twice", run_options[k].name);
            if (mp_param_parse_value(&run_options[k], val, &a->opt[k], err,
                                     sizeof err))
                mp_usage_error("%s", err);
            done = 1;
        }
        if (!done && !predict)
            done = mp_take_output(argc, argv, &i, &a->output);
        if (!done && !predict && !strcmp(arg, "--check-model")) {
            a->check_model = 1;
            done = 1;
        }
        if (!done)
            mp_usage_error("%s: unknown option '%s' (see memprobe %s%s "
                           "--help)", p->name, arg, predict ? "predict " : "",
                           p->name);
    }
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

int mp_cmd_measure(const mp_probe *p, int argc, char **argv)
{
    parsed_args a;
    mp_config_list cl;
    parse_args(p, 0, argc, argv, &a);
    expand_and_check(p, &a, &cl);
    int given[MP_MAX_PARAMS];   /* for the probe's cli_defaults */
    for (int i = 0; i < p->nparams; i++)
        given[i] = a.lists[i] != NULL;
    mp_run_options o = {
        .warmup = (int)a.opt[O_WARMUP],
        .runs = (int)a.opt[O_RUNS],
        .output = a.output ? a.output : DEFAULT_OUTPUT,
        .counters = (mp_counters_mode)a.opt[O_COUNTERS],
        .device = (int)a.opt[O_DEVICE],
        .check_model = a.check_model,
        .batch = (int)a.opt[O_BATCH],
        .given = given,
    };
    int rc = mp_run(&cl, &o);
    mp_configs_free(&cl);
    free_args(&a);
    return rc;
}

int mp_cmd_predict(int argc, char **argv)
{
    if (argc < 1)
        mp_usage_error("predict: no probe given (usage: memprobe predict "
                       "PROBE [--PARAM VALUE]...; see memprobe list)");
    if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        printf("usage: memprobe predict PROBE [--PARAM VALUE]... "
               "[--format txt|csv]\n\nPrints the model's prediction; needs "
               "no GPU. See memprobe list.\n");
        return MP_EXIT_OK;
    }
    const mp_probe *p = mp_probe_find(argv[0]);
    if (!p)
        mp_usage_error("predict: unknown probe '%s' (see memprobe list)",
                       argv[0]);
    parsed_args a;
    mp_config_list cl;
    parse_args(p, 1, argc - 1, argv + 1, &a);
    expand_and_check(p, &a, &cl);
    mp_print_predictions(&cl, a.format == 1, stdout);
    mp_configs_free(&cl);
    free_args(&a);
    return MP_EXIT_OK;
}

int mp_cli_no_options(const char *cmd, const char *usage, int argc,
                      char **argv)
{
    if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
        printf("%s\n", usage);
        exit(MP_EXIT_OK);
    }
    if (argc > 0)
        mp_usage_error("%s: unexpected argument '%s'", cmd, argv[0]);
    return 0;
}

int mp_cmd_list(int argc, char **argv)
{
    mp_cli_no_options("list", "usage: memprobe list\n\nLists every probe with its "
               "parameters, defaults and ranges.", argc, argv);
    for (int i = 0; mp_probe_at(i); i++) {
        const mp_probe *p = mp_probe_at(i);
        printf("%s - %s", p->name, p->summary);
        if (p->cc)
            printf(" [compute capability %d.%d+]", p->cc / 10, p->cc % 10);
        printf("\n");
        for (int k = 0; k < p->nparams; k++)
            print_param_help(&p->params[k], stdout);
        printf("\n");
    }
    return MP_EXIT_OK;
}

int mp_cmd_columns(int argc, char **argv)
{
    mp_cli_no_options("columns", "usage: memprobe columns\n\nPrints the CSV "
               "schema: every column in order, with its meaning.", argc, argv);
    for (int i = 0; i < mp_schema_columns(); i++)
        printf("%-58s %s\n", mp_schema_name(i), mp_schema_description(i));
    return MP_EXIT_OK;
}
