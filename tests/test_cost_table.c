/*
 * test_cost_table.c - scripts/cost-table.sh, the table of the profilecost
 * step of scripts/gpu-check.sh, on made-up runs: tests/data/cost/ (every
 * mode of both programs: complete runs, a run cut by its time limit
 * before the warm-up ended and leaving a process on the GPU, a missing
 * profiler, a rejected option, a run not started) and small folders written here. Each figure, ratio and
 * added time it prints is checked against the number worked out from the
 * logs' step times, to the printed precision.
 *
 * Runs from the repository root (where `make test` runs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_util.h"
#include "mp_skip.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCELLS 11   /* program mode rc wall reached figure from x added goal note */
enum { C_PROG, C_MODE, C_RC, C_WALL, C_REACHED, C_FIG, C_FROM, C_RATIO,
       C_ADDED, C_GOAL, C_NOTE };

static char tmp[PATH_MAX];

/* `scripts/cost-table.sh DIR` (stderr dropped): its stdout; *status its
 * exit status. */
static char *table(const char *dir, int *status)
{
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "scripts/cost-table.sh '%s' 2>/dev/null", dir);
    return cli_sh_out(cmd, status, NULL);
}

/* The cells (trimmed, in buf) of the table row of program prog whose mode
 * cell starts with mode; fails the test when there is none. */
static void row(const char *out, const char *prog, const char *mode,
                char *buf, size_t size, char **cell)
{
    for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
        size_t len = strcspn(l, "\n");
        if (len >= size || strncmp(l, "| ", 2) != 0)
            continue;
        memcpy(buf, l + 1, len - 1);
        buf[len - 1] = '\0';
        int n = 0;
        for (char *c = buf, *bar; n < NCELLS && (bar = strchr(c, '|')); c = bar + 1) {
            *bar = '\0';
            while (*c == ' ')
                c++;
            for (char *e = bar; e > c && e[-1] == ' '; e--)
                e[-1] = '\0';
            cell[n++] = c;
        }
        if (n == NCELLS && !strcmp(cell[C_PROG], prog)
            && !strncmp(cell[C_MODE], mode, strlen(mode)))
            return;
    }
    fail_msg("no row '%s' '%s' in:\n%s", prog, mode, out);
}

/* The cell's leading number equals want to the printed precision
 * (half a unit of its last decimal). */
static void number_is(const char *what, const char *cell, double want)
{
    char *end;
    double got = strtod(cell, &end);
    if (end == cell)
        fail_msg("%s: '%s' is not a number (want %.4f)", what, cell, want);
    const char *dot = strchr(cell, '.');
    int decimals = dot && dot < end ? (int)(end - dot - 1) : 0;
    double half = 0.5 * pow(10.0, -decimals) + 1e-9;
    if (fabs(got - want) > half)
        fail_msg("%s: printed %s, want %.4f", what, cell, want);
}

static void contains(const char *what, const char *cell, const char *needle)
{
    if (!strstr(cell, needle))
        fail_msg("%s: '%s' lacks '%s'", what, cell, needle);
}

