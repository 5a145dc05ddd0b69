/*
 * cmd_profile.c - `memprobe profile [options] -- PROGRAM [ARGS...]`: its
 * usage and options (the one option parser, runtime/options.h; `--` ends
 * memprobe's options), each bad value one line and exit 2; the work is
 * profile/profile.c's.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "options.h"
#include "profile.h"

static const char usage[] =
    "usage: memprobe profile [options] -- PROGRAM [ARGS...]\n"
    "       memprobe profile --check SPEC | --baseline OLD.csv --from "
    "PROFILE.csv\n"
    "\n"
    "Runs an unmodified CUDA program with memprobe's injection library and\n"
    "counts, per SASS instruction and source line, the shared-memory\n"
    "wavefronts and global-memory sectors it caused against their ideal\n"
    "(docs/profile.md). The program's stdin, stdout and stderr are its own;\n"
    "memprobe's messages go to stderr, prefixed 'memprobe:'. Kernels run\n"
    "one at a time while profiled.\n"
    "\n"
    "  -o, --output F     profile.csv (default), one row per launch, and\n"
    "                     F-lines.csv beside it, one row per instruction\n"
    "                     (memprobe columns --profile)\n"
    "  --check SPEC       fail (exit 1) when a source line's measured/ideal\n"
    "                     exceeds its limit: 'shared<=1.0,global<=1.25'\n"
    "                     (1.0 = no excess); one line per offender\n"
    "  --check-libraries  --check and --baseline judge library kernels\n"
    "                     too (cuBLAS, cuDNN, PyTorch's libtorch, ...: a\n"
    "                     module from a shared object of docs/profile.md's\n"
    "                     list); without it they are counted, not judged\n"
    "  --min-count N      judge only lines of at least N instructions\n"
    "                     executed (default 1)\n"
    "  --baseline OLD.csv fail when a kernel's or a line's measured/ideal\n"
    "                     grew against an earlier profile (and its\n"
    "                     -lines.csv)\n"
    "  --tolerance X      relative growth allowed by --baseline (default 0:\n"
    "                     the counts are exact)\n"
    "  --from F.csv       judge an existing profile; runs no program\n"
    "  --kernel REGEX     only kernels whose mangled or demangled name\n"
    "                     matches (POSIX extended regular expression)\n"
    "  --nvtx-include R   only launches inside NVTX range R (A/B: nested)\n"
    "  --launch-skip N    skip the first N matching launches\n"
    "  --launch-count N   profile at most N matching launches\n"
    "  --per-kernel N     of those, only the first N launches of each\n"
    "                     kernel, grid and block; later ones run\n"
    "                     uninstrumented (profile.csv counts, per kernel,\n"
    "                     the launches seen and profiled)\n"
    "  --keep-raw DIR     keep the injection library's raw files in DIR (a\n"
    "                     new folder)\n"
    "  --opcodes WHEN     SASS opcodes by cuobjdump (0.3-0.7 s a module):\n"
    "                     auto (default: the program's own modules without\n"
    "                     line info), on, off\n"
    "  --level L          kernel (default): the SASS counts per line and\n"
    "                     launch; kernel+: also each launch's L1 and L2 hit\n"
    "                     rate and DRAM bytes, from a second run of the\n"
    "                     program under CUPTI's range profiler (kernel\n"
    "                     replay: the program runs twice, each launch is\n"
    "                     replayed; docs/profile.md gives the cost)\n"
    "  --fallback MODE    launches without line counts: off (default: the\n"
    "                     program runs once, their rows say why) or rerun\n"
    "                     (the program runs again under the range profiler\n"
    "                     for their hardware counts); --level kernel+ runs\n"
    "                     it again anyway and measures them there\n"
    "\n"
    "Exit status: 2 bad option, or PROGRAM not found or not executable;\n"
    "3 no GPU (no NVIDIA driver, or none visible); 4 no counts (the program\n"
    "never used CUDA, profiling refused, no launch or none matched the\n"
    "filters; with --check: no line judged, never a pass); 1 --check or\n"
    "--baseline found an offender; else the program's own status (128 +\n"
    "signal when a signal ended it). The CSVs are replaced only when\n"
    "launches were collected: on 2, 3 or 4 for no counts they are left as\n"
    "they were.\n";

/* A count N: digits only. */
static int parse_count(const char *opt, const char *v, int positive,
                       mp_u64 *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (!v[0] || v[strspn(v, "0123456789")] || errno
        || (positive && n == 0)) {
        mp_reason(err, errlen, "--%s: '%s' is not a %s whole number", opt, v,
                  positive ? "positive" : "non-negative");
        return -1;
    }
    *out = n;
    return 0;
}

typedef struct {
    mp_prof_opts o;
    const char *min_count, *tolerance, *check, *opcodes, *level, *fallback;
    mp_opt_program prog;
    int check_libraries;
} profile_args;

