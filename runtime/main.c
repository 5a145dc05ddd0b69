/*
 * main.c - memprobe's command line: a table of subcommands (like git's),
 * and the probes of probes/probes.c, each usable as a subcommand.
 *
 *   memprobe device | list | columns | predict PROBE ... | PROBE ...
 *
 * Every bad input ends here or in params.c with one line naming the
 * parameter, and exit status 2, before any GPU work starts.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "configs.h"
#include "device.h"
#include "ncu_check.h"
#include "ncu_spread.h"
#include "probe.h"
#include "runner.h"
#include "version.h"

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

static int cmd_measure(const mp_probe *p, int argc, char **argv)
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

static int cmd_predict(int argc, char **argv)
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

static int cmd_device(int argc, char **argv)
{
    long long ordinal = 0;
    int all = 0;
    char err[256];
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: memprobe device [--device N | --all]\n\nPrints "
                   "the GPU's properties that matter for memory studies;\n"
                   "--all: every GPU in short, its links and the peer "
                   "matrix.\n");
            return MP_EXIT_OK;
        }
        if (!strcmp(argv[i], "--all")) {
            all = 1;
            continue;
        }
        if (!mp_option_is(argv[i], "device"))
            mp_usage_error("device: unknown option '%s'", argv[i]);
        const char *val = mp_option_value(argc, argv, &i, "device");
        if (mp_param_parse_value(&run_options[O_DEVICE], val, &ordinal, err,
                                 sizeof err))
            mp_usage_error("%s", err);
    }
    if (all) {
        if (mp_device_available(err, sizeof err)) {
            fprintf(stderr, "memprobe: %s\n", err);
            return MP_EXIT_NOGPU;
        }
        int n = mp_device_count();
        mp_device_print_all(n, stdout);
        return MP_EXIT_OK;
    }
    mp_device d;
    if (mp_device_open((int)ordinal, &d, err, sizeof err)) {
        fprintf(stderr, "memprobe: %s\n", err);
        return MP_EXIT_NOGPU;
    }
    mp_device_print(&d, stdout);
    return MP_EXIT_OK;
}

static int no_options(const char *cmd, const char *usage, int argc,
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

static int cmd_list(int argc, char **argv)
{
    no_options("list", "usage: memprobe list\n\nLists every probe with its "
               "parameters, defaults and ranges.", argc, argv);
    for (int i = 0; mp_probes[i]; i++) {
        const mp_probe *p = mp_probes[i];
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

static int cmd_columns(int argc, char **argv)
{
    no_options("columns", "usage: memprobe columns\n\nPrints the CSV "
               "schema: every column in order, with its meaning.", argc, argv);
    for (int i = 0; i < mp_schema_columns(); i++)
        printf("%-58s %s\n", mp_schema_name(i), mp_schema_description(i));
    return MP_EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
    no_options("version", "usage: memprobe version", argc, argv);
    printf("memprobe %s\n", MP_VERSION);
    return MP_EXIT_OK;
}

static int cmd_ncu_check(int argc, char **argv)
{
    const char *probe = "bank", *ncu = "ncu", *dir = "results/ncu-check";
    const char *compare[2] = {NULL, NULL};
    const char *spread[33];
    int nspread = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: memprobe ncu-check [--probe NAME] [--ncu PATH] "
                   "[--dir DIR]\n"
                   "       memprobe ncu-check [--probe NAME] --compare "
                   "MEMPROBE.csv NCU.csv\n"
                   "       memprobe ncu-check [--probe NAME] --spread "
                   "MEMPROBE.csv NCU1.csv NCU2.csv ...\n\n"
                   "Runs the probe's standard configurations with memprobe's "
                   "own counters and\nunder Nsight Compute with the same "
                   "metrics, and prints both values and\ntheir difference "
                   "per configuration and metric. Exit 1 when a metric\n"
                   "differs beyond its tolerance (runtime/metrics.c). Needs "
                   "a GPU and ncu.\n");
            return MP_EXIT_OK;
        }
        if (mp_option_is(argv[i], "probe"))
            probe = mp_option_value(argc, argv, &i, "probe");
        else if (mp_option_is(argv[i], "ncu"))
            ncu = mp_option_value(argc, argv, &i, "ncu");
        else if (mp_option_is(argv[i], "dir"))
            dir = mp_option_value(argc, argv, &i, "dir");
        else if (!strcmp(argv[i], "--compare") && i + 2 < argc) {
            compare[0] = argv[++i];
            compare[1] = argv[++i];
        } else if (!strcmp(argv[i], "--spread")) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) {
                if (nspread == 33)
                    mp_usage_error("--spread: at most 32 ncu CSVs");
                spread[nspread++] = argv[++i];
            }
            if (nspread < 3)
                mp_usage_error("--spread: give memprobe's CSV and at least "
                               "two ncu CSVs of the same configurations");
        } else
            mp_usage_error("ncu-check: unknown option '%s'", argv[i]);
    }
    const mp_probe *p = mp_probe_find(probe);
    if (!p)
        mp_usage_error("--probe: unknown probe '%s' (see memprobe list)",
                       probe);
    if (compare[0])
        return mp_ncu_compare(p, compare[0], compare[1], stdout);
    if (nspread)
        return mp_ncu_spread(p, spread[0], spread + 1, nspread - 1, stdout);
    /* No GPU: said before any folder is made for the run. */
    char why[512];
    if (mp_device_available(why, sizeof why)) {
        fprintf(stderr, "memprobe: ncu-check: %s; nothing run\n", why);
        return MP_EXIT_NOGPU;
    }
    int made = mkdir("results", 0777) == 0;
    if (!made && errno != EEXIST)
        mp_usage_error("--dir: cannot create results/: %s", strerror(errno));
    int rc = mp_ncu_check(p, ncu, dir, stdout);
    if (rc != MP_EXIT_OK && made)
        rmdir("results");   /* a failed check leaves no empty folder */
    return rc;
}

