/*
 * test_tap.c - the way `make test` and `make test-gpu` count skips:
 * scripts/tap-run.sh, MP_SKIP (tests/mp_skip.h) and scripts/tap-summary.sh.
 *
 * This program is also its own sample: `test_tap sample-KIND` runs a small
 * cmocka group (a pass, an MP_SKIP, a bare skip(), a failure or a crash)
 * whose TAP the tests run through tap-run.sh and check line by line, with
 * the exit status; prove, where installed, must count an MP_SKIP as
 * passing and a failure or a crash as failing. tap-summary.sh is checked
 * on those logs and on written TAP.
 *
 * Runs from the repository root (where `make test` runs).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_util.h"

#include "mp_skip.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the sample groups ------------------------------------------------- */

static void sample_passes(void **state)
{
    (void)state;
    assert_int_equal(1, 1);
}

static void sample_skips(void **state)
{
    (void)state;
    MP_SKIP("the sample's reason, %d words", 4);
}

static void sample_bare_skip(void **state)
{
    (void)state;
    skip();
}

static void sample_fails(void **state)
{
    (void)state;
    assert_int_equal(1, 2);
}

static void sample_crashes(void **state)
{
    (void)state;
    raise(SIGKILL);
}

static int run_sample(const char *kind)
{
    const struct CMUnitTest skip_group[] = {
        cmocka_unit_test(sample_passes),
        cmocka_unit_test(sample_skips),
    };
    const struct CMUnitTest fail_group[] = {
        cmocka_unit_test(sample_passes),
        cmocka_unit_test(sample_skips),
        cmocka_unit_test(sample_fails),
    };
    const struct CMUnitTest bare_group[] = {
        cmocka_unit_test(sample_bare_skip),
    };
    const struct CMUnitTest crash_group[] = {
        cmocka_unit_test(sample_passes),
        cmocka_unit_test(sample_crashes),
    };
#define RUN(g) _cmocka_run_group_tests("sample", g, sizeof g / sizeof g[0], \
                                       NULL, NULL)
    if (!strcmp(kind, "sample-skip"))
        return RUN(skip_group);
    if (!strcmp(kind, "sample-fail"))
        return RUN(fail_group);
    if (!strcmp(kind, "sample-bare"))
        return RUN(bare_group);
    if (!strcmp(kind, "sample-crash"))
        return RUN(crash_group);
#undef RUN
    fprintf(stderr, "test_tap: unknown sample '%s'\n", kind);
    return 2;
}

/* ---- running scripts ---------------------------------------------------- */

static char self[PATH_MAX];   /* this program, absolute */
static char tmp[PATH_MAX];    /* the group's temporary directory */

typedef struct {
    int status;   /* exit status, 128 + signal when killed */
    char *out;    /* stdout */
} sh_result;

/* `sh -c cmd` with stderr discarded; stdout captured. */
static void sh(const char *cmd, sh_result *r)
{
    char full[4096];
    if (snprintf(full, sizeof full, "(%s) 2>/dev/null", cmd)
        >= (int)sizeof full)
        fail_msg("command too long: %.80s...", cmd);
    r->out = cli_sh_out(full, &r->status, NULL);
}

static void expect(const sh_result *r, int status, const char *out)
{
    if (r->status != status || strcmp(r->out, out) != 0)
        fail_msg("exit %d, want %d; stdout:\n%s\nwant:\n%s", r->status,
                 status, r->out, out);
}

/* TMP/NAME: a program (a shell script) that runs `self KIND`, so that
 * prove and the log name it NAME. Returns its path (static buffer). */
static const char *sample(const char *name, const char *kind)
{
    static char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\nexec '%s' %s\n", self, kind);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, 0755), 0);
    return path;
}

/* ---- tap-run.sh ----------------------------------------------------------- */

static const char skip_tap[] =
    "1..2\n"
    "ok 1 - sample_passes\n"
    "# skip: the sample's reason, 4 words\n"
    "ok 2 - sample_skips # SKIP the sample's reason, 4 words\n"
    "# ok - sample\n";

