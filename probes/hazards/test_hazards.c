/*
 * test_hazards.c - the hazard catalogue without a GPU (probes/hazards/hazards.c,
 * runtime/subprocess.c):
 *  - option parsing: defaults, good lines, and every kind of bad input
 *    (one-line message naming the option);
 *  - `memprobe hazards` itself, run in a forked child of this test (so it
 *    works before cli/main.c lists the command): exit 2 with one stderr
 *    line, --help, and exit 3 without a GPU; and through the built binary
 *    once main.c has the command;
 *  - the compute-sanitizer output parser on the samples in
 *    tests/data/sanitizer-*.txt (one test per sample, values read off the
 *    files by hand) and the classification of runs;
 *  - the time limit of mp_spawn_wait_timeout: a sleeping child and its own
 *    child are killed after 1 s;
 *  - the whole table with a fake compute-sanitizer and a fake memprobe
 *    child (tests/data/fake-*.sh): printed table, CSV cells, timeouts, exit
 *    status.
 * Runs in a fresh temporary directory (cli_run_group). MP_TEST_DATA names
 * the data directory (default tests/data).
 */
#include "cli_util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "hazards.h"
#include "csv_table.h"
#include "subprocess.h"
#include "version.h"

/* The expected dot product: sum over i < 33792 of (i % 5 + 1)(i % 3 + 1).
 * The products repeat every 15 elements: 1 4 9 4 10 3 2 6 12 5 2 6 3 8 15,
 * 90 per period; 33792 = 2252 x 15 + 12 and the first 12 sum to 64, so
 * 2252 x 90 + 64 = 202744. */
#define WANT 202744

static char data_dir[PATH_MAX];   /* absolute: the tests run elsewhere */

static void data_path(char *buf, size_t len, const char *file)
{
    if ((size_t)snprintf(buf, len, "%s/%s", data_dir, file) >= len)
        fail_msg("path too long: %s/%s", data_dir, file);
}

/* The CPU reference the child uses, against the value the samples and the
 * fake child carry. */
static void test_expected_sum(void **state)
{
    (void)state;
    long long want = 0;
    for (int i = 0; i < MP_HZ_ELEMENTS; i++)
        want += (long long)mp_hazard_a(i) * (long long)mp_hazard_b(i);
    long long period = 0, head = 0;
    for (int i = 0; i < 15; i++) {
        long long p = (long long)(i % 5 + 1) * (i % 3 + 1);
        period += p;
        if (i < MP_HZ_ELEMENTS % 15)
            head += p;
    }
    assert_int_equal(period, 90);
    assert_int_equal(head, 64);
    assert_int_equal(MP_HZ_ELEMENTS / 15, 2252);
    assert_int_equal(want, 2252 * 90 + head);
    assert_int_equal(want, WANT);
    /* Exact in float: every partial is an integer below 2^24. */
    assert_true(WANT < (1 << 24));
}

/* ---- options ------------------------------------------------------------ */

static int count_args(const char *const *args)
{
    int n = 0;
    while (args[n])
        n++;
    return n;
}

static int parse(const char *const *args, mp_hazard_options *o, char *err,
                 size_t len)
{
    err[0] = '\0';
    return mp_hazard_parse_options(count_args(args), (char **)args, o, err,
                                   len);
}

static void test_options_defaults(void **state)
{
    (void)state;
    const char *args[] = {NULL};
    mp_hazard_options o;
    char err[512];
    assert_int_equal(parse(args, &o, err, sizeof err), 0);
    assert_int_equal(o.help, 0);
    assert_int_equal(o.run, -1);
    assert_int_equal(o.ntools, 4);
    assert_int_equal(o.tools[0], MP_TOOL_MEMCHECK);
    assert_int_equal(o.tools[1], MP_TOOL_RACECHECK);
    assert_int_equal(o.tools[2], MP_TOOL_SYNCCHECK);
    assert_int_equal(o.tools[3], MP_TOOL_INITCHECK);
    for (int k = 0; k < MP_HZ_COUNT; k++)
        assert_int_equal(o.run_kernel[k], 1);
    assert_true(o.timeout == 20.0);
    assert_string_equal(o.output, "results/hazards.csv");
    assert_string_equal(o.log_dir, "results/hazards-logs");
    assert_null(o.sanitizer);
    assert_int_equal(o.threads, 256);
    assert_int_equal(o.ignore_result, 0);
}

