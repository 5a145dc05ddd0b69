/*
 * cmd_probe.c - the commands of the probes: `memprobe PROBE [--PARAM
 * VALUE]...` (measure), `memprobe predict PROBE ...`, `memprobe list` and
 * `memprobe columns`. Every bad input ends here or in runtime/params.c
 * with one line naming the parameter, and exit status 2, before any GPU
 * work starts.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "configs.h"
#include "family.h"
#include "options.h"
#include "probe.h"
#include "profile_csv.h"
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

/* Characters up to the next space outside brackets: "[stsm: compute
 * capability 9.0+]" is one word to mp_cli_wrap, never split. */
static int word_length(const char *s)
{
    int n = 0, depth = 0;
    for (; s[n] && (s[n] != ' ' || depth > 0); n++)
        depth += (s[n] == '[') - (s[n] == ']' && depth > 0);
    return n;
}

void mp_cli_wrap(FILE *out, int col, int indent, const char *text)
{
    int words = 0;   /* on this line */
    for (const char *s = text; *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        int n = word_length(s);
        if (col > indent && col + (words > 0) + n > MP_CLI_WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
            words = 0;
        }
        if (words++) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, (size_t)n, out);
        col += n;
        s += n;
    }
    fputc('\n', out);
}

/* The columns where mp_cli_param_help's ranges, defaults and
 * descriptions start. */
#define PARAM_RANGE_COLUMN 16
#define PARAM_DEFAULT_COLUMN 30
#define PARAM_HELP_COLUMN 46

/* A parameter's range from column col, a long list of choices broken
 * after a '|' where it would pass MP_CLI_WIDTH, the next part under the
 * first; returns the column where it ends. */
static int put_range(FILE *out, int col, const char *range)
{
    for (const char *s = range; *s;) {
        int n = (int)strcspn(s, "|");
        n += s[n] == '|';
        if (col > PARAM_RANGE_COLUMN && col + n > MP_CLI_WIDTH) {
            fprintf(out, "\n%*s", PARAM_RANGE_COLUMN, "");
            col = PARAM_RANGE_COLUMN;
        }
        fwrite(s, 1, (size_t)n, out);
        col += n;
        s += n;
    }
    return col;
}

void mp_cli_param_help(const mp_param_def *d, FILE *out)
{
    char range[256], def[64], cc[256], text[1024];
    mp_param_describe_range(d, range, sizeof range);
    mp_param_format(d, d->def, def, sizeof def);
    mp_param_describe_cc(d, cc, sizeof cc);
    int col = put_range(out, fprintf(out, "  --%-11s ", d->name), range);
    col += fprintf(out, "%*s default %-6s ",
                   col < PARAM_DEFAULT_COLUMN ? PARAM_DEFAULT_COLUMN - col : 0,
                   "", def);
    snprintf(text, sizeof text, "%s%s", d->help, cc);
    mp_cli_wrap(out, col, PARAM_HELP_COLUMN, text);
}

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

static void print_line(FILE *out, const void *ctx)
{
    fprintf(out, "%s\n", (const char *)ctx);
}

/* Parses a command whose usage is one fixed text and whose arguments are
 * only the options opts[0 .. nopts) (none: NULL, 0). */
static void parse_fixed_usage(const char *cmd, const char *usage,
                              const mp_opt *opts, int nopts, int argc,
                              char **argv)
{
    const mp_opts_spec spec = {.cmd = cmd, .opts = opts, .nopts = nopts,
                               .dashes = MP_OPTS_NONE,
                               .usage_fn = print_line, .usage_ctx = usage};
    mp_opts_parse(&spec, argc, argv, NULL);
}

int mp_cli_no_options(const char *cmd, const char *usage, int argc,
                      char **argv)
{
    parse_fixed_usage(cmd, usage, NULL, 0, argc, argv);
    return 0;
}

/* " NAME" as a Make variable: upper case, '_' for '-'. */
static void put_make_name(const char *name, FILE *out)
{
    fputc(' ', out);
    for (const char *c = name; *c; c++)
        fputc(*c == '-' ? '_' : toupper((unsigned char)*c), out);
}

/* The Make variables of the families' parameters and of the run options,
 * as probes/make-vars.mk holds them (`make make-vars`; the Makefile's
 * probe-NAME and predict-NAME take exactly these): each name once, in
 * registry order, upper case with '_' for '-'. */
static void print_make_vars(FILE *out)
{
    const char *seen[256];
    int n = 0;
    fprintf(out, "# make-vars.mk - the Make variables of probe-NAME and "
            "predict-NAME, generated\n# by `make make-vars` (memprobe list "
            "--make-vars) from the families' parameter\n# tables and the run "
            "options; tests/test_make.c fails when it is stale.\n"
            "MP_PARAM_VARS :=");
    for (int i = 0; mp_probe_at(i); i++)
        for (int k = 0; k < mp_probe_at(i)->nparams; k++) {
            const char *name = mp_probe_at(i)->params[k].name;
            int dup = 0;
            for (int j = 0; j < n && !dup; j++)
                dup = !strcmp(seen[j], name);
            if (dup || n == 256)
                continue;
            seen[n++] = name;
            put_make_name(name, out);
        }
    fprintf(out, "\nMP_RUN_VARS :=");
    for (int i = 0; i < O_COUNT; i++)
        put_make_name(run_options[i].name, out);
    fputc('\n', out);
}

