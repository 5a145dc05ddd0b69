/*
 * test_faults.c - what a sweep leaves behind when it is killed or its
 * output fails, on the CPU, through the fake device test hook
 * (MEMPROBE_FAKE_DEVICE, runtime/device.h): the real runner, CSV writer
 * and --resume, with nothing launched.
 *
 * - Killed by SIGINT or SIGKILL at a random moment: the CSV holds whole
 *   rows only, each configuration at most once, and --resume completes it
 *   to exactly the configurations of an uninterrupted run.
 * - Output that cannot be written (/dev/full, a missing folder, a folder,
 *   the file-size limit reached mid-sweep): a clear one-line error, and
 *   the rows already in the file are left byte for byte.
 *
 * The random moments come from a seed printed at the start; set
 * MEMPROBE_FAULT_SEED to replay one.
 */
#include "cli_util.h"
#include "csv_table.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DELAY_US "300"     /* per configuration on the fake device */
#define BATCH "8"          /* rows reach the file every 8 configurations */

static char bank_conf[PATH_MAX], const_conf[PATH_MAX];
static unsigned seed;

/* ---- helpers ----------------------------------------------------------- */

/* Starts memprobe with args (NULL-terminated), stdout and stderr to
 * log (or /dev/null), the file-size limit fsize (0 = none). */
static pid_t start(const char *const *args, const char *log, long fsize)
{
    fflush(stdout);   /* or the child's freopen writes our buffer again */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f = freopen(log ? log : "/dev/null", "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0)
            _exit(126);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            if (setrlimit(RLIMIT_FSIZE, &rl))
                _exit(126);
        }
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)cli_exe();
        for (int i = 0; args[i] && n < 31; i++)
            argv[n++] = (char *)args[i];
        argv[n] = NULL;
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static int finish(pid_t pid)
{
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int run(const char *const *args, const char *log, long fsize)
{
    return finish(start(args, log, fsize));
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The file's configurations (the config column), checking on the way
 * that it is a valid CSV of whole lines (or absent: killed before the
 * header). Returns the count; names[] malloc'd. */
static int read_configs(const char *path, char ***names)
{
    *names = NULL;
    if (!cli_path_exists(path))
        return 0;
    size_t len;
    char *text = cli_read_file(path, &len);
    if (len > 0 && (len < 2 || strcmp(text + len - 2, "\r\n")))
        fail_msg("%s: the last line is cut (%zu bytes)", path, len);
    free(text);
    if (len == 0)
        return 0;
    mp_csv_table t;
    char err[512];
    if (mp_csv_table_read(path, &t, err, sizeof err))
        fail_msg("%s is not a valid CSV: %s", path, err);
    /* A configuration is its name and the columns the name leaves out
     * (two sections of a sweep file may differ only there). */
    static const char *const key[] = {"config", "iterations",
                                      "threads_per_block", "blocks",
                                      "warmup_runs", "timed_runs"};
    int col[6];
    for (int k = 0; k < 6; k++) {
        col[k] = mp_csv_column(&t, key[k]);
        assert_true(col[k] >= 0);
    }
    int dev = mp_csv_column(&t, "device_name");
    assert_true(dev >= 0);
    *names = calloc((size_t)t.nrows + 1, sizeof **names);
    for (int r = 0; r < t.nrows; r++) {
        assert_non_null(strstr(t.cells[r][dev], "fake device"));
        char buf[512];
        int used = 0;
        for (int k = 0; k < 6; k++)
            used += snprintf(buf + used, sizeof buf - (size_t)used, "%s%s",
                             k ? " " : "", t.cells[r][col[k]]);
        (*names)[r] = strdup(buf);
    }
    int n = t.nrows;
    mp_csv_free(&t);
    return n;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted; fails if a name repeats. */
static void sort_unique(char **names, int n, const char *what)
{
    if (n < 2)
        return;   /* killed before any row: names may be NULL */
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 1; i < n; i++)
        if (!strcmp(names[i - 1], names[i]))
            fail_msg("%s: %s appears twice", what, names[i]);
}

/* ---- killed and resumed ----------------------------------------------- */

static char **ref_names;
static int ref_n;

/* An uninterrupted run of bank.conf: the set every resumed run must end
 * with. */
static void reference(void)
{
    if (ref_names)
        return;
    const char *args[] = {"sweep", bank_conf, "--batch", BATCH, "-o",
                          "reference.csv", NULL};
    assert_int_equal(run(args, NULL, 0), 0);
    ref_n = read_configs("reference.csv", &ref_names);
    sort_unique(ref_names, ref_n, "the uninterrupted run");
    assert_true(ref_n > 2000);
}

static void kill_and_resume(int sig, int round)
{
    reference();
    char out[64];
    snprintf(out, sizeof out, "killed-%d-%d.csv", sig, round);
    const char *args[] = {"sweep", bank_conf, "--batch", BATCH, "-o", out,
                          NULL};
    int ms = 20 + rand() % 600;
    pid_t pid = start(args, NULL, 0);
    sleep_ms(ms);
    kill(pid, sig);
    int status = finish(pid);

    char **names;
    int n = read_configs(out, &names);
    sort_unique(names, n, out);
    for (int i = 0; i < n; i++)
        assert_non_null(bsearch(&names[i], ref_names, (size_t)ref_n,
                                sizeof *ref_names, by_name));
    free_names(names, n);

    const char *resume[] = {"sweep", bank_conf, "--batch", BATCH, "--resume",
                            "-o", out, NULL};
    assert_int_equal(run(resume, NULL, 0), 0);
    int m = read_configs(out, &names);
    sort_unique(names, m, out);
    assert_int_equal(m, ref_n);
    for (int i = 0; i < m; i++)
        assert_string_equal(names[i], ref_names[i]);
    free_names(names, m);
    printf("# %s after %d ms (exit %d): %d rows kept, resumed to %d\n",
           sig == SIGINT ? "SIGINT" : "SIGKILL", ms, status, n, m);
}

static void test_sigint(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++)
        kill_and_resume(SIGINT, round);
}

static void test_sigkill(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++)
        kill_and_resume(SIGKILL, round);
}

