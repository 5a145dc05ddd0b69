/*
 * cmd_ncu_check.c - `memprobe ncu-check`: its arguments; the check itself
 * (run the probe's standard set under memprobe and Nsight Compute, then
 * compare) is crosscheck/ncu_check.c, the repeat spread crosscheck/ncu_spread.c,
 * --profile (memprobe profile's per-instruction counts of a program
 * against ncu's source counters) crosscheck/ncu_profile.c, with --level
 * kernel+ (its per-launch L1, L2 and DRAM values against ncu's raw
 * metrics) crosscheck/ncu_kplus.c. Each check runs in a folder of its own
 * inside --dir, whose files replace --dir's only when it compared: a
 * check that fails leaves the last one's files as they were.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "device.h"
#include "family.h"
#include "ncu_check.h"
#include "ncu_kplus.h"
#include "ncu_profile.h"
#include "ncu_spread.h"
#include "options.h"
#include "probe.h"

static const char usage[] =
    "usage: memprobe ncu-check [--probe NAME] [--args 'PARAMS'] [--ncu PATH] "
    "[--dir DIR]\n"
    "       memprobe ncu-check [--probe NAME] --compare MEMPROBE.csv "
    "NCU.csv\n"
    "       memprobe ncu-check [--probe NAME] --spread MEMPROBE.csv "
    "NCU1.csv NCU2.csv ...\n"
    "       memprobe ncu-check [--ncu PATH] [--dir DIR] [--level kernel+] "
    "--profile\n"
    "                          [--] PROGRAM [ARGS...]\n\n"
    "Runs the probe's standard configurations, or those of --args (the\n"
    "probe's parameters as one word, e.g. --args '--stride 1,2 --width 4'),\n"
    "with memprobe's own counters and under Nsight Compute with the same\n"
    "metrics, and prints both values and their difference per configuration\n"
    "and metric. Exit 1 when a metric differs beyond its tolerance\n"
    "(runtime/metrics.c). Needs a GPU and ncu.\n"
    "--profile runs PROGRAM under memprobe profile and under ncu --section\n"
    "SourceCounters and compares, per kernel and SASS instruction, shared\n"
    "wavefronts and global sectors with their ideal (and executed\n"
    "instructions): exit 0 all equal, 1 one differs, 4 nothing compared.\n"
    "--level kernel+ with --profile compares memprobe profile --level\n"
    "kernel+'s per-launch DRAM bytes, L2 sectors and L1 hit rate with ncu's\n"
    "(--cache-control all) within stated tolerances, and shows both L2 hit\n"
    "counts and rates: exit 0 all within, 1 one outside, 4 none compared.\n";

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

/* --profile [--] PROGRAM [ARGS...]: everything after it. */
static int take_profile(int argc, char **argv, int *i, void *dest, char *err,
                        size_t errlen)
{
    char ***program = dest;
    int first = *i + 1, dashes = 0;
    if (first < argc && !strcmp(argv[first], "--")) {
        first++;
        dashes = 1;
    }
    if (first >= argc) {
        mp_reason(err, errlen, "--profile: give the program to run");
        return -1;
    }
    if (!dashes && argv[first][0] == '-') {
        mp_reason(err, errlen, "--profile: '%s' is not a program (options "
                  "go before --profile; -- before a program named -...)",
                  argv[first]);
        return -1;
    }
    *program = argv + first;
    *i = argc - 1;
    return 0;
}

/* What one check runs: the probe's configurations `args`, or with
 * `program` memprobe profile's (kplus: --level kernel+) of it. */
typedef struct {
    const mp_probe *p;
    const char *args, *ncu;
    char **program;
    int kplus;
} check_job;

static int run_job(const check_job *j, const char *dir, int *compared)
{
    if (!j->program)
        return mp_ncu_check(j->p, j->args, j->ncu, dir, stdout, compared);
    return j->kplus ? mp_ncu_kplus_check(j->ncu, dir, j->program, stdout,
                                         compared)
                    : mp_ncu_profile_check(j->ncu, dir, j->program, stdout,
                                           compared);
}

/* Moves every file of run into dir, replacing those of the same names;
 * removes run. 0, or -1 after a line naming what could not be moved. */
static int move_files(const char *run, const char *dir)
{
    DIR *d = opendir(run);
    int bad = !d;
    struct dirent *e;
    char from[PATH_MAX + 256], to[PATH_MAX + 256];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(from, sizeof from, "%s/%s", run, e->d_name);
            snprintf(to, sizeof to, "%s/%s", dir, e->d_name);
            if (rename(from, to)) {
                fprintf(stderr, "memprobe: ncu-check: cannot move %s to %s: "
                        "%s\n", from, to, strerror(errno));
                bad = 1;
            }
        }
    if (d)
        closedir(d);
    return bad || rmdir(run) ? -1 : 0;
}

