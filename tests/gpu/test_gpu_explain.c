/*
 * test_gpu_explain.c - GPU tests of `memprobe explain` on the profiler's
 * test program, build/tests/profile/app (tests/profile/app.cu).
 *
 * Runs (files in $GPU_TEST_DIR/explain/, default results/gpu-test):
 *   memprobe explain -o explain.csv -- app
 * which profiles the program (--per-kernel 1, explain-profile*.csv),
 * runs it again with the capture library and explains the offenders.
 * Asserts:
 *   - every instruction of every offending line is captured, explained,
 *     and its model count (from the captured addresses) EQUALS the
 *     profile's measured count of the same launch; the offending lines
 *     are those expect.c's models say exceed their ideal;
 *   - each fix applied by hand in app.cu measures what explain predicted:
 *     the naive transpose's column read padded by 1 word against
 *     transpose_padded's, the shifted load aligned against load_aligned's,
 *     each step of reduce_strided under sequential addressing against
 *     reduce_sequential's step over the same threads (s' = T / 2s).
 * Skips (TAP skip) without a GPU, without the app, without the capture
 * library BUILD/lib/libmemprobe_capture.so (`make capture` needs the
 * toolkit's compute-sanitizer) or when memprobe has no explain command.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../mp_skip.h"
#include "expect.h"
#include "gpu_util.h"
#include "subprocess.h"

#define SH_COL "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
#define GL_COL "smsp__sass_sectors_mem_global"

static char dir[1024], app[1024], capture_lib[1024];
static char skip_why[4096];
static int rc_explain = -1;
static mp_csv_table xp, plines;
static int have_xp, have_plines;
static int *marker_line;
static char marker_err[512];

/* The run, and app.cu's marker lines, that every test needs. */
#define NEED_RUN()                                                        \
    do {                                                                  \
        if (skip_why[0])                                                  \
            MP_SKIP("%s", skip_why);                                      \
        if (marker_err[0])                                                \
            fail_msg("%s", marker_err);                                   \
    } while (0)

static void find_skip(void)
{
    const char *mp = gpu_memprobe();
    char *help[] = {(char *)mp, "explain", "--help", NULL};
    if (access("/dev/nvidiactl", F_OK))
        snprintf(skip_why, sizeof skip_why, "no NVIDIA GPU here "
                 "(/dev/nvidiactl missing)");
    else if (access(app, X_OK))
        snprintf(skip_why, sizeof skip_why, "%s not built (make %s)", app,
                 app);
    else if (access(capture_lib, R_OK))
        snprintf(skip_why, sizeof skip_why, "no capture library %s (make "
                 "capture: it needs the toolkit's compute-sanitizer)",
                 capture_lib);
    else if (mp_spawn_wait(help, "/dev/null") != 0)
        snprintf(skip_why, sizeof skip_why, "%s has no explain command", mp);
}

static void run_explain(void)
{
    char out[1200], log[1200];
    snprintf(out, sizeof out, "%s/explain.csv", dir);
    snprintf(log, sizeof log, "%s/explain.log", dir);
    char *argv[] = {(char *)gpu_memprobe(), "explain", "-o", out, "--", app,
                    NULL};
    rc_explain = mp_spawn_wait_timeout(argv, log, 120);
    printf("# memprobe explain -o %s -- %s -> exit %d (log %s)\n", out, app,
           rc_explain, log);
    have_xp = gpu_read_csv(dir, "explain.csv", &xp);
    have_plines = gpu_read_csv(dir, "explain-profile-lines.csv", &plines);
}

/* ---- the rows ---------------------------------------------------------- */

/* 1 when row r of t is on app.cu line `line`. */
static int on_line(const mp_csv_table *t, int r, int line)
{
    return !strcmp(gpu_base_name(gpu_cell(t, r, "file")), "app.cu")
           && gpu_number(t, r, "line") == (double)line;
}

/* The source line of expect.c's marker (a line of its table). */
static int line_of(const char *marker)
{
    int n;
    return marker_line[mp_expect_find(marker) - mp_expect_lines(&n)];
}

/* 1 when row r is its instruction's first (rows repeat per fix). */
static int first_of_inst(int r)
{
    return r == 0
           || strcmp(gpu_cell(&xp, r, "mangled"),
                     gpu_cell(&xp, r - 1, "mangled"))
           || strcmp(gpu_cell(&xp, r, "function_offset"),
                     gpu_cell(&xp, r - 1, "function_offset"));
}

/* ---- tests ------------------------------------------------------------- */

static void test_runs(void **state)
{
    (void)state;
    NEED_RUN();
    assert_int_equal(rc_explain, 0);
    assert_true(have_xp);
    assert_true(have_plines);
    assert_true(xp.nrows > 0);
}

/* Every instruction of every line the models call an offender: captured,
 * explained, model equal to measured. */
