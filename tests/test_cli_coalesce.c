/*
 * test_cli_coalesce.c - the coalesce probe from the command line: runs the
 * built memprobe binary (env MEMPROBE, default ./memprobe) without a shell
 * and checks exit status, stdout and stderr; also the probe's label and
 * check functions called directly.
 *
 * Bad input must end with exit 2 and one stderr line naming the parameter,
 * before any GPU work and without creating results/. `predict coalesce
 * --format csv` must print a header and one row per configuration whose
 * numbers are exactly the sector model's (model/sector_model.c). Runs
 * happen in a fresh temporary directory.
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

#include "pattern.h"
#include "probe.h"
#include "sector_model.h"

extern char **environ;

#define MAXARGS 24   /* arguments of one table line */

static char exe[PATH_MAX];
static char workdir[64];
static char origdir[PATH_MAX];

/* ---- running the binary --------------------------------------------- */

typedef struct {
    int status;          /* exit status, or 128 + signal */
    char *out, *err;     /* NUL-terminated */
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

/* Runs `exe args...` with stdin from /dev/null; stdout and stderr are
 * read back from unlinked temporary files. */
static void run(const char *const *args, result *r)
{
    char *argv[MAXARGS + 2];
    int n = 0;
    argv[n++] = exe;
    for (int i = 0; args[i]; i++) {
        assert_true(n < MAXARGS + 1);
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

/* ---- table 1: commands that work ------------------------------------ */

typedef struct {
    const char *args[MAXARGS];
    const char *out[3];          /* stdout must contain each */
} good_case;

static const good_case good_cases[] = {
    {{"coalesce", "--help"}, {"usage: memprobe coalesce", "--offset",
                              "aos12-staged"}},
    {{"predict", "coalesce", "--help"}, {"usage: memprobe predict coalesce",
                                         "--format"}},
    {{"list"}, {"coalesce", "--cache", "default|cg"}},
    {{"help"}, {"coalesce"}},
    {{"predict", "coalesce"}, {"sectors_per_request", "pattern"}},
    {{"predict", "coalesce", "--layout", "aos12"}, {"aos12", "sectors_per_iteration"}},
    /* Widths with offsets that suit all of them. */
    {{"predict", "coalesce", "--width", "4,8,16", "--offset", "0..128:16",
      "--op", "ld,st"}, {"coalesce"}},
    {{"predict", "coalesce", "--op", "ld", "--cache", "cg"}, {" cg "}},
    {{"predict", "coalesce", "--layout", "soa,aos12,aos16,aos12-staged",
      "--threads", "128", "--iterations", "8", "--blocks", "4"}, {"aos16"}},
};

static void test_good(void **state)
{
    const good_case *c = *state;
    result r;
    run(c->args, &r);
    if (r.status != 0)
        fail_msg("exit %d, want 0; stderr:\n%s", r.status, r.err);
    for (int i = 0; i < 3 && c->out[i]; i++)
        must_contain("stdout", r.out, c->out[i]);
    if (r.errlen)
        fail_msg("unexpected stderr:\n%s", r.err);
    result_free(&r);
}

/* ---- table 2: bad input: exit 2, one stderr line naming it ---------- */

typedef struct {
    const char *args[MAXARGS];
    const char *names;           /* the stderr line must contain this */
} bad_case;

static const bad_case bad_cases[] = {
    /* Misaligned offsets: never a misaligned-address fault. */
    {{"coalesce", "--offset", "6"}, "--offset"},
    {{"coalesce", "--width", "8", "--offset", "4"}, "--offset"},
    {{"coalesce", "--width", "16", "--offset", "8"}, "--offset"},
    {{"coalesce", "--width", "16", "--offset", "4088"}, "--offset"},
    {{"predict", "coalesce", "--width", "8", "--offset", "12"}, "--offset"},
    /* A sweep with one invalid combination (width 8, offset 4). */
    {{"coalesce", "--width", "4,8", "--offset", "0,4"}, "--offset"},
    /* Values out of range or not allowed. */
    {{"coalesce", "--width", "12"}, "--width"},
    {{"coalesce", "--width", "2"}, "--width"},
    {{"coalesce", "--layout", "xx"}, "--layout"},
    {{"coalesce", "--layout", "aos"}, "--layout"},
    {{"coalesce", "--op", "rw"}, "--op"},
    {{"coalesce", "--cache", "cs"}, "--cache"},
    {{"coalesce", "--op", "st", "--cache", "cg"}, "--cache"},
    {{"predict", "coalesce", "--op", "ld,st", "--cache", "cg"}, "--cache"},
    {{"coalesce", "--offset", "-4"}, "--offset"},
    {{"coalesce", "--offset", "4100"}, "--offset"},
    {{"coalesce", "--offset", "99999999999999999999"}, "--offset"},
    {{"coalesce", "--stride", "-1"}, "--stride"},
    {{"coalesce", "--stride", "1025"}, "--stride"},
    {{"coalesce", "--group", "0"}, "--group"},
    {{"coalesce", "--group", "33"}, "--group"},
    {{"coalesce", "--period", "0"}, "--period"},
    {{"coalesce", "--threads", "48"}, "--threads"},
    {{"coalesce", "--threads", "2048"}, "--threads"},
    {{"coalesce", "--blocks", "16385"}, "--blocks"},
    {{"coalesce", "--blocks", "-1"}, "--blocks"},
    {{"coalesce", "--iterations", "0"}, "--iterations"},
    {{"coalesce", "--iterations", "4097"}, "--iterations"},
    {{"coalesce", "--width", "8", "--width", "4"}, "--width"},
    /* Layouts take threads, blocks and iterations only. */
    {{"coalesce", "--layout", "aos12", "--stride", "2"}, "--stride"},
    {{"coalesce", "--layout", "soa", "--width", "16"}, "--width"},
    {{"coalesce", "--layout", "aos16", "--offset", "16"}, "--offset"},
    {{"coalesce", "--layout", "aos12-staged", "--op", "st"}, "--op"},
    {{"coalesce", "--layout", "soa", "--cache", "cg"}, "--cache"},
    {{"coalesce", "--layout", "aos12", "--group", "2"}, "--group"},
    {{"coalesce", "--layout", "aos16", "--period", "16"}, "--period"},
    {{"predict", "coalesce", "--layout", "pattern,soa", "--stride", "2"},
     "--stride"},
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

/* ---- predict --format csv against the model ------------------------- */

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

/* A parsed `predict --format csv` with exactly one row. */
typedef struct {
    result r;
    char *h[64], *v[64];
    int n;
} csv_one;

static void predict_one(const char *const *args, csv_one *c)
{
    run(args, &c->r);
    if (c->r.status != 0)
        fail_msg("exit %d: %s", c->r.status, c->r.err);
    assert_int_equal(c->r.errlen, 0);
    /* Exactly a header and one row, each ending with CRLF. */
    assert_int_equal(count_char(c->r.out, '\n'), 2);
    assert_int_equal(count_char(c->r.out, '\r'), 2);
    assert_true(c->r.outlen >= 2
                && !strcmp(c->r.out + c->r.outlen - 2, "\r\n"));
    char *header = c->r.out;
    char *crlf = strstr(header, "\r\n");
    *crlf = '\0';
    char *row = crlf + 2;
    row[strlen(row) - 2] = '\0';
    c->n = split(header, c->h, 64);
    assert_int_equal(split(row, c->v, 64), c->n);
    assert_string_equal(c->h[0], "probe");
    assert_string_equal(c->v[0], "coalesce");
}

static double cell(const csv_one *c, const char *name)
{
    return number(c->v[column((char **)c->h, c->n, name)]);
}

static const char *text(const csv_one *c, const char *name)
{
    return c->v[column((char **)c->h, c->n, name)];
}

typedef struct {
    const char *op, *width, *offset, *stride, *group, *period;
} predict_case;

static const predict_case predict_cases[] = {
    {"ld", "8", "8", "1", "1", "32"},      /* the command */
    {"ld", "4", "0", "1", "1", "32"},
    {"st", "4", "4", "1", "1", "32"},
    {"ld", "16", "16", "1", "1", "32"},
    {"st", "16", "48", "3", "1", "32"},
    {"ld", "4", "64", "8", "1", "32"},
    {"ld", "8", "0", "0", "1", "32"},
    {"st", "4", "0", "32", "1", "4"},
    {"ld", "16", "0", "2", "4", "16"},
    {"ld", "8", "120", "1", "3", "32"},
    {"st", "8", "4088", "1024", "1", "32"},
};

static void check_pattern_csv(const predict_case *pc)
{
    const char *args[] = {"predict", "coalesce", "--op", pc->op, "--width",
                          pc->width, "--offset", pc->offset, "--stride",
                          pc->stride, "--group", pc->group, "--period",
                          pc->period, "--format", "csv", NULL};
    csv_one c;
    predict_one(args, &c);
    assert_string_equal(text(&c, "layout"), "pattern");
    assert_string_equal(text(&c, "op"), pc->op);
    assert_string_equal(text(&c, "width"), pc->width);
    assert_string_equal(text(&c, "offset"), pc->offset);
    assert_string_equal(text(&c, "stride"), pc->stride);
    assert_string_equal(text(&c, "group"), pc->group);
    assert_string_equal(text(&c, "period"), pc->period);
    assert_string_equal(text(&c, "cache"), "default");

    mp_pattern p = {0, atoll(pc->stride), atoll(pc->group),
                    atoll(pc->period), 0};
    mp_sector_prediction s;
    mp_sector_predict_pattern(&p, atoll(pc->offset), atoi(pc->width),
                              !strcmp(pc->op, "st"), &s);
    print_message("# %s w%s o%s s%s g%s p%s: %d sectors, ideal %d, %d "
                  "lines\n", pc->op, pc->width, pc->offset, pc->stride,
                  pc->group, pc->period, s.sectors, s.ideal_sectors,
                  s.lines);
    assert_true(cell(&c, "sectors_per_request") == s.sectors_per_request);
    assert_true(cell(&c, "ideal_sectors_per_request")
                == (double)s.ideal_sectors / s.requests);
    assert_true(cell(&c, "requests_per_instruction") == s.requests);
    assert_true(cell(&c, "sectors_per_instruction") == s.sectors);
    assert_true(cell(&c, "lines_per_instruction") == s.lines);
    assert_true(cell(&c, "distinct_addresses") == s.distinct_addresses);
    assert_true(cell(&c, "instructions_per_iteration") == 1);
    assert_true(cell(&c, "sectors_per_iteration") == s.sectors);
    result_free(&c.r);
}

static void test_predict_csv_pattern(void **state)
{
    (void)state;
    /* The exact command line, checked by hand: 8-byte lanes from
     * byte 8: bytes 8..263 -> sectors 0..8 = 9, ideal 256/32 = 8, lines
     * 0..2 = 3. */
    const char *args[] = {"predict", "coalesce", "--width", "8", "--offset",
                          "8", "--stride", "1", "--format", "csv", NULL};
    csv_one c;
    predict_one(args, &c);
    /* The header names both (column() fails the test otherwise). */
    column(c.h, c.n, "sectors_per_request");
    column(c.h, c.n, "ideal_sectors_per_request");
    assert_true(cell(&c, "sectors_per_request") == 9);
    assert_true(cell(&c, "ideal_sectors_per_request") == 8);
    assert_true(cell(&c, "lines_per_instruction") == 3);
    result_free(&c.r);

    for (size_t i = 0; i < sizeof predict_cases / sizeof predict_cases[0];
         i++)
        check_pattern_csv(&predict_cases[i]);
}

static void test_predict_csv_layouts(void **state)
{
    (void)state;
    for (int layout = MP_LAYOUT_SOA; layout < MP_LAYOUT_COUNT; layout++) {
        const char *args[] = {"predict", "coalesce", "--layout",
                              mp_layout_names[layout], "--format", "csv",
                              NULL};
        csv_one c;
        predict_one(args, &c);
        assert_string_equal(text(&c, "layout"), mp_layout_names[layout]);
        mp_layout_prediction p;
        assert_int_equal(mp_layout_predict((mp_layout)layout, &p), 0);
        print_message("# %s: %d loads, %d sectors, ideal %d\n",
                      mp_layout_names[layout], p.ld_instructions,
                      p.ld_sectors, p.ld_ideal_sectors);
        assert_true(cell(&c, "sectors_per_request")
                    == (double)p.ld_sectors / p.ld_requests);
        assert_true(cell(&c, "ideal_sectors_per_request")
                    == (double)p.ld_ideal_sectors / p.ld_requests);
        assert_true(cell(&c, "instructions_per_iteration")
                    == p.ld_instructions);
        assert_true(cell(&c, "sectors_per_iteration") == p.ld_sectors);
        result_free(&c.r);
    }
    /* By hand (test_sector_model.c derives them): sectors per element
     * warp soa 12, aos12 36, aos16 16, staged 12. */
    const char *args[] = {"predict", "coalesce", "--layout", "aos12",
                          "--format", "csv", NULL};
    csv_one c;
    predict_one(args, &c);
    assert_true(cell(&c, "sectors_per_iteration") == 36);
    assert_true(cell(&c, "sectors_per_request") == 12);
    assert_true(cell(&c, "ideal_sectors_per_request") == 4);
    result_free(&c.r);
}

/* A sweep: one row per configuration, op slowest (table order: layout,
 * op, width, offset, stride, ...). */
static void test_predict_csv_sweep(void **state)
{
    (void)state;
    const char *args[] = {"predict", "coalesce", "--op", "ld,st", "--width",
                          "4", "--offset", "0,4", "--stride", "1,2",
                          "--format", "csv", NULL};
    result r;
    run(args, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(count_char(r.out, '\n'), 1 + 8);
    /* o0 s1: 4 sectors; o0 s2: bytes 0..251 -> 8; o4 s1: 4..131 -> 5;
     * o4 s2: 4..255 -> 8 (ideal 4 each). */
    must_contain("sweep", r.out,
                 "\r\ncoalesce,pattern,ld,4,0,1,1,32,default,4,4,1,4,1,32,1,4\r\n"
                 "coalesce,pattern,ld,4,0,2,1,32,default,8,4,1,8,2,32,1,8\r\n"
                 "coalesce,pattern,ld,4,4,1,1,32,default,5,4,1,5,2,32,1,5\r\n"
                 "coalesce,pattern,ld,4,4,2,1,32,default,8,4,1,8,2,32,1,8\r\n"
                 "coalesce,pattern,st,4,0,1,1,32,default,4,4,1,4,1,32,1,4\r\n");
    result_free(&r);
}

/* ---- the probe's functions, called directly ------------------------- */

/* A configuration from the defaults with some parameters changed. */
static void config(const mp_probe *p, long long *v, ...)
{
    for (int i = 0; i < p->nparams; i++)
        v[i] = p->params[i].def;
    va_list ap;
    va_start(ap, v);
    for (const char *name; (name = va_arg(ap, const char *)) != NULL;) {
        long long value = va_arg(ap, long long);
        int k = mp_param_find(p->params, p->nparams, name);
        assert_true(k >= 0);
        v[k] = value;
    }
    va_end(ap);
}

static void test_labels(void **state)
{
    (void)state;
    const mp_probe *p = mp_probe_find("coalesce");
    assert_non_null(p);
    long long v[MP_MAX_PARAMS];
    char buf[128];
    config(p, v, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/pattern/ld/w4/o0/s1/g1/p32/default");
    config(p, v, "op", 0LL, "width", 8LL, "offset", 8LL, "stride", 1LL,
           NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/pattern/ld/w8/o8/s1/g1/p32/default");
    config(p, v, "op", 1LL, "width", 16LL, "offset", 128LL, "stride", 32LL,
           "group", 2LL, "period", 16LL, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf,
                        "coalesce/pattern/st/w16/o128/s32/g2/p16/default");
    config(p, v, "cache", 1LL, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/pattern/ld/w4/o0/s1/g1/p32/cg");
    config(p, v, "layout", (long long)MP_LAYOUT_AOS12, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/aos12");
    config(p, v, "layout", (long long)MP_LAYOUT_AOS12_STAGED, NULL);
    p->label(v, buf, sizeof buf);
    assert_string_equal(buf, "coalesce/aos12-staged");
}

/* The probe's check on configurations the CLI cannot reach one by one:
 * the full issue sweep is valid, every misaligned offset is not. */
static void test_check_sweep(void **state)
{
    (void)state;
    const mp_probe *p = mp_probe_find("coalesce");
    long long v[MP_MAX_PARAMS];
    char err[256];
    static const int strides[] = {1, 2, 3, 4, 8, 32};
    int valid = 0;
    for (int w = 4; w <= 16; w *= 2)
        for (int off = 0; off <= 128; off++)
            for (int s = 0; s < 6; s++)
                for (int op = 0; op < 2; op++) {
                    config(p, v, "op", (long long)op, "width", (long long)w,
                           "offset", (long long)off, "stride",
                           (long long)strides[s], NULL);
                    int rc = p->check(v, MP_SM90_SMEM_OPTIN, err, sizeof err);
                    if (off % w == 0) {
                        if (rc)
                            fail_msg("w%d o%d: %s", w, off, err);
                        valid++;
                    } else {
                        assert_int_equal(rc, -1);
                        must_contain("error", err, "--offset");
                    }
                }
    /* Offsets 0..128 step w: 33 + 17 + 9 = 59, x 6 strides x 2 ops. */
    assert_int_equal(valid, 59 * 6 * 2);
    /* The largest window: stride 1024 x 31 lanes x 16 B + 16 + 4096. */
    config(p, v, "width", 16LL, "stride", 1024LL, "offset", 4096LL, NULL);
    assert_int_equal(p->check(v, MP_SM90_SMEM_OPTIN, err, sizeof err), 0);
}

/* ---- group ------------------------------------------------------------- */

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
    snprintf(workdir, sizeof workdir, "/tmp/memprobe-cli-cwd-XXXXXX");
    if (!mkdtemp(workdir) || chdir(workdir))
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    unlink("results/latest.csv");
    rmdir("results");
    if (chdir(origdir))
        return -1;
    rmdir(workdir);
    return 0;
}

/* "coalesce --offset 6" from a NULL-terminated argument list. */
static char *name_of(const char *prefix, const char *const *args)
{
    size_t len = strlen(prefix) + 1;
    for (int i = 0; args[i]; i++)
        len += strlen(args[i]) + 3;
    char *s = malloc(len);
    assert_non_null(s);
    strcpy(s, prefix);
    for (int i = 0; args[i]; i++) {
        strcat(s, " ");
        strcat(s, args[i][0] ? args[i] : "''");
    }
    return s;
}

int main(void)
{
    enum { NGOOD = sizeof good_cases / sizeof good_cases[0],
           NBAD = sizeof bad_cases / sizeof bad_cases[0] };
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_predict_csv_pattern),
        cmocka_unit_test(test_predict_csv_layouts),
        cmocka_unit_test(test_predict_csv_sweep),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_check_sweep),
    };
    enum { NFIXED = sizeof fixed / sizeof fixed[0] };
    static struct CMUnitTest tests[NGOOD + NBAD + NFIXED];
    static char *names[NGOOD + NBAD];
    size_t n = 0;
    for (size_t i = 0; i < NGOOD; i++) {
        names[n] = name_of("ok:", good_cases[i].args);
        tests[n] = (struct CMUnitTest){names[n], test_good, NULL, NULL,
                                       (void *)&good_cases[i]};
        n++;
    }
    for (size_t i = 0; i < NBAD; i++) {
        names[n] = name_of("bad input:", bad_cases[i].args);
        tests[n] = (struct CMUnitTest){names[n], test_bad, NULL, NULL,
                                       (void *)&bad_cases[i]};
        n++;
    }
    size_t named = n;
    for (size_t i = 0; i < NFIXED; i++)
        tests[n++] = fixed[i];
    int failed = _cmocka_run_group_tests("cli_coalesce", tests, n,
                                         group_setup, group_teardown);
    for (size_t i = 0; i < named; i++)
        free(names[i]);
    return failed;
}