static void test_options_good(void **state)
{
    (void)state;
    mp_hazard_options o;
    char err[512];
    const char *a1[] = {"--tools", "racecheck,memcheck", "--hazards",
                        "missing-barrier,correct", "--timeout", "2.5",
                        "--compute-sanitizer", "/opt/cs", "-o", "t.csv",
                        "--log-dir=logs", NULL};
    assert_int_equal(parse(a1, &o, err, sizeof err), 0);
    assert_int_equal(o.ntools, 2);
    assert_int_equal(o.tools[0], MP_TOOL_RACECHECK);
    assert_int_equal(o.tools[1], MP_TOOL_MEMCHECK);
    assert_int_equal(o.run_kernel[MP_HZ_CORRECT], 1);
    assert_int_equal(o.run_kernel[MP_HZ_MISSING_BARRIER], 1);
    assert_int_equal(o.run_kernel[MP_HZ_HALVING_SHIFT_2], 0);
    assert_int_equal(o.run_kernel[MP_HZ_SYNC_IN_DIVERGENT_IF], 0);
    assert_int_equal(o.run_kernel[MP_HZ_RESULT_BY_THREAD_2], 0);
    assert_true(o.timeout == 2.5);
    assert_string_equal(o.sanitizer, "/opt/cs");
    assert_string_equal(o.output, "t.csv");
    assert_string_equal(o.log_dir, "logs");

    const char *a2[] = {"--tools=none", "--output", "-", NULL};
    assert_int_equal(parse(a2, &o, err, sizeof err), 0);
    assert_int_equal(o.ntools, 0);
    assert_string_equal(o.output, "-");

    const char *a3[] = {"--tools", "all", "--hazards", "all", NULL};
    assert_int_equal(parse(a3, &o, err, sizeof err), 0);
    assert_int_equal(o.ntools, 4);

    const char *a4[] = {"--run", "halving-shift-2", "--threads", "64",
                        "--ignore-result", NULL};
    assert_int_equal(parse(a4, &o, err, sizeof err), 0);
    assert_int_equal(o.run, MP_HZ_HALVING_SHIFT_2);
    assert_int_equal(o.threads, 64);
    assert_int_equal(o.ignore_result, 1);

    const char *a5[] = {"--run=result-by-thread-2", "--threads=1", NULL};
    assert_int_equal(parse(a5, &o, err, sizeof err), 0);
    assert_int_equal(o.run, MP_HZ_RESULT_BY_THREAD_2);
    assert_int_equal(o.threads, 1);
    assert_int_equal(o.ignore_result, 0);
    assert_int_equal(o.timeout_given, 0);

    /* The child takes the table's limit (its own alarm). */
    const char *a7[] = {"--run", "correct", "--timeout", "7", NULL};
    assert_int_equal(parse(a7, &o, err, sizeof err), 0);
    assert_int_equal(o.timeout_given, 1);
    assert_true(o.timeout == 7.0);

    const char *a6[] = {"--timeout", "1e-3", "--help", "--bogus", NULL};
    assert_int_equal(parse(a6, &o, err, sizeof err), 0);
    assert_int_equal(o.help, 1);
}

/* Bad input: -1 and one line naming the option. */
typedef struct {
    const char *args[10];
    const char *names;
} bad_case;

static const bad_case bad_cases[] = {
    {{"--tools", "bogus"}, "--tools"},
    {{"--tools", "memcheck,memcheck"}, "--tools"},
    {{"--tools", ""}, "--tools"},
    {{"--tools", "memcheck,,racecheck"}, "--tools"},
    {{"--tools", "none,memcheck"}, "--tools"},
    {{"--tools", "all,memcheck"}, "--tools"},
    {{"--tools"}, "--tools"},
    {{"--hazards", "nope"}, "--hazards"},
    {{"--hazards", "correct,correct"}, "--hazards"},
    {{"--hazards", ""}, "--hazards"},
    {{"--timeout", "0"}, "--timeout"},
    {{"--timeout", "-1"}, "--timeout"},
    {{"--timeout", "-0.5"}, "--timeout"},
    {{"--timeout", "abc"}, "--timeout"},
    {{"--timeout", "5s"}, "--timeout"},
    {{"--timeout", ""}, "--timeout"},
    {{"--timeout", "nan"}, "--timeout"},
    {{"--timeout", "inf"}, "--timeout"},
    {{"--timeout", "3601"}, "--timeout"},
    {{"--timeout"}, "--timeout"},
    {{"--timeout", "5", "--timeout", "6"}, "--timeout"},
    {{"--run", "nope"}, "--run"},
    {{"--run", ""}, "--run"},
    {{"--run", "correct", "--run", "correct"}, "--run"},
    {{"--run", "correct", "--threads", "3"}, "--threads"},
    {{"--run", "correct", "--threads", "0"}, "--threads"},
    {{"--run", "correct", "--threads", "512"}, "--threads"},
    {{"--run", "correct", "--threads", "-2"}, "--threads"},
    {{"--run", "correct", "--threads", "x"}, "--threads"},
    {{"--threads", "64"}, "--threads"},
    {{"--ignore-result"}, "--ignore-result"},
    {{"--run", "correct", "--ignore-result=1"}, "--ignore-result"},
    {{"--run", "correct", "--tools", "memcheck"}, "--tools"},
    {{"--run", "correct", "-o", "x.csv"}, "--output"},
    {{"-o", ""}, "--output"},
    {{"-o"}, "--output"},
    {{"--log-dir", ""}, "--log-dir"},
    {{"--compute-sanitizer", ""}, "--compute-sanitizer"},
    {{"--bogus"}, "--bogus"},
    {{"--timeouts", "5"}, "--timeouts"},
    {{"extra"}, "extra"},
};

static void test_options_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        mp_hazard_options o;
        char err[512];
        const bad_case *c = &bad_cases[i];
        if (parse(c->args, &o, err, sizeof err) != -1)
            fail_msg("case %zu (%s %s): accepted", i, c->args[0],
                     c->args[1] ? c->args[1] : "");
        if (!strstr(err, c->names) || strchr(err, '\n') || !err[0])
            fail_msg("case %zu: message '%s' lacks '%s'", i, err, c->names);
    }
}

/* ---- the command, in a forked child ---------------------------------------
 * mp_cmd_hazards runs in a child of this test with stdout and stderr in
 * temporary files; the child exits with its return value (or exits itself:
 * mp_usage_error). This process never initialises CUDA. */

typedef struct {
    int status;
    char *out, *err;
} fork_result;

static char *read_all(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    assert_true(n >= 0);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    rewind(f);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    return s;
}

static void run_cmd(const char *const *args, fork_result *r)
{
    FILE *out = tmpfile(), *err = tmpfile();
    assert_non_null(out);
    assert_non_null(err);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        int rc = mp_cmd_hazards(count_args(args), (char **)args);
        fflush(NULL);
        _exit(rc);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    fseek(out, 0, SEEK_END);
    fseek(err, 0, SEEK_END);
    r->out = read_all(out);
    r->err = read_all(err);
    fclose(out);
    fclose(err);
}

static void fork_result_free(fork_result *r)
{
    free(r->out);
    free(r->err);
}

