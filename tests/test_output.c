/*
 * test_output.c - memprobe's own output, command by command: with
 * standard output on /dev/full (every write fails) each command that
 * prints, and every --help, exits 1 with exactly one line saying so; and
 * every line of `memprobe help`, `memprobe list` and every --help fits in
 * 100 columns. The commands and probes are those `memprobe help` lists.
 */
#include "cli_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NAMES 64
#define WIDTH 100

/* The names `memprobe help` lists under "Commands:" and under "Probes";
 * *ncommands of them are commands, the rest probes. Returns how many. */
static int help_names(char names[][32], int *ncommands)
{
    const char *args[] = {"help", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    int n = 0, section = 0;   /* 1 commands, 2 probes */
    *ncommands = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "  ", 2)) {   /* a heading, or "Exit status" */
            section = !strncmp(line, "Commands:", 9) ? 1
                      : !strncmp(line, "Probes", 6) ? 2 : 0;
            continue;
        }
        char name[32];
        if (!section || line[2] == ' ' || sscanf(line, "%31s", name) != 1)
            continue;
        assert_true(n < MAX_NAMES);
        strcpy(names[n++], name);
        *ncommands += section == 1;
    }
    cli_result_free(&r);
    assert_true(*ncommands >= 10);   /* device .. help */
    assert_true(n - *ncommands >= 10);  /* bank .. cluster */
    return n;
}

/* Every line of what `memprobe args` prints (exit 0) is at most WIDTH
 * columns; the first that is not fails the test, named. */
static void expect_narrow(const char *const *args)
{
    cli_result r;
    cli_run_ok(args, &r);
    int no = 1;
    for (const char *s = r.out; *s; no++) {
        size_t len = strcspn(s, "\n");
        if (len > WIDTH)
            fail_msg("memprobe %s %s: line %d has %zu columns (at most %d): "
                     "%.*s", args[0], args[1] ? args[1] : "", no, len,
                     WIDTH, (int)len, s);
        s += len + (s[len] == '\n');
    }
    cli_result_free(&r);
}

/* `memprobe help`, `list` and every command's and probe's --help (a
 * probe's predict --help too) fit in 100 columns. */
static void test_lines_fit(void **state)
{
    (void)state;
    char names[MAX_NAMES][32];
    int ncommands;
    int n = help_names(names, &ncommands);
    const char *const fixed[][3] = {{"help"}, {"--help"}, {"list"}};
    for (size_t i = 0; i < CLI_COUNT(fixed); i++)
        expect_narrow(fixed[i]);
    for (int i = 0; i < n; i++) {
        const char *help[] = {names[i], "--help", NULL};
        expect_narrow(help);
        const char *predict[] = {"predict", names[i], "--help", NULL};
        if (i >= ncommands)
            expect_narrow(predict);
    }
}

/* The skip where the machine has no /dev/full. */
static void need_dev_full(void)
{
    if (access("/dev/full", W_OK) != 0)
        MP_SKIP("needs /dev/full, where every write fails, to stand for a "
                "full disk");
}

/* `memprobe args` with stdout on /dev/full: 0 when it exits 1 with one
 * stderr line "memprobe: ...cannot write the output: ...", else -1 with
 * what it did in why. An argument "@PATH" is PATH in the repository. */
static int write_error(const char *const *args, char *why, size_t len)
{
    const char *argv[8];
    int n = 0;
    for (; args[n]; n++) {
        assert_true(n < 7);
        argv[n] = args[n][0] == '@' ? cli_in_repo(args[n] + 1) : args[n];
    }
    argv[n] = NULL;
    cli_result r;
    cli_run_stdout_to("/dev/full", argv, &r);
    int ok = r.status == 1 && cli_count_char(r.err, '\n') == 1
             && !strncmp(r.err, "memprobe: ", 10)
             && strstr(r.err, "cannot write the output: ");
    if (!ok)
        snprintf(why, len, "memprobe %s%s%s >/dev/full: exit %d, want 1 "
                 "with one line saying the output cannot be written; "
                 "stderr: %s", args[0], args[1] ? " " : "",
                 args[1] ? args[1] : "", r.status, r.err);
    cli_result_free(&r);
    return ok ? 0 : -1;
}

/* One command line that prints without a GPU: with stdout on /dev/full
 * it exits 1 with one line. */
static void test_full_stdout(void **state)
{
    need_dev_full();
    char why[2048];
    if (write_error(*state, why, sizeof why))
        fail_msg("%s", why);
}

/* Every command's and every probe's --help, as `memprobe help` lists
 * them, with stdout on /dev/full: exit 1 with one line (all said). */
static void test_full_stdout_help(void **state)
{
    (void)state;
    need_dev_full();
    char names[MAX_NAMES][32], why[2048];
    int ncommands, failed = 0;
    int n = help_names(names, &ncommands);
    for (int i = 0; i < n; i++) {
        const char *help[] = {names[i], "--help", NULL};
        if (write_error(help, why, sizeof why)) {
            print_message("# %s\n", why);
            failed++;
        }
    }
    if (failed)
        fail_msg("%d of %d --help texts exit otherwise with stdout on "
                 "/dev/full", failed, n);
}

/* The command lines of test_full_stdout ("@PATH": in the repository). */
static const char *const full_lines[][6] = {
    {"help"}, {"--help"}, {"version"}, {"--version"},
    {"list"}, {"list", "--standard"}, {"list", "--make-vars"},
    {"columns"}, {"columns", "--profile"}, {"columns", "--probe", "bank"},
    {"predict", "bank", "--stride", "4"},
    {"predict", "bank", "--format", "csv"},
    {"hierarchy", "@results/h200/latency/latency.csv"},
    {"compare", "@results/h200/bank/bank-pads.csv",
     "@results/h200/bank/bank-pads.csv"},
    {"sweep", "@configs/bank.conf", "--list"},
    {"sweep", "@configs/texture.conf", "--predict"},
    /* report says it itself: still one line */
    {"report", "@results/h200/bank/bank-pads.csv"},
    {"report", "@results/h200/profile/profile.csv"},
};

/* What failed before the output did keeps its status and its one line:
 * bad input (exit 2) does not become a write error. */
static void test_bad_input_first(void **state)
{
    (void)state;
    need_dev_full();
    const char *args[] = {"predict", "bank", "--stride", "abc", NULL};
    cli_result r;
    cli_run_stdout_to("/dev/full", args, &r);
    cli_expect_status(&r, 2);
    assert_int_equal(cli_count_char(r.err, '\n'), 1);
    cli_must_contain("stderr", r.err, "--stride");
    cli_result_free(&r);
}

int main(void)
{
    enum { NFULL = CLI_COUNT(full_lines) };
    static char names[NFULL][128];
    struct CMUnitTest tests[NFULL + 3] = {
        cmocka_unit_test(test_lines_fit),
        cmocka_unit_test(test_full_stdout_help),
        cmocka_unit_test(test_bad_input_first),
    };
    for (int i = 0; i < NFULL; i++) {
        int len = snprintf(names[i], sizeof names[i], "stdout on /dev/full:");
        for (int k = 0; full_lines[i][k]; k++)
            len += snprintf(names[i] + len, sizeof names[i] - (size_t)len,
                            " %s", full_lines[i][k]);
        tests[3 + i] = (struct CMUnitTest){names[i], test_full_stdout, NULL,
                                           NULL, (void *)full_lines[i]};
    }
    return cli_run_group("output", NULL, 0, NULL, 0, tests, NFULL + 3);
}
