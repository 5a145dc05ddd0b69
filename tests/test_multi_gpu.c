/*
 * test_multi_gpu.c - sweeps over several GPUs and shards of a fleet, on
 * the CPU: a fake node of N GPUs (MEMPROBE_FAKE_DEVICE with
 * MEMPROBE_FAKE_DEVICES, runtime/device.h) runs the real parent, workers,
 * part files and merge without measuring anything.
 *
 *   - shards (--shard K/N, and Slurm's array variables) cover a sweep's
 *     --list exactly once, for several N;
 *   - bad --shard / --devices input: exit 2, one line;
 *   - --devices all writes one CSV, each configuration once, the
 *     device_id column telling the devices apart, no part file left;
 *   - the parent killed (SIGKILL) midway, or one worker killed: --resume
 *     ends with every configuration exactly once.
 */
#include "cli_util.h"

#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "csv_table.h"

extern char **environ;

static char const_conf[PATH_MAX], transfer_conf[PATH_MAX];

/* The configuration lines of a --list output (they contain a '/'), as a
 * malloc'd array of malloc'd strings; *n their count. */
static char **list_lines(const char *out, int *n)
{
    char **lines = NULL;
    *n = 0;
    const char *p = out;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (memchr(p, '/', len)) {
            lines = realloc(lines, (size_t)(*n + 1) * sizeof *lines);
            lines[*n] = strndup(p, len);
            (*n)++;
        }
        p += len + (e ? 1 : 0);
    }
    return lines;
}

