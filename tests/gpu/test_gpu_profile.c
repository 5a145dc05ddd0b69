/*
 * test_gpu_profile.c - GPU tests of `memprobe profile` on the
 * project's own test program, build/tests/profile/app (tests/profile/app.cu).
 *
 * Runs (CSVs and logs in $GPU_TEST_DIR/profile/, default results/gpu-test):
 *   memprobe profile -o p.csv -- app
 *   memprobe profile --check 'shared<=1.0,global<=1.0' -- app            (exit 1)
 *   memprobe profile --check 'shared<=1.0,global<=1.0' -- app --padded-only (0)
 *   memprobe profile -o crash.csv -- app --crash-after 3                  (139)
 *   memprobe profile --level kernel+ -o kplus.csv -- app
 *   memprobe profile --fallback rerun -o fallback.csv -- app    (NO_SASS hook)
 *   memprobe profile -o once.csv -- app                         (NO_SASS hook)
 *   memprobe ncu-check --profile -- app            (when ncu is on PATH; 0)
 *   memprobe ncu-check --level kernel+ --profile -- app   (ncu on PATH; 0)
 * and asserts:
 *   - each marked line of app.cu (file:line of its MP_EXPECT marker): the
 *     profile-lines.csv counts of that line (its instructions summed) EQUAL
 *     tests/profile/expect.c's, computed from the bank and sector models,
 *     times the kernel's launches; the other space is 0 there; and no
 *     unmarked line of app.cu has shared or global counts;
 *   - the launch rows are the program's sequence (app_shape.h) in order:
 *     kernel, grid, block, graph = 1 for the graph's launch, the NVTX
 *     stack "app/RANGE", line_counts = exact, two streams;
 *   - the --check runs, the crash run (its launches flushed before the
 *     crash: at least 3 rows, a CSV that reads), and ncu's agreement
 *     (per instruction; and per launch at kernel+ within tolerances);
 *   - kernel+'s range values, --fallback rerun's hardware counts, and that
 *     without --fallback the program runs once, its launches without line
 *     counts saying they were not measured.
 * Skips (TAP skip) when memprobe has no profile command, the injection
 * library BUILD/lib/libmemprobe_inject.so is missing, or the app is not
 * built (BUILD: build, or the folder of $MEMPROBE when that is not ".",
 * e.g. build/san). $MP_PROFILE_APP overrides the app's path,
 * $MP_TEST_SOURCE the repository root (for tests/profile/app.cu).
 */
#include <math.h>
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

#define CHECK_ARG "shared<=1.0,global<=1.0"

static char skip_why[3072];
#define SH_COL "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
#define GL_COL "smsp__sass_sectors_mem_global"
static char dir[1024], app[1024], inject[1024];
static mp_csv_table launches, lines, crash, shorts, forked, forked_lines;
static int have_launches, have_lines, have_crash, have_shorts, have_forked;
static int rc_fork;
static int rc_main, rc_check_bad, rc_check_good, rc_crash, rc_ncu = -1;
static int rc_ncu_kplus = -1;
static int rc_short;
/* --level kernel+ and the fallback (the NO_SASS hook on two kernels):
 * --fallback rerun, and the default (once) */
static mp_csv_table kplus, fallback, once;
static int have_kplus, have_fallback, have_once, rc_kplus, rc_fallback;
static int rc_once;
static mp_csv_table per_kernel;
static int have_per_kernel, rc_per_kernel;
/* many_launches 300 (three kernels alternating: 300 rows, the row table
 * grows inside batches) with a flush per run and with batches of 32 */
static mp_csv_table runs1, runs32;
static int have_runs1, have_runs32, rc_runs1 = -1, rc_runs32 = -1;
static char many[1024];
#define NO_SASS_RE "^(transpose_padded|load_aligned)$"
#define SHORTS 2500   /* app --short: one-warp launches of `tick` */
static int *marker_line;   /* source line of each expect.c line */
static char marker_err[512];

/* ---- runs ------------------------------------------------------------ */

static int run(const char *name, char *const *argv)
{
    char log[1200];
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    remove(log);
    int rc = mp_spawn_wait(argv, log);
    printf("# %s:", name);
    for (int i = 0; argv[i]; i++)
        printf(" %s", argv[i]);
    printf(" -> exit %d (log %s)\n", rc, log);
    return rc;
}