static void test_model_equals_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(have_xp);
    int n, want = 0, lines_off = 0;
    const mp_expect_line *l = mp_expect_lines(&n);
    for (int i = 0; i < n; i++) {
        mp_expect_counts c;
        mp_expect_compute(&l[i], &c);
        if (c.measured <= c.ideal)
            continue;
        lines_off++;
        int insts = 0, equal = 0;
        for (int r = 0; r < xp.nrows; r++) {
            if (!first_of_inst(r) || !on_line(&xp, r, marker_line[i]))
                continue;
            insts++;
            const char *eq = gpu_cell(&xp, r, "equal");
            printf("# %s app.cu:%d %s %s: measured %s, model %s, %s%s%s\n",
                   l[i].marker, marker_line[i],
                   gpu_cell(&xp, r, "function_offset"),
                   gpu_cell(&xp, r, "opcode"), gpu_cell(&xp, r, "measured"),
                   gpu_cell(&xp, r, "model"), eq,
                   strcmp(eq, "yes") ? ": " : "",
                   gpu_cell(&xp, r, "why_not_compared"));
            equal += !strcmp(gpu_cell(&xp, r, "explained"), "yes")
                     && !strcmp(eq, "yes")
                     && gpu_number(&xp, r, "model")
                            == gpu_number(&xp, r, "measured");
        }
        if (insts != l[i].naccess || equal != insts)
            printf("# MISMATCH %s: %d instructions in explain.csv (expected "
                   "%d), %d equal\n", l[i].marker, insts, l[i].naccess,
                   equal);
        want += l[i].naccess;
        assert_int_equal(insts, l[i].naccess);
        assert_int_equal(equal, insts);
    }
    printf("# %d offending lines, %d instructions, model = measured on "
           "each\n", lines_off, want);
    assert_true(lines_off >= 10);
    /* nothing but those lines */
    int all = 0;
    for (int r = 0; r < xp.nrows; r++)
        all += first_of_inst(r);
    assert_int_equal(all, want);
}

/* The predicted count of the fix starting `fix` summed over the
 * instructions of app.cu line `line` (one each, reaching the ideal);
 * *launches the launches captured. -1 when an instruction lacks it. */
static long long predicted(int line, const char *fix, long long *launches)
{
    long long sum = 0;
    int insts = 0, found = 0;
    for (int r = 0; r < xp.nrows; r++) {
        if (!on_line(&xp, r, line))
            continue;
        insts += first_of_inst(r);
        if (strncmp(gpu_cell(&xp, r, "fix"), fix, strlen(fix)))
            continue;
        found++;
        sum += (long long)gpu_number(&xp, r, "predicted");
        *launches = (long long)gpu_number(&xp, r, "launches_captured");
        if (strcmp(gpu_cell(&xp, r, "reaches_ideal"), "yes"))
            return -1;
    }
    return insts && found == insts ? sum : -1;
}

/* The profile's count of app.cu line `line` (column col), *launches its
 * launches. */
static long long measured(int line, const char *col, long long *launches)
{
    long long sum = 0;
    for (int r = 0; r < plines.nrows; r++)
        if (on_line(&plines, r, line)) {
            sum += (long long)gpu_number(&plines, r, col);
            *launches = (long long)gpu_number(&plines, r, "launches");
        }
    return sum;
}

static void test_fixes_measured(void **state)
{
    (void)state;
    NEED_RUN();
    assert_true(have_xp && have_plines);
    static const struct {
        const char *offender, *fix, *fixed, *col;
    } pairs[] = {
        {"tr_naive_lds", "pad each 32-word row by 1 word", "tr_padded_lds",
         SH_COL},
        {"ld_shifted_in", "align to a 32-byte sector", "ld_aligned_in",
         GL_COL},
        {"red_si_s1", "sequential addressing", "red_sq_s128", SH_COL},
        {"red_si_s2", "sequential addressing", "red_sq_s64", SH_COL},
        {"red_si_s4", "sequential addressing", "red_sq_s32", SH_COL},
        {"red_si_s8", "sequential addressing", "red_sq_s16", SH_COL},
        {"red_si_s16", "sequential addressing", "red_sq_s8", SH_COL},
        {"red_si_s32", "sequential addressing", "red_sq_s4", SH_COL},
        {"red_si_s64", "sequential addressing", "red_sq_s2", SH_COL},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        long long lc = 0, lm = 0;
        long long p = predicted(line_of(pairs[i].offender), pairs[i].fix,
                                &lc);
        long long m = measured(line_of(pairs[i].fixed), pairs[i].col, &lm);
        /* the same launches, or as many of each kernel's: equal per
         * launch, compared as whole numbers */
        int ok = p >= 0 && lc > 0 && lm > 0 && p * lm == m * lc;
        printf("# %s, %s: predicted %lld in %lld launch(es); %s measured "
               "%lld in %lld%s\n", pairs[i].offender, pairs[i].fix, p, lc,
               pairs[i].fixed, m, lm, ok ? "" : ": MISMATCH");
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const char *a = getenv("MP_PROFILE_APP");
    const char *src = getenv("MP_TEST_SOURCE");
    gpu_test_subdir("explain", dir, sizeof dir);
    if (a)
        snprintf(app, sizeof app, "%s", a);
    else
        snprintf(app, sizeof app, "%s/tests/profile/app", gpu_build_dir());
    snprintf(capture_lib, sizeof capture_lib,
             "%s/lib/libmemprobe_capture.so", gpu_build_dir());
    marker_line = mp_expect_marker_table(src ? src : ".", marker_err,
                                         sizeof marker_err);
    find_skip();
    if (!skip_why[0]) {
        gpu_make_test_dirs(dir);
        run_explain();
    }
    static const struct CMUnitTest tests[] = {
        GPU_TEST("explain_runs", test_runs),
        GPU_TEST("model_equals_measured", test_model_equals_measured),
        GPU_TEST("fixes_measure_the_prediction", test_fixes_measured),
    };
    int rc = cmocka_run_group_tests_name("gpu_explain", tests, NULL, NULL);
    if (have_xp)
        mp_csv_free(&xp);
    if (have_plines)
        mp_csv_free(&plines);
    free(marker_line);
    return rc;
}