/* An MP_SKIP becomes a passing skip carrying its reason; exit 0. */
static void test_skip_passes(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "scripts/tap-run.sh '%s' sample-skip", self);
    sh_result r;
    sh(cmd, &r);
    expect(&r, 0, skip_tap);
    free(r.out);
}

/* A failure stays "not ok" (the skip before it still passes), and the
 * program's non-zero exit status comes through. */
static void test_failure_stays(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "scripts/tap-run.sh '%s' sample-fail", self);
    sh_result r;
    sh(cmd, &r);
    if (r.status == 0)
        fail_msg("a failing program exited 0 through tap-run.sh");
    static const char head[] =
        "1..3\n"
        "ok 1 - sample_passes\n"
        "# skip: the sample's reason, 4 words\n"
        "ok 2 - sample_skips # SKIP the sample's reason, 4 words\n"
        "not ok 3 - sample_fails\n";
    if (strncmp(r.out, head, sizeof head - 1) != 0)
        fail_msg("stdout:\n%s\nwant it to start:\n%s", r.out, head);
    assert_non_null(strstr(r.out, "\n# not ok - sample\n"));
    free(r.out);
}

/* A skip() without a reason is a failure: exit 1. */
static void test_bare_skip_fails(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "scripts/tap-run.sh '%s' sample-bare", self);
    sh_result r;
    sh(cmd, &r);
    expect(&r, 1,
           "1..1\n"
           "not ok 1 - sample_bare_skip (skipped without a reason: use "
           "MP_SKIP)\n"
           "# ok - sample\n");
    free(r.out);
}

/* A program killed mid-run: 128 + SIGKILL, whatever it printed. */
static void test_crash_fails(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "scripts/tap-run.sh '%s' sample-crash", self);
    sh_result r;
    sh(cmd, &r);
    assert_int_equal(r.status, 128 + SIGKILL);
    assert_null(strstr(r.out, "ok 2"));
    free(r.out);
}

/* No program: a usage error, exit 2. */
static void test_run_usage(void **state)
{
    (void)state;
    sh_result r;
    sh("scripts/tap-run.sh", &r);
    expect(&r, 2, "");
    free(r.out);
}

/* prove, as make test runs it: the skip sample passes, the failing and
 * the crashing ones fail it. */
static void test_prove(void **state)
{
    (void)state;
    sh_result r;
    sh("command -v prove", &r);
    int have = r.status == 0;
    free(r.out);
    if (!have)
        MP_SKIP("prove not installed (Debian/Ubuntu: perl)");
    static const struct {
        const char *kind;
        int pass;
    } runs[] = {
        {"sample-skip", 1}, {"sample-fail", 0}, {"sample-bare", 0},
        {"sample-crash", 0},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char cmd[2 * PATH_MAX];
        snprintf(cmd, sizeof cmd, "prove -v --exec scripts/tap-run.sh '%s'",
                 sample(runs[i].kind, runs[i].kind));
        sh(cmd, &r);
        if (runs[i].pass) {
            if (r.status != 0 || !strstr(r.out, "All tests successful.")
                || !strstr(r.out, "Tests=2,"))
                fail_msg("%s: exit %d\n%s", cmd, r.status, r.out);
            assert_non_null(strstr(r.out, "\nok 2 - sample_skips # SKIP "
                                   "the sample's reason, 4 words\n"));
        } else if (r.status == 0 || strstr(r.out, "All tests successful")) {
            fail_msg("%s passed:\n%s", cmd, r.out);
        }
        free(r.out);
    }
}

/* ---- tap-summary.sh -------------------------------------------------------- */

/* The log tap-run.sh writes, summarised: two programs' tests counted,
 * each skip with its reason, the failure named; exit 1. The skip sample
 * alone: exit 0. */