int mp_cmd_list(int argc, char **argv)
{
    int make_vars = 0, standard = 0;
    const mp_opt opts[] = {
        {.name = "make-vars", .kind = MP_OPT_FLAG, .dest = &make_vars},
        {.name = "standard", .kind = MP_OPT_FLAG, .dest = &standard},
    };
    parse_fixed_usage("list",
                      "usage: memprobe list [--make-vars | --standard]\n\n"
                      "Lists every probe with its parameters, defaults and "
                      "ranges;\n--make-vars: the Make variables of their "
                      "parameters and the run\noptions (probes/make-vars.mk);"
                      "\n--standard: each probe's standard set (the "
                      "arguments ncu-check\nand the determinism test use), "
                      "one line NAME ARGS each.",
                      opts, 2, argc, argv);
    if (make_vars) {
        print_make_vars(stdout);
        return MP_EXIT_OK;
    }
    if (standard) {
        for (int i = 0; mp_families[i]; i++)
            if (mp_families[i]->ncu_check_args)
                printf("%s %s\n", mp_families[i]->name,
                       mp_families[i]->ncu_check_args);
        return MP_EXIT_OK;
    }
    for (int i = 0; mp_probe_at(i); i++) {
        const mp_probe *p = mp_probe_at(i);
        char text[1024];
        int col = printf("%s - ", p->name);
        int n = snprintf(text, sizeof text, "%s",
                         mp_family_find(p->name)->summary);
        if (p->cc)
            snprintf(text + n, sizeof text - (size_t)n,
                     " [compute capability %d.%d+]", p->cc / 10, p->cc % 10);
        mp_cli_wrap(stdout, col, col, text);
        for (int k = 0; k < p->nparams; k++)
            mp_cli_param_help(&p->params[k], stdout);
        printf("\n");
    }
    return MP_EXIT_OK;
}

/* 1 when column i is among the n ids of cols. */
static int has_column(const int *cols, int n, int i)
{
    for (int k = 0; k < n; k++)
        if (cols[k] == i)
            return 1;
    return 0;
}

/* `columns --profile`: the two CSVs of memprobe profile. */
static void print_profile_columns(void)
{
    printf("# profile.csv: one row per profiled kernel launch\n");
    for (int i = 0; i < mp_prof_launch_ncols(); i++)
        printf("%-58s %s\n", mp_prof_launch_col(i), mp_prof_launch_desc(i));
    printf("\n# profile-lines.csv: one row per SASS instruction, summed over "
           "its launches\n");
    for (int i = 0; i < mp_prof_line_ncols(); i++)
        printf("%-58s %s\n", mp_prof_line_col(i), mp_prof_line_desc(i));
}

int mp_cmd_columns(int argc, char **argv)
{
    const char *probe = NULL;
    int profile = 0;
    const mp_opt opts[] = {
        {.name = "probe", .kind = MP_OPT_TEXT, .dest = &probe, .once = 1,
         .empty = "empty value"},
        {.name = "profile", .kind = MP_OPT_FLAG, .dest = &profile, .once = 1,
         .value_error = 1},
    };
    parse_fixed_usage("columns",
                      "usage: memprobe columns [--probe NAME | --profile]\n\n"
                      "Prints the CSV schema: every column in order, with its "
                      "meaning;\n--probe NAME: only the columns a row of that "
                      "probe fills (the engine's,\nthe family's and the metric "
                      "set's); --profile: the two CSVs of memprobe\nprofile.",
                      opts, 2, argc, argv);
    if (profile && probe)
        mp_usage_error("--profile: takes no --probe (a profile CSV is not a "
                       "probe's)");
    if (profile) {
        print_profile_columns();
        return MP_EXIT_OK;
    }
    const mp_family *f = probe ? mp_family_find(probe) : NULL;
    if (probe && (!f || !f->probe))
        mp_usage_error("--probe: unknown probe '%s' (see memprobe list)",
                       probe);
    size_t nm = 0;
    const mp_metric *m = f ? mp_metric_set_get(f->probe->metrics, &nm)
                           : NULL;
    for (int i = 0; i < mp_schema_columns(); i++) {
        int keep = !f || has_column(mp_engine_columns, mp_engine_ncolumns, i)
                   || has_column(f->columns, f->ncolumns, i);
        for (size_t k = 0; f && !keep && k < nm; k++)
            keep = !strcmp(m[k].name, mp_schema_name(i));
        if (keep)
            printf("%-58s %s\n", mp_schema_name(i), mp_schema_description(i));
    }
    return MP_EXIT_OK;
}
