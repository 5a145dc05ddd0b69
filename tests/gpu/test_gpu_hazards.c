/*
 * test_gpu_hazards.c - GPU test of the hazard catalogue (run on the GPU
 * machine by `make test-gpu`; needs compute-sanitizer).
 *
 * Runs `memprobe hazards` once (every hazard with a result check and under
 * memcheck, racecheck, synccheck and initcheck), prints its table, reads
 * its CSV back and checks:
 *  - exit 0: the correct kernel came out right and clean under every tool,
 *    and no run failed (outcome "error");
 *  - every bug shows: each hazard kernel is caught by at least one tool, or
 *    its result is wrong, or it hung (timeout) in at least one of its rows;
 *  - the table matches what the tools report: one test per CSV row, named
 *    hazard/tTHREADS/tool, checks the cell against the tool's own verdict
 *    in the row's log (exit status 9 = the tool counted an error; the
 *    finding's first line is in the log; "not caught" = exit 0 and a
 *    summary of 0 errors);
 *  - the outcomes docs/hazards.md says are certain (a missing level is
 *    always a wrong sum, ...); the others are printed beside the
 *    prediction, not asserted.
 *
 * MEMPROBE names the binary (default ./memprobe); GPU_TEST_DIR where the
 * CSV and logs go (default results/gpu-test); HAZARDS_TIMEOUT the seconds
 * one run may take (default 20).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "gpu_util.h"
#include "hazards.h"
#include "subprocess.h"

static mp_csv_table table;
static int hazards_rc;
static double timeout_s;

/* ---- the run ------------------------------------------------------------ */

static void print_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        printf("# %s", line);
    fclose(f);
}