/* Lines of the log of run `name` that contain part. */
static int log_lines(const char *name, const char *part)
{
    char log[1200], line[4096];
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    FILE *f = fopen(log, "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, part) != NULL;
    if (f)
        fclose(f);
    return n;
}

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char *copy = strdup(path), *save = NULL;
    int found = 0;
    for (char *d = strtok_r(copy, ":", &save); d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char full[2048];
        snprintf(full, sizeof full, "%s/%s", d, prog);
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* Why the tests cannot run, or "" when they can. */
static void find_skip(void)
{
    const char *mp = gpu_memprobe();
    char *help[] = {(char *)mp, "profile", "--help", NULL};
    if (access("/dev/nvidiactl", F_OK))
        snprintf(skip_why, sizeof skip_why, "no NVIDIA GPU here "
                 "(/dev/nvidiactl missing)");
    else if (access(app, X_OK))
        snprintf(skip_why, sizeof skip_why, "%s not built (make %s)", app,
                 app);
    else if (access(inject, R_OK))
        snprintf(skip_why, sizeof skip_why, "no injection library %s",
                 inject);
    else if (mp_spawn_wait(help, "/dev/null") != 0)
        snprintf(skip_why, sizeof skip_why, "%s has no profile command", mp);
}

static void run_all(void)
{
    char *mp = (char *)gpu_memprobe();
    char p[1200], c1[1200], c2[1200], cr[1200], nd[1200];
    snprintf(p, sizeof p, "%s/p.csv", dir);
    snprintf(c1, sizeof c1, "%s/check-app.csv", dir);
    snprintf(c2, sizeof c2, "%s/check-padded.csv", dir);
    snprintf(cr, sizeof cr, "%s/crash.csv", dir);
    snprintf(nd, sizeof nd, "%s/ncu-check", dir);
    char *a1[] = {mp, "profile", "-o", p, "--", app, NULL};
    char *a2[] = {mp, "profile", "--check", CHECK_ARG, "-o", c1, "--", app,
                  NULL};
    char *a3[] = {mp, "profile", "--check", CHECK_ARG, "-o", c2, "--", app,
                  "--padded-only", NULL};
    char *a4[] = {mp, "profile", "-o", cr, "--", app, "--crash-after", "3",
                  NULL};
    char *a5[] = {mp, "ncu-check", "--dir", nd, "--profile", "--", app, NULL};
    char sh[1200], n[32];
    snprintf(sh, sizeof sh, "%s/short.csv", dir);
    snprintf(n, sizeof n, "%d", SHORTS);
    char *a6[] = {mp, "profile", "-o", sh, "--", app, "--short", n, NULL};
    char fk[1200];
    snprintf(fk, sizeof fk, "%s/fork.csv", dir);
    char *a7[] = {mp, "profile", "-o", fk, "--", app, "--fork", NULL};
    rc_main = run("profile", a1);
    have_launches = gpu_read_csv(dir, "p.csv", &launches);
    have_lines = gpu_read_csv(dir, "p-lines.csv", &lines);
    rc_check_bad = run("check-app", a2);
    rc_check_good = run("check-padded", a3);
    rc_crash = run("crash", a4);
    have_crash = gpu_read_csv(dir, "crash.csv", &crash);
    rc_short = run("short", a6);
    have_shorts = gpu_read_csv(dir, "short.csv", &shorts);
    rc_fork = run("fork", a7);
    have_forked = gpu_read_csv(dir, "fork.csv", &forked);
    if (have_forked && !gpu_read_csv(dir, "fork-lines.csv", &forked_lines)) {
        mp_csv_free(&forked);
        have_forked = 0;
    }
    char kp[1200], fb[1200], on[1200];
    snprintf(kp, sizeof kp, "%s/kplus.csv", dir);
    snprintf(fb, sizeof fb, "%s/fallback.csv", dir);
    snprintf(on, sizeof on, "%s/once.csv", dir);
    char *a8[] = {mp, "profile", "--level", "kernel+", "-o", kp, "--", app,
                  NULL};
    char *a9[] = {mp, "profile", "--fallback", "rerun", "-o", fb, "--", app,
                  NULL};
    char *a11[] = {mp, "profile", "-o", on, "--", app, NULL};
    char pk[1200];
    snprintf(pk, sizeof pk, "%s/per-kernel.csv", dir);
    char *a12[] = {mp, "profile", "--per-kernel", "1", "-o", pk, "--", app,
                   "--launches", "3", "--tail", "4", NULL};
    rc_per_kernel = run("per-kernel", a12);
    have_per_kernel = gpu_read_csv(dir, "per-kernel.csv", &per_kernel);
    rc_kplus = run("kplus", a8);
    have_kplus = gpu_read_csv(dir, "kplus.csv", &kplus);
    setenv("MEMPROBE_INJECT_NO_SASS", NO_SASS_RE, 1);
    rc_fallback = run("fallback", a9);
    rc_once = run("once", a11);
    unsetenv("MEMPROBE_INJECT_NO_SASS");
    have_fallback = gpu_read_csv(dir, "fallback.csv", &fallback);
    have_once = gpu_read_csv(dir, "once.csv", &once);
    char r1[1200], r32[1200];
    snprintf(r1, sizeof r1, "%s/many-runs1.csv", dir);
    snprintf(r32, sizeof r32, "%s/many-runs32.csv", dir);
    char *a13[] = {mp, "profile", "-o", r1, "--", many, "300", NULL};
    char *a14[] = {mp, "profile", "-o", r32, "--", many, "300", NULL};
    if (!access(many, X_OK)) {
        setenv("MEMPROBE_BATCH_RUNS", "1", 1);
        rc_runs1 = run("many-runs1", a13);
        unsetenv("MEMPROBE_BATCH_RUNS");   /* the default: batches of 32 */
        rc_runs32 = run("many-runs32", a14);
        have_runs1 = gpu_read_csv(dir, "many-runs1.csv", &runs1);
        have_runs32 = gpu_read_csv(dir, "many-runs32.csv", &runs32);
    }
    char nk[1200];
    snprintf(nk, sizeof nk, "%s/ncu-check-kplus", dir);
    char *a10[] = {mp, "ncu-check", "--dir", nk, "--level", "kernel+",
                   "--profile", "--", app, NULL};
    if (on_path("ncu")) {
        rc_ncu = run("ncu-check", a5);
        rc_ncu_kplus = run("ncu-check-kplus", a10);
    }
}

#define NEED_RUNS()                                                       \
    do {                                                                  \
        if (skip_why[0])                                                  \
            MP_SKIP("%s", skip_why);                                      \
    } while (0)

/* ---- the lines ------------------------------------------------------- */

/* Sums of the rows of kernel k on app.cu line `line`. */
typedef struct {
    double shared, shared_ideal, global, global_ideal;
    double launches;
    int rows;
} line_sum;

static line_sum sum_line(const char *kernel, long line)
{
    line_sum s = {0, 0, 0, 0, -1, 0};
    for (int r = 0; r < lines.nrows; r++) {
        if (strcmp(gpu_base_name(gpu_cell(&lines, r, "file")), "app.cu")
            || gpu_number(&lines, r, "line") != (double)line
            || (kernel && strcmp(gpu_cell(&lines, r, "kernel"), kernel)))
            continue;
        s.rows++;
        s.shared += gpu_number(&lines, r,
            "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
        s.shared_ideal += gpu_number(&lines, r,
            "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal");
        s.global += gpu_number(&lines, r, "smsp__sass_sectors_mem_global");
        s.global_ideal += gpu_number(&lines, r,
                                     "smsp__sass_sectors_mem_global_ideal");
        double l = gpu_number(&lines, r, "launches");
        if (l > s.launches)
            s.launches = l;
    }
    return s;
}

static void test_run(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_int_equal(rc_main, 0);
    assert_true(have_launches);
    assert_true(have_lines);
    if (marker_err[0])
        fail_msg("%s", marker_err);
}

static void test_lines_equal_model(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_true(have_lines);
    if (marker_err[0])
        fail_msg("%s", marker_err);
    int n, bad = 0;
    const mp_expect_line *l = mp_expect_lines(&n);
    printf("# %-16s %-12s %12s %12s %12s %12s\n", "line", "at", "measured",
           "model", "ideal", "model ideal");
    for (int i = 0; i < n; i++) {
        const char *kernel = app_kernel_names[l[i].kernel];
        long long runs = mp_expect_launches(l[i].kernel, APP_MODE_FULL, 1,
                                            NULL);
        mp_expect_counts c;
        mp_expect_compute(&l[i], &c);
        line_sum s = sum_line(kernel, marker_line[i]);
        int shared = l[i].space == MP_EXPECT_SHARED;
        double got = shared ? s.shared : s.global;
        double got_ideal = shared ? s.shared_ideal : s.global_ideal;
        double other = shared ? s.global + s.global_ideal
                              : s.shared + s.shared_ideal;
        double want = (double)(c.measured * runs);
        double want_ideal = (double)(c.ideal * runs);
        char at[32];
        snprintf(at, sizeof at, "app.cu:%d", marker_line[i]);
        printf("# %-16s %-12s %12.0f %12.0f %12.0f %12.0f\n", l[i].marker, at,
               got, want, got_ideal, want_ideal);
        if (got != want || got_ideal != want_ideal || other != 0
            || s.launches != (double)runs) {
            printf("# MISMATCH %s (%s, %s): %d rows, launches %.0f of %lld, "
                   "other space %.0f\n", l[i].marker, at, kernel, s.rows,
                   s.launches, runs, other);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* No line of app.cu that expect.c does not know has shared or global
 * counts: every measured access is accounted for. */
static void test_no_unmarked_line(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_true(have_lines);
    int n, bad = 0;
    mp_expect_lines(&n);
    for (int r = 0; r < lines.nrows; r++) {
        if (strcmp(gpu_base_name(gpu_cell(&lines, r, "file")), "app.cu"))
            continue;
        double line = gpu_number(&lines, r, "line");
        int marked = 0;
        for (int i = 0; i < n; i++)
            marked |= marker_line[i] == (int)line;
        double any = gpu_number(&lines, r,
                         "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared")
                     + gpu_number(&lines, r, "smsp__sass_sectors_mem_global");
        if (!marked && any != 0) {
            printf("# unmarked app.cu:%.0f (%s %s) has %.0f wavefronts + "
                   "sectors\n", line, gpu_cell(&lines, r, "kernel"),
                   gpu_cell(&lines, r, "function_offset"), any);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* ---- the launches ---------------------------------------------------- */

/* Rows of t that are launches that ran (a launch made while a stream was
 * capturing runs later, in the graph: its row, if any, says so). */
static int ran(const mp_csv_table *t, int r)
{
    return !strstr(gpu_cell(t, r, "why"), "capture");
}

static void test_launch_rows(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_true(have_launches);
    int r = 0, bad = 0;
    for (int s = 0; s < APP_STEPS; s++) {
        const app_step *st = &app_sequence[s];
        if (!(st->modes & APP_MODE_FULL))
            continue;
        while (r < launches.nrows && !ran(&launches, r))
            r++;
        if (r == launches.nrows)
            fail_msg("%d launch rows; step %d (%s) has none", launches.nrows,
                     s, app_kernel_names[st->kernel]);
        const int *sh = app_kernel_shape[st->kernel];
        char grid[64], block[64], nvtx[128];
        snprintf(grid, sizeof grid, "%d,%d,1", sh[0], sh[1]);
        snprintf(block, sizeof block, "%d,%d,1", sh[2], sh[3]);
        snprintf(nvtx, sizeof nvtx, "%s%s%s", APP_RANGE, st->range ? "/" : "",
                 st->range ? st->range : "");
        const char *kernel = gpu_cell(&launches, r, "kernel");
        const char *got_nvtx = gpu_cell(&launches, r, "nvtx");
        const char *exact = gpu_cell(&launches, r, "line_counts");
        double graph = gpu_number(&launches, r, "graph");
        printf("# launch %s: %s grid %s block %s stream %s graph %.0f nvtx "
               "'%s' %s %s\n", gpu_cell(&launches, r, "launch"), kernel,
               gpu_cell(&launches, r, "grid"), gpu_cell(&launches, r, "block"),
               gpu_cell(&launches, r, "stream"), graph, got_nvtx, exact,
               gpu_cell(&launches, r, "why"));
        if (strcmp(kernel, app_kernel_names[st->kernel])
            || strcmp(gpu_cell(&launches, r, "grid"), grid)
            || strcmp(gpu_cell(&launches, r, "block"), block)
            || graph != st->graph || strcmp(got_nvtx, nvtx)
            || strcmp(exact, "exact")) {
            printf("# MISMATCH: expected %s grid %s block %s graph %d nvtx "
                   "'%s' exact\n", app_kernel_names[st->kernel], grid, block,
                   st->graph, nvtx);
            bad++;
        }
        r++;
    }
    while (r < launches.nrows && !ran(&launches, r))
        r++;
    if (r != launches.nrows)
        fail_msg("%d launch rows beyond the sequence", launches.nrows - r);
    assert_int_equal(bad, 0);
}

/* The kernels the sequence puts on different streams were seen on
 * different streams (the graph's launch aside: a graph may run on a
 * stream of its own). */
static void test_two_streams(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_true(have_launches);
    const char *seen[2] = {NULL, NULL};
    for (int r = 0; r < launches.nrows; r++) {
        if (!ran(&launches, r) || gpu_number(&launches, r, "graph") != 0)
            continue;
        int k = mp_expect_kernel(gpu_cell(&launches, r, "kernel"));
        assert_true(k >= 0);
        for (int s = 0; s < APP_STEPS; s++)
            if (app_sequence[s].kernel == k && !app_sequence[s].graph) {
                const char *stream = gpu_cell(&launches, r, "stream");
                const char **slot = &seen[app_sequence[s].stream];
                if (*slot && strcmp(*slot, stream))
                    fail_msg("%s on stream %s, expected %s",
                             app_kernel_names[k], stream, *slot);
                *slot = stream;
            }
    }
    assert_non_null(seen[0]);
    assert_non_null(seen[1]);
    printf("# streams: %s and %s\n", seen[0], seen[1]);
    assert_true(strcmp(seen[0], seen[1]) != 0);
}

/* ---- check, crash, ncu ----------------------------------------------- */

static void test_check(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_int_equal(rc_check_bad, 1);
    assert_int_equal(rc_check_good, 0);
}

static void test_crash_flushed(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_int_equal(rc_crash, 128 + 11);
    assert_true(have_crash);
    int done = 0;
    for (int r = 0; r < crash.nrows; r++)
        done += ran(&crash, r);
    printf("# crash after 3 launches: %d launch rows\n", done);
    assert_true(done >= 3);
}

/* Identical launches one after another are flushed as runs of at most
 * 1000 (the default MEMPROBE_FLUSH_LAUNCHES): 2500 launches of tick make
 * rows of 1000, 1000 and 500 (the last ended by the program's copy),
 * numbered 0, 1000, 2000; each launch loads and stores one sector. */
static void test_short_runs(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_int_equal(rc_short, 0);
    assert_true(have_shorts);
    assert_int_equal(shorts.nrows, 3);
    static const double first[3] = {0, 1000, 2000}, n[3] = {1000, 1000, 500};
    for (int r = 0; r < 3; r++) {
        double got = gpu_number(&shorts, r, "launches");
        double sectors = gpu_number(&shorts, r,
                                    "smsp__sass_sectors_mem_global");
        printf("# row %d: launch %.0f, %.0f launches, %.0f global sectors\n",
               r, gpu_number(&shorts, r, "launch"), got, sectors);
        assert_true(gpu_number(&shorts, r, "launch") == first[r]);
        assert_true(got == n[r]);
        assert_true(sectors == 2 * n[r]);
        assert_true(gpu_number(&shorts, r,
                               "smsp__sass_sectors_mem_global_ideal")
                    == 2 * n[r]);
    }
}

/* A program that forks is followed: app --fork runs the sequence in two
 * processes; one CSV, two pids, each with the launch rows of the plain
 * run, and twice its shared wavefronts and global sectors. */
static double column_sum(const mp_csv_table *t, const char *col)
{
    double sum = 0;
    for (int r = 0; r < t->nrows; r++)
        sum += gpu_number(t, r, col);
    return sum;
}

static void test_fork_followed(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_int_equal(rc_fork, 0);
    assert_true(have_forked && have_launches && have_lines);
    const char *pid0 = gpu_cell(&forked, 0, "pid");
    int n0 = 0, n1 = 0;
    for (int r = 0; r < forked.nrows; r++) {
        if (!strcmp(gpu_cell(&forked, r, "pid"), pid0))
            n0++;
        else
            n1++;
    }
    printf("# fork: %d and %d launch rows (plain run %d)\n", n0, n1,
           launches.nrows);
    assert_int_equal(n0, launches.nrows);
    assert_int_equal(n1, launches.nrows);
    static const char *const cols[] = {
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
        "smsp__sass_sectors_mem_global"};
    for (int k = 0; k < 2; k++) {
        double plain = column_sum(&lines, cols[k]);
        double two = column_sum(&forked_lines, cols[k]);
        printf("# %s: %.0f forked, %.0f plain\n", cols[k], two, plain);
        assert_true(plain > 0 && two == 2 * plain);
    }
}

static void test_ncu_agrees(void **state)
{
    (void)state;
    NEED_RUNS();
    if (rc_ncu < 0)
        MP_SKIP("ncu not on PATH");
    assert_int_equal(rc_ncu, 0);
}

/* ncu-check --level kernel+: every launch's DRAM bytes, L2 sectors and L1
 * hit rate within the tolerances of crosscheck/ncu_kplus.c against ncu with
 * --cache-control all (its lines printed for the record). */
static void test_ncu_kplus_agrees(void **state)
{
    (void)state;
    NEED_RUNS();
    if (rc_ncu_kplus < 0)
        MP_SKIP("ncu not on PATH");
    char log[1200], line[2048];
    snprintf(log, sizeof log, "%s/ncu-check-kplus.log", dir);
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        printf("# %s", line);
    if (f)
        fclose(f);
    assert_int_equal(rc_ncu_kplus, 0);
}

/* ---- the range pass --------------------------------------------------- */

/* The row of table t with launch number `launch` and kernel k, or -1. */
static int row_of(const mp_csv_table *t, const char *launch, const char *k)
{
    for (int r = 0; r < t->nrows; r++)
        if (!strcmp(gpu_cell(t, r, "launch"), launch)
            && !strcmp(gpu_cell(t, r, "kernel"), k))
            return r;
    return -1;
}

/* --level kernel+: each kernel launch (not the graph's) has its range
 * values: the L1 hit rate in [0, 100]; the L2 hit rate in (0, 100] and
 * equal to its lookup hits / sectors, hits <= sectors; every launch
 * starts from a flushed L2, so load_aligned reads every byte it loads
 * from DRAM (on the H200 1.0088-1.0098x its 262144 bytes in 11 runs;
 * 2,304 bytes before the flush, the inputs warm in the L2), and no
 * launch writes back more than 16 KB (0 in every flushed run; 23-412 KB
 * were written back without the flush kernel:
 * results/h200/profile/l2-hit/); the first run's SASS counts are those
 * of the plain profile. */
static void test_kernel_plus(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_int_equal(rc_kplus, 0);
    assert_true(have_kplus && have_launches);
    int bad = 0, aligned = 0;
    for (int r = 0; r < kplus.nrows; r++) {
        const char *k = gpu_cell(&kplus, r, "kernel");
        const char *src = gpu_cell(&kplus, r, "range_counters");
        printf("# kernel+ %s launch %s: %s L1 %s%% L2 %s%% DRAM read %s "
               "write %s %s\n", k, gpu_cell(&kplus, r, "launch"), src,
               gpu_cell(&kplus, r, "l1tex__t_sector_hit_rate.pct"),
               gpu_cell(&kplus, r, "lts__t_sector_hit_rate.pct"),
               gpu_cell(&kplus, r, "dram__bytes_read.sum"),
               gpu_cell(&kplus, r, "dram__bytes_write.sum"),
               gpu_cell(&kplus, r, "range_why"));
        if (gpu_number(&kplus, r, "graph") == 1 || !ran(&kplus, r)) {
            bad += strcmp(src, "unavailable") != 0;
            continue;
        }
        if (strcmp(src, "range_profiler")) {
            bad++;
            continue;
        }
        double l1 = gpu_number(&kplus, r, "l1tex__t_sector_hit_rate.pct");
        double l2 = gpu_number(&kplus, r, "lts__t_sector_hit_rate.pct");
        double hits = gpu_number(&kplus, r, "lts__t_sectors_lookup_hit.sum");
        double sectors = gpu_number(&kplus, r, "lts__t_sectors.sum");
        double wr = gpu_number(&kplus, r, "dram__bytes_write.sum");
        printf("# kernel+ %s: L2 %.0f hits of %.0f sectors\n", k, hits,
               sectors);
        bad += !(l1 >= 0 && l1 <= 100) + !(l2 > 0 && l2 <= 100)
               + !(hits >= 0 && hits <= sectors)
               + !(fabs(l2 - 100.0 * hits / sectors) < 1e-9 * l2)
               + !(wr >= 0 && wr <= 16384);
        if (!strcmp(k, "load_aligned")) {
            double rd = gpu_number(&kplus, r, "dram__bytes_read.sum");
            double want = 4.0 * APP_LD_N;
            printf("# load_aligned DRAM read %.0f bytes, loads %.0f bytes\n",
                   rd, want);
            bad += !(rd >= want && rd <= 1.05 * want);
            aligned++;
        }
        int p = row_of(&launches, gpu_cell(&kplus, r, "launch"), k);
        if (p < 0 || strcmp(gpu_cell(&launches, p, SH_COL),
                            gpu_cell(&kplus, r, SH_COL))
            || strcmp(gpu_cell(&launches, p, GL_COL),
                      gpu_cell(&kplus, r, GL_COL))) {
            printf("# MISMATCH: %s launch %s SASS counts differ from the "
                   "plain profile\n", k, gpu_cell(&kplus, r, "launch"));
            bad++;
        }
    }
    assert_true(aligned > 0);
    assert_int_equal(bad, 0);
}

/* --fallback rerun: the program runs twice (its own last line twice); the
 * kernels of the NO_SASS hook have no line counts, the range profiler's
 * counts instead, equal to the SASS counts of the same launch in the
 * plain profile (conflict-free, coalesced kernels); the other kernels
 * keep their line counts and get no range values. */
static void test_fallback(void **state)
{
    (void)state;
    NEED_RUNS();
    assert_int_equal(rc_fallback, 0);
    assert_true(have_fallback && have_launches);
    assert_int_equal(log_lines("fallback", "every result verified"), 2);
    assert_int_equal(log_lines("fallback", "memprobe: running "), 1);
    int bad = 0, filled = 0;
    for (int r = 0; r < fallback.nrows; r++) {
        const char *k = gpu_cell(&fallback, r, "kernel");
        int hooked = !strcmp(k, "transpose_padded")
                     || !strcmp(k, "load_aligned");
        const char *lc = gpu_cell(&fallback, r, "line_counts");
        const char *src = gpu_cell(&fallback, r, "range_counters");
        if (!ran(&fallback, r))
            continue;
        if (!hooked) {
            bad += strcmp(lc, "exact") != 0 || src[0] != '\0';
            continue;
        }
        bad += strcmp(lc, "unavailable") != 0;
        if (gpu_number(&fallback, r, "graph") == 1) {
            bad += strcmp(src, "unavailable") != 0;
            continue;
        }
        int p = row_of(&launches, gpu_cell(&fallback, r, "launch"), k);
        if (p < 0 || strcmp(src, "range_profiler")) {
            printf("# MISMATCH: %s launch %s: %s %s\n", k,
                   gpu_cell(&fallback, r, "launch"), src,
                   gpu_cell(&fallback, r, "range_why"));
            bad++;
            continue;
        }
        double sh = gpu_number(&fallback, r, "l1tex__data_pipe_lsu_wavefronts"
                               "_mem_shared_op_ld.sum")
                    + gpu_number(&fallback, r, "l1tex__data_pipe_lsu_"
                                 "wavefronts_mem_shared_op_st.sum");
        double gl = gpu_number(&fallback, r, "l1tex__t_sectors_pipe_lsu_mem_"
                               "global_op_ld.sum")
                    + gpu_number(&fallback, r, "l1tex__t_sectors_pipe_lsu_"
                                 "mem_global_op_st.sum");
        double want_sh = gpu_number(&launches, p, SH_COL);
        double want_gl = gpu_number(&launches, p, GL_COL);
        printf("# fallback %s launch %s: shared %.0f (SASS %.0f), global "
               "%.0f (SASS %.0f)\n", k, gpu_cell(&fallback, r, "launch"), sh,
               want_sh, gl, want_gl);
        bad += sh != want_sh || gl != want_gl;
        filled++;
    }
    assert_true(filled >= 2);
    assert_int_equal(bad, 0);
}

#define NOT_RUN "not measured: the program runs once; --fallback rerun " \
    "runs it again for these launches"

/* Without --fallback the program runs once (its own last line once, no
 * range run): the kernels of the NO_SASS hook say line_counts=unavailable
 * and why, range_counters=unavailable with NOT_RUN and no range value;
 * the others keep their line counts and empty range columns. */
static void test_fallback_once(void **state)
{
    (void)state;
    NEED_RUNS();
    static const char *const values[] = {
        "l1tex__t_sector_hit_rate.pct", "dram__bytes_read.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"};
    assert_int_equal(rc_once, 0);
    assert_true(have_once);
    assert_int_equal(log_lines("once", "every result verified"), 1);
    assert_int_equal(log_lines("once", "memprobe: running "), 0);
    assert_int_equal(log_lines("once", "without line counts (no SASS "
                               "records: dropped by the test hook "
                               "MEMPROBE_INJECT_NO_SASS); --fallback rerun "
                               "runs the program again"), 1);
    int bad = 0, hooked_rows = 0;
    for (int r = 0; r < once.nrows; r++) {
        const char *k = gpu_cell(&once, r, "kernel");
        int hooked = !strcmp(k, "transpose_padded")
                     || !strcmp(k, "load_aligned");
        if (!ran(&once, r))
            continue;
        const char *lc = gpu_cell(&once, r, "line_counts");
        const char *src = gpu_cell(&once, r, "range_counters");
        const char *why = gpu_cell(&once, r, "range_why");
        int was = bad;
        if (hooked) {
            hooked_rows++;
            bad += strcmp(lc, "unavailable") != 0
                   || !strstr(gpu_cell(&once, r, "why"),
                              "MEMPROBE_INJECT_NO_SASS")
                   || strcmp(src, "unavailable") != 0
                   || strcmp(why, NOT_RUN) != 0;
        } else {
            bad += strcmp(lc, "exact") != 0 || src[0] || why[0];
        }
        for (size_t c = 0; c < sizeof values / sizeof *values; c++)
            bad += gpu_cell(&once, r, values[c])[0] != '\0';
        if (bad > was)
            printf("# MISMATCH: %s launch %s: %s, %s %s\n", k,
                   gpu_cell(&once, r, "launch"), lc, src, why);
    }
    assert_true(hooked_rows >= 2);
    assert_int_equal(bad, 0);
}

/* The first row of the main run (app, one pass) of this kernel, graph
 * or not; -1 when none. */
static int main_row(const char *kernel, const char *graph)
{
    for (int r = 0; r < launches.nrows; r++)
        if (ran(&launches, r) && !strcmp(gpu_cell(&launches, r, "kernel"),
                                         kernel)
            && !strcmp(gpu_cell(&launches, r, "graph"), graph))
            return r;
    return -1;
}

/* --per-kernel 1 on app --launches 3 --tail 4: one row per kernel (the
 * first pass's, each equal to the main run's row of that kernel, all six
 * counts), each kernel seen 3 times and profiled once; then tick, first
 * launched after SASS metrics went off (one unprofiled pass later), is
 * profiled once with its exact 2 sectors: the metrics came back on. */
static void test_per_kernel(void **state)
{
    (void)state;
    NEED_RUNS();
    static const char *const cols[] = {
        "smsp__sass_inst_executed", SH_COL, SH_COL "_ideal", GL_COL,
        GL_COL "_ideal", "smsp__sass_inst_executed_op_ld"};
    assert_int_equal(rc_per_kernel, 0);
    assert_true(have_per_kernel && have_launches);
    int bad = 0, rows = 0, ticks = 0;
    for (int r = 0; r < per_kernel.nrows; r++) {
        if (!ran(&per_kernel, r))
            continue;
        rows++;
        const char *k = gpu_cell(&per_kernel, r, "kernel");
        const char *graph = gpu_cell(&per_kernel, r, "graph");
        const char *seen = gpu_cell(&per_kernel, r, "kernel_launches_seen");
        const char *prof = gpu_cell(&per_kernel, r,
                                    "kernel_launches_profiled");
        printf("# %s graph %s: launches %s, seen %s, profiled %s, %s, "
               "global sectors %s\n", k, graph,
               gpu_cell(&per_kernel, r, "launches"), seen, prof,
               gpu_cell(&per_kernel, r, "line_counts"),
               gpu_cell(&per_kernel, r, GL_COL));
        int was = bad;
        bad += strcmp(gpu_cell(&per_kernel, r, "launches"), "1") != 0
               || strcmp(gpu_cell(&per_kernel, r, "line_counts"), "exact");
        if (!strcmp(k, "tick")) {
            ticks++;
            bad += strcmp(seen, "4") || strcmp(prof, "1")
                   || gpu_number(&per_kernel, r, GL_COL) != 2
                   || gpu_number(&per_kernel, r, GL_COL "_ideal") != 2;
        } else {
            int m = main_row(k, graph);
            bad += m < 0;
            for (size_t c = 0; m >= 0 && c < sizeof cols / sizeof *cols; c++)
                bad += gpu_number(&per_kernel, r, cols[c])
                       != gpu_number(&launches, m, cols[c]);
            if (strcmp(graph, "1"))
                bad += strcmp(seen, "3") || strcmp(prof, "1");
        }
        if (bad > was)
            printf("# MISMATCH in that row\n");
    }
    /* a row per kernel, the graph's and tick's; the launches: the full
     * sequence 3 times and 4 ticks */
    int steps = 0;
    for (int s = 0; s < APP_STEPS; s++)
        steps += (app_sequence[s].modes & APP_MODE_FULL) != 0;
    char said[96];
    snprintf(said, sizeof said, "memprobe: --per-kernel 1: %d of %d "
             "launches profiled", APP_KERNELS + 2, 3 * steps + 4);
    assert_int_equal(ticks, 1);
    assert_int_equal(rows, APP_KERNELS + 2);
    assert_int_equal(bad, 0);
    assert_int_equal(log_lines("per-kernel", said), 1);
    assert_int_equal(log_lines("per-kernel", "SASS metrics on 2, off 1:"),
                     1);
}

/* The N of "before N flushes" in the cost line of run name's log; -1. */
static long flushes(const char *name)
{
    char log[1200], line[4096];
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    FILE *f = fopen(log, "r");
    long n = -1;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "s before ");
        if (p && strstr(p, " flushes;"))
            n = strtol(p + strlen("s before "), NULL, 10);
    }
    if (f)
        fclose(f);
    return n;
}

/* Batches of up to 32 runs (the default) give the rows of a flush per
 * run (MEMPROBE_BATCH_RUNS=1), count for count, across the row table's
 * growth. */
static void test_batches_equal_runs(void **state)
{
    (void)state;
    NEED_RUNS();
    if (access(many, X_OK))
        MP_SKIP("%s not built (make %s)", many, many);
    static const char *const cols[] = {
        "launch", "launches", "mangled", "line_counts",
        "smsp__sass_inst_executed", SH_COL, SH_COL "_ideal", GL_COL,
        GL_COL "_ideal", "smsp__sass_inst_executed_op_ld"};
    assert_int_equal(rc_runs1, 0);
    assert_int_equal(rc_runs32, 0);
    assert_true(have_runs1 && have_runs32);
    /* a row a launch: the kernels alternate (300, and a warm-up round) */
    assert_true(runs1.nrows >= 300);
    assert_int_equal(runs32.nrows, runs1.nrows);
    int bad = 0, zero = 0;
    for (int r = 0; r < runs1.nrows; r++) {
        zero += gpu_number(&runs32, r, "smsp__sass_inst_executed") == 0;
        for (size_t c = 0; c < sizeof cols / sizeof *cols; c++)
            if (strcmp(gpu_cell(&runs1, r, cols[c]),
                       gpu_cell(&runs32, r, cols[c]))) {
                if (bad++ < 5)
                    printf("# row %d %s: %s with a flush per run, %s in "
                           "batches\n", r, cols[c],
                           gpu_cell(&runs1, r, cols[c]),
                           gpu_cell(&runs32, r, cols[c]));
            }
    }
    printf("# %d rows, %d cells differ, %d batched rows count nothing\n",
           runs1.nrows, bad, zero);
    assert_int_equal(zero, 0);
    assert_int_equal(bad, 0);
    /* and fewer flushes: a batch ends where a kernel name comes again */
    long f1 = flushes("many-runs1"), f32 = flushes("many-runs32");
    printf("# flushes: %ld with a flush per run, %ld in batches\n", f1,
           f32);
    assert_true(f1 >= runs1.nrows);
    assert_true(f32 > 0 && f32 * 2 < f1);
}

int main(void)
{
    const char *a = getenv("MP_PROFILE_APP");
    const char *src = getenv("MP_TEST_SOURCE");
    /* The build folder: beside memprobe, or build/ for ./memprobe. */
    char build[960];
    snprintf(build, sizeof build, "%s", gpu_build_dir());
    gpu_test_subdir("profile", dir, sizeof dir);
    snprintf(inject, sizeof inject, "%s/lib/libmemprobe_inject.so", build);
    if (a)
        snprintf(app, sizeof app, "%s", a);
    else
        snprintf(app, sizeof app, "%s/tests/profile/app", build);
    snprintf(many, sizeof many, "%s/tests/profile/many_launches", build);
    marker_line = mp_expect_marker_table(src ? src : ".", marker_err,
                                         sizeof marker_err);

    find_skip();
    if (!skip_why[0]) {
        gpu_make_test_dirs(dir);
        run_all();
    }
    static const struct CMUnitTest tests[] = {
        GPU_TEST("profile_runs", test_run),
        GPU_TEST("lines_equal_model", test_lines_equal_model),
        GPU_TEST("no_unmarked_line", test_no_unmarked_line),
        GPU_TEST("launch_rows_graph_nvtx_exact", test_launch_rows),
        GPU_TEST("two_streams", test_two_streams),
        GPU_TEST("check_app_fails_padded_passes", test_check),
        GPU_TEST("crash_keeps_flushed_launches", test_crash_flushed),
        GPU_TEST("short_launches_in_runs", test_short_runs),
        GPU_TEST("fork_followed", test_fork_followed),
        GPU_TEST("ncu_check_profile_agrees", test_ncu_agrees),
        GPU_TEST("ncu_check_kernel_plus_agrees", test_ncu_kplus_agrees),
        GPU_TEST("kernel_plus_range_values", test_kernel_plus),
        GPU_TEST("fallback_range_counts", test_fallback),
        GPU_TEST("fallback_off_runs_once", test_fallback_once),
        GPU_TEST("per_kernel_first_launches", test_per_kernel),
        GPU_TEST("batches_equal_runs", test_batches_equal_runs),
    };
    int rc = cmocka_run_group_tests_name("gpu_profile", tests, NULL, NULL);
    if (have_launches)
        mp_csv_free(&launches);
    if (have_lines)
        mp_csv_free(&lines);
    if (have_crash)
        mp_csv_free(&crash);
    if (have_shorts)
        mp_csv_free(&shorts);
    if (have_kplus)
        mp_csv_free(&kplus);
    if (have_per_kernel)
        mp_csv_free(&per_kernel);
    if (have_runs1)
        mp_csv_free(&runs1);
    if (have_runs32)
        mp_csv_free(&runs32);
    if (have_fallback)
        mp_csv_free(&fallback);
    if (have_once)
        mp_csv_free(&once);
    if (have_forked) {
        mp_csv_free(&forked);
        mp_csv_free(&forked_lines);
    }
    free(marker_line);
    return rc;
}
