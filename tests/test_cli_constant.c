/*
 * test_cli_constant.c - the command line of the constant and texture
 * probes: runs the built memprobe binary (env MEMPROBE, default
 * ./memprobe) without a shell, in a fresh temporary working directory, and
 * checks exit status, stdout and stderr.
 *
 * Bad input (a table, one cmocka test per line): exit 2, exactly one
 * stderr line that names the parameter, nothing on stdout, no results/.
 * Then `predict const` / `predict texture` output against the models, and
 * the no-GPU path (exit 3, prediction printed), skipped where an NVIDIA
 * device node exists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAXARGS 16
#define MAXARGV 32

static char exe[PATH_MAX];
static char workdir[64];
static char origdir[PATH_MAX];

/* ---- running the binary (as in test_cli.c) --------------------------- */

typedef struct {
    int status;
    char *out, *err;
    size_t outlen, errlen;
} result;

static char *read_fd(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - n - 1);
        assert_true(r >= 0);
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == cap - 1) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int tmp_fd(void)
{
    char name[] = "/tmp/memprobe-cli-XXXXXX";
    int fd = mkstemp(name);
    assert_true(fd >= 0);
    unlink(name);
    return fd;
}

static void run(const char *const *args, result *r)
{
    char *argv[MAXARGV + 2];
    int n = 0;
    argv[n++] = exe;
    for (int i = 0; args[i]; i++) {
        assert_true(n < MAXARGV + 1);
        argv[n++] = (char *)args[i];
    }
    argv[n] = NULL;

    int out = tmp_fd(), err = tmp_fd();
    posix_spawn_file_actions_t fa;
    assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
    assert_int_equal(posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
                                                      O_RDONLY, 0), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&fa, out, 1), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&fa, err, 2), 0);
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        fail_msg("cannot run %s: %s", exe, strerror(rc));
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    r->out = read_fd(out, &r->outlen);
    r->err = read_fd(err, &r->errlen);
    close(out);
    close(err);
}

static void result_free(result *r)
{
    free(r->out);
    free(r->err);
}

static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

static void must_contain(const char *what, const char *hay,
                         const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("%s lacks '%s':\n%s", what, needle, hay);
}

static int path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- bad input: exit 2, one stderr line naming the parameter --------- */

typedef struct {
    const char *args[MAXARGS];
    const char *names;
} bad_case;

static const bad_case bad_cases[] = {
    /* The cases. */
    {{"const", "--spread", "0"}, "--spread"},
    {{"const", "--spread", "33"}, "--spread"},
    /* 31 x 2060 + 4 + 1792 = 65656 > 65536. */
    {{"const", "--spread", "32", "--spacing", "2060"}, "--spacing"},
    /* 1 x 65536 + 4 + 1792: the second address is past the bank. */
    {{"const", "--spread", "2", "--spacing", "65536"}, "--spacing"},
    /* 16 x 4096 + 4 + 1792 > 65536. */
    {{"const", "--spread", "17", "--spacing", "4096"}, "--spacing"},
    /* One bad value in a sweep refuses the whole sweep. */
    {{"const", "--spread", "1..32", "--spacing", "4,4096"}, "--spacing"},
    {{"const", "--spacing", "6"}, "--spacing"},
    {{"const", "--spacing", "130"}, "--spacing"},
    {{"const", "--spacing", "0"}, "--spacing"},
    {{"const", "--spacing", "65540"}, "--spacing"},
    {{"const", "--spread", "abc"}, "--spread"},
    {{"const", "--spread", "1,,2"}, "--spread"},
    {{"const", "--source", "shared"}, "--source"},
    {{"const", "--source", "texture"}, "--source"},
    /* 8 addresses x 8 lanes = 64 lanes. */
    {{"const", "--spread", "8", "--group", "8"}, "--group"},
    /* Period 32 / group 4 gives 8 addresses, not 9. */
    {{"const", "--spread", "9", "--period", "32"}, "--period"},
    {{"const", "--spread", "2", "--group", "16", "--period", "2"},
     "--group"},
    {{"const", "--group", "33"}, "--group"},
    {{"const", "--iterations", "12"}, "--iterations"},
    {{"const", "--iterations", "0"}, "--iterations"},
    {{"const", "--threads", "48"}, "--threads"},
    {{"const", "--stride", "4"}, "--stride"},
    {{"predict", "const", "--spread", "0"}, "--spread"},
    {{"predict", "const", "--spread", "32", "--spacing", "4096"},
     "--spacing"},
    {{"predict", "const", "--spacing", "2"}, "--spacing"},
    {{"texture", "--source", "tex3d"}, "--source"},
    {{"texture", "--source", "constant"}, "--source"},
    {{"texture", "--access", "diagonal"}, "--access"},
    {{"texture", "--access", "stencil,bogus"}, "--access"},
    {{"texture", "--size", "100"}, "--size"},
    {{"texture", "--size", "16"}, "--size"},
    {{"texture", "--size", "16384"}, "--size"},
    {{"texture", "--size", "-32"}, "--size"},
    {{"texture", "--spread", "2"}, "--spread"},
    {{"predict", "texture", "--access", "xx"}, "--access"},
    {{"predict", "texture", "--size", "33"}, "--size"},
};

