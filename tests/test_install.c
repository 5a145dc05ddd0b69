/*
 * test_install.c - `make install` as a user meets it, without a GPU:
 * installs into a staged prefix (DESTDIR=STAGE PREFIX=/opt/memprobe),
 * moves the whole prefix elsewhere, and runs the installed memprobe from
 * another directory on the README's examples that need no GPU: list,
 * predict, report, hierarchy, compare, the study (from the installed
 * data), explain --capture (explain's H200 figures from the installed
 * data) and profile (which must find its injection library). Each prints
 * what the checkout's memprobe prints. The installed files' RPATH names
 * neither the checkout nor the stage; make uninstall removes every file;
 * a relative PREFIX is refused.
 *
 * Runs from the repository root (make test does) in a temporary folder of
 * its own (tests/cli_util.h); under SANITIZE=1 it installs the sanitized
 * build.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"

/* The test's folder is a short /tmp/memprobe-install-XXXXXX; the
 * buffers below are sized for any path, without truncation. */
#define DIRLEN PATH_MAX
#define PATHLEN (DIRLEN + 64)
#define CMDLEN (8 * PATHLEN)

static char bin[PATHLEN];     /* the moved prefix's bin/memprobe */
static char share[PATHLEN];   /* its share/memprobe */
static int installed;

/* `sh -c cmd`'s status, stdout and stderr (free with cli_result_free). */
static void sh_run(const char *cmd, cli_result *r)
{
    size_t n = strlen(cmd) + 32;
    char *full = malloc(n);
    assert_non_null(full);
    snprintf(full, n, "(%s) >sh.out 2>sh.err", cmd);
    int st = system(full);
    free(full);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    r->out = cli_read_file("sh.out", &r->outlen);
    r->err = cli_read_file("sh.err", &r->errlen);
    unlink("sh.out");
    unlink("sh.err");
}

/* make GOAL VARS in the checkout, as a user runs it (no enclosing make's
 * flags; the sanitized build under SANITIZE=1). */
static void run_make(const char *goal_vars, cli_result *r)
{
    const char *m = getenv("MEMPROBE");
    char cmd[CMDLEN];
    snprintf(cmd, sizeof cmd, "unset MAKEFLAGS MFLAGS MAKELEVEL "
             "MAKEOVERRIDES; cd '%s' && make -s --no-print-directory %s%s",
             cli_in_repo(""), goal_vars,
             m && strstr(m, "build/san/") ? " SANITIZE=1" : "");
    sh_run(cmd, r);
}

/* Fails the tests after a failed install (the first test says why). */
static void need_installed(void)
{
    if (!installed)
        fail_msg("nothing installed: test_install_and_move failed");
}

/* The installed memprobe ARGS (a shell line) in the test's folder. */
static void run_installed(const char *args, cli_result *r)
{
    need_installed();
    char cmd[CMDLEN + PATHLEN + 8];
    snprintf(cmd, sizeof cmd, "'%s' %s", bin, args);
    sh_run(cmd, r);
}

static void must_exist(const char *dir, const char *rel)
{
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (!cli_path_exists(path))
        fail_msg("not installed: %s", path);
}

/* Installs into STAGE, moves STAGE/opt/memprobe to moved/ and removes the
 * stage: what remains works only if nothing points back into either. */
static void test_install_and_move(void **state)
{
    (void)state;
    char cwd[DIRLEN], vars[PATHLEN], cmd[CMDLEN];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(vars, sizeof vars, "install DESTDIR='%s/stage' "
             "PREFIX=/opt/memprobe", cwd);
    cli_result r;
    run_make(vars, &r);
    if (r.status != 0)
        fail_msg("make %s: exit %d\n%s%s", vars, r.status, r.out, r.err);
    cli_result_free(&r);
    snprintf(cmd, sizeof cmd, "mv '%s/stage/opt/memprobe' '%s/moved' && "
             "rm -rf '%s/stage'", cwd, cwd, cwd);
    assert_int_equal(system(cmd), 0);
    snprintf(bin, sizeof bin, "%s/moved/bin/memprobe", cwd);
    snprintf(share, sizeof share, "%s/moved/share/memprobe", cwd);
    char lib[PATHLEN];
    snprintf(lib, sizeof lib, "%s/moved/lib/memprobe", cwd);
    const char *libs[] = {"libmemprobe_inject.so", "libmemprobe_client.so",
                          "libcupti.so.13"};
    for (size_t i = 0; i < CLI_COUNT(libs); i++)
        must_exist(lib, libs[i]);
    must_exist(share, "results/h200/study/study.csv");
    must_exist(share, "results/h200/coalesce/coalesce-w8.csv");
    installed = cli_path_exists(bin);
    assert_true(installed);
}