static void parse(int argc, char **argv, profile_args *a)
{
    mp_prof_opts *o = &a->o;
#define TEXT(n, d) {.name = n, .kind = MP_OPT_TEXT, .dest = d, .once = 1, \
                    .empty = "empty value"}
    const mp_opt opts[] = {
        {.name = "output", .alias = "-o", .kind = MP_OPT_TEXT,
         .dest = &o->output, .once = 1, .empty = "empty file name"},
        TEXT("kernel", &o->kernel),
        TEXT("nvtx-include", &o->nvtx_include),
        TEXT("launch-skip", &o->launch_skip),
        TEXT("launch-count", &o->launch_count),
        TEXT("per-kernel", &o->per_kernel),
        {.name = "check", .kind = MP_OPT_TEXT, .dest = &a->check, .once = 1},
        {.name = "check-libraries", .kind = MP_OPT_FLAG,
         .dest = &a->check_libraries, .once = 1, .value_error = 1},
        TEXT("min-count", &a->min_count),
        TEXT("baseline", &o->baseline),
        TEXT("tolerance", &a->tolerance),
        TEXT("from", &o->from),
        TEXT("keep-raw", &o->keep_raw),
        TEXT("opcodes", &a->opcodes),
        TEXT("level", &a->level),
        TEXT("fallback", &a->fallback),
        {.name = "", .kind = MP_OPT_ARGV, .dest = &a->prog,
         .argv_fn = mp_opt_take_program},
    };
#undef TEXT
    const mp_opts_spec spec = {
        .cmd = "profile", .opts = opts, .nopts = sizeof opts / sizeof *opts,
        .dashes = MP_OPTS_DASH_ONE, .usage = usage,
        .unexpected_tail = " (the program goes after '--')"};
    mp_opts_parse(&spec, argc, argv, NULL);
    o->argv = a->prog.argv;
}

/* The values, and the options that go together. */
static void check_args(profile_args *a)
{
    mp_prof_opts *o = &a->o;
    char err[512];
    mp_u64 n;
    if (o->launch_skip
        && parse_count("launch-skip", o->launch_skip, 0, &n, err, sizeof err))
        mp_usage_error("%s", err);
    if (o->launch_count
        && parse_count("launch-count", o->launch_count, 1, &n, err,
                       sizeof err))
        mp_usage_error("%s", err);
    if (o->per_kernel
        && parse_count("per-kernel", o->per_kernel, 1, &n, err, sizeof err))
        mp_usage_error("%s", err);
    o->min_count = 1;
    if (a->min_count
        && parse_count("min-count", a->min_count, 0, &o->min_count, err,
                       sizeof err))
        mp_usage_error("%s", err);
    if (a->tolerance) {
        char *end;
        o->tolerance = strtod(a->tolerance, &end);
        if (*end || end == a->tolerance || !isfinite(o->tolerance)
            || o->tolerance < 0)
            mp_usage_error("--tolerance: '%s' is not a number >= 0",
                           a->tolerance);
    }
    if (a->check) {
        if (mp_prof_check_parse(a->check, &o->check, err, sizeof err))
            mp_usage_error("%s", err);
        o->has_check = 1;
        o->check_text = a->check;
    }
    if (o->kernel) {
        regex_t re;
        int rc = regcomp(&re, o->kernel, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            regerror(rc, &re, err, sizeof err);
            mp_usage_error("--kernel: '%s' is not a POSIX extended regular "
                           "expression: %s", o->kernel, err);
        }
        regfree(&re);
    }
    if (a->opcodes) {
        static const char *const when[] = {"auto", "on", "off"};
        o->opcodes = -1;
        for (int k = 0; k < 3; k++)
            if (!strcmp(a->opcodes, when[k]))
                o->opcodes = k;
        if (o->opcodes < 0)
            mp_usage_error("--opcodes: '%s' is not auto, on or off",
                           a->opcodes);
    }
    if (a->level) {
        if (!strcmp(a->level, "kernel+"))
            o->kernel_plus = 1;
        else if (strcmp(a->level, "kernel"))
            mp_usage_error("--level: '%s' is not kernel or kernel+",
                           a->level);
    }
    if (a->fallback) {
        if (!strcmp(a->fallback, "rerun"))
            o->fallback_rerun = 1;
        else if (strcmp(a->fallback, "off"))
            mp_usage_error("--fallback: '%s' is not off or rerun",
                           a->fallback);
    }
    if (a->tolerance && !o->baseline)
        mp_usage_error("--tolerance: only with --baseline");
    if (a->min_count && !o->has_check && !o->baseline)
        mp_usage_error("--min-count: only with --check or --baseline");
    if (a->check_libraries && !o->has_check && !o->baseline)
        mp_usage_error("--check-libraries: only with --check or "
                       "--baseline");
    o->check_libraries = a->check_libraries != 0;
    if (o->from) {
        if (a->prog.n || a->prog.seen)
            mp_usage_error("--from: judges an existing profile and runs no "
                           "program");
        if (!o->has_check && !o->baseline)
            mp_usage_error("--from: needs --check or --baseline");
        const char *run_only = o->output ? "output" : o->kernel ? "kernel"
            : o->nvtx_include ? "nvtx-include" : o->launch_skip
            ? "launch-skip" : o->launch_count ? "launch-count"
            : o->per_kernel ? "per-kernel" : o->keep_raw
            ? "keep-raw" : a->opcodes ? "opcodes" : a->level ? "level"
            : a->fallback ? "fallback" : NULL;
        if (run_only)
            mp_usage_error("--%s: only when a program is run (not with "
                           "--from)", run_only);
        return;
    }
    if (!a->prog.seen)
        mp_usage_error("profile: no program given (memprobe profile "
                       "[options] -- PROGRAM [ARGS...])");
    if (!a->prog.n)
        mp_usage_error("profile: no program after '--'");
    if (o->output && !strcmp(o->output, "-"))
        mp_usage_error("-o: '-' is not a file: the profile is two CSVs");
}

int mp_cmd_profile(int argc, char **argv)
{
    profile_args a;
    memset(&a, 0, sizeof a);
    parse(argc, argv, &a);
    check_args(&a);
    return mp_prof_run(&a.o);
}
