/*
 * test_make.c - the Makefile as a user meets it, without a GPU:
 *   - only variables given on the command line reach memprobe or the build
 *     (a shell exporting STRIDE, ARCH, SANITIZE ... changes nothing), but
 *     for OUT, the output's path, which counts from the environment too
 *     (OUT=x make probe-bank is make probe-bank OUT=x): checked on the
 *     commands `make -n` would run;
 *   - the three libraries: with the system's copies hidden
 *     (MP_DEPS_HIDE_SYSTEM=1, scripts/deps.sh) and no way to fetch them,
 *     make stops with one line naming the packages and runs no compiler;
 *     where apt-get can download, it unpacks them into DEPS_DIR and the
 *     build commands use that directory;
 *   - the default build carries SASS for every architecture nvcc lists,
 *     and ARCH=... narrows it.
 * Runs from the repository root (make test does).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli_util.h"

#include "mp_skip.h"

/* Every variable a user might have exported; none may count (OUT does:
 * test_environment_out). */
#define ENV_NOISE                                                           \
    "STRIDE=9 WIDTH=8 OP=st CACHE=pf256 THREADS=64 "                        \
    "RUNS=7 COUNTERS=off TIMEOUT=99 PROBE=bank CONFIG=configs/bank.conf "  \
    "RESUME=1 SUMMARY=/tmp/env-summary FILES=/tmp/env.csv FORMAT=md "       \
    "TABLE=bank PLOTS=/tmp/env-plots ARCH=x86_64 SANITIZE=1 FUZZ=1 "        \
    "DEPS=/tmp/env-deps DEPS_DIR=/tmp/env-deps TAP_LOG=/tmp/env-tap "

typedef struct {
    int status;
    char *out, *err;
} run_result;

static char *slurp(const char *path)
{
    size_t len;
    return cli_read_file(path, &len);
}

/* Runs `sh -c cmd` with the make variables of an enclosing make (make
 * test) removed, capturing stdout and stderr. */
static void run_sh(const char *cmd, run_result *r)
{
    char dir[] = "/tmp/mp-test-make-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char full[8192], o[64], e[64];
    snprintf(o, sizeof o, "%s/out", dir);
    snprintf(e, sizeof e, "%s/err", dir);
    snprintf(full, sizeof full,
             "unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES; (%s) >%s 2>%s",
             cmd, o, e);
    int st = system(full);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    r->out = slurp(o);
    r->err = slurp(e);
    unlink(o);
    unlink(e);
    rmdir(dir);
}

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

/* The line of `text` that starts with `prefix` (a copy), or fails. */
static char *line_starting(const char *text, const char *prefix,
                           const char *what)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            char *l = malloc(n + 1);
            assert_non_null(l);
            memcpy(l, p, n);
            l[n] = '\0';
            return l;
        }
        p += n + (nl != NULL);
    }
    fail_msg("%s: no line starting '%s' in:\n%s", what, prefix, text);
    return NULL;
}

/* `make -n ARGS` with ENV_NOISE and `env` (VAR=value ...) in the
 * environment runs exactly `want` (the line starting like it, trailing
 * blanks dropped). */
static void expect_recipe_env(const char *env, const char *args,
                              const char *prefix, const char *want)
{
    /* want ending in '*': the line must start with the rest */
    size_t wn = strlen(want);
    int starts = wn && want[wn - 1] == '*';
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "env " ENV_NOISE "%s make -n -s --no-print-directory %s", env,
             args);
    run_result r;
    run_sh(cmd, &r);
    if (r.status != 0)
        fail_msg("%s: exit %d\n%s%s", cmd, r.status, r.out, r.err);
    char *l = line_starting(r.out, prefix, cmd);
    /* memprobe's own status is said when it fails (the recipe's tail,
     * checked by test_exit_status): the command is the line before it */
    char *tail = strstr(l, " || { s=$?; echo \"make: memprobe exited $s\"");
    if (tail)
        *tail = '\0';
    /* blanks collapsed (empty $(if)s leave runs of them), trailing
     * ones dropped */
    size_t n = 0;
    for (const char *c = l; *c; c++)
        if (*c != ' ' || (n && l[n - 1] != ' '))
            l[n++] = *c;
    while (n && l[n - 1] == ' ')
        n--;
    l[n] = '\0';
    if (starts ? strncmp(l, want, wn - 1) != 0 || strstr(l, "/tmp/env")
               : strcmp(l, want) != 0)
        fail_msg("%s runs\n  '%s'\nwant\n  '%s'", cmd, l, want);
    free(l);
    run_free(&r);
}

static void expect_recipe(const char *args, const char *prefix,
                          const char *want)
{
    expect_recipe_env("", args, prefix, want);
}

