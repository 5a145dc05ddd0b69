/*
 * cmd_explain.c - `memprobe explain [options] -- PROGRAM [ARGS...]` and
 * `memprobe explain --capture CAPTURE.csv [--from PROFILE.csv]`: its usage
 * and options (the one option parser, runtime/options.h; `--` ends
 * memprobe's options), each bad value one line and exit 2; the work is
 * explain/explain_run.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "explain_run.h"
#include "options.h"

static const char usage[] =
    "usage: memprobe explain [options] -- PROGRAM [ARGS...]\n"
    "       memprobe explain --capture CAPTURE.csv [--from PROFILE.csv] "
    "[options]\n"
    "\n"
    "Explains the source lines that `memprobe profile --check` names: for\n"
    "each of their memory instructions, the access pattern its warps made\n"
    "in the probes' words, the bank or sector model's count of the same\n"
    "addresses beside the measured count, the probe command that measures\n"
    "the pattern, and fixes ranked by the count the model predicts for\n"
    "them (docs/explain.md). PROGRAM runs twice: under the profile engine\n"
    "for the counts of the first launch of each kernel, grid and block\n"
    "(--per-kernel 1), then with the capture library preloaded for the\n"
    "lanes' addresses in those launches. memprobe's messages go to stderr.\n"
    "\n"
    "  --from F.csv       offenders and measured counts from an earlier\n"
    "                     `memprobe profile -o F.csv` (and F-lines.csv);\n"
    "                     runs no profile\n"
    "  --check SPEC       which lines offend, as profile --check (default\n"
    "                     'shared<=1.0,global<=1.0'); with --capture alone\n"
    "                     judged on the model's counts of the capture\n"
    "  --check-libraries  library kernels' lines too (as profile)\n"
    "  --capture F.csv    explain a recorded capture (F.csv.status beside\n"
    "                     it is read when there) instead of running a\n"
    "                     program\n"
    "  --format F         table (default), md (Markdown) or csv (explain.csv\n"
    "                     to stdout)\n"
    "  -o, --output X.csv also write explain.csv to X.csv, one row per\n"
    "                     instruction and fix; a program's run keeps its\n"
    "                     files beside it: X-profile.csv, X-capture.csv,\n"
    "                     X-want.txt (without -o: a temporary folder)\n"
    "  --max-warps N      warp executions the capture keeps per instruction\n"
    "                     (default 65536, at most 16777216)\n"
    "\n"
    "The capture library (build/lib/libmemprobe_capture.so, or the file\n"
    "MEMPROBE_CAPTURE_LIB names) builds where the CUDA toolkit has\n"
    "compute-sanitizer (make capture).\n"
    "\n"
    "Exit status: 0 explained; 2 bad option or file; 3 no capture library\n"
    "or no GPU (a program); 4 nothing to explain (no offender) or nothing\n"
    "captured of the offenders; 1 explain.csv could not be written. A\n"
    "model count that differs from the measured one is shown, not an\n"
    "error.\n";

typedef struct {
    mp_xp_opts o;
    const char *check, *format;
    mp_opt_program prog;
} explain_args;

static void parse(int argc, char **argv, explain_args *a)
{
    mp_xp_opts *o = &a->o;
#define TEXT(n, d) {.name = n, .kind = MP_OPT_TEXT, .dest = d, .once = 1, \
                    .empty = "empty value"}
    const mp_opt opts[] = {
        {.name = "output", .alias = "-o", .kind = MP_OPT_TEXT,
         .dest = &o->output, .once = 1, .empty = "empty file name"},
        TEXT("from", &o->from),
        TEXT("check", &a->check),
        {.name = "check-libraries", .kind = MP_OPT_FLAG,
         .dest = &o->check_libraries, .once = 1, .value_error = 1},
        TEXT("capture", &o->capture),
        TEXT("format", &a->format),
        TEXT("max-warps", &o->max_warps),
        {.name = "", .kind = MP_OPT_ARGV, .dest = &a->prog,
         .argv_fn = mp_opt_take_program},
    };
#undef TEXT
    const mp_opts_spec spec = {
        .cmd = "explain", .opts = opts, .nopts = sizeof opts / sizeof *opts,
        .dashes = MP_OPTS_DASH_ONE, .usage = usage,
        .unexpected_tail = " (the program goes after '--')"};
    mp_opts_parse(&spec, argc, argv, NULL);
    o->argv = a->prog.argv;
}

/* --format's word. */
static mp_rep_format format_of(const char *f)
{
    if (!f || !strcmp(f, "table"))
        return MP_REP_TXT;
    if (!strcmp(f, "md"))
        return MP_REP_MD;
    if (!strcmp(f, "csv"))
        return MP_REP_CSV;
    mp_usage_error("--format: '%s' is not table, md or csv", f);
}

/* --max-warps: digits, 1 .. the capture library's limit. */
static void check_max_warps(const char *v)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (!v[0] || v[strspn(v, "0123456789")] || n == 0
        || n > MP_XP_MAX_WARPS_LIMIT || strlen(v) > 9)
        mp_usage_error("--max-warps: '%s' is not a whole number 1..%llu",
                       v, MP_XP_MAX_WARPS_LIMIT);
}

/* The program, or --capture: one of them. */
static void check_source(const explain_args *a)
{
    const mp_xp_opts *o = &a->o;
    if (o->capture) {
        if (a->prog.seen)
            mp_usage_error("--capture: explains a recorded capture and runs "
                           "no program");
        if (o->max_warps)
            mp_usage_error("--max-warps: only when a program is run (not "
                           "with --capture)");
        return;
    }
    if (!a->prog.seen)
        mp_usage_error("explain: no program given and no --capture "
                       "(memprobe explain [options] -- PROGRAM [ARGS...])");
    if (!a->prog.n)
        mp_usage_error("explain: no program after '--'");
}

static void check_args(explain_args *a)
{
    mp_xp_opts *o = &a->o;
    char err[512];
    o->format = format_of(a->format);
    o->check_text = a->check ? a->check : "shared<=1.0,global<=1.0";
    if (mp_prof_check_parse(o->check_text, &o->check, err, sizeof err))
        mp_usage_error("%s", err);
    if (o->max_warps)
        check_max_warps(o->max_warps);
    check_source(a);
    if (!o->max_warps)
        o->max_warps = MP_XP_DEFAULT_MAX_WARPS;
    if (o->output && !strcmp(o->output, "-"))
        mp_usage_error("-o: '-' is not a file (--format csv prints "
                       "explain.csv to stdout)");
}

int mp_cmd_explain(int argc, char **argv)
{
    explain_args a;
    memset(&a, 0, sizeof a);
    parse(argc, argv, &a);
    check_args(&a);
    return mp_xp_run(&a.o);
}
