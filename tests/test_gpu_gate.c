/*
 * test_gpu_gate.c - scripts/gpu-gate.sh, the check .ci/run makes that code
 * lands only with a green full `make test-gpu` of its own commit, on
 * throw-away git repositories made here: a PASS record of HEAD
 * passes, and so does one followed by commits of docs/, results/ and
 * *.md only; a code change after it, a FAIL record, a record with a not
 * ok, a commit outside HEAD's history or no record at all fail. `commit`
 * prints HEAD's hash and refuses a dirty tree. Needs git (CI has it).
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

static char repo[] = "/tmp/test_gpu_gate.XXXXXX";
static char script[PATH_MAX];

/* Runs a shell command in the repository; its exit status. Output into
 * out (NUL-terminated) when out is not NULL. */
static int sh(char *out, size_t len, const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(cmd, sizeof cmd, "cd '%s' && ( ", repo);
    n += vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
    va_end(ap);
    snprintf(cmd + n, sizeof cmd - (size_t)n, " ) 2>&1");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t got = 0;
    char sink[4096];
    char *buf = out ? out : sink;
    size_t cap = out ? len : sizeof sink;
    got = fread(buf, 1, cap - 1, p);
    buf[got] = '\0';
    while (fread(sink, 1, sizeof sink, p) > 0)
        ;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

#define GIT "git -c user.name=t -c user.email=t@example.invalid "

static void commit_file(const char *path, const char *text)
{
    assert_int_equal(sh(NULL, 0, "mkdir -p \"$(dirname '%s')\" && printf '%%s\\n' '%s' > '%s' && "
                        GIT "add -A && " GIT "commit -q -m '%s'", path, text,
                        path, path), 0);
}

static void head(char *hash)   /* 41 bytes */
{
    assert_int_equal(sh(hash, 41, "git rev-parse HEAD"), 0);
}

/* results/h200/test-gpu.txt saying the suite ran at commit with result
 * and tests. */
static void write_record(const char *commit, const char *result,
                         const char *tests)
{
    assert_int_equal(sh(NULL, 0, "mkdir -p results/h200 && printf "
                        "'commit: %%s\\nresult: %%s\\nduration_s: 250\\n"
                        "tests: %%s\\nskip: test_gpu_transfer one GPU\\n' "
                        "'%s' '%s' '%s' > results/h200/test-gpu.txt",
                        commit, result, tests), 0);
}

/* `gpu-gate.sh check` exits want and, unless needle is NULL, its output
 * contains needle. */
static void expect_gate(int want, const char *needle)
{
    char out[1024];
    assert_int_equal(sh(out, sizeof out, "'%s' check", script), want);
    if (needle)
        assert_non_null(strstr(out, needle));
}

/* write_record, then expect_gate(want, needle). */
static void expect_gate_on(const char *commit, const char *result,
                           const char *tests, int want, const char *needle)
{
    write_record(commit, result, tests);
    expect_gate(want, needle);
}

static int setup(void **state)
{
    (void)state;
    if (!realpath("scripts/gpu-gate.sh", script) || !mkdtemp(repo))
        return -1;
    char out[256];
    if (sh(out, sizeof out, "git init -q .") != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cli_remove_tree(repo);
    return 0;
}

static void gate(void **state)
{
    (void)state;
    char out[1024], gated[41], other[41];
    commit_file("probes/a.c", "int a;");
    /* No record yet. */
    expect_gate(1, "no results/h200/test-gpu.txt");
    head(gated);
    expect_gate_on(gated, "PASS", "2412 ok, 0 not ok, 1 skipped", 0, NULL);
    /* The record and notes committed after it: still covered. */
    assert_int_equal(sh(NULL, 0, GIT "add -A && " GIT "commit -q -m rec"), 0);
    commit_file("docs/notes.md", "measured");
    commit_file("results/h200/x.csv", "a,b");
    commit_file("README.md", "two commands");
    expect_gate(0, "PASS at");
    /* No gate: a FAIL, a not ok, a commit not of this history. */
    static const struct {
        const char *commit, *result, *tests, *needle;
    } no_gate[] = {
        {NULL, "FAIL", "2411 ok, 1 not ok, 1 skipped", "result: FAIL"},
        {NULL, "PASS", "2411 ok, 1 not ok, 1 skipped", NULL},
        {"0123456789abcdef0123456789abcdef01234567", "PASS",
         "2412 ok, 0 not ok, 1 skipped", "does not have"},
    };
    for (size_t i = 0; i < sizeof no_gate / sizeof *no_gate; i++)
        expect_gate_on(no_gate[i].commit ? no_gate[i].commit : gated,
                       no_gate[i].result, no_gate[i].tests, 1,
                       no_gate[i].needle);
    /* Code after the gated commit. */
    write_record(gated, "PASS", "2412 ok, 0 not ok, 1 skipped");
    assert_int_equal(sh(NULL, 0, GIT "add -A && " GIT "commit -q --allow-empty -m rec2"), 0);
    commit_file("probes/a.c", "int b;");
    expect_gate(1, "probes/a.c");
    /* A gate of the new HEAD covers it again. */
    head(other);
    expect_gate_on(other, "PASS", "2412 ok, 0 not ok, 0 skipped", 0, NULL);
    /* The hash for the gate run: HEAD, only from a clean tree. */
    assert_int_equal(sh(NULL, 0, GIT "add -A && " GIT "commit -q --allow-empty -m rec3"), 0);
    head(other);
    assert_int_equal(sh(out, sizeof out, "'%s' commit", script), 0);
    assert_memory_equal(out, other, 40);
    assert_int_equal(sh(NULL, 0, "echo x > probes/new.c"), 0);
    assert_int_equal(sh(out, sizeof out, "'%s' commit", script), 1);
    assert_non_null(strstr(out, "differs from HEAD"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gate),
    };
    return cmocka_run_group_tests_name("gpu_gate", tests, setup, teardown);
}