static void test_environment_ignored(void **state)
{
    (void)state;
    /* Values are quoted (OFFSETS='0;16;...' is one value). */
    expect_recipe("probe-bank STRIDE=4", "./",
                  "./memprobe bank --stride '4'");
    expect_recipe("probe-bank STRIDE=4 OUT=/tmp/cl.csv", "./",
                  "./memprobe bank --stride '4' -o /tmp/cl.csv");
    expect_recipe("predict-bandwidth WIDTH=4", "./",
                  "./memprobe predict bandwidth --width '4'");
    expect_recipe("sweep CONFIG=configs/texture.conf", "./",
                  "./memprobe sweep configs/texture.conf");
    expect_recipe("hazards", "./", "./memprobe hazards");
    expect_recipe("ncu-check", "./", "./memprobe ncu-check");
    expect_recipe("report", "./", "./memprobe report --format txt results/*");
    expect_recipe("sanitize", "scripts/",
                  "scripts/sanitize.sh ./memprobe /dev/null");
    /* The TAP logs (scripts/tap-run.sh). */
    expect_recipe("test", "mkdir -p '",
                  "mkdir -p 'build/' && : > 'build/test.tap'*");
    expect_recipe("test-gpu", "mkdir -p '",
                  "mkdir -p 'build/' && : > 'build/test-gpu.tap'*");
    expect_recipe("test TAP_LOG=/tmp/cl/t.tap", "mkdir -p '",
                  "mkdir -p '/tmp/cl/' && : > '/tmp/cl/t.tap'*");
}

/* OUT, the output's path, counts from the environment as from the
 * command line, which wins over it. */
static void test_environment_out(void **state)
{
    (void)state;
    const char *env = "OUT=/tmp/user-out.csv";
    expect_recipe_env(env, "probe-bank STRIDE=4", "./",
                      "./memprobe bank --stride '4' -o /tmp/user-out.csv");
    expect_recipe_env(env, "probe-bank STRIDE=4 OUT=/tmp/cl.csv", "./",
                      "./memprobe bank --stride '4' -o /tmp/cl.csv");
    expect_recipe_env(env, "sweep CONFIG=configs/texture.conf", "./",
                      "./memprobe sweep configs/texture.conf -o "
                      "/tmp/user-out.csv");
    expect_recipe_env(env, "hazards", "./",
                      "./memprobe hazards -o /tmp/user-out.csv");
    expect_recipe_env(env, "study", "out=",
                      "out=\"/tmp/user-out.csv\";*");
}

/* The binary `make test` runs (MEMPROBE): under SANITIZE=1 the make
 * commands below must name the sanitized build, not rebuild ./memprobe. */
static const char *build_var(void)
{
    const char *m = getenv("MEMPROBE");
    return m && strstr(m, "build/san/") ? "SANITIZE=1 " : "";
}

/* A variable a probe-NAME or predict-NAME target does not know is
 * refused before anything is built or run: exit 2, one line naming it and
 * listing the known ones. The known ones pass. */
static void test_unknown_variables(void **state)
{
    (void)state;
    static const struct {
        const char *args, *names;
    } bad[] = {
        {"probe-bank STRDIE=4", "make probe-bank: unknown variable STRDIE=4"},
        {"probe-bank stride=4", "unknown variable stride=4"},
        {"probe-bank STRIDE=4 WIDHT=8 OUT=/tmp/x.csv",
         "unknown variable WIDHT=8;"},
        {"predict-bank STRIDE=4 RUNS=3", "make predict-bank: unknown "
                                         "variable RUNS=3"},
        {"predict-bank OUT=/tmp/x.csv", "unknown variable OUT=/tmp/x.csv"},
        {"predict-const TABLE=bank", "(memprobe const --help lists"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "make -s --no-print-directory %s%s",
                 build_var(), bad[i].args);
        run_result r;
        run_sh(cmd, &r);
        if (r.status != 2 || strcmp(r.out, "")
            || strchr(r.err, '\n') - r.err + 1 != (long)strlen(r.err)
            || !strstr(r.err, bad[i].names)
            || !strstr(r.err, "known: OP WIDTH STRIDE"))
            fail_msg("%s: exit %d, want 2 and one line with '%s'\n"
                     "stdout: %s\nstderr: %s", cmd, r.status, bad[i].names,
                     r.out, r.err);
        assert_null(strstr(r.err, "./memprobe"));
        run_free(&r);
    }
    /* A test run by `make test TAP_LOG=...` hands TAP_LOG to the makes
     * it runs (MAKEFLAGS): known (seen refused on the H200). */
    run_result inherited;
    run_sh("MAKEFLAGS=TAP_LOG=/tmp/t.tap make -n -s --no-print-directory "
           "probe-bank STRIDE=4", &inherited);
    if (inherited.status != 0 || !strstr(inherited.out, "./memprobe bank")
        || !strstr(inherited.out, "--stride '4'"))
        fail_msg("TAP_LOG from MAKEFLAGS: exit %d\n%s%s", inherited.status,
                 inherited.out, inherited.err);
    run_free(&inherited);
    /* OUT and the build's variables are known to probe-NAME. */
    expect_recipe("probe-bank STRIDE=4 OUT=/tmp/cl.csv ARCH=90 CC=gcc", "./",
                  "./memprobe bank --stride '4' -o /tmp/cl.csv");
    expect_recipe("predict-bank STRIDE=4 THREADS=64 SANITIZE=0", "./",
                  "./memprobe predict bank --stride '4' --threads '64'");
    /* Other targets are not concerned. */
    expect_recipe("report FORMAT=md TABLE=bank FILES=x.csv", "./",
                  "./memprobe report --format md --table bank x.csv");
}

