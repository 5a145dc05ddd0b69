/*
 * cmd_ncu_check.c - `memprobe ncu-check`: its arguments; the check itself
 * (run the probe's standard set under memprobe and Nsight Compute, then
 * compare) is report/ncu_check.c, the repeat spread report/ncu_spread.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "device.h"
#include "ncu_check.h"
#include "ncu_spread.h"
#include "probe.h"

int mp_cmd_ncu_check(int argc, char **argv)
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