/* Exit 2, nothing on stdout, one stderr line "memprobe: ..." naming it. */
static void expect_cmd_usage_error(const char *const *args, const char *names)
{
    fork_result r;
    run_cmd(args, &r);
    if (r.status != 2)
        fail_msg("%s: exit %d, want 2; stderr: %s", args[0], r.status, r.err);
    assert_string_equal(r.out, "");
    if (cli_count_char(r.err, '\n') != 1 || strncmp(r.err, "memprobe: ", 10))
        fail_msg("stderr is not one line 'memprobe: ...':\n%s", r.err);
    cli_must_contain("stderr", r.err, names);
    assert_false(cli_path_exists("results"));
    fork_result_free(&r);
}

static void test_cmd_usage_errors(void **state)
{
    (void)state;
    const char *a1[] = {"--timeout", "0", NULL};
    expect_cmd_usage_error(a1, "--timeout");
    const char *a2[] = {"--tools", "memcheck,helgrind", NULL};
    expect_cmd_usage_error(a2, "--tools");
    const char *a3[] = {"--run", "deadlock", NULL};
    expect_cmd_usage_error(a3, "--run");
    const char *a4[] = {"--run", "correct", "--threads", "100", NULL};
    expect_cmd_usage_error(a4, "--threads");
    /* A compute-sanitizer that is not a program: bad input, before any
     * GPU work (so the same on every machine). */
    const char *a5[] = {"--compute-sanitizer", "/nonexistent/cs", NULL};
    expect_cmd_usage_error(a5, "--compute-sanitizer");
    const char *a6[] = {"--compute-sanitizer", data_dir, NULL};
    expect_cmd_usage_error(a6, "--compute-sanitizer");
    char script[PATH_MAX];
    data_path(script, sizeof script, "sanitizer-none-wrong.txt");
    const char *a7[] = {"--compute-sanitizer", script, NULL};
    expect_cmd_usage_error(a7, "--compute-sanitizer");
}