static void free_lines(char **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

static char **list_of(const char *conf, const char *shard, int *n)
{
    const char *args[] = {"sweep", conf, "--list", shard ? "--shard" : NULL,
                          shard, NULL};
    cli_result r;
    cli_run_ok(args, &r);
    char **l = list_lines(r.out, n);
    cli_result_free(&r);
    return l;
}

/* The shards 0..n-1 of conf hold every configuration of the whole list
 * exactly once, in the list's order within each shard. */
static void check_cover(const char *conf, int n)
{
    int total;
    char **all = list_of(conf, NULL, &total);
    int *seen = calloc((size_t)total, sizeof *seen);
    int sum = 0;
    for (int k = 0; k < n; k++) {
        char shard[32];
        snprintf(shard, sizeof shard, "%d/%d", k, n);
        int m;
        char **part = list_of(conf, shard, &m);
        /* Round robin: shard k holds indices k, k + n, ... */
        assert_int_equal(m, (total - k + n - 1) / n);
        for (int i = 0; i < m; i++) {
            assert_string_equal(part[i], all[k + i * n]);
            seen[k + i * n]++;
        }
        sum += m;
        free_lines(part, m);
    }
    assert_int_equal(sum, total);
    for (int i = 0; i < total; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
    free_lines(all, total);
}

static void test_shards_cover(void **state)
{
    (void)state;
    for (int n = 1; n <= 5; n++)
        check_cover(const_conf, n);
    check_cover(const_conf, 113);   /* one shard per configuration, but one */
    check_cover(transfer_conf, 4);
    check_cover(transfer_conf, 7);
}

/* Slurm's array variables select the same shard as --shard (the task id
 * counted from SLURM_ARRAY_TASK_MIN). */
static void test_slurm_shard(void **state)
{
    (void)state;
    int a, b;
    char **want = list_of(const_conf, "2/4", &a);
    setenv("SLURM_ARRAY_TASK_ID", "3", 1);
    setenv("SLURM_ARRAY_TASK_MIN", "1", 1);
    setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
    char **got = list_of(const_conf, NULL, &b);
    assert_int_equal(a, b);
    for (int i = 0; i < a; i++)
        assert_string_equal(got[i], want[i]);
    free_lines(got, b);
    /* --shard wins over the variables. */
    got = list_of(const_conf, "0/1", &b);
    assert_int_equal(b, 114);
    free_lines(got, b);
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("SLURM_ARRAY_TASK_MIN");
    unsetenv("SLURM_ARRAY_TASK_COUNT");
    free_lines(want, a);
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *c = const_conf;
    const char *a1[] = {"sweep", c, "--shard", "4/4", "--list", NULL};
    cli_expect_usage_error(a1, "--shard");
    const char *a2[] = {"sweep", c, "--shard", "1", "--list", NULL};
    cli_expect_usage_error(a2, "--shard");
    const char *a3[] = {"sweep", c, "--shard", "-1/2", NULL};
    cli_expect_usage_error(a3, "--shard");
    const char *a4[] = {"sweep", c, "--shard", "1/0", NULL};
    cli_expect_usage_error(a4, "--shard");
    const char *a5[] = {"sweep", c, "--devices", "x", NULL};
    cli_expect_usage_error(a5, "--devices");
    const char *a6[] = {"sweep", c, "--devices", "0,0", NULL};
    cli_expect_usage_error(a6, "--devices");
    const char *a7[] = {"sweep", c, "--devices", "0", "-o", "-", NULL};
    cli_expect_usage_error(a7, "--devices");
    const char *a8[] = {"sweep", c, "--devices", "0", "--device", "0", NULL};
    cli_expect_usage_error(a8, "--devices");
    const char *a9[] = {"sweep", c, "--shard", "0/2", "--shard", "1/2",
                        NULL};
    cli_expect_usage_error(a9, "--shard");
    setenv("MEMPROBE_FAKE_DEVICE", "0", 1);
    setenv("MEMPROBE_FAKE_DEVICES", "2", 1);
    const char *a10[] = {"sweep", c, "--devices", "0,2", NULL};
    cli_expect_usage_error(a10, "--devices: device 2 is not visible (2 GPUs)");
    setenv("SLURM_ARRAY_TASK_ID", "4", 1);
    setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
    const char *a11[] = {"sweep", c, "--list", NULL};
    cli_expect_usage_error(a11, "SLURM_ARRAY_TASK_ID");
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("SLURM_ARRAY_TASK_COUNT");
    unsetenv("MEMPROBE_FAKE_DEVICES");
    unsetenv("MEMPROBE_FAKE_DEVICE");
}

/* Rows of a CSV: every configuration once (fails otherwise); the rows of
 * each device_id in per_device[0..8). Returns the row count. */
static int check_once(const char *path, int per_device[8])
{
    mp_csv_table t;
    char err[512];
    if (mp_csv_table_read(path, &t, err, sizeof err))
        fail_msg("%s", err);
    int cfg = mp_csv_column(&t, "config");
    int dev = mp_csv_column(&t, "device_id");
    assert_true(cfg >= 0 && dev >= 0);
    memset(per_device, 0, 8 * sizeof *per_device);
    for (int i = 0; i < t.nrows; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(t.cells[i][cfg], t.cells[j][cfg]))
                fail_msg("%s: %s twice (rows %d and %d)", path,
                         t.cells[i][cfg], j + 1, i + 1);
        int d = atoi(t.cells[i][dev]);
        assert_true(d >= 0 && d < 8);
        per_device[d]++;
    }
    int n = t.nrows;
    mp_csv_free(&t);
    return n;
}

static void no_parts(const char *out)
{
    for (int d = 0; d < 8; d++) {
        char part[256];
        snprintf(part, sizeof part, "%s.dev%d.part", out, d);
        if (cli_path_exists(part))
            fail_msg("%s left behind", part);
    }
}

static void test_devices_one_csv(void **state)
{
    (void)state;
    setenv("MEMPROBE_FAKE_DEVICE", "1000", 1);
    setenv("MEMPROBE_FAKE_DEVICES", "4", 1);
    const char *args[] = {"sweep", const_conf, "--devices", "all", "-o",
                          "node.csv", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    cli_must_contain("stderr", r.err, "device 3: 28 rows");
    cli_result_free(&r);
    int per[8];
    assert_int_equal(check_once("node.csv", per), 114);
    /* 114 dealt round robin over 4: 29, 29, 28, 28. */
    assert_int_equal(per[0], 29);
    assert_int_equal(per[1], 29);
    assert_int_equal(per[2], 28);
    assert_int_equal(per[3], 28);
    no_parts("node.csv");
    /* --resume with everything measured: nothing runs again. */
    const char *again[] = {"sweep", const_conf, "--devices", "1,3", "-o",
                           "node.csv", "--resume", NULL};
    cli_run_ok(again, &r);
    cli_result_free(&r);
    assert_int_equal(check_once("node.csv", per), 114);
    unsetenv("MEMPROBE_FAKE_DEVICES");
    unsetenv("MEMPROBE_FAKE_DEVICE");
}

/* Starts memprobe in the background, output to /dev/null. */
static pid_t start(const char *const *args)
{
    const char *argv[16];
    int n = 0;
    argv[n++] = cli_exe();
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, cli_exe(), &fa, NULL,
                                 (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits (at most 20 s) until the part files of devices 0..n-1 exist:
 * every worker has started and opened its output. */
static void wait_for_parts(const char *out, int n)
{
    for (int tries = 0; tries < 2000; tries++) {
        int have = 0;
        for (int d = 0; d < n; d++) {
            char part[256];
            snprintf(part, sizeof part, "%s.dev%d.part", out, d);
            have += cli_path_exists(part);
        }
        if (have == n)
            return;
        sleep_ms(10);
    }
    fail_msg("the workers of %s did not start", out);
}

/* Resumes until done (at most 3 tries), then checks every configuration
 * is there once. */
static void resume_and_check(const char *out, int devices)
{
    char list[16];
    snprintf(list, sizeof list, devices == 2 ? "0,1" : "all");
    const char *args[] = {"sweep", const_conf, "--devices", list, "-o", out,
                          "--resume", "--batch", "4", NULL};
    cli_result r;
    cli_run_ok(args, &r);
    cli_result_free(&r);
    int per[8];
    assert_int_equal(check_once(out, per), 114);
    no_parts(out);
}

/* A slow fake sweep (MEMPROBE_FAKE_DEVICE=10000) on n fake devices,
 * --devices `devices`, batches of 4, into out; returns once every worker
 * has started, after a random 0-199 ms more. */
static pid_t start_slow_sweep(int n, const char *devices, const char *out)
{
    char count[16];
    snprintf(count, sizeof count, "%d", n);
    setenv("MEMPROBE_FAKE_DEVICE", "10000", 1);
    setenv("MEMPROBE_FAKE_DEVICES", count, 1);
    const char *args[] = {"sweep", const_conf, "--devices", devices, "-o",
                          out, "--batch", "4", NULL};
    pid_t p = start(args);
    wait_for_parts(out, n);
    sleep_ms(rand() % 200);
    return p;
}

static void test_kill_parent(void **state)
{
    (void)state;
    pid_t p = start_slow_sweep(3, "all", "killed.csv");
    kill(p, SIGKILL);
    int st;
    waitpid(p, &st, 0);
    sleep_ms(100);   /* the workers get SIGTERM as their parent dies */
    int parts = 0;
    for (int d = 0; d < 3; d++) {
        char part[64];
        snprintf(part, sizeof part, "killed.csv.dev%d.part", d);
        parts += cli_path_exists(part);
    }
    printf("# parent killed: %d part files left\n", parts);
    assert_int_equal(parts, 3);
    resume_and_check("killed.csv", 3);
    unsetenv("MEMPROBE_FAKE_DEVICES");
    unsetenv("MEMPROBE_FAKE_DEVICE");
}

static void test_kill_worker(void **state)
{
    (void)state;
    pid_t p = start_slow_sweep(2, "0,1", "worker.csv");
    char path[64], buf[256] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)p, (int)p);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    int a = 0, b = 0;
    assert_int_equal(sscanf(buf, "%d %d", &a, &b), 2);
    kill(b, SIGKILL);   /* the second worker: device 1 */
    int st;
    waitpid(p, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    int per[8];
    int rows = check_once("worker.csv", per);
    printf("# worker of device 1 killed: %d rows (%d of device 0, %d of "
           "device 1)\n", rows, per[0], per[1]);
    assert_int_equal(per[0], 57);
    assert_true(per[1] < 57);
    resume_and_check("worker.csv", 2);
    unsetenv("MEMPROBE_FAKE_DEVICES");
    unsetenv("MEMPROBE_FAKE_DEVICE");
}

/* Shards measured apart (a Slurm array) merge into one CSV holding every
 * configuration once; overlapping shards are reported (exit 1). */
static void test_merge(void **state)
{
    (void)state;
    setenv("MEMPROBE_FAKE_DEVICE", "0", 1);
    const char *files[] = {"shard0.csv", "shard1.csv", "shard2.csv"};
    for (int k = 0; k < 3; k++) {
        char shard[8];
        snprintf(shard, sizeof shard, "%d/3", k);
        const char *args[] = {"sweep", const_conf, "--shard", shard, "-o",
                              files[k], NULL};
        cli_result r;
        cli_run_ok(args, &r);
        cli_result_free(&r);
    }
    unsetenv("MEMPROBE_FAKE_DEVICE");
    const char *merge[] = {"report", "--merge", "-o", "merged.csv",
                           files[0], files[1], files[2], "--table", "const",
                           NULL};
    cli_result r;
    cli_run_ok(merge, &r);
    cli_must_contain("stderr", r.err, "merged 114 rows of 3 files");
    cli_must_contain("stdout", r.out, "Constant memory");
    cli_result_free(&r);
    int per[8];
    assert_int_equal(check_once("merged.csv", per), 114);
    /* The output must be new; an overlap is found. */
    cli_expect_usage_error(merge, "-o: merged.csv exists");
    const char *twice[] = {"report", "--merge", "-o", "twice.csv", files[0],
                           files[1], files[1], NULL};
    cli_run(twice, &r);
    cli_expect_status(&r, 1);
    cli_must_contain("stderr", r.err, "38 configurations measured more "
                     "than once");
    cli_result_free(&r);
    const char *no_o[] = {"report", "--merge", files[0], NULL};
    cli_expect_usage_error(no_o, "--merge: needs -o");
}

int main(void)
{
    char cwd[PATH_MAX - 64];
    if (!getcwd(cwd, sizeof cwd))
        return 1;
    snprintf(const_conf, sizeof const_conf, "%s/configs/const.conf", cwd);
    snprintf(transfer_conf, sizeof transfer_conf, "%s/configs/transfer.conf",
             cwd);
    srand((unsigned)time(NULL));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shards_cover),
        cmocka_unit_test(test_slurm_shard),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_devices_one_csv),
        cmocka_unit_test(test_kill_parent),
        cmocka_unit_test(test_kill_worker),
        cmocka_unit_test(test_merge),
    };
    return CLI_RUN_TESTS("multi_gpu", tests);
}