static double median3(double a, double b, double c)
{
    return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

/* The fixture's train_loop: alone = median of the runs' medians over
 * steps 5-7; full and pk3 against it; ncu-src cut at step 3 (steps 1-3
 * used); ncu-metrics without ncu. */
static void test_train_loop(void **state)
{
    (void)state;
    int st;
    char *out = table("tests/data/cost", &st);
    assert_int_equal(st, 0);
    char buf[1024], *c[NCELLS];
    double alone = median3(2.7, 2.6, 2.9);   /* each run's steps 5-7 */

    row(out, "train_loop", "alone", buf, sizeof buf, c);
    number_is("alone figure", c[C_FIG], alone);
    number_is("alone ratio", c[C_RATIO], 1.0);
    contains("alone note", c[C_NOTE], "runs 2.700, 2.600, 2.900; spread 2.600-2.900");
    contains("alone rc", c[C_RC], "0 0 0");
    contains("alone from", c[C_FROM], "steps 5-7");

    row(out, "train_loop", "full", buf, sizeof buf, c);
    number_is("full figure", c[C_FIG], 28.0);          /* 27.0 29.7 28.0 */
    number_is("full ratio", c[C_RATIO], 28.0 / alone);
    contains("full goal", c[C_GOAL], "<= 10x: NOT met");
    number_is("full wall", c[C_WALL], 21.5);

    row(out, "train_loop", "pk3", buf, sizeof buf, c);
    number_is("pk3 figure", c[C_FIG], 2.943);          /* 2.9 2.943 3.1 */
    number_is("pk3 ratio", c[C_RATIO], 2.943 / alone);
    contains("pk3 goal", c[C_GOAL], "<= 1.1x: met");

    row(out, "train_loop", "ncu-src", buf, sizeof buf, c);
    number_is("ncu-src figure", c[C_FIG], 540.0);      /* 540 270 810 */
    number_is("ncu-src ratio", c[C_RATIO], 540.0 / alone);
    contains("ncu-src reached", c[C_REACHED], "4/8 steps");
    contains("ncu-src from", c[C_FROM], "steps 1-3 (warm-up 5 not reached)");
    contains("ncu-src note", c[C_NOTE],
             "timed out at 150 s; 1 processes still on the GPU after it");

    row(out, "train_loop", "ncu-metrics", buf, sizeof buf, c);
    assert_string_equal(c[C_FIG], "-");
    assert_string_equal(c[C_RATIO], "-");
    contains("ncu-metrics note", c[C_NOTE], "command not found (exit 127)");
    free(out);
}

/* The fixture's many: alone = median per-launch us of three runs; full
 * adds 40 us a launch; ncu-src cut after 3000 launches (its progress
 * line used); pk3 rejected; ncu-metrics not started. */
static void test_many(void **state)
{
    (void)state;
    int st;
    char *out = table("tests/data/cost", &st);
    assert_int_equal(st, 0);
    char buf[1024], *c[NCELLS];
    double alone = median3(2.0, 2.5, 3.0);

    row(out, "many", "alone", buf, sizeof buf, c);
    number_is("alone figure", c[C_FIG], alone);
    number_is("alone added", c[C_ADDED], 0.0);
    contains("alone note", c[C_NOTE], "spread 2.00-3.00");

    row(out, "many", "full", buf, sizeof buf, c);
    number_is("full figure", c[C_FIG], 42.5);
    number_is("full ratio", c[C_RATIO], 42.5 / alone);
    number_is("full added", c[C_ADDED], 42.5 - alone);
    contains("full goal", c[C_GOAL], "<= 50 us added: met");
    contains("full reached", c[C_REACHED], "10000/10000 launches");

    row(out, "many", "ncu-src", buf, sizeof buf, c);
    number_is("ncu-src figure", c[C_FIG], 1500.0 * 1000.0 / 3000.0);
    number_is("ncu-src added", c[C_ADDED], 500.0 - alone);
    number_is("ncu-src ratio", c[C_RATIO], 500.0 / alone);
    contains("ncu-src reached", c[C_REACHED], "3000/10000 launches");
    contains("ncu-src from", c[C_FROM], "progress line");

    row(out, "many", "pk3", buf, sizeof buf, c);
    assert_string_equal(c[C_FIG], "-");
    contains("pk3 note", c[C_NOTE], "memprobe rejected --per-kernel (exit 2)");

    row(out, "many", "ncu-metrics", buf, sizeof buf, c);
    assert_string_equal(c[C_RC], "skipped");
    contains("ncu-metrics note", c[C_NOTE], "not run: not started, 12 s left");
    free(out);
}

/* An even number of steps after the warm-up: the mean of the middle two;
 * a run that reached only step 0 uses it; no alone run, no ratio; no
 * runs.txt, rc and wall "-". */
static void test_edges(void **state)
{
    (void)state;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/train_loop-full.log", tmp);
    cli_write_file(path, "train_loop: start steps 5 warmup 1 device X\n"
                         "step 0 ms 100.000\nstep 1 ms 1.000\nstep 2 ms 2.000\n"
                         "memprobe: step 3 ms 3.000\nstep 4 ms 10.000\n");
    snprintf(path, sizeof path, "%s/train_loop-pk3.log", tmp);
    cli_write_file(path, "train_loop: start steps 5 warmup 1 device X\n"
                         "step 0 ms 700.000\n");
    int st;
    char *out = table(tmp, &st);
    assert_int_equal(st, 0);
    char buf[1024], *c[NCELLS];
    row(out, "train_loop", "full", buf, sizeof buf, c);
    number_is("even median", c[C_FIG], (2.0 + 3.0) / 2);
    contains("full from", c[C_FROM], "steps 1-4");
    assert_string_equal(c[C_RATIO], "-");
    assert_string_equal(c[C_RC], "-");
    contains("full goal", c[C_GOAL], "no figure");
    row(out, "train_loop", "pk3", buf, sizeof buf, c);
    number_is("step 0 alone", c[C_FIG], 700.0);
    contains("pk3 reached", c[C_REACHED], "1/5 steps");
    row(out, "train_loop", "alone", buf, sizeof buf, c);
    contains("alone note", c[C_NOTE], "no alone figure");
    free(out);
}

/* No folder, or a folder without logs: exit 2, no table. */
static void test_usage(void **state)
{
    (void)state;
    int st;
    char *out = cli_sh_out("scripts/cost-table.sh 2>/dev/null", &st, NULL);
    assert_int_equal(st, 2);
    assert_string_equal(out, "");
    free(out);
    char empty[PATH_MAX + 16];
    snprintf(empty, sizeof empty, "%s/empty", tmp);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "mkdir '%s'", empty);
    free(cli_sh_out(cmd, &st, NULL));
    out = table(empty, &st);
    assert_int_equal(st, 2);
    assert_string_equal(out, "");
    free(out);
    out = table("/nonexistent-cost-folder", &st);
    assert_int_equal(st, 2);
    free(out);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/memprobe-cost-XXXXXX");
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cli_remove_tree(tmp);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_loop),
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
