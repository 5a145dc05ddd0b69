/*
 * cmd_list.c - `memprobe list`: every probe with its parameters, defaults
 * and ranges; --make-vars, the Make variables of their parameters and the
 * run options (probes/make-vars.mk); --standard, each probe's standard
 * set.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "family.h"
#include "options.h"
#include "probe.h"
#include "runner.h"

/* The run options (runner.h) under short local names. */
enum { O_COUNT = MP_OPT_COUNT };
#define run_options mp_run_option_defs

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
    mp_cli_fixed_usage("list",
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
