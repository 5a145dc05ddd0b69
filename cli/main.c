/*
 * main.c - memprobe's command line: a table of subcommands (like git's),
 * and the probes of the family registry (probes/registry.c), each usable
 * as a subcommand. Each command's argument handling is its cli/cmd_*.c.
 *
 *   memprobe device | list | columns | predict PROBE ... | PROBE ...
 *
 * Every bad input ends here or in params.c with one line naming the
 * parameter, and exit status 2, before any GPU work starts.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "family.h"
#include "probe.h"

static int cmd_help(int argc, char **argv);

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"device", mp_cmd_device, "print the GPU's memory-related properties"},
    {"list", mp_cmd_list, "list probes with parameters, defaults and ranges"},
    {"predict", mp_cmd_predict, "print the model's prediction (no GPU)"},
    {"columns", mp_cmd_columns, "print the CSV schema"},
    {"ncu-check", mp_cmd_ncu_check, "compare counters with Nsight Compute"},
    {"sweep", mp_cmd_sweep, "run a sweep file's configurations"},
    {"report", mp_cmd_report, "tables (and plots) from result CSVs"},
    {"compare", mp_cmd_compare,
     "counters of two result CSVs within tolerance (no GPU)"},
    {"hierarchy", mp_cmd_hierarchy,
     "latency, capacities, granularity, TLB reach from latency CSVs"},
    {"l2map", mp_cmd_l2map,
     "the L2's two halves from every SM: near, far, copies, TLB (GPU)"},
    {"hazards", mp_cmd_hazards,
     "the seeds' reduction bugs under compute-sanitizer (GPU)"},
    {"profile", mp_cmd_profile,
     "wavefronts and sectors per source line of a CUDA program"},
    {"explain", mp_cmd_explain,
     "the pattern, model count and fixes of profile's offending lines"},
    {"version", mp_cmd_version, "print the version"},
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
    for (int i = 0; mp_families[i]; i++)
        if (mp_families[i]->probe)
            mp_cli_wrap(stdout, printf("  %-10s ", mp_families[i]->name),
                        13, mp_families[i]->summary);
    printf("\n");
    mp_cli_wrap(stdout, 0, 2, "Exit status: 0 ok, 1 a check failed (or "
                "the output could not be written), 2 bad input, 3 no GPU "
                "(explain: or no capture library), 4 counters unavailable "
                "(--counters on, profile; explain: nothing to explain), 5 "
                "CUDA error.");
    return MP_EXIT_OK;
}

int main(int argc, char **argv)
{
    /* A file that reaches the size limit (ulimit -f) fails its write with
     * EFBIG, reported like a full disk, instead of killing memprobe. */
    signal(SIGXFSZ, SIG_IGN);
    mp_families_register();
    /* Every command's output, its --help included, is checked here once:
     * a run that cannot write stdout exits 1 with one line. */
    mp_check_stdout_at_exit(NULL);
    if (argc < 2) {
        cmd_help(0, NULL);
        return MP_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version"))
        return mp_cmd_version(0, NULL);
    if (!strcmp(name, "--help") || !strcmp(name, "-h"))
        return cmd_help(0, NULL);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name)) {
            mp_check_stdout_at_exit(name);
            return commands[i].run(argc - 2, argv + 2);
        }
    const mp_probe *p = mp_probe_find(name);
    if (p) {
        mp_check_stdout_at_exit(name);
        return mp_cmd_measure(p, argc - 2, argv + 2);
    }
    mp_usage_error("unknown command or probe '%s' (see memprobe help)", name);
}