/* make exits 2 for any failed recipe; the line before says memprobe's own
 * status (here: 2 for bad input; 3 where there is no GPU), and the
 * command is shown once, without the wrapper. */
/* probes/make-vars.mk, which the Makefile includes, is what the families'
 * parameter tables and the run options say now (`make make-vars`). */
static void test_make_vars_current(void **state)
{
    (void)state;
    run_result r;
    run_sh("\"${MEMPROBE:-./memprobe}\" list --make-vars", &r);
    assert_int_equal(r.status, 0);
    size_t len;
    char *file = cli_read_file("probes/make-vars.mk", &len);
    if (len != strlen(r.out) || memcmp(file, r.out, len))
        fail_msg("probes/make-vars.mk is stale: run make make-vars");
    assert_non_null(strstr(file, "MP_PARAM_VARS := OP WIDTH STRIDE "));
    assert_non_null(strstr(file, " FOOTPRINT ORDER SPACE LOADS "));
    assert_non_null(strstr(file, "\nMP_RUN_VARS := WARMUP RUNS COUNTERS "));
    free(file);
    run_free(&r);
}

static void test_exit_status(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "make --no-print-directory %sprobe-bank "
             "STRIDE=abc", build_var());
    run_result r;
    run_sh(cmd, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "memprobe: --stride: 'abc' is not a whole "
                           "number"));
    assert_non_null(strstr(r.err, "\nmake: memprobe exited 2\n"));
    assert_non_null(strstr(r.out, "memprobe bank --stride 'abc'\n"));
    assert_null(strstr(r.out, "||"));
    run_free(&r);

    if (access("/dev/nvidiactl", F_OK) != 0
        && access("/dev/nvidia0", F_OK) != 0) {
        snprintf(cmd, sizeof cmd, "make -s --no-print-directory %sprobe-bank "
                 "STRIDE=4 OUT=/tmp/mp-test-make-never.csv", build_var());
        run_sh(cmd, &r);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "nothing measured"));
        assert_non_null(strstr(r.err, "\nmake: memprobe exited 3\n"));
        assert_non_null(strstr(r.out, "wavefronts_per_request"));
        assert_null(strstr(r.out, "./memprobe"));   /* -s: not shown */
        run_free(&r);
    }
    /* Success says nothing more. */
    snprintf(cmd, sizeof cmd, "make -s --no-print-directory %spredict-bank "
             "STRIDE=4", build_var());
    run_sh(cmd, &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_null(strstr(r.out, "exited"));
    run_free(&r);
}

/* ARCH=x86_64 in the environment must not reach nvcc; the default is
 * every sm_NN of `nvcc --list-gpu-code`, with PTX of the newest. */