static void test_summary_of_log(void **state)
{
    (void)state;
    sample("test_one", "sample-skip");
    sample("test_two", "sample-fail");
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "export MP_TAP_LOG='%s/log'; : > \"$MP_TAP_LOG\"; "
             "scripts/tap-run.sh '%s/test_one' >/dev/null; "
             "scripts/tap-run.sh '%s/test_two' >/dev/null; "
             "scripts/tap-summary.sh \"$MP_TAP_LOG\"", tmp, tmp, tmp);
    sh_result r;
    sh(cmd, &r);
    expect(&r, 1,
           "tests: 2 ok, 1 not ok, 2 skipped\n"
           "skip: test_one:sample_skips the sample's reason, 4 words\n"
           "skip: test_two:sample_skips the sample's reason, 4 words\n"
           "fail: test_two:sample_fails not ok\n");
    free(r.out);

    /* The log itself: each program's TAP between its name and status. */
    snprintf(cmd, sizeof cmd, "head -n 7 '%s/log'", tmp);
    sh(cmd, &r);
    char want[PATH_MAX + sizeof skip_tap + 64];
    snprintf(want, sizeof want, "# program: %s/test_one\n%s# exit: 0\n",
             tmp, skip_tap);
    expect(&r, 0, want);
    free(r.out);

    snprintf(cmd, sizeof cmd,
             "export MP_TAP_LOG='%s/log1'; : > \"$MP_TAP_LOG\"; "
             "scripts/tap-run.sh '%s/test_one' >/dev/null; "
             "scripts/tap-summary.sh \"$MP_TAP_LOG\"", tmp, tmp);
    sh(cmd, &r);
    expect(&r, 0,
           "tests: 1 ok, 0 not ok, 1 skipped\n"
           "skip: test_one:sample_skips the sample's reason, 4 words\n");
    free(r.out);
}

/* Written TAP: a program that stopped before its plan was done (its
 * missing tests count as not ok), one that exited non-zero with every
 * test passing, names with blanks, a skip without a reason. */
static void test_summary_written(void **state)
{
    (void)state;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/written", tmp);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# program: build/tests/test_a\n"
          "1..4\n"
          "ok 1 - ok: bank --stride 4\n"
          "# a diagnostic line\n"
          "ok 2 - no gpu # SKIP a GPU is present: this test checks it\n"
          "# exit: 137\n"
          "# program: build/tests/gpu/test_b\n"
          "1..2\n"
          "ok 1 - one\n"
          "ok 2 - two # skip\n"
          "# exit: 3\n"
          "# program: build/tests/test_c\n"
          "1..1\n"
          "ok 1 - fine\n"
          "# exit: 0\n", f);
    assert_int_equal(fclose(f), 0);
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "scripts/tap-summary.sh '%s'", path);
    sh_result r;
    sh(cmd, &r);
    expect(&r, 1,
           "tests: 3 ok, 2 not ok, 2 skipped\n"
           "skip: test_a:no_gpu a GPU is present: this test checks it\n"
           "skip: test_b:two (no reason given)\n"
           "fail: test_a exit 137, 2 of 4 planned tests never reported\n"
           "fail: test_b exit 3\n");
    free(r.out);

    /* Only the last program: all well. */
    snprintf(cmd, sizeof cmd,
             "sed -n '/test_c/,$p' '%s' > '%s.c' && "
             "scripts/tap-summary.sh '%s.c'", path, path, path);
    sh(cmd, &r);
    expect(&r, 0, "tests: 1 ok, 0 not ok, 0 skipped\n");
    free(r.out);

    /* No log, or one that cannot be read: exit 2. */
    sh("scripts/tap-summary.sh", &r);
    expect(&r, 2, "");
    free(r.out);
    snprintf(cmd, sizeof cmd, "scripts/tap-summary.sh '%s/none'", tmp);
    sh(cmd, &r);
    expect(&r, 2, "");
    free(r.out);
}

/* ---- the group ------------------------------------------------------------ */

static int setup(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/memprobe-tap-XXXXXX");
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cli_remove_tree(tmp);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return run_sample(argv[1]);
    if (!realpath(argv[0], self)) {
        fprintf(stderr, "test_tap: cannot resolve %s\n", argv[0]);
        return 1;
    }
    /* The samples' TAP must not reach the log of the make test that
     * runs this program. */
    unsetenv("MP_TAP_LOG");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skip_passes),
        cmocka_unit_test(test_failure_stays),
        cmocka_unit_test(test_bare_skip_fails),
        cmocka_unit_test(test_crash_fails),
        cmocka_unit_test(test_run_usage),
        cmocka_unit_test(test_prove),
        cmocka_unit_test(test_summary_of_log),
        cmocka_unit_test(test_summary_written),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