static void test_bad(void **state)
{
    const bad_case *c = *state;
    result r;
    run(c->args, &r);
    if (r.status != 2)
        fail_msg("exit %d, want 2; stdout:\n%s\nstderr:\n%s", r.status,
                 r.out, r.err);
    if (count_char(r.err, '\n') != 1 || r.err[r.errlen - 1] != '\n')
        fail_msg("stderr is not exactly one line:\n%s", r.err);
    must_contain("stderr", r.err, "memprobe: ");
    must_contain("stderr", r.err, c->names);
    if (r.outlen)
        fail_msg("unexpected stdout:\n%s", r.out);
    assert_false(path_exists("results"));
    result_free(&r);
}

/* ---- predict ------------------------------------------------------------ */

/* Splits a CSV line without quotes (predict prints none) in place. */
static int split(char *line, char **cells, int max)
{
    int n = 0;
    for (char *p = line;; ) {
        assert_true(n < max);
        cells[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static int column(char **names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return i;
    fail_msg("no column '%s' in the header", name);
    return -1;
}

static double number(const char *cell)
{
    char *end;
    double v = strtod(cell, &end);
    if (end == cell || *end)
        fail_msg("'%s' is not a number", cell);
    return v;
}

/* The brief's command: header and one row, values by hand. */
static void test_predict_const_spread8(void **state)
{
    (void)state;
    const char *args[] = {"predict", "const", "--spread", "8", "--format",
                          "csv", NULL};
    result r;
    run(args, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.errlen, 0);
    assert_int_equal(count_char(r.out, '\n'), 2);
    assert_int_equal(count_char(r.out, '\r'), 2);
    /* Parameters (source, spread, spacing, group, period; 0 = derived),
     * then: 8 distinct addresses, 7 replays, 1 64-byte line (bytes 0..28),
     * 8 half-warp reads, 4 lanes per address, period 32, footprint 28 + 4
     * + 1792 = 1824. */
    assert_string_equal(r.out,
        "probe,source,spread,spacing,group,period,distinct_addresses,"
        "replays_per_request,distinct_64b_lines,seed_halfwarp_reads,"
        "lanes_per_address,lanes_period,footprint_bytes\r\n"
        "const,constant,8,4,0,0,8,7,1,8,4,32,1824\r\n");
    result_free(&r);
}

/* The GPU sweep's 96 configurations: one row each, in order (spread
 * slower than spacing), distinct = spread, replays = spread - 1, and the
 * lines as in test_const_model.c. */
static void test_predict_const_sweep(void **state)
{
    (void)state;
    const char *args[] = {"predict", "const", "--spread", "1..32",
                          "--spacing", "4,64,128", "--format", "csv", NULL};
    result r;
    run(args, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(count_char(r.out, '\n'), 1 + 96);
    char *line = strtok(r.out, "\r\n");
    char *h[32], *v[32];
    int nh = split(line, h, 32);
    int c_spread = column(h, nh, "spread"), c_sp = column(h, nh, "spacing");
    int c_d = column(h, nh, "distinct_addresses");
    int c_r = column(h, nh, "replays_per_request");
    int c_l = column(h, nh, "distinct_64b_lines");
    static const int spacings[] = {4, 64, 128};
    for (int i = 0; i < 96; i++) {
        line = strtok(NULL, "\r\n");
        assert_non_null(line);
        assert_int_equal(split(line, v, 32), nh);
        int s = 1 + i / 3, sp = spacings[i % 3];
        assert_true(number(v[c_spread]) == s);
        assert_true(number(v[c_sp]) == sp);
        assert_true(number(v[c_d]) == s);
        assert_true(number(v[c_r]) == s - 1);
        int lines = sp >= 64 ? s : (sp * (s - 1)) / 64 + 1;
        assert_true(number(v[c_l]) == lines);
    }
    result_free(&r);
}

/* Global and __ldg loads do not go through the IDC: 0 replays. */
static void test_predict_const_sources(void **state)
{
    (void)state;
    const char *args[] = {"predict", "const", "--source",
                          "constant,global,ldg", "--spread", "32",
                          "--format", "csv", NULL};
    result r;
    run(args, &r);
    assert_int_equal(r.status, 0);
    must_contain("predict", r.out, "\r\nconst,constant,32,4,0,0,32,31,");
    must_contain("predict", r.out, "\r\nconst,global,32,4,0,0,32,0,");
    must_contain("predict", r.out, "\r\nconst,ldg,32,4,0,0,32,0,");
    result_free(&r);
}

/* Explicit interleaved lanes: the seeds' half-warp count doubles. */
static void test_predict_const_interleaved(void **state)
{
    (void)state;
    const char *args[] = {"predict", "const", "--spread", "16", "--group",
                          "1", "--period", "16", "--format", "csv", NULL};
    result r;
    run(args, &r);
    assert_int_equal(r.status, 0);
    /* 16 addresses, 15 replays, bytes 0..60 on one line, 16 + 16
     * half-warp reads, g1/p16, footprint 60 + 4 + 1792 = 1856. */
    must_contain("predict", r.out,
                 "\r\nconst,constant,16,4,1,16,16,15,1,32,1,16,1856\r\n");
    result_free(&r);
}

/* predict texture: the linear-layout model for each access. */
static void test_predict_texture(void **state)
{
    (void)state;
    const char *args[] = {"predict", "texture", "--source", "global,tex2d",
                          "--access", "stencil,column,row", "--size",
                          "4096", "--format", "csv", NULL};
    result r;
    run(args, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.errlen, 0);
    /* requests: stencil 5 x 4096^2 / 32 = 2621440, walks 524288;
     * sectors per request 2814 / 640 = 4.396875 (exact in binary, so
     * %.6g rounds the tie to even: 4.39687),
     * 32, 4; ideal 4; 4096^2 x 4 bytes = 67108864. */
    assert_string_equal(r.out,
        "probe,source,access,size,requests,linear_sectors_per_request,"
        "ideal_sectors_per_request,array_bytes\r\n"
        "texture,global,stencil,4096,2621440,4.396875,4,67108864\r\n"
        "texture,global,column,4096,524288,32,4,67108864\r\n"
        "texture,global,row,4096,524288,4,4,67108864\r\n"
        "texture,tex2d,stencil,4096,2621440,4.396875,4,67108864\r\n"
        "texture,tex2d,column,4096,524288,32,4,67108864\r\n"
        "texture,tex2d,row,4096,524288,4,4,67108864\r\n");
    result_free(&r);
}

static void test_list_and_help(void **state)
{
    (void)state;
    const char *list[] = {"list", NULL};
    result r;
    run(list, &r);
    assert_int_equal(r.status, 0);
    must_contain("list", r.out, "const - ");
    must_contain("list", r.out, "--spacing");
    must_contain("list", r.out, "constant|global|ldg");
    must_contain("list", r.out, "texture - ");
    must_contain("list", r.out, "tex1d|tex2d|global|ldg");
    must_contain("list", r.out, "stencil|column|row");
    result_free(&r);
    const char *help[] = {"const", "--help", NULL};
    run(help, &r);
    assert_int_equal(r.status, 0);
    must_contain("help", r.out, "usage: memprobe const");
    must_contain("help", r.out, "--spread");
    result_free(&r);
    const char *thelp[] = {"predict", "texture", "--help", NULL};
    run(thelp, &r);
    assert_int_equal(r.status, 0);
    must_contain("help", r.out, "usage: memprobe predict texture");
    must_contain("help", r.out, "--access");
    result_free(&r);
}

/* ---- no GPU -------------------------------------------------------------- */

static void skip_if_gpu(void)
{
    if (access("/dev/nvidiactl", F_OK) == 0
        || access("/dev/nvidia0", F_OK) == 0) {
        print_message("# an NVIDIA device node exists: no-GPU case skipped\n");
        skip();
    }
}

static void no_gpu(const char *probe, const char *name, const char *value,
                   const char *needle)
{
    const char *args[] = {probe, name, value, "-o", "out.csv", NULL};
    result r;
    run(args, &r);
    if (r.status != 3)
        fail_msg("exit %d, want 3; stderr:\n%s", r.status, r.err);
    must_contain("stdout", r.out, needle);
    must_contain("stderr", r.err, "nothing measured");
    assert_int_equal(count_char(r.err, '\n'), 1);
    assert_false(path_exists("out.csv"));
    result_free(&r);
}

static void test_no_gpu(void **state)
{
    (void)state;
    skip_if_gpu();
    no_gpu("const", "--spread", "8", "replays_per_request");
    no_gpu("texture", "--access", "column", "linear_sectors_per_request");
    assert_false(path_exists("results"));
}

/* ---- group ---------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    const char *m = getenv("MEMPROBE");
    if (!m || !*m)
        m = "./memprobe";
    if (!realpath(m, exe)) {
        fprintf(stderr, "memprobe binary %s: not found\n", m);
        return -1;
    }
    if (!getcwd(origdir, sizeof origdir))
        return -1;
    snprintf(workdir, sizeof workdir, "/tmp/memprobe-cli-const-XXXXXX");
    if (!mkdtemp(workdir) || chdir(workdir))
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    unlink("out.csv");
    unlink("results/latest.csv");
    rmdir("results");
    if (chdir(origdir))
        return -1;
    rmdir(workdir);
    return 0;
}

static char *name_of(const char *const *args)
{
    size_t len = strlen("bad input:") + 1;
    for (int i = 0; args[i]; i++)
        len += strlen(args[i]) + 1;
    char *s = malloc(len);
    assert_non_null(s);
    strcpy(s, "bad input:");
    for (int i = 0; args[i]; i++) {
        strcat(s, " ");
        strcat(s, args[i]);
    }
    return s;
}

int main(void)
{
    enum { NBAD = sizeof bad_cases / sizeof bad_cases[0] };
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_predict_const_spread8),
        cmocka_unit_test(test_predict_const_sweep),
        cmocka_unit_test(test_predict_const_sources),
        cmocka_unit_test(test_predict_const_interleaved),
        cmocka_unit_test(test_predict_texture),
        cmocka_unit_test(test_list_and_help),
        cmocka_unit_test(test_no_gpu),
    };
    enum { NFIXED = sizeof fixed / sizeof fixed[0] };
    static struct CMUnitTest tests[NBAD + NFIXED];
    char *names[NBAD];
    size_t n = 0;
    for (size_t i = 0; i < NBAD; i++) {
        names[i] = name_of(bad_cases[i].args);
        tests[n++] = (struct CMUnitTest){names[i], test_bad, NULL, NULL,
                                         (void *)&bad_cases[i]};
    }
    for (size_t i = 0; i < NFIXED; i++)
        tests[n++] = fixed[i];
    int failed = _cmocka_run_group_tests("cli_constant_texture", tests, n,
                                         group_setup, group_teardown);
    for (size_t i = 0; i < NBAD; i++)
        free(names[i]);
    return failed;
}