static void test_arch(void **state)
{
    (void)state;
    run_result r;
    run_sh("/usr/local/cuda/bin/nvcc --list-gpu-code | "
           "sed -n 's/^sm_\\([0-9]*\\)$/\\1/p' | sort -n", &r);
    assert_int_equal(r.status, 0);
    char archs[64][8];
    int n = 0;
    for (char *t = strtok(r.out, "\n"); t && n < 64; t = strtok(NULL, "\n"))
        snprintf(archs[n++], sizeof archs[0], "%s", t);
    run_free(&r);
    assert_true(n >= 10);   /* CUDA 13: sm_75 ... sm_121 */

    run_sh("env " ENV_NOISE "make -n -B -s --no-print-directory "
           "build/probes/bank/bank.cu.o", &r);
    assert_int_equal(r.status, 0);
    char *l = line_starting(r.out, "/usr/local/cuda/bin/nvcc", "make -n");
    assert_null(strstr(l, "x86_64"));
    int nsm = 0;
    for (const char *p = l; (p = strstr(p, "code=sm_")); p++)
        nsm++;
    assert_int_equal(nsm, n);
    for (int i = 0; i < n; i++) {
        char want[128];
        snprintf(want, sizeof want, "arch=compute_%.7s,code=sm_%.7s ", archs[i],
                 archs[i]);
        if (!strstr(l, want))
            fail_msg("nvcc line lacks %s: %s", want, l);
    }
    char ptx[128];
    snprintf(ptx, sizeof ptx, "code=compute_%.7s", archs[n - 1]);
    assert_non_null(strstr(l, ptx));
    free(l);
    run_free(&r);

    /* Narrowed builds: ARCH='90 80' (PTX of the newest only), and the
     * sanitizer build, which tests host code: sm_90 only. */
    static const struct {
        const char *args;
        const char *has[4], *lacks[3];   /* NULL-terminated */
    } narrowed[] = {
        {"build/probes/bank/bank.cu.o ARCH='90 80'",
         {"arch=compute_80,code=sm_80 ", "arch=compute_90,code=sm_90 ",
          "arch=compute_90,code=compute_90", NULL},
         {"sm_75", "compute_80,code=compute_80", NULL}},
        {"SANITIZE=1 build/san/probes/bank/bank.cu.o",
         {"arch=compute_90,code=sm_90 ", NULL},
         {"sm_80", "sm_100", NULL}},
    };
    for (size_t i = 0; i < sizeof narrowed / sizeof *narrowed; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "make -n -B -s --no-print-directory %s",
                 narrowed[i].args);
        run_sh(cmd, &r);
        assert_int_equal(r.status, 0);
        l = line_starting(r.out, "/usr/local/cuda/bin/nvcc", "make -n");
        for (int k = 0; narrowed[i].has[k]; k++)
            if (!strstr(l, narrowed[i].has[k]))
                fail_msg("%s: nvcc line lacks %s: %s", narrowed[i].args,
                         narrowed[i].has[k], l);
        for (int k = 0; narrowed[i].lacks[k]; k++)
            if (strstr(l, narrowed[i].lacks[k]))
                fail_msg("%s: nvcc line has %s: %s", narrowed[i].args,
                         narrowed[i].lacks[k], l);
        free(l);
        run_free(&r);
    }
}

/* System libraries hidden and apt-get failing: one line naming the three
 * packages, exit 2, no compiler run. */
static void test_deps_missing(void **state)
{
    (void)state;
    char dir[] = "/tmp/mp-deps-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/bin && printf '#!/bin/sh\\nexit 100\\n' > "
             "%s/bin/apt-get && chmod +x %s/bin/apt-get && "
             "PATH=%s/bin:$PATH MP_DEPS_HIDE_SYSTEM=1 make -s "
             "--no-print-directory -B DEPS_DIR=%s/deps memprobe",
             dir, dir, dir, dir, dir);
    run_result r;
    run_sh(cmd, &r);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err));
    assert_non_null(strstr(r.err,
                           "apt-get install libcsv-dev libinih-dev libcmocka-dev"));
    assert_null(strstr(r.err, "No such file"));
    run_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* System libraries hidden, apt-get able to download: they are unpacked
 * into DEPS_DIR, make says so in one line, and compiles and links with
 * that directory. Skipped where no package source answers. */
static void test_deps_fetched(void **state)
{
    (void)state;
    char dir[] = "/tmp/mp-deps-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && apt-get download libcsv3 >/dev/null 2>&1",
             dir);
    int can = system(cmd) == 0;
    if (!can) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
        MP_SKIP("no package source answers (apt-get download libcsv3 "
                "failed: offline?)");
    }
    snprintf(cmd, sizeof cmd,
             "MP_DEPS_HIDE_SYSTEM=1 make -n -B -s --no-print-directory "
             "DEPS_DIR=%s/deps memprobe", dir);
    run_result r;
    run_sh(cmd, &r);
    if (r.status != 0)
        fail_msg("%s: exit %d\n%s", cmd, r.status, r.err);
    char want[512];
    snprintf(want, sizeof want, "unpacked into %s/deps/", dir);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err));
    snprintf(want, sizeof want, "-I%s/deps/usr/include", dir);
    assert_non_null(strstr(r.out, want));
    snprintf(want, sizeof want, "-L%s/deps/usr/lib/x86_64-linux-gnu", dir);
    assert_non_null(strstr(r.out, want));
    run_free(&r);
    for (const char *h = "csv.h"; h; h = strcmp(h, "csv.h") == 0 ? "ini.h"
             : strcmp(h, "ini.h") == 0 ? "cmocka.h" : NULL) {
        snprintf(cmd, sizeof cmd, "test -s %s/deps/usr/include/%s", dir, h);
        assert_int_equal(system(cmd), 0);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environment_ignored),
        cmocka_unit_test(test_environment_out),
        cmocka_unit_test(test_unknown_variables),
        cmocka_unit_test(test_make_vars_current),
        cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_arch),
        cmocka_unit_test(test_deps_missing),
        cmocka_unit_test(test_deps_fetched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