static void test_cmd_help(void **state)
{
    (void)state;
    const char *args[] = {"--help", NULL};
    fork_result r;
    run_cmd(args, &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    cli_must_contain("help", r.out, "usage: memprobe hazards");
    for (int k = 0; k < MP_HZ_COUNT; k++)
        cli_must_contain("help", r.out, mp_hazard_defs[k].name);
    cli_must_contain("help", r.out, "--timeout S");
    cli_must_contain("help", r.out, "--compute-sanitizer PATH");
    cli_must_contain("help", r.out, "3 no GPU");
    fork_result_free(&r);
}

/* No GPU: exit 3 and one line that says so, before anything is written. */
static void expect_no_gpu(const char *const *args)
{
    fork_result r;
    run_cmd(args, &r);
    if (r.status != 3)
        fail_msg("exit %d, want 3; stderr: %s", r.status, r.err);
    assert_string_equal(r.out, "");
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    cli_must_contain("stderr", r.err, "memprobe: hazards: ");
    cli_must_contain("stderr", r.err, "GPU");
    cli_must_contain("stderr", r.err, "nothing run");
    fork_result_free(&r);
}

static void test_cmd_no_gpu(void **state)
{
    (void)state;
    cli_skip_if_gpu();
    const char *a1[] = {NULL};
    expect_no_gpu(a1);
    const char *a2[] = {"--tools", "none", "-o", "x.csv", "--log-dir",
                        "logs", NULL};
    expect_no_gpu(a2);
    /* The child mode needs the GPU too. */
    const char *a3[] = {"--run", "correct", NULL};
    expect_no_gpu(a3);
    /* The device check comes before compute-sanitizer is looked for. */
    char fake[PATH_MAX];
    data_path(fake, sizeof fake, "fake-compute-sanitizer.sh");
    const char *a4[] = {"--compute-sanitizer", fake, NULL};
    expect_no_gpu(a4);
    assert_false(cli_path_exists("results"));
    assert_false(cli_path_exists("x.csv"));
    assert_false(cli_path_exists("logs"));
}

/* The built binary, once runtime/main.c lists the command. */
static void test_binary(void **state)
{
    (void)state;
    const char *args[] = {"hazards", "--timeout", "0", NULL};
    cli_result r;
    cli_run(args, &r);
    if (r.status == 2 && strstr(r.err, "unknown command or probe 'hazards'")) {
        cli_result_free(&r);
        MP_SKIP("memprobe has no 'hazards' command (runtime/main.c)");
    }
    cli_result_free(&r);
    cli_expect_usage_error(args, "--timeout");
    const char *help[] = {"hazards", "--help", NULL};
    cli_run_expect(help, -1,
                   "usage: memprobe hazards",
                   NULL);
    if (!cli_gpu_present()) {
        const char *none[] = {"hazards", NULL};
        cli_run(none, &r);
        cli_expect_status(&r, 3);
        cli_must_contain("stderr", r.err, "nothing run");
        cli_result_free(&r);
        assert_false(cli_path_exists("results"));
    }
}

/* ---- compute-sanitizer's output ------------------------------------------ */

#define K "(const float *, const float *, int, float *)"
#define SRC "/work/main/probes/hazards.cu"

/* One sample: what the parser must read from it, and the outcome of a run
 * of `tool` that ended with `status` and wrote it. */
typedef struct {
    const char *file;
    int tool, status;
    int summary, errors, warnings, findings;
    const char *finding;
    const char *failure;
    int result;
    double got, want;
    mp_hazard_outcome outcome;
    const char *why;   /* MP_OUT_ERROR: part of the reason */
} sample_case;

static const sample_case samples[] = {
    {"sanitizer-memcheck-clean.txt", MP_TOOL_MEMCHECK, 0, 1, 0, 0, 0, "", "",
     1, WANT, WANT, MP_OUT_NOT_CAUGHT, NULL},
    /* The shared read, then the API error it causes: two findings; the
     * first is the one-line finding. memprobe's own CUDA error is the
     * failure line, but the tool's findings decide: caught. */
    {"sanitizer-memcheck-shared.txt", MP_TOOL_MEMCHECK, 9, 1, 2, 0, 2,
     "Invalid __shared__ read of size 4 bytes; at hazard_correct" K
     "+0x1f0 in " SRC ":47; by thread (255,0,0) in block (3,0,0)",
     "memprobe: CUDA error cudaErrorLaunchFailure (unspecified launch "
     "failure) in cudaDeviceSynchronize() at runtime/hazards.c:623",
     -1, NAN, NAN, MP_OUT_CAUGHT, NULL},
    {"sanitizer-racecheck-race.txt", MP_TOOL_RACECHECK, 9, 1, 1, 0, 1,
     "Error: Race reported between Write access at hazard_missing_barrier" K
     "+0x1b0 in " SRC ":141; and Read access at hazard_missing_barrier" K
     "+0x200 in " SRC ":145 [24576 hazards]",
     "", 0, 198148, WANT, MP_OUT_CAUGHT, NULL},
    /* A warning only: racecheck's exit status stays 0, still caught. Two
     * detail lines at most. */
    {"sanitizer-racecheck-warning.txt", MP_TOOL_RACECHECK, 0, 1, 0, 1, 1,
     "Warning: Race reported between Read access at hazard_missing_barrier"
     K "+0x220 in " SRC ":146; and Write access at hazard_missing_barrier" K
     "+0x240 in " SRC ":146 [96 hazards]; and Write access at "
     "hazard_missing_barrier" K "+0x260 in " SRC ":147 [32 hazards]",
     "", 1, WANT, WANT, MP_OUT_CAUGHT, NULL},
    /* A wrong result is not the tool's finding. */
    {"sanitizer-racecheck-clean.txt", MP_TOOL_RACECHECK, 0, 1, 0, 0, 0, "",
     "", 0, 12662, WANT, MP_OUT_NOT_CAUGHT, NULL},
    /* --racecheck-report hazard's older form: its detail lines ("Write
     * Thread ...") are not taken. */
    {"sanitizer-racecheck-hazard-mode.txt", MP_TOOL_RACECHECK, 9, 1, 1, 0, 1,
     "ERROR: Potential RAW hazard detected at __shared__ 0x200 in block "
     "(3, 0, 0) :", "", 1, WANT, WANT, MP_OUT_CAUGHT, NULL},
    {"sanitizer-synccheck-divergent.txt", MP_TOOL_SYNCCHECK, 9, 1, 64, 0, 2,
     "Barrier error detected. Divergent thread(s) in warp.; at "
     "hazard_sync_in_divergent_if" K "+0x2d0 in " SRC ":75; by thread "
     "(16,0,0) in block (0,0,0)", "", 1, WANT, WANT, MP_OUT_CAUGHT, NULL},
    /* cuda-memcheck's older form, its banner included. */
    {"sanitizer-synccheck-block.txt", MP_TOOL_SYNCCHECK, 9, 1, 1, 0, 1,
     "Barrier error detected. Divergent thread(s) in block; at 0x000008f0 in "
     SRC ":75:hazard_sync_in_divergent_if" K "; by thread (63,0,0) in block "
     "(0,0,0)", "", 0, 202680, WANT, MP_OUT_CAUGHT, NULL},
    {"sanitizer-initcheck-uninit.txt", MP_TOOL_INITCHECK, 9, 1, 64, 0, 2,
     "Uninitialized __global__ memory read of size 4 bytes; at "
     "hazard_finalize(const float *, int, double *)+0xb0 in " SRC ":160; by "
     "thread (0,0,0) in block (0,0,0)", "", 0, 0, WANT, MP_OUT_CAUGHT, NULL},
    /* The tool failed: no summary, no finding ("No CUDA kernels were
     * launched" is not one): an error, with the tool's line. */
    {"sanitizer-internal-error.txt", MP_TOOL_RACECHECK, 1, 0, 0, 0, 0, "",
     "Internal Sanitizer Error: The Sanitizer encountered an error while "
     "launching the application. (error 8)", -1, NAN, NAN, MP_OUT_ERROR,
     "exit 1: Internal Sanitizer Error"},
    {"sanitizer-none-wrong.txt", MP_TOOL_NONE, 1, 0, 0, 0, 0, "", "", 0,
     12662, WANT, MP_OUT_WRONG, NULL},
    /* CRLF line ends are taken off. */
    {"sanitizer-none-cuda-error.txt", MP_TOOL_NONE, 5, 0, 0, 0, 0, "",
     "memprobe: CUDA error cudaErrorLaunchTimeout (the launch timed out and "
     "was terminated) in cudaDeviceSynchronize() at runtime/hazards.c:623",
     -1, NAN, NAN, MP_OUT_ERROR, "exit 5: memprobe: CUDA error"},
};

static void same_number(double a, double b)
{
    if (!(isnan(a) && isnan(b)) && a != b)
        fail_msg("%.17g != %.17g", a, b);
}

static void test_sample(void **state)
{
    const sample_case *c = *state;
    char path[PATH_MAX], why[512];
    size_t len;
    data_path(path, sizeof path, c->file);
    char *text = cli_read_file(path, &len);
    mp_sanitizer_report r;
    mp_sanitizer_parse(text, len, &r);
    free(text);
    assert_int_equal(r.summary, c->summary);
    assert_int_equal(r.errors, c->errors);
    assert_int_equal(r.warnings, c->warnings);
    assert_int_equal(r.findings, c->findings);
    assert_string_equal(r.finding, c->finding);
    assert_string_equal(r.failure, c->failure);
    assert_int_equal(r.result, c->result);
    same_number(r.got, c->got);
    same_number(r.want, c->want);
    mp_hazard_outcome out = mp_hazard_classify(c->tool, c->status, &r, why,
                                               sizeof why);
    if (out != c->outcome)
        fail_msg("outcome %s, want %s (%s)", mp_hazard_outcome_name(out),
                 mp_hazard_outcome_name(c->outcome), why);
    if (c->why)
        cli_must_contain("reason", why, c->why);
    else
        assert_string_equal(why, "");
}

/* The parser never reads past len and cuts what does not fit. */
static void test_parse_bounds(void **state)
{
    (void)state;
    mp_sanitizer_report r;
    /* Not NUL-terminated, and the summary's digits are past len. */
    const char text[] = {'=', '=', '=', '=', '=', '=', '=', '=', '=', ' ',
                         'E', 'R', 'R', 'O', 'R', ' ', 'S', 'U', 'M', 'M',
                         'A', 'R', 'Y', ':', ' ', '7', '1'};
    mp_sanitizer_parse(text, sizeof text - 1, &r);
    assert_int_equal(r.summary, 1);
    assert_int_equal(r.errors, 7);
    mp_sanitizer_parse("", 0, &r);
    assert_int_equal(r.summary, 0);
    assert_int_equal(r.findings, 0);
    assert_int_equal(r.result, -1);
    /* A 5000-character finding is cut to the buffer. */
    size_t n = 10 + 5000;
    char *big = malloc(n + 1);
    assert_non_null(big);
    memcpy(big, "========= ", 10);
    memset(big + 10, 'x', 5000);
    big[n] = '\0';
    mp_sanitizer_parse(big, n, &r);
    assert_int_equal(r.findings, 1);
    assert_int_equal(strlen(r.finding), sizeof r.finding - 1);
    free(big);
    /* Four '=' are not compute-sanitizer's prefix; a bare prefix line is
     * nothing; an indented line without a report above is nothing. */
    const char *odd = "==== Invalid x\n=========\n=========     at y\n";
    mp_sanitizer_parse(odd, strlen(odd), &r);
    assert_int_equal(r.findings, 0);
    assert_string_equal(r.finding, "");
}

static void test_classify(void **state)
{
    (void)state;
    mp_sanitizer_report r;
    char why[256];
    memset(&r, 0, sizeof r);
    r.result = -1;
    /* A timeout is a timeout, whatever the log says. */
    assert_int_equal(mp_hazard_classify(MP_TOOL_NONE, MP_SPAWN_TIMEOUT, &r,
                                        why, sizeof why), MP_OUT_TIMEOUT);
    assert_int_equal(mp_hazard_classify(MP_TOOL_SYNCCHECK, MP_SPAWN_TIMEOUT,
                                        &r, why, sizeof why), MP_OUT_TIMEOUT);
    /* The tool's error exit status alone is a catch. */
    assert_int_equal(mp_hazard_classify(MP_TOOL_MEMCHECK, 9, &r, why,
                                        sizeof why), MP_OUT_CAUGHT);
    /* Exit 0 without the summary: the tool did not finish its report. */
    assert_int_equal(mp_hazard_classify(MP_TOOL_MEMCHECK, 0, &r, why,
                                        sizeof why), MP_OUT_ERROR);
    assert_string_equal(why, "exit 0 without the tool's summary line");
    assert_int_equal(mp_hazard_classify(MP_TOOL_MEMCHECK, 127, &r, why,
                                        sizeof why), MP_OUT_ERROR);
    assert_string_equal(why, "compute-sanitizer could not be started");
    r.summary = 1;
    assert_int_equal(mp_hazard_classify(MP_TOOL_INITCHECK, 0, &r, why,
                                        sizeof why), MP_OUT_NOT_CAUGHT);
    /* Errors counted but the child failed (exit 5): still caught. */
    r.errors = 3;
    assert_int_equal(mp_hazard_classify(MP_TOOL_MEMCHECK, 5, &r, why,
                                        sizeof why), MP_OUT_CAUGHT);
    /* The plain run: exit status and result line must agree. */
    memset(&r, 0, sizeof r);
    r.result = 1;
    assert_int_equal(mp_hazard_classify(MP_TOOL_NONE, 0, &r, why, sizeof why),
                     MP_OUT_RIGHT);
    r.result = 0;
    assert_int_equal(mp_hazard_classify(MP_TOOL_NONE, 1, &r, why, sizeof why),
                     MP_OUT_WRONG);
    assert_int_equal(mp_hazard_classify(MP_TOOL_NONE, 0, &r, why, sizeof why),
                     MP_OUT_ERROR);
    assert_string_equal(why, "exit 0 but the result is wrong");
    r.result = -1;
    assert_int_equal(mp_hazard_classify(MP_TOOL_NONE, 3, &r, why, sizeof why),
                     MP_OUT_ERROR);
    assert_string_equal(why, "exit 3 without a result line");
    assert_string_equal(mp_hazard_outcome_name(MP_OUT_NOT_CAUGHT),
                        "not_caught");
    assert_string_equal(mp_hazard_outcome_name(MP_OUT_CAUGHT), "caught");
    assert_string_equal(mp_hazard_outcome_name(MP_OUT_TIMEOUT), "timeout");
    assert_string_equal(mp_hazard_outcome_name(MP_OUT_ERROR), "error");
}

static void test_catalogue(void **state)
{
    (void)state;
    static const char *const names[] = {"correct", "sync-in-divergent-if",
                                        "halving-shift-2",
                                        "result-by-thread-2",
                                        "missing-barrier"};
    for (int k = 0; k < MP_HZ_COUNT; k++) {
        assert_string_equal(mp_hazard_defs[k].name, names[k]);
        assert_int_equal(mp_hazard_find(names[k]), k);
    }
    assert_int_equal(mp_hazard_find("Correct"), -1);
    assert_int_equal(mp_hazard_tool_find("none"), MP_TOOL_NONE);
    assert_int_equal(mp_hazard_tool_find("initcheck"), MP_TOOL_INITCHECK);
    assert_int_equal(mp_hazard_tool_find("helgrind"), -1);
    /* Every kernel has a row; every block size fits the cache and is a
     * power of two. */
    int seen[MP_HZ_COUNT] = {0};
    for (int r = 0; r < mp_hazard_nrows; r++) {
        int t = mp_hazard_rows[r].threads;
        seen[mp_hazard_rows[r].kernel]++;
        assert_true(t >= 1 && t <= MP_HZ_MAX_THREADS && !(t & (t - 1)));
    }
    for (int k = 0; k < MP_HZ_COUNT; k++)
        assert_true(seen[k] > 0);
    assert_int_equal(mp_hazard_nrows, 7);
}

static void test_find_sanitizer(void **state)
{
    (void)state;
    char path[PATH_MAX], fake[PATH_MAX];
    data_path(fake, sizeof fake, "fake-compute-sanitizer.sh");
    assert_int_equal(mp_hazard_find_sanitizer(fake, path, sizeof path), 0);
    assert_string_equal(path, fake);
    assert_int_equal(mp_hazard_find_sanitizer("/nonexistent", path,
                                              sizeof path), -1);
    assert_int_equal(mp_hazard_find_sanitizer(data_dir, path, sizeof path),
                     -1);
    /* Found in PATH: a directory holding an executable of that name. */
    assert_int_equal(mkdir("csbin", 0777), 0);
    FILE *f = fopen("csbin/compute-sanitizer", "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    assert_int_equal(chmod("csbin/compute-sanitizer", 0755), 0);
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    char cwd[PATH_MAX], newpath[2 * PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    if ((size_t)snprintf(newpath, sizeof newpath, "/nonexistent:%s/csbin",
                         cwd) >= sizeof newpath)
        fail_msg("path too long");
    setenv("PATH", newpath, 1);
    int rc = mp_hazard_find_sanitizer(NULL, path, sizeof path);
    if (old) {
        setenv("PATH", old, 1);
        free(old);
    }
    assert_int_equal(rc, 0);
    char want[PATH_MAX + 32];
    if ((size_t)snprintf(want, sizeof want, "%s/csbin/compute-sanitizer",
                         cwd) >= sizeof want)
        fail_msg("path too long");
    assert_string_equal(path, want);
}

/* ---- the time limit -------------------------------------------------------- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void test_spawn_timeout(void **state)
{
    (void)state;
    char *argv[] = {"sleep", "5", NULL};
    double t0 = now();
    int rc = mp_spawn_wait_timeout(argv, NULL, 1.0);
    double dt = now() - t0;
    assert_int_equal(rc, MP_SPAWN_TIMEOUT);
    if (dt < 0.9 || dt > 3.0)
        fail_msg("killed after %.2f s, want about 1 s", dt);
}

/* Whether process pid is gone (or a zombie no one has reaped yet). */
static int process_gone(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

/* The limit kills the whole group: compute-sanitizer's own child too. */
static void test_spawn_timeout_kills_group(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "sleep 30 & echo $! > grandchild.pid; wait",
                    NULL};
    double t0 = now();
    int rc = mp_spawn_wait_timeout(argv, NULL, 1.0);
    assert_int_equal(rc, MP_SPAWN_TIMEOUT);
    assert_true(now() - t0 < 3.0);
    size_t len;
    char *s = cli_read_file("grandchild.pid", &len);
    pid_t pid = (pid_t)atoi(s);
    free(s);
    assert_true(pid > 1);
    int gone = 0;
    for (int i = 0; i < 200 && !gone; i++) {
        gone = process_gone(pid);
        if (!gone)
            usleep(10000);
    }
    if (!gone) {
        kill(pid, SIGKILL);   /* our own grandchild: leave nothing behind */
        fail_msg("the child's child %d still runs", (int)pid);
    }
}

static void test_spawn_status(void **state)
{
    (void)state;
    char *exit7[] = {"sh", "-c", "exit 7", NULL};
    double t0 = now();
    assert_int_equal(mp_spawn_wait_timeout(exit7, NULL, 10.0), 7);
    assert_true(now() - t0 < 2.0);   /* returns when the child ends */
    assert_int_equal(mp_spawn_wait(exit7, NULL), 7);
    char *term[] = {"sh", "-c", "kill -TERM $$", NULL};
    assert_int_equal(mp_spawn_wait_timeout(term, NULL, 10.0), 128 + SIGTERM);
    assert_int_equal(mp_spawn_wait(term, NULL), 128 + SIGTERM);
    char *missing[] = {"/nonexistent/program", NULL};
    assert_int_equal(mp_spawn_wait_timeout(missing, NULL, 10.0), 127);
    assert_int_equal(mp_spawn_wait(missing, NULL), 127);
    /* stdout and stderr appended to the log. */
    FILE *f = fopen("spawn.log", "w");
    assert_non_null(f);
    fputs("first\n", f);
    fclose(f);
    char *both[] = {"sh", "-c", "echo out; echo err >&2", NULL};
    assert_int_equal(mp_spawn_wait_timeout(both, "spawn.log", 10.0), 0);
    size_t len;
    char *log = cli_read_file("spawn.log", &len);
    assert_string_equal(log, "first\nout\nerr\n");
    free(log);
}

/* ---- the table, with fakes -------------------------------------------------- */

/* Copies tests/data/NAME into the working directory as an executable;
 * its absolute path into path. */
static void install_fake(const char *name, char *path, size_t len)
{
    char src[PATH_MAX], cwd[PATH_MAX];
    size_t n;
    data_path(src, sizeof src, name);
    char *text = cli_read_file(src, &n);
    FILE *f = fopen(name, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
    free(text);
    assert_int_equal(chmod(name, 0755), 0);
    assert_non_null(getcwd(cwd, sizeof cwd));
    if ((size_t)snprintf(path, len, "%s/%s", cwd, name) >= len)
        fail_msg("path too long");
}

/* Runs mp_hazards_table with the fakes; its return value, the printed
 * table in *text (malloc'd). */
static int fake_table(const char *const *args, char **text)
{
    char self[PATH_MAX], san[PATH_MAX], err[512];
    install_fake("fake-memprobe.sh", self, sizeof self);
    install_fake("fake-compute-sanitizer.sh", san, sizeof san);
    mp_hazard_options o;
    if (parse(args, &o, err, sizeof err))
        fail_msg("%s", err);
    FILE *out = tmpfile();
    assert_non_null(out);
    int rc = mp_hazards_table(&o, self, san, "Fake GPU", out);
    fseek(out, 0, SEEK_END);
    *text = read_all(out);
    fclose(out);
    return rc;
}

/* The row of the CSV for (hazard, threads, tool). */
static int csv_row(const mp_csv_table *t, const char *hazard, int threads,
                   const char *tool)
{
    int ch = mp_csv_column(t, "hazard"), ct = mp_csv_column(t, "threads"),
        co = mp_csv_column(t, "tool");
    assert_true(ch >= 0 && ct >= 0 && co >= 0);
    for (int r = 0; r < t->nrows; r++)
        if (!strcmp(t->cells[r][ch], hazard)
            && atoi(t->cells[r][ct]) == threads
            && !strcmp(t->cells[r][co], tool))
            return r;
    fail_msg("no CSV row %s/%d/%s", hazard, threads, tool);
    return -1;
}

static const char *cell(const mp_csv_table *t, int row, const char *col)
{
    int c = mp_csv_column(t, col);
    if (c < 0)
        fail_msg("no column %s", col);
    return t->cells[row][c];
}

static void expect_cells(const mp_csv_table *t, const char *hazard,
                         int threads, const char *tool, const char *outcome,
                         const char *result, const char *status)
{
    int r = csv_row(t, hazard, threads, tool);
    if (strcmp(cell(t, r, "outcome"), outcome)
        || strcmp(cell(t, r, "result"), result)
        || strcmp(cell(t, r, "exit_status"), status))
        fail_msg("%s/%d/%s: outcome %s result %s exit %s; want %s %s %s",
                 hazard, threads, tool, cell(t, r, "outcome"),
                 cell(t, r, "result"), cell(t, r, "exit_status"), outcome,
                 result, status);
}

static void test_table_fake(void **state)
{
    (void)state;
    const char *args[] = {"--timeout", "1", "-o", "fake/hazards.csv",
                          "--log-dir", "fake/logs", NULL};
    char *text;
    double t0 = now();
    int rc = fake_table(args, &text);
    double dt = now() - t0;
    /* Two runs hang and are killed after 1 s each; the rest are quick. */
    if (dt > 15)
        fail_msg("the table took %.1f s", dt);
    if (rc != 0)
        fail_msg("exit %d:\n%s", rc, text);
    /* The rows, as docs/hazards.md expects them (the fakes act it out). */
    cli_must_contain("table", text,
        "hazard                 threads  result   memcheck    racecheck   "
        "synccheck   initcheck\n"
        "correct                    256  right    not caught  not caught  "
        "not caught  not caught\n"
        "correct                      2  right    not caught  not caught  "
        "not caught  not caught\n"
        "sync-in-divergent-if       256  TIMEOUT  not caught  not caught  "
        "CAUGHT      not caught\n"
        "halving-shift-2            256  WRONG    TIMEOUT     not caught  "
        "not caught  not caught\n"
        "result-by-thread-2          64  right    not caught  not caught  "
        "not caught  not caught\n"
        "result-by-thread-2           2  WRONG    not caught  not caught  "
        "not caught  CAUGHT\n"
        "missing-barrier            256  WRONG    not caught  CAUGHT      "
        "not caught  not caught\n");
    cli_must_contain("table", text, "memprobe hazards on Fake GPU");
    cli_must_contain("table", text,
        "  sync-in-divergent-if/t256 synccheck:   Barrier error detected. "
        "Divergent thread(s) in warp.; at hazard_sync_in_divergent_if" K
        "+0x2d0 in hazards.cu:75; by thread (16,0,0) in block (0,0,0)\n");
    cli_must_contain("table", text,
        "  halving-shift-2/t256 result:           result wrong: got 12662, "
        "want 202744\n");
    cli_must_contain("table", text,
        "  sync-in-divergent-if/t256 result:      no end within 1 s: killed");
    cli_must_contain("table", text,
        "correct kernel: right, and clean under every tool\n");

    mp_csv_table t;
    char err[256];
    if (mp_csv_table_read("fake/hazards.csv", &t, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(t.ncols, 18);
    assert_int_equal(t.nrows, 7 * 5);
    /* Every correct run: right, and clean under every tool. */
    static const char *const tools[] = {"memcheck", "racecheck", "synccheck",
                                        "initcheck"};
    for (int th = 256; th >= 2; th = th == 256 ? 2 : 0) {
        expect_cells(&t, "correct", th, "none", "right", "right", "0");
        for (int k = 0; k < 4; k++)
            expect_cells(&t, "correct", th, tools[k], "not_caught", "right",
                         "0");
    }
    /* The hang without a tool: a timeout, no exit status, no result. */
    expect_cells(&t, "sync-in-divergent-if", 256, "none", "timeout", "", "");
    int r = csv_row(&t, "sync-in-divergent-if", 256, "synccheck");
    expect_cells(&t, "sync-in-divergent-if", 256, "synccheck", "caught",
                 "right", "9");
    assert_string_equal(cell(&t, r, "errors"), "64");
    assert_string_equal(cell(&t, r, "warnings"), "0");
    assert_string_equal(cell(&t, r, "finding"),
        "Barrier error detected. Divergent thread(s) in warp.; at "
        "hazard_sync_in_divergent_if" K "+0x2d0 in hazards.cu:75; by thread "
        "(16,0,0) in block (0,0,0)");
    r = csv_row(&t, "halving-shift-2", 256, "none");
    expect_cells(&t, "halving-shift-2", 256, "none", "wrong", "wrong", "1");
    assert_string_equal(cell(&t, r, "got"), "12662");
    assert_string_equal(cell(&t, r, "want"), "202744");
    assert_string_equal(cell(&t, r, "errors"), "");
    /* A tool run that hangs is a timeout too; --ignore-result: exit 0. */
    expect_cells(&t, "halving-shift-2", 256, "memcheck", "timeout", "", "");
    expect_cells(&t, "halving-shift-2", 256, "racecheck", "not_caught",
                 "wrong", "0");
    expect_cells(&t, "result-by-thread-2", 64, "initcheck", "not_caught",
                 "right", "0");
    expect_cells(&t, "result-by-thread-2", 2, "initcheck", "caught", "wrong",
                 "9");
    expect_cells(&t, "result-by-thread-2", 2, "none", "wrong", "wrong", "1");
    expect_cells(&t, "missing-barrier", 256, "racecheck", "caught", "wrong",
                 "9");
    r = csv_row(&t, "missing-barrier", 256, "racecheck");
    assert_string_equal(cell(&t, r, "errors"), "1");
    /* Fixed cells, and the log of each run starting with its command. */
    assert_string_equal(cell(&t, r, "tool_version"), MP_VERSION);
    assert_string_equal(cell(&t, r, "device_name"), "Fake GPU");
    assert_string_equal(cell(&t, r, "blocks"), "64");
    assert_string_equal(cell(&t, r, "elements"), "33792");
    assert_string_equal(cell(&t, r, "log"),
                        "fake/logs/missing-barrier-t256-racecheck.log");
    size_t len;
    char *log = cli_read_file(cell(&t, r, "log"), &len);
    cli_must_contain("log", log, "/fake-compute-sanitizer.sh --tool racecheck "
                     "--error-exitcode 9 ");
    cli_must_contain("log", log, "/fake-memprobe.sh hazards --run "
                     "missing-barrier --threads 256 --timeout 1 "
                     "--ignore-result\n");
    assert_int_equal(strncmp(log, "$ ", 2), 0);
    free(log);
    mp_csv_free(&t);
    free(text);
}

/* The correct kernel caught by a tool: exit 1 and said so. */
static void test_table_fake_dirty(void **state)
{
    (void)state;
    const char *args[] = {"--hazards", "correct", "--tools", "racecheck",
                          "-o", "dirty.csv", "--log-dir", "dirty", NULL};
    char *text;
    setenv("FAKE_DIRTY", "1", 1);
    int rc = fake_table(args, &text);
    unsetenv("FAKE_DIRTY");
    assert_int_equal(rc, 1);
    cli_must_contain("table", text,
        "hazard                 threads  result   racecheck\n"
        "correct                    256  right    CAUGHT\n"
        "correct                      2  right    CAUGHT\n");
    cli_must_contain("table", text, "correct kernel: NOT right and clean");
    free(text);
    /* Results only (--tools none): no compute-sanitizer run at all. */
    const char *none[] = {"--tools", "none", "--hazards",
                          "halving-shift-2,correct", "-o", "none.csv",
                          "--log-dir", "none", NULL};
    rc = fake_table(none, &text);
    assert_int_equal(rc, 0);
    cli_must_contain("table", text,
        "hazard                 threads  result\n"
        "correct                    256  right\n"
        "correct                      2  right\n"
        "halving-shift-2            256  WRONG\n\n");
    free(text);
    /* An existing CSV with another header is refused: exit 2. */
    FILE *f = fopen("other.csv", "w");
    assert_non_null(f);
    fputs("a,b\r\n1,2\r\n", f);
    fclose(f);
    const char *other[] = {"--tools", "none", "-o", "other.csv", "--log-dir",
                           "other", NULL};
    /* A log directory that is a file: exit 2 too. */
    const char *filedir[] = {"--tools", "none", "-o", "fd.csv", "--log-dir",
                             "other.csv", NULL};
    FILE *errf = tmpfile();
    assert_non_null(errf);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(errf), 2);
    rc = fake_table(other, &text);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fseek(errf, 0, SEEK_END);
    char *msg = read_all(errf);
    fclose(errf);
    assert_int_equal(rc, 2);
    cli_must_contain("stderr", msg, "memprobe: hazards: -o: other.csv: ");
    cli_must_contain("stderr", msg, "header");
    free(msg);
    free(text);
    errf = tmpfile();
    assert_non_null(errf);
    saved = dup(2);
    dup2(fileno(errf), 2);
    rc = fake_table(filedir, &text);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fseek(errf, 0, SEEK_END);
    msg = read_all(errf);
    fclose(errf);
    assert_int_equal(rc, 2);
    cli_must_contain("stderr", msg, "--log-dir: cannot create other.csv");
    assert_false(cli_path_exists("fd.csv"));
    free(msg);
    free(text);
}

int main(void)
{
    const char *d = getenv("MP_TEST_DATA");
    if (!realpath(d ? d : "tests/data", data_dir)) {
        fprintf(stderr, "test data %s: not found\n", d ? d : "tests/data");
        return 1;
    }
    static struct CMUnitTest tests[64];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_expected_sum);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_options_defaults);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_options_good);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_options_bad);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cmd_usage_errors);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cmd_help);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cmd_no_gpu);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_binary);
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        tests[n++] = (struct CMUnitTest){samples[i].file, test_sample, NULL,
                                         NULL, (void *)&samples[i]};
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_parse_bounds);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_classify);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_catalogue);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_find_sanitizer);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_spawn_timeout);
    tests[n++] =
        (struct CMUnitTest)cmocka_unit_test(test_spawn_timeout_kills_group);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_spawn_status);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_table_fake);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_table_fake_dirty);
    return cli_run_group("hazards", NULL, 0, NULL, 0, tests, n);
}