/* Runs the check in a new folder of its own, DIR/run-XXXXXX: when it
 * compared, its files replace DIR's of the same names; else DIR's files
 * of an earlier check are left as they were, and the run's (its logs,
 * which its messages name) stay in that folder. results/ and DIR are
 * made as far as they are missing. */
static int staged(const check_job *j, const char *dir)
{
    int made = mkdir("results", 0777) == 0;
    if (!made && errno != EEXIST)
        mp_usage_error("--dir: cannot create results/: %s", strerror(errno));
    if (mkdir(dir, 0777) && errno != EEXIST) {
        if (made)
            rmdir("results");   /* a refused check leaves no folder */
        mp_usage_error("ncu-check: cannot use directory %s: %s", dir,
                       strerror(errno));
    }
    char run[PATH_MAX];
    snprintf(run, sizeof run, "%s/run-XXXXXX", dir);
    if (!mkdtemp(run))
        mp_usage_error("ncu-check: cannot use directory %s: %s", dir,
                       strerror(errno));
    int compared = 0;
    int rc = run_job(j, run, &compared);
    if (compared) {
        if (move_files(run, dir))
            return MP_EXIT_FAIL;
        return rc;
    }
    fprintf(stderr, "memprobe: ncu-check: nothing compared: %s is left as "
            "it was; this run's files are in %s\n", dir, run);
    return rc == MP_EXIT_OK ? MP_EXIT_FAIL : rc;
}

int mp_cmd_ncu_check(int argc, char **argv)
{
    const char *probe = "bank", *ncu = "ncu", *dir = "results/ncu-check";
    const char *args = NULL, *level = NULL;
    const char *compare[2] = {NULL, NULL};
    spread_files spread = {.n = 0};
    char **program = NULL;
    const mp_opt opts[] = {
        {.name = "probe", .kind = MP_OPT_TEXT, .dest = &probe},
        {.name = "ncu", .kind = MP_OPT_TEXT, .dest = &ncu},
        {.name = "dir", .kind = MP_OPT_TEXT, .dest = &dir},
        {.name = "args", .kind = MP_OPT_TEXT, .dest = &args, .once = 1},
        {.name = "level", .kind = MP_OPT_TEXT, .dest = &level, .once = 1},
        {.name = "compare", .kind = MP_OPT_ARGV, .dest = compare,
         .argv_fn = take_compare},
        {.name = "spread", .kind = MP_OPT_ARGV, .dest = &spread,
         .argv_fn = take_spread},
        {.name = "profile", .kind = MP_OPT_ARGV, .dest = &program,
         .argv_fn = take_profile},
    };
    const mp_opts_spec spec = {
        .cmd = "ncu-check", .opts = opts, .nopts = 8, .dashes = MP_OPTS_ALL,
        .usage = usage};
    mp_opts_parse(&spec, argc, argv, NULL);
    int nspread = spread.n;
    if (program && (compare[0] || nspread))
        mp_usage_error("--profile: not with --compare or --spread");
    if (level && strcmp(level, "kernel") && strcmp(level, "kernel+"))
        mp_usage_error("--level: '%s' is not kernel or kernel+", level);
    if (level && !program)
        mp_usage_error("--level: only with --profile");
    if (args && (program || compare[0] || nspread))
        mp_usage_error("--args: only when ncu-check runs the probe (not "
                       "with --profile, --compare or --spread)");
    const mp_probe *p = mp_probe_find(probe);
    if (!p)
        mp_usage_error("--probe: unknown probe '%s' (see memprobe list)",
                       probe);
    if (args) {
        char *words[MP_NCU_CHECK_MAX_WORDS], *buf;
        int nw = mp_split_words(args, words, MP_NCU_CHECK_MAX_WORDS, &buf);
        if (nw < 0)
            mp_usage_error("--args: more than %d words",
                           MP_NCU_CHECK_MAX_WORDS);
        mp_cli_check_params(p, nw, words);
        free(buf);
    }
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
    /* Without --args: the family's standard set. */
    if (!program && !args)
        args = mp_family_find(p->name)->ncu_check_args;
    const check_job job = {p, args, ncu, program,
                           level && !strcmp(level, "kernel+")};
    return staged(&job, dir);
}