/* runtime/sweep.c and report/report.c */
int mp_cmd_sweep(int argc, char **argv);
int mp_cmd_report(int argc, char **argv);
int mp_cmd_hazards(int argc, char **argv);   /* probes/hazards.c */
int mp_cmd_compare(int argc, char **argv);   /* report/compare.c */
int mp_cmd_hierarchy(int argc, char **argv); /* report/hierarchy.c */

static int cmd_help(int argc, char **argv);

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"device", cmd_device, "print the GPU's memory-related properties"},
    {"list", cmd_list, "list probes with parameters, defaults and ranges"},
    {"predict", cmd_predict, "print the model's prediction (no GPU)"},
    {"columns", cmd_columns, "print the CSV schema"},
    {"ncu-check", cmd_ncu_check, "compare counters with Nsight Compute"},
    {"sweep", mp_cmd_sweep, "run a sweep file's configurations"},
    {"report", mp_cmd_report, "tables (and plots) from result CSVs"},
    {"compare", mp_cmd_compare,
     "counters of two result CSVs within tolerance (no GPU)"},
    {"hierarchy", mp_cmd_hierarchy,
     "latency, capacities, granularity, TLB reach from latency CSVs"},
    {"hazards", mp_cmd_hazards,
     "the seeds' reduction bugs under compute-sanitizer (GPU)"},
    {"version", cmd_version, "print the version"},
    {"help", cmd_help, "print this help"},
};

static int cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("usage: memprobe COMMAND [ARGS]\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        printf("  %-10s %s\n", commands[i].name, commands[i].summary);
    printf("\nProbes (measure on the GPU; memprobe PROBE --help):\n");
    for (int i = 0; mp_probes[i]; i++)
        printf("  %-10s %s\n", mp_probes[i]->name, mp_probes[i]->summary);
    printf("\nExit status: 0 ok, 1 a check failed, 2 bad input, 3 no GPU, "
           "4 counters unavailable with --counters on, 5 CUDA error.\n");
    return MP_EXIT_OK;
}

int main(int argc, char **argv)
{
    /* A file that reaches the size limit (ulimit -f) fails its write with
     * EFBIG, reported like a full disk, instead of killing memprobe. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        cmd_help(0, NULL);
        return MP_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version"))
        return cmd_version(0, NULL);
    if (!strcmp(name, "--help") || !strcmp(name, "-h"))
        return cmd_help(0, NULL);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name))
            return commands[i].run(argc - 2, argv + 2);
    const mp_probe *p = mp_probe_find(name);
    if (p)
        return cmd_measure(p, argc - 2, argv + 2);
    mp_usage_error("unknown command or probe '%s' (see memprobe help)", name);
}