/* ---- output that cannot be written ------------------------------------ */

/* Exit 2 and one stderr line naming -o; nothing else written. A path
 * that cannot take the file is refused before the (fake) device is
 * opened: one line; one that fails only when written (/dev/full) after
 * it: the fake device's warning, then the error. */
static void expect_output_error(const char *path, const char *needle,
                                int lines_want)
{
    const char *args[] = {"sweep", const_conf, "-o", path, NULL};
    cli_result r;
    cli_run(args, &r);
    cli_expect_status(&r, 2);
    int lines = cli_count_char(r.err, '\n');
    assert_int_equal(lines, lines_want);
    cli_must_contain("stderr", r.err, "memprobe: -o: ");
    cli_must_contain("stderr", r.err, needle);
    cli_result_free(&r);
}

static void test_unwritable_outputs(void **state)
{
    (void)state;
    expect_output_error("/dev/full", "No space left on device", 2);
    expect_output_error("no/such/folder/x.csv", "No such file or directory",
                        1);
    expect_output_error(".", "Is a directory", 1);
    assert_false(cli_path_exists("no"));
}

/* Earlier results, then a sweep that hits the file-size limit after a
 * few rows: it fails with one clear line, the earlier rows stay byte for
 * byte, no partial row is left, and --resume completes the sweep. */
static void test_file_size_limit(void **state)
{
    (void)state;
    const char *first[] = {"sweep", const_conf, "-o", "limited.csv", NULL};
    assert_int_equal(run(first, NULL, 0), 0);
    size_t before_len;
    char *before = cli_read_file("limited.csv", &before_len);

    const char *more[] = {"sweep", bank_conf, "--batch", BATCH, "-o",
                          "limited.csv", NULL};
    long limit = (long)before_len + 2500;   /* a row or two more */
    int status = run(more, "limited.log", limit);
    assert_int_equal(status, 1);
    size_t log_len;
    char *log = cli_read_file("limited.log", &log_len);
    cli_must_contain("the log", log, "limited.csv: cannot write row: File "
                     "too large");
    free(log);

    size_t after_len;
    char *after = cli_read_file("limited.csv", &after_len);
    assert_true(after_len >= before_len && after_len <= (size_t)limit);
    assert_memory_equal(after, before, before_len);
    char **names;
    int n = read_configs("limited.csv", &names);   /* whole rows only */
    free_names(names, n);
    free(after);
    free(before);

    const char *resume[] = {"sweep", bank_conf, "--batch", BATCH, "--resume",
                            "-o", "limited.csv", NULL};
    assert_int_equal(run(resume, NULL, 0), 0);
    int m = read_configs("limited.csv", &names);
    sort_unique(names, m, "limited.csv");
    free_names(names, m);
    printf("# file-size limit: %d rows in the end (114 + bank.conf)\n", m);
    assert_true(m > 2000 + 114);
}

int main(void)
{
    char cwd[PATH_MAX - 64];
    if (!getcwd(cwd, sizeof cwd))
        return 1;
    snprintf(bank_conf, sizeof bank_conf, "%s/configs/bank.conf", cwd);
    snprintf(const_conf, sizeof const_conf, "%s/configs/const.conf", cwd);
    const char *s = getenv("MEMPROBE_FAULT_SEED");
    seed = s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL);
    srand(seed);
    printf("# MEMPROBE_FAULT_SEED=%u\n", seed);
    setenv("MEMPROBE_FAKE_DEVICE", DELAY_US, 1);

    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigint),
        cmocka_unit_test(test_sigkill),
        cmocka_unit_test(test_unwritable_outputs),
        cmocka_unit_test(test_file_size_limit),
    };
    int failed = cli_run_group("faults", NULL, 0, NULL, 0, tests,
                               sizeof tests / sizeof *tests);
    free_names(ref_names, ref_n);
    return failed;
}