/* Every gnuplot script of the families, in share/memprobe/plots/. */
static void test_plot_scripts(void **state)
{
    (void)state;
    need_installed();
    int st;
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "cd '%s' && ls probes/*/*.gp", cli_in_repo(""));
    char *list = cli_sh_out(cmd, &st, NULL), *save = NULL;
    assert_int_equal(st, 0);
    char plots[PATHLEN + 8];
    snprintf(plots, sizeof plots, "%s/plots", share);
    int n = 0;
    for (char *l = strtok_r(list, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save), n++)
        must_exist(plots, strrchr(l, '/') + 1);
    assert_true(n > 0);
    free(list);
}

/* The installed binary's and libraries' RPATH: $ORIGIN-relative or the
 * toolkit's, never the checkout or this test's folders. */
static void test_rpath(void **state)
{
    (void)state;
    need_installed();
    char cmd[CMDLEN];
    snprintf(cmd, sizeof cmd, "readelf -d '%s' %.*s/lib/memprobe/*.so* | "
             "grep -E 'RPATH|RUNPATH'", bin,
             (int)(strlen(bin) - strlen("/bin/memprobe")), bin);
    int st;
    char *rp = cli_sh_out(cmd, &st, NULL);
    assert_int_equal(st, 0);
    cli_must_contain("the binary's RPATH", rp, "$ORIGIN/../lib/memprobe");
    char here[DIRLEN];
    assert_non_null(getcwd(here, sizeof here));
    const char *repo = cli_in_repo("");
    if (strstr(rp, here) || strstr(rp, "/.deps")
        || strstr(rp, repo))
        fail_msg("an RPATH names the checkout or the stage:\n%s", rp);
    free(rp);
}

/* The installed memprobe ARGS prints exactly what the checkout's prints
 * for CHECKOUT_ARGS (both run here, exit 0). */
static void same_as_checkout(const char *args, const char *checkout_args)
{
    cli_result a, b;
    run_installed(args, &a);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s", cli_exe(), checkout_args);
    sh_run(cmd, &b);
    if (a.status != 0 || b.status != 0)
        fail_msg("memprobe %s: exit %d (checkout: %d)\n%s%s", args,
                 a.status, b.status, a.err, b.err);
    if (strcmp(a.out, b.out) || !a.out[0])
        fail_msg("installed memprobe %s printed\n%s\nthe checkout's\n%s",
                 args, a.out, b.out);
    cli_result_free(&a);
    cli_result_free(&b);
}

static void test_list_predict(void **state)
{
    (void)state;
    same_as_checkout("list", "list");
    same_as_checkout("predict coalesce --width 8 --offset 8 --format csv",
                     "predict coalesce --width 8 --offset 8 --format csv");
}

/* report on the installed copy of a committed CSV, hierarchy and compare
 * on the checkout's. */
static void test_report_hierarchy_compare(void **state)
{
    (void)state;
    need_installed();
    char a[CMDLEN], b[CMDLEN];
    snprintf(a, sizeof a, "report '%s/results/h200/bank/bank-sweep.csv' "
             "--format md", share);
    snprintf(b, sizeof b, "report '%s' --format md",
             cli_in_repo("results/h200/bank/bank-sweep.csv"));
    same_as_checkout(a, b);
    snprintf(a, sizeof a, "hierarchy '%s' --format md",
             cli_in_repo("results/h200/latency/latency.csv"));
    same_as_checkout(a, a);
    snprintf(a, sizeof a, "compare '%s/results/h200/study/study.csv' '%s'",
             share, cli_in_repo("results/h200/study/study.csv"));
    cli_result r;
    run_installed(a, &r);
    cli_expect_status(&r, 0);
    cli_must_contain("compare's stdout", r.out, "0 differ beyond tolerance");
    cli_result_free(&r);
}

/* `s` with every "share/" prefix (the installed data's folder) dropped. */
static void drop_share(char *s)
{
    char prefix[PATHLEN + 2];
    snprintf(prefix, sizeof prefix, "%s/", share);
    size_t n = strlen(prefix);
    for (char *p; (p = strstr(s, prefix));)
        memmove(p, p + n, strlen(p + n) + 1);
}

