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
#include "options.h"
#include "probe.h"

static const char usage[] =
    "usage: memprobe ncu-check [--probe NAME] [--ncu PATH] [--dir DIR]\n"
    "       memprobe ncu-check [--probe NAME] --compare MEMPROBE.csv "
    "NCU.csv\n"
    "       memprobe ncu-check [--probe NAME] --spread MEMPROBE.csv "
    "NCU1.csv NCU2.csv ...\n\n"
    "Runs the probe's standard configurations with memprobe's own counters "
    "and\nunder Nsight Compute with the same metrics, and prints both values "
    "and\ntheir difference per configuration and metric. Exit 1 when a "
    "metric\ndiffers beyond its tolerance (runtime/metrics.c). Needs a GPU "
    "and ncu.\n";

/* --compare MEMPROBE.csv NCU.csv: the two files after it. */
static int take_compare(int argc, char **argv, int *i, void *dest, char *err,
                        size_t errlen)
{
    const char **compare = dest;
    if (*i + 2 >= argc) {
        mp_reason(err, errlen, "ncu-check: unknown option '%s'", argv[*i]);
        return -1;
    }
    compare[0] = argv[++*i];
    compare[1] = argv[++*i];
    return 0;
}

/* --spread MEMPROBE.csv NCU1.csv NCU2.csv ...: what follows up to the
 * next "--" option. */
typedef struct {
    const char *files[33];
    int n;
} spread_files;

static int take_spread(int argc, char **argv, int *i, void *dest, char *err,
                       size_t errlen)
{
    spread_files *s = dest;
    while (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2)) {
        if (s->n == 33) {
            mp_reason(err, errlen, "--spread: at most 32 ncu CSVs");
            return -1;
        }
        s->files[s->n++] = argv[++*i];
    }
    if (s->n < 3) {
        mp_reason(err, errlen, "--spread: give memprobe's CSV and at least "
                  "two ncu CSVs of the same configurations");
        return -1;
    }
    return 0;
}

int mp_cmd_ncu_check(int argc, char **argv)
{
    const char *probe = "bank", *ncu = "ncu", *dir = "results/ncu-check";
    const char *compare[2] = {NULL, NULL};
    spread_files spread = {.n = 0};
    const mp_opt opts[] = {
        {.name = "probe", .kind = MP_OPT_TEXT, .dest = &probe},
        {.name = "ncu", .kind = MP_OPT_TEXT, .dest = &ncu},
        {.name = "dir", .kind = MP_OPT_TEXT, .dest = &dir},
        {.name = "compare", .kind = MP_OPT_ARGV, .dest = compare,
         .argv_fn = take_compare},
        {.name = "spread", .kind = MP_OPT_ARGV, .dest = &spread,
         .argv_fn = take_spread},
    };
    const mp_opts_spec spec = {
        .cmd = "ncu-check", .opts = opts, .nopts = 5, .dashes = MP_OPTS_ALL,
        .usage = usage};
    mp_opts_parse(&spec, argc, argv, NULL);
    int nspread = spread.n;
    const mp_probe *p = mp_probe_find(probe);
    if (!p)
        mp_usage_error("--probe: unknown probe '%s' (see memprobe list)",
                       probe);
    if (compare[0])
        return mp_ncu_compare(p, compare[0], compare[1], stdout);
    if (nspread)
        return mp_ncu_spread(p, spread.files[0], spread.files + 1, nspread - 1, stdout);
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