/* Runs memprobe hazards into GPU_TEST_DIR and reads its CSV. */
static void run_hazards(void)
{
    char csv[1024], logs[1024], log[1024], err[512];
    const char *dir = gpu_test_dir();
    const char *t = getenv("HAZARDS_TIMEOUT");
    timeout_s = t ? atof(t) : 20;
    if (!(timeout_s > 0))
        timeout_s = 20;
    char timeout[32];
    snprintf(timeout, sizeof timeout, "%g", timeout_s);
    mkdir("results", 0777);
    mkdir(dir, 0777);
    snprintf(csv, sizeof csv, "%s/hazards.csv", dir);
    snprintf(logs, sizeof logs, "%s/hazards-logs", dir);
    snprintf(log, sizeof log, "%s/hazards.log", dir);
    remove(csv);
    remove(log);
    char *argv[] = {(char *)gpu_memprobe(), "hazards", "--timeout", timeout,
                    "-o", csv, "--log-dir", logs, NULL};
    /* 35 runs; a limit for the whole table too, in case the limit per run
     * itself failed. */
    hazards_rc = mp_spawn_wait_timeout(argv, log, 560);
    printf("# memprobe hazards --timeout %s -o %s -> exit %d\n", timeout, csv,
           hazards_rc);
    print_file(log);
    fflush(stdout);
    if (mp_csv_table_read(csv, &table, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
}

/* ---- helpers ------------------------------------------------------------ */

static int find_row(const char *hazard, int threads, const char *tool)
{
    for (int r = 0; r < table.nrows; r++)
        if (!strcmp(gpu_cell(&table, r, "hazard"), hazard)
            && gpu_number(&table, r, "threads") == threads
            && !strcmp(gpu_cell(&table, r, "tool"), tool))
            return r;
    return -1;
}

static const char *outcome_of(const char *hazard, int threads,
                              const char *tool)
{
    int r = find_row(hazard, threads, tool);
    if (r < 0)
        fail_msg("no row %s/t%d/%s", hazard, threads, tool);
    return gpu_cell(&table, r, "outcome");
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    if (s) {
        size_t got = fread(s, 1, (size_t)n, f);
        s[got] = '\0';
    }
    fclose(f);
    return s;
}

/* ---- tests -------------------------------------------------------------- */

static void test_exit_status(void **state)
{
    (void)state;
    if (hazards_rc != 0)
        fail_msg("memprobe hazards exited %d (1: the correct kernel was not "
                 "right and clean everywhere)", hazards_rc);
    /* Every hazard row with no tool and under the four tools. */
    assert_int_equal(table.nrows, mp_hazard_nrows * MP_TOOL_COUNT);
}

static void test_correct_clean(void **state)
{
    (void)state;
    int rows = 0;
    for (int r = 0; r < table.nrows; r++) {
        if (strcmp(gpu_cell(&table, r, "hazard"), "correct"))
            continue;
        const char *tool = gpu_cell(&table, r, "tool");
        const char *want = strcmp(tool, "none") ? "not_caught" : "right";
        if (strcmp(gpu_cell(&table, r, "outcome"), want)
            || strcmp(gpu_cell(&table, r, "result"), "right"))
            fail_msg("correct/t%s/%s: %s, result %s: %s",
                     gpu_cell(&table, r, "threads"), tool,
                     gpu_cell(&table, r, "outcome"),
                     gpu_cell(&table, r, "result"),
                     gpu_cell(&table, r, "finding"));
        rows++;
    }
    assert_int_equal(rows, 2 * MP_TOOL_COUNT);
}

/* Each bug is seen by something: a tool, the result, or a hang; except
 * the one bug that sm_70+ hardware makes harmless. Measured on the H200:
 * ptxas predicates the divergent __syncthreads() (@!P
 * BAR.SYNC), warps that skip it exit, and exited threads do not hold a
 * barrier up, so the block finishes with the right sum, and synccheck
 * (which reports divergent barriers only below sm_70) says nothing. The
 * table still shows it; the test only asks that it did not hang. */
static int silent_on_this_gpu(int k)
{
    return k == MP_HZ_SYNC_IN_DIVERGENT_IF;
}

static void test_every_hazard_shows(void **state)
{
    (void)state;
    for (int k = 0; k < MP_HZ_COUNT; k++) {
        if (k == MP_HZ_CORRECT)
            continue;
        const char *name = mp_hazard_defs[k].name;
        char seen[512] = "";
        for (int r = 0; r < table.nrows; r++) {
            if (strcmp(gpu_cell(&table, r, "hazard"), name))
                continue;
            const char *o = gpu_cell(&table, r, "outcome");
            if (!strcmp(o, "caught") || !strcmp(o, "wrong")
                || !strcmp(o, "timeout"))
                snprintf(seen + strlen(seen), sizeof seen - strlen(seen),
                         " t%s/%s:%s", gpu_cell(&table, r, "threads"),
                         gpu_cell(&table, r, "tool"), o);
        }
        printf("# %-22s shown by%s\n", name, seen[0] ? seen : " NOTHING");
        if (silent_on_this_gpu(k))
            continue;
        if (!seen[0])
            fail_msg("%s: no tool caught it, its result was right and it "
                     "never hung", name);
    }
}

/* One CSV row against its log: the table says what the tool said. */
static void row_test(void **state)
{
    int r = (int)(intptr_t)*state;
    const char *tool = gpu_cell(&table, r, "tool");
    const char *out = gpu_cell(&table, r, "outcome");
    const char *status = gpu_cell(&table, r, "exit_status");
    const char *finding = gpu_cell(&table, r, "finding");
    if (!strcmp(out, "error"))
        fail_msg("the run failed: %s (log %s)", finding,
                 gpu_cell(&table, r, "log"));
    if (!strcmp(out, "timeout")) {
        assert_string_equal(status, "");
        assert_true(gpu_number(&table, r, "seconds") >= timeout_s * 0.99);
        return;
    }
    char *log = read_text(gpu_cell(&table, r, "log"));
    if (!log)
        fail_msg("log %s missing", gpu_cell(&table, r, "log"));
    if (!strcmp(tool, "none")) {
        /* The plain run: exit 0 right, 1 wrong, and the result line. */
        assert_string_equal(status, !strcmp(out, "right") ? "0" : "1");
        assert_non_null(strstr(log, ": result "));
    } else if (!strcmp(out, "caught")) {
        /* The finding's first line is the tool's, in the log. */
        char head[512];
        snprintf(head, sizeof head, "%s", finding);
        char *cut = strstr(head, "; ");
        if (cut)
            *cut = '\0';
        if (!head[0] || !strstr(log, head))
            fail_msg("finding '%s' not in the log", head);
        int errors = (int)gpu_number(&table, r, "errors");
        int warnings = (int)gpu_number(&table, r, "warnings");
        /* The tool's exit status counts errors; a warning alone (racecheck)
         * leaves it 0. */
        if (errors > 0)
            assert_string_equal(status, "9");
        else if (!(warnings > 0 || !strcmp(status, "9")))
            fail_msg("caught without an error, a warning or exit 9");
    } else {
        /* Not caught: the tool finished with nothing to report. */
        assert_string_equal(out, "not_caught");
        assert_string_equal(status, "0");
        assert_true(gpu_number(&table, r, "errors") == 0);
        assert_true(gpu_number(&table, r, "warnings") == 0);
        if (!strstr(log, "ERROR SUMMARY: 0 errors")
            && !strstr(log, "RACECHECK SUMMARY: 0 hazards"))
            fail_msg("no clean summary in %s", gpu_cell(&table, r, "log"));
    }
    free(log);
}

/* docs/hazards.md's predictions: certain ones asserted, the others
 * printed beside what happened. */
typedef struct {
    const char *hazard;
    int threads;
    const char *tool;
    const char *predicted;
    int certain;
    const char *why;
} prediction;

static const prediction predictions[] = {
    {"halving-shift-2", 256, "none", "wrong", 1,
     "levels 64, 16, 4, 1 never added: 16 of 256 partials summed"},
    {"halving-shift-2", 256, "memcheck", "not_caught", 1, "in bounds"},
    {"halving-shift-2", 256, "racecheck", "not_caught", 1,
     "every step has its barrier"},
    {"halving-shift-2", 256, "synccheck", "not_caught", 1, "no divergence"},
    {"halving-shift-2", 256, "initcheck", "not_caught", 1,
     "every partial written"},
    {"result-by-thread-2", 64, "none", "right", 1,
     "the loop's last barrier publishes cache[0]"},
    {"result-by-thread-2", 64, "racecheck", "not_caught", 1,
     "the read of cache[0] is after a barrier"},
    {"result-by-thread-2", 2, "none", "wrong", 1,
     "no thread 2: no partial written"},
    {"result-by-thread-2", 2, "initcheck", "caught", 0,
     "the finalize kernel reads 64 unwritten partials"},
    {"missing-barrier", 256, "racecheck", "caught", 1,
     "thread t reads cache[t + 128], another warp's write, unordered"},
    {"missing-barrier", 256, "none", "wrong", 0,
     "depends on warp timing"},
    {"sync-in-divergent-if", 256, "synccheck", "not_caught", 0,
     "H200: the predicated BAR.SYNC is not reported on sm_70+"},
    {"sync-in-divergent-if", 256, "none", "right", 0,
     "sm_70+: exited threads do not hold the barrier up"},
};

static void test_predictions(void **state)
{
    (void)state;
    int failed = 0;
    printf("# %-36s %-11s %-11s %s\n", "cell", "predicted", "observed",
           "why");
    for (size_t i = 0; i < sizeof predictions / sizeof predictions[0]; i++) {
        const prediction *p = &predictions[i];
        const char *o = outcome_of(p->hazard, p->threads, p->tool);
        char cell[64];
        snprintf(cell, sizeof cell, "%s/t%d/%s", p->hazard, p->threads,
                 p->tool);
        int ok = !strcmp(o, p->predicted);
        printf("# %-36s %-11s %-11s %s%s\n", cell, p->predicted, o, p->why,
               ok ? "" : p->certain ? "  <- DIFFERS (certain)"
                                    : "  <- differs");
        failed += !ok && p->certain;
    }
    if (failed)
        fail_msg("%d certain prediction(s) differ", failed);
}

int main(void)
{
    run_hazards();
    int nfixed = 4;
    struct CMUnitTest *tests =
        calloc((size_t)table.nrows + nfixed + 1, sizeof *tests);
    char **names = calloc((size_t)table.nrows + 1, sizeof *names);
    if (!tests || !names)
        return 1;
    int n = 0;
    tests[n++] = (struct CMUnitTest)GPU_TEST("exit_status", test_exit_status);
    tests[n++] = (struct CMUnitTest)GPU_TEST("correct_clean",
                                             test_correct_clean);
    tests[n++] = (struct CMUnitTest)GPU_TEST("every_hazard_shows",
                                             test_every_hazard_shows);
    for (int r = 0; r < table.nrows; r++) {
        names[r] = malloc(96);
        if (!names[r])
            return 1;
        snprintf(names[r], 96, "%s/t%s/%s", gpu_cell(&table, r, "hazard"),
                 gpu_cell(&table, r, "threads"), gpu_cell(&table, r, "tool"));
        tests[n++] = (struct CMUnitTest){names[r], row_test, NULL, NULL,
                                         (void *)(intptr_t)r};
    }
    tests[n++] = (struct CMUnitTest)GPU_TEST("predictions", test_predictions);
    int failed = _cmocka_run_group_tests("gpu_hazards", tests, (size_t)n,
                                         NULL, NULL);
    for (int r = 0; r < table.nrows; r++)
        free(names[r]);
    free(names);
    free(tests);
    mp_csv_free(&table);
    return failed;
}