/* The study from here (no results/ in this folder) reads the installed
 * copy and says what the checkout's study says, the paths aside. */
static void test_study(void **state)
{
    (void)state;
    cli_result r;
    run_installed("report --study inst.md", &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    char cmd[CMDLEN], here[DIRLEN];
    assert_non_null(getcwd(here, sizeof here));
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' report --study '%s/repo.md'",
             cli_in_repo(""), cli_exe(), here);
    sh_run(cmd, &r);
    cli_expect_status(&r, 0);
    cli_result_free(&r);
    size_t n;
    char *inst = cli_read_file("inst.md", &n), *repo = cli_read_file("repo.md",
                                                                    &n);
    drop_share(inst);
    if (strcmp(inst, repo))
        fail_msg("the installed study differs from the checkout's (an input "
                 "the Makefile's STUDY_INPUTS lacks?): diff %s/inst.md "
                 "%s/repo.md", here, here);
    free(inst);
    free(repo);
}

/* explain of a committed capture: the H200 figures come from the
 * installed data, as the checkout's come from the checkout. */
static void test_explain_capture(void **state)
{
    (void)state;
    need_installed();
    char cmd[CMDLEN];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s' > app-capture.csv && cp '%s' "
             "app-capture.csv.status",
             cli_in_repo("results/h200/explain/app-capture.csv.gz"),
             cli_in_repo("results/h200/explain/app-capture.csv.status"));
    assert_int_equal(system(cmd), 0);
    char args[CMDLEN];
    snprintf(args, sizeof args, "explain --capture app-capture.csv --from "
             "'%s' 2>&1",
             cli_in_repo("results/h200/explain/csv/app-profile.csv"));
    same_as_checkout(args, args);
    cli_result r;
    run_installed(args, &r);
    cli_must_contain("explain's output", r.out, "H200               16.00 "
                     "sectors a request (results/h200/coalesce/"
                     "coalesce-w8.csv");
    cli_result_free(&r);
}

/* profile finds the installed injection library; without a GPU it then
 * fails for that, not for a missing library. */
static void test_profile_finds_library(void **state)
{
    (void)state;
    cli_result r;
    run_installed("profile -o prof.csv -- true", &r);
    if (strstr(r.err, "is missing") || r.status == 2)
        fail_msg("profile: exit %d\n%s", r.status, r.err);
    cli_result_free(&r);
}

/* make uninstall removes every file make install wrote. */
static void test_uninstall(void **state)
{
    (void)state;
    char here[DIRLEN], vars[PATHLEN];
    assert_non_null(getcwd(here, sizeof here));
    cli_result r;
    const char *goals[] = {"install", "uninstall"};
    for (size_t i = 0; i < CLI_COUNT(goals); i++) {
        snprintf(vars, sizeof vars, "%s DESTDIR='%s/un' PREFIX=/opt/mp",
                 goals[i], here);
        run_make(vars, &r);
        if (r.status != 0)
            fail_msg("make %s: exit %d\n%s", vars, r.status, r.err);
        cli_result_free(&r);
    }
    int st;
    char cmd[PATHLEN + 32];
    snprintf(cmd, sizeof cmd, "find '%s/un' -type f", here);
    char *left = cli_sh_out(cmd, &st, NULL);
    assert_int_equal(st, 0);
    if (left[0])
        fail_msg("make uninstall left\n%s", left);
    free(left);
}

/* A relative PREFIX is refused in one line naming it, before anything is
 * built or copied. */
static void test_relative_prefix(void **state)
{
    (void)state;
    cli_result r;
    run_make("install PREFIX=opt/mp", &r);
    assert_int_equal(r.status, 2);
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    cli_must_contain("stderr", r.err, "PREFIX=opt/mp");
    cli_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_install_and_move),
        cmocka_unit_test(test_plot_scripts),
        cmocka_unit_test(test_rpath),
        cmocka_unit_test(test_list_predict),
        cmocka_unit_test(test_report_hierarchy_compare),
        cmocka_unit_test(test_study),
        cmocka_unit_test(test_explain_capture),
        cmocka_unit_test(test_profile_finds_library),
        cmocka_unit_test(test_uninstall),
        cmocka_unit_test(test_relative_prefix),
    };
    return CLI_RUN_TESTS("install", tests);
}
